package main

import (
	"context"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/replica"
)

// What the daemon knows per person: each person's client, their token's
// state and budget (for the report, the health checks and the metrics),
// whose secrets verify deliveries, and whose token reads a webhook's
// delivery logs.

// personClients are the people's bank clients, by name: the household's
// (internal/household), a single token being a household of one.
func (m *Daemon) personClients() []personClient {
	if m.Household == nil {
		return nil
	}
	var out []personClient
	for _, name := range m.Household.People() {
		if c := m.Household.Client(name); c != nil {
			out = append(out, personClient{name: name, client: c})
		}
	}
	return out
}

// peopleNames are the names of the people configured.
func (m *Daemon) peopleNames() []string {
	cs := m.personClients()
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

// personStates is each person's token state and budget, as their client
// knows them.
func (m *Daemon) personStates() []health.PersonState {
	cs := m.personClients()
	out := make([]health.PersonState, len(cs))
	for i, c := range cs {
		out[i] = health.PersonState{Name: c.name, Token: c.client.Token(), Budget: c.client.Budget()}
	}
	return out
}

// healBank is the client that reads the delivery logs of person's
// webhooks (nil for a person no longer configured).
func (m *Daemon) healBank(person string) replica.HealBank {
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
func (m *Daemon) peopleChanged(ctx context.Context) error {
	return m.keys.SetPeople(ctx, m.peopleNames())
}

var _ replica.HealBank = (*bank.Client)(nil)
