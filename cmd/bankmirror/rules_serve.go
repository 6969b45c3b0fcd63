package main

import (
	"context"
	"time"

	"github.com/bankmirror/bankmirror/internal/alerts"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/writeback"
)

// watchEvery is how often the built-in alerts are checked.
const watchEvery = 5 * time.Minute

// openRules loads the rules file (a bad one stops serve with one line:
// file:line and what) and makes the rules engine, which writes back
// through the token of a person who sees each account, and the alerts'
// dispatcher and watcher.
func (m *Daemon) openRules(ctx context.Context) error {
	set, err := m.loadRules(ctx)
	if err != nil {
		return err
	}
	zone := m.Config.Location
	m.Alerts = alerts.NewDispatcher(m.Store, m.Metrics, m.Log)
	if err := m.Alerts.Configure(set, nil); err != nil {
		return err
	}
	m.Rules = rules.NewEngine(m.Store, householdWriter{m}, set, zone, m.Log)
	m.Rules.Notifier = m.Alerts
	m.Rules.AfterRound = m.OnRulesRound
	m.watcher = alerts.NewWatcher(m.Alerts, m.Store, zone)
	m.watcher.Health = func(ctx context.Context) ([]alerts.Condition, error) {
		return alerts.Conditions(m.Health.Last().Facts, m.Config.StaleAfter), nil
	}
	return nil
}

// loadRules reads the rules file against the mirror's categories.
func (m *Daemon) loadRules(ctx context.Context) (*rules.Set, error) {
	set, err := alerts.LoadRules(ctx, m.Config.RulesFile, !m.Config.RulesFileSet, m.Store)
	if err != nil {
		return nil, err
	}
	set.AlertSettings.Zone = m.Config.Location
	return set, nil
}

// startRules runs the engine, the dispatcher and the watcher until Close.
func (m *Daemon) startRules() {
	m.bg.Go(func() { _ = m.Rules.Run(m.bgCtx) })
	m.bg.Go(func() { _ = m.Alerts.Run(m.bgCtx) })
	m.bg.Go(func() {
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			if err := m.watcher.Check(m.bgCtx, m.Rules.Rules()); err != nil && m.bgCtx.Err() == nil {
				m.Log.Warn().Err(err).Msg("alerts: a built-in alert could not be checked")
			}
			select {
			case <-m.bgCtx.Done():
				return
			case <-t.C:
			}
		}
	})
}

// reloadRules reads the rules file again; a bad one keeps the rules in
// use and says why in one line.
func (m *Daemon) reloadRules(ctx context.Context) {
	set, err := m.loadRules(ctx)
	if err == nil {
		err = m.Alerts.Configure(set, nil)
	}
	if err != nil {
		m.Log.Error().Err(err).Msg("reload: rules not replaced, the previous ones stay")
		return
	}
	m.Rules.SetRules(set)
	m.Log.Info().Int(logfield.Rules, len(set.Rules)).Str(logfield.Path, set.Path).Msg("reload: rules read again")
}

// householdWriter writes the rules' changes back through the token of a
// person who sees each account, as the household is now.
type householdWriter struct{ m *Daemon }

func (w householdWriter) Run(ctx context.Context, op writeback.Op, rows []writeback.Row, opts writeback.Options) (writeback.Report, error) {
	cs := w.m.personClients()
	people := make([]writeback.Person, len(cs))
	for i, c := range cs {
		people[i] = writeback.Person{Name: c.name, Bank: c.client}
	}
	return writeback.NewHousehold(people, w.m.Store, w.m.Log).Run(ctx, op, rows, opts)
}
