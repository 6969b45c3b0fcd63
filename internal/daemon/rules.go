package daemon

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
func (d *Daemon) openRules(ctx context.Context) error {
	set, err := d.loadRules(ctx)
	if err != nil {
		return err
	}
	zone := d.Config.Location
	d.Alerts = alerts.NewDispatcher(d.Store, d.Metrics, d.Log)
	if err := d.Alerts.Configure(set, nil); err != nil {
		return err
	}
	d.Rules = rules.NewEngine(d.Store, householdWriter{d}, set, zone, d.Log)
	d.Rules.Notifier = d.Alerts
	d.Rules.AfterRound = d.OnRulesRound
	d.watcher = alerts.NewWatcher(d.Alerts, d.Store, zone)
	d.watcher.Health = func(ctx context.Context) ([]alerts.Condition, error) {
		return alerts.Conditions(d.Health.Last().Facts, healthRules(d.Config)), nil
	}
	return nil
}

// loadRules reads the rules file against the mirror's categories, and
// checks its alerts and channels.
func (d *Daemon) loadRules(ctx context.Context) (*rules.Set, error) {
	return rules.Load(ctx, d.Config.RulesFile, rules.Options{MissingOK: !d.Config.RulesFileSet, Zone: d.Config.Location,
		Categories: d.Store, CheckChannel: alerts.CheckChannel})
}

// startRules runs the engine, the dispatcher and the watcher until Close.
func (d *Daemon) startRules() {
	d.bg.Go(func() { _ = d.Rules.Run(d.bgCtx) })
	d.bg.Go(func() { _ = d.Alerts.Run(d.bgCtx) })
	d.bg.Go(func() {
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			if err := d.watcher.Check(d.bgCtx, d.Rules.Rules()); err != nil && d.bgCtx.Err() == nil {
				d.Log.Warn().Err(err).Msg("alerts: a built-in alert could not be checked")
			}
			select {
			case <-d.bgCtx.Done():
				return
			case <-t.C:
			}
		}
	})
}

// reloadRules reads the rules file again; a bad one keeps the rules in
// use and says why in one line.
func (d *Daemon) reloadRules(ctx context.Context) {
	set, err := d.loadRules(ctx)
	if err == nil {
		err = d.Alerts.Configure(set, nil)
	}
	if err != nil {
		d.Log.Error().Err(err).Msg("reload: rules not replaced, the previous ones stay")
		return
	}
	d.Rules.SetRules(set)
	d.Log.Info().Int(logfield.Rules, len(set.Rules)).Str(logfield.Path, set.Path).Msg("reload: rules read again")
}

// householdWriter writes the rules' changes back through the token of a
// person who sees each account, as the household is now.
type householdWriter struct{ d *Daemon }

func (w householdWriter) Run(ctx context.Context, op writeback.Op, rows []writeback.Row, opts writeback.Options) (writeback.Report, error) {
	return writeback.NewHousehold(WritebackPeople(w.d.personClients()), w.d.Store, w.d.Log).Run(ctx, op, rows, opts)
}
