package health

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
)

func TestEvaluateRules(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rules := Rules{StaleAfter: 2 * time.Hour}
	fresh := Facts{Now: now, Probed: true, LastSync: now.Add(-10 * time.Minute)}
	for _, tc := range []struct {
		name   string
		change func(*Facts)
		level  Level
		ready  bool
		reason string
	}{
		{"all well", func(*Facts) {}, OK, true, ""},
		{"database unwritable", func(f *Facts) { f.ProbeErr = errors.New("disk I/O error") }, Failing, false, "database: the mirror cannot be written: disk I/O error"},
		{"never synced", func(f *Facts) { f.LastSync = time.Time{} }, Failing, false, "sync: no successful sync yet"},
		{"first sync running", func(f *Facts) { f.LastSync, f.Syncing = time.Time{}, "a full sync is running" }, Degraded, false, "a full sync is running"},
		{"stale", func(f *Facts) { f.LastSync = now.Add(-3 * time.Hour) }, Degraded, false, "sync: last successful sync 3h ago (over BANKMIRROR_STALE_AFTER"},
		{"very stale", func(f *Facts) { f.LastSync = now.Add(-5 * time.Hour) }, Failing, false, "over twice"},
		{"token rejected", func(f *Facts) { f.TokenRejected, f.TokenRejectedAt = true, now.Add(-time.Minute) }, Failing, false, "token: the bank rejected the token (401) 1m ago"},
		{"stuck events", func(f *Facts) { f.Stuck = 2 }, Failing, false, "inbox: 2 webhook events ran out of attempts"},
		{"events waiting long", func(f *Facts) { f.Pending, f.OldestPending = 3, now.Add(-20*time.Minute) }, Degraded, false, "3 webhook events pending, the oldest for 20m"},
		{"events just arrived", func(f *Facts) { f.Pending, f.OldestPending = 3, now.Add(-time.Second) }, OK, true, ""},
		{"budget wait (status only)", func(f *Facts) { f.BudgetWait = "waiting" }, Degraded, true, "budget: waiting"},
		{"undelivered (status only)", func(f *Facts) { f.Undelivered, f.UndeliveredWindow = 4, 24*time.Hour }, Degraded, true, "could not deliver 4 webhook events in the last 1d"},
		{"daemon never ran", func(f *Facts) { f.Daemon = &Daemon{} }, Degraded, true, "daemon: no daemon has run"},
		{"daemon stopped", func(f *Facts) { f.Daemon = &Daemon{Reported: true, Stopped: true, ReportAge: time.Hour, PID: 7} }, Degraded, true, "not running (stopped 1h ago"},
		{"daemon silent but alive", func(f *Facts) { f.Daemon = &Daemon{Reported: true, ReportAge: time.Hour, PID: 7, PIDAlive: true} }, Failing, true, "cannot write the mirror"},
		{"daemon gone", func(f *Facts) { f.Daemon = &Daemon{Reported: true, ReportAge: time.Hour, PID: 7} }, Degraded, true, "not running (last report 1h ago"},
		// Not a readiness check: the sync check ages the mirror.
		{"bank down (status only)", func(f *Facts) {
			f.BankOutage = replica.Outage{Since: now.Add(-25 * time.Minute), Syncs: 2, LastError: "dial tcp 127.0.0.1:9: connect: connection refused"}
		}, Degraded, true, "bank: the last 2 syncs could not reach the bank, since 2026-03-01 11:35:00 +00:00 (25m ago): dial tcp 127.0.0.1:9: connect: connection refused"},
		{"bank down, mirror stale", func(f *Facts) {
			f.LastSync, f.BankOutage = now.Add(-3*time.Hour), replica.Outage{Since: now.Add(-3 * time.Hour), Syncs: 1, LastError: "x"}
		}, Degraded, false, "bank: the last sync could not reach the bank"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fresh
			tc.change(&f)
			checks := Evaluate(f, rules)
			level, reason := Verdict(checks)
			if level != tc.level || Ready(checks) != tc.ready || !strings.Contains(reason, tc.reason) {
				t.Errorf("got %s ready=%v %q; want %s ready=%v containing %q", level, Ready(checks), reason, tc.level, tc.ready, tc.reason)
			}
		})
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second: "0s", 45 * time.Second: "45s", 3 * time.Minute: "3m", 2*time.Hour + 5*time.Minute: "2h5m",
		2 * time.Hour: "2h", 76 * time.Hour: "3d4h", 48 * time.Hour: "2d",
	} {
		if got := Age(d); got != want {
			t.Errorf("Age(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestStatusLine(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := Snapshot{At: now, Transactions: 123456, Facts: Facts{Now: now, Probed: true, LastSync: now.Add(-3 * time.Minute)}}
	if got, want := StatusLine(s, bank.TokenState{}, now), "mirroring: 123,456 transactions, last sync 3m ago, 0 pending"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
	if got, want := StatusLine(s, bank.TokenState{Rejected: true}, now), "token rejected by the bank: waiting for a new token (systemctl restart)"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
	s.Facts.BankOutage = replica.Outage{Since: now.Add(-40 * time.Minute), Syncs: 2}
	if got, want := StatusLine(s, bank.TokenState{}, now), "mirroring: 123,456 transactions, last sync 3m ago, 0 pending, bank unreachable for 40m"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
	s.Facts.ProbeErr = errors.New("database or disk is full")
	if got := StatusLine(s, bank.TokenState{}, now); got != "database not writable: database or disk is full" {
		t.Errorf("line = %q", got)
	}
}
