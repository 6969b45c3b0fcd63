package main

import (
	"context"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/replica"
)

// What the daemon knows per person: each person's client, their token's
// state and budget (for the report, the health checks and the metrics),
// whose secrets verify deliveries, and whose token reads a webhook's
// delivery logs.

// personClients are the people's bank clients, in order: the single
// token's client, its person named by BANKMIRROR_PERSON (default me).
func (m *Main) personClients() []personClient {
	if m.Bank == nil {
		return nil
	}
	name := m.Config.Person
	if name == "" {
		name = config.DefaultPerson
	}
	return []personClient{{name: name, client: m.Bank}}
}

// peopleNames are the names of the people configured.
func (m *Main) peopleNames() []string {
	cs := m.personClients()
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

// personStates is each person's token state and budget, as their client
// knows them.
func (m *Main) personStates() []health.PersonState {
	cs := m.personClients()
	out := make([]health.PersonState, len(cs))
	for i, c := range cs {
		out[i] = health.PersonState{Name: c.name, Token: c.client.Token(), Budget: c.client.Budget()}
	}
	return out
}

// healBank is the client that reads the delivery logs of person's
// webhooks (nil for a person no longer configured).
func (m *Main) healBank(person string) replica.HealBank {
	for _, c := range m.personClients() {
		if c.name == person {
			return c.client
		}
	}
	return nil
}

// peopleChanged makes the people configured now the ones whose webhooks'
// secrets verify deliveries (at start, and after a reload removed or
// added a person).
func (m *Main) peopleChanged(ctx context.Context) error {
	return m.keys.SetPeople(ctx, m.peopleNames())
}

var _ replica.HealBank = (*bank.Client)(nil)
