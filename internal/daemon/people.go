package daemon

import (
	"context"
	"fmt"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
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

// openHousehold makes the household of the configured people, each with
// a bank client of their own (their own budget), which reports its
// answers and its token's state to the metrics and the health monitor,
// and records them in the mirror.
func (d *Daemon) openHousehold(ctx context.Context) error {
	people := d.People
	if len(people) == 0 {
		people = []config.Person{{Name: config.DefaultPerson, Token: d.Config.Token}}
	}
	several := len(people) > 1
	within := d.UnreachableWithin
	if within == 0 {
		within = bank.CommandUnreachableWithin
	}
	d.Household = NewHousehold(d.Config, d.Store, d.Log, HouseholdOptions{
		Client: func(person string) ClientOptions {
			observe := d.Health.TokenChanged
			if several {
				observe = d.Health.PersonTokenChanged(person, config.TokenAdvice(d.Environ, person))
			}
			// A bank it cannot reach fails the sync within seconds; the
			// schedule syncs again soon (replica.ScheduleConfig.RetryBase).
			return ClientOptions{UnreachableWithin: within, OnResponse: d.Metrics.BankResponse, OnToken: observe}
		},
		Sync: replica.Options{Overlap: d.Config.SyncOverlap, StopGrace: workGrace,
			OnProgress: d.syncProgressed, AfterRun: d.syncEnded},
		PollInterval: d.Config.PollInterval,
		OnChange:     d.wakeWorker,
	})
	if err := d.Household.SetPeople(ctx, HouseholdPeople(people)); err != nil {
		return fmt.Errorf("record the household's people: %w", err)
	}
	d.Bank = d.Household.Primary()
	return nil
}

// wakeWorker wakes the worker after a person or a token changed: the
// events that waited for a rejected token are tried again.
func (d *Daemon) wakeWorker() {
	if d.Worker != nil {
		d.Worker.Notify()
	}
}

// startPolls polls the joint accounts, which get no webhook events, every
// BANKMIRROR_POLL_INTERVAL (not at all when it is 0).
func (d *Daemon) startPolls() {
	d.bg.Go(func() { d.Household.RunPoller(d.bgCtx) })
}
