package daemon

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/admin"
	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/export"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/systemd"
)

// openAdmin binds the admin listener (unless BANKMIRROR_ADMIN_LISTEN is
// off) with its routes (admin.Handler) and the spreadsheet feed when
// BANKMIRROR_EXPORT_TOKEN is set, and warns when it is bound beyond
// loopback.
func (d *Daemon) openAdmin(ctx context.Context) error {
	var extra []admin.Routes
	if d.Config.ExportToken != "" {
		feed, err := export.NewFeed(d.Store.Reader(), d.Config.ExportToken, export.FeedOptions{Location: d.Config.Location, Log: d.Log,
			TrustedProxies: d.Config.Proxies, OnRefused: d.Metrics.ExportRefused(export.RefusalReasons()...)})
		if err != nil {
			return err
		}
		d.feed = feed
		extra = append(extra, feed)
		if d.Config.AdminListen == config.AdminOff {
			d.Log.Warn().Msg("BANKMIRROR_EXPORT_TOKEN is set but the admin listener is off: no spreadsheet feed")
		}
	}
	if d.Config.AdminListen == config.AdminOff {
		return nil
	}
	var err error
	if d.admin, err = admin.Listen(ctx, d.Config.AdminListen, admin.Handler(d.Health, d.Metrics, extra...)); err != nil {
		return err
	}
	if addr := strings.TrimPrefix(d.admin.URL(), "http://"); admin.Exposed(addr) {
		d.adminExposed = addr
		d.Log.Warn().Str(logfield.AdminListen, addr).Msg("the admin listener is bound beyond loopback: /metrics, /readyz and the " +
			"spreadsheet feed are reachable from other machines; set BANKMIRROR_ADMIN_LISTEN to 127.0.0.1:PORT unless that is meant")
	}
	return nil
}

// openHealth makes the health monitor and the metrics. The monitor's write
// probe feeds systemd's watchdog (checking at least every 30 s, and twice
// per watchdog period), and its one-line state goes to `systemctl status`.
func (d *Daemon) openHealth() {
	every := 30 * time.Second
	wd := systemd.WatchdogInterval()
	if wd > 0 {
		every = min(every, wd)
	}
	d.Health = health.NewMonitor(health.MonitorConfig{
		Store:       d.Store,
		Token:       func() bank.TokenState { return d.Bank.Token() },
		People:      d.personStates,
		Syncing:     d.syncing,
		MaxAttempts: d.Config.EventMaxAttempts,
		Rules:       healthRules(d.Config),
		Interval:    every,
		OnProbe: func(err error) {
			if err == nil && wd > 0 {
				_ = systemd.Notify("WATCHDOG=1")
			}
		},
		OnStatus: func(line string) { _ = systemd.Notify("STATUS=" + line) },
		Log:      d.Log,
	})
	d.Metrics = admin.NewMetrics(admin.StateSource{
		Health: d.Health.Current,
		Budget: func() bank.BudgetState { return d.Bank.Budget() },
		Token:  func() bank.TokenState { return d.Bank.Token() },
		People: d.personStates,
	})
}

// syncing describes the sync in progress, "" when none runs.
func (d *Daemon) syncing() string {
	if d.Schedule == nil || !d.Schedule.Running() {
		return ""
	}
	p := d.progress.Load()
	if p == nil {
		return "a sync is running"
	}
	s := fmt.Sprintf("a %s sync is running: %s transactions listed", p.Kind, money.Thousands(int64(p.Transactions)))
	if p.Covered >= 0 {
		s += fmt.Sprintf(", %.0f%% of the date range", 100*p.Covered)
	}
	return s
}
