package daemon

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
func (d *Daemon) personClients() []PersonClient {
	if d.Household == nil {
		return nil
	}
	var out []PersonClient
	for _, name := range d.Household.People() {
		if c := d.Household.Client(name); c != nil {
			out = append(out, PersonClient{Name: name, Client: c})
		}
	}
	return out
}

// peopleNames are the names of the people configured.
func (d *Daemon) peopleNames() []string {
	cs := d.personClients()
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// personStates is each person's token state and budget, as their client
// knows them.
func (d *Daemon) personStates() []health.PersonState {
	cs := d.personClients()
	out := make([]health.PersonState, len(cs))
	for i, c := range cs {
		out[i] = health.PersonState{Name: c.Name, Token: c.Client.Token(), Budget: c.Client.Budget()}
	}
	return out
}

// healBank is the client that reads the delivery logs of person's
// webhooks (nil for a person no longer configured).
func (d *Daemon) healBank(person string) replica.HealBank {
	for _, c := range d.personClients() {
		if c.Name == person {
			return c.Client
		}
	}
	return nil
}

// peopleChanged makes the people configured now the ones whose webhooks'
// secrets verify deliveries (at start, and after a reload removed or
// added a person).
func (d *Daemon) peopleChanged(ctx context.Context) error {
	return d.keys.SetPeople(ctx, d.peopleNames())
}

var _ replica.HealBank = (*bank.Client)(nil)
