// Package health decides whether the mirror is working: the daemon's
// readiness (/readyz, the systemd watchdog and status line) and the verdict
// of `bankmirror status` (OK, DEGRADED or FAILING) come from the same rules
// applied to the same facts.
package health

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Level is how bad a check's finding is.
type Level int

// Levels, from good to bad.
const (
	OK Level = iota
	Degraded
	Failing
)

func (l Level) String() string {
	switch l {
	case OK:
		return "OK"
	case Degraded:
		return "DEGRADED"
	default:
		return "FAILING"
	}
}

// MarshalText writes the level as OK, DEGRADED or FAILING.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// Check is one finding.
type Check struct {
	Name   string `json:"name"`
	Level  Level  `json:"level"`
	Detail string `json:"detail"`
	// Readiness marks the checks /readyz requires to be OK: the database,
	// the sync, the token and the inbox.
	Readiness bool `json:"readiness"`
}

// Check names.
const (
	CheckDatabase   = "database"
	CheckSync       = "sync"
	CheckToken      = "token"
	CheckInbox      = "inbox"
	CheckDaemon     = "daemon"
	CheckBudget     = "budget"
	CheckWorker     = "worker"
	CheckDeliveries = "deliveries"
	CheckBank       = "bank"
)

// Rules are the thresholds.
type Rules struct {
	// StaleAfter is the age past which the last successful sync makes the
	// mirror stale (DEGRADED, not ready); past twice that it is FAILING.
	StaleAfter time.Duration
	// PendingAfter is how long a webhook event may wait to be applied
	// before the inbox counts as behind (DEGRADED, not ready).
	PendingAfter time.Duration
	// ReportEvery is how often at most a running daemon refreshes its
	// report; one older than three times that means the daemon is gone.
	ReportEvery time.Duration
	// Zone is where the checks' details show a time
	// (BANKMIRROR_TIMEZONE), as every command shows one; nil: UTC.
	Zone *time.Location
}

// TimeLayout is how the commands show a time to people, to the second
// and with its offset from UTC, so that none is read in the wrong zone:
// 2026-03-04 09:30:12 +11:00.
const TimeLayout = "2006-01-02 15:04:05 -07:00"

// At is t as the checks' details (and the alerts of them) show it: in the
// zone, in TimeLayout.
func (r Rules) At(t time.Time) string {
	zone := r.Zone
	if zone == nil {
		zone = time.UTC
	}
	return t.In(zone).Format(TimeLayout)
}

// DefaultPendingAfter is the default Rules.PendingAfter.
const DefaultPendingAfter = 15 * time.Minute

// DefaultReportEvery is the daemon report's longest interval (the reporter
// writes it at least once a minute).
const DefaultReportEvery = time.Minute

// Facts are what the rules look at. The daemon knows the first group; the
// status command reads the rest from the mirror and the daemon's report.
type Facts struct {
	Now time.Time

	// Probed is set when a write probe ran; ProbeErr is its failure.
	Probed   bool
	ProbeErr error
	// LastSync is when the newest successful incremental or full sync
	// finished; zero when none ever did.
	LastSync time.Time
	// Syncing describes a sync in progress ("" when none).
	Syncing string
	// TokenRejected: the bank answered 401 to the current token.
	TokenRejected   bool
	TokenRejectedAt time.Time
	// People, in a household of several people, are each person's token
	// state (the token check then reads them, not TokenRejected).
	People []PersonState
	// The inbox.
	Pending, Stuck int64
	OldestPending  time.Time

	// Daemon, if set, is what the status command knows of the daemon.
	Daemon *Daemon
	// BudgetWait, if not "", is why requests wait for the bank's budget.
	BudgetWait string
	// WorkerPaused, if not "", is why the webhook worker is paused.
	WorkerPaused string
	// Undelivered counts webhook events the bank never delivered lately
	// (from its delivery logs), UndeliveredWindow the period looked at.
	Undelivered       int64
	UndeliveredWindow time.Duration
	// BankOutage, when its Syncs is above 0, is the syncs that failed in
	// a row because the bank or the network did.
	BankOutage replica.Outage
	// FailingFeeds are the feeds whose last round failed.
	FailingFeeds []store.FailingFeed
}

// Daemon is what `bankmirror status` knows of the daemon.
type Daemon struct {
	Reported  bool          // a daemon has reported on this mirror
	ReportAge time.Duration // age of its last report
	PID       int
	// PIDAlive: a process with that id exists on this host.
	PIDAlive bool
	// Stopped: the daemon's last report said it was shutting down.
	Stopped bool
}

// Evaluate applies the rules to the facts. The status command's verdict
// is the worst level; /readyz requires the readiness checks to be OK.
func Evaluate(f Facts, r Rules) []Check {
	var out []Check
	add := func(name string, l Level, ready bool, format string, args ...any) {
		out = append(out, Check{Name: name, Level: l, Detail: fmt.Sprintf(format, args...), Readiness: ready})
	}
	if f.Probed {
		if f.ProbeErr != nil {
			add(CheckDatabase, Failing, true, "the mirror cannot be written: %v", f.ProbeErr)
		} else {
			add(CheckDatabase, OK, true, "write probe ok")
		}
	}
	if d := f.Daemon; d != nil {
		every := r.ReportEvery
		if every <= 0 {
			every = DefaultReportEvery
		}
		switch {
		case !d.Reported:
			add(CheckDaemon, Degraded, false, "no daemon has run on this mirror (start `bankmirror serve`)")
		case d.Stopped:
			add(CheckDaemon, Degraded, false, "not running (stopped %s ago, pid %d)", Age(d.ReportAge), d.PID)
		case d.ReportAge <= 3*every:
			add(CheckDaemon, OK, false, "running (pid %d, last report %s ago)", d.PID, Age(d.ReportAge))
		case d.PIDAlive:
			add(CheckDatabase, Failing, false, "the daemon (pid %d) runs but has not written its report for %s: it cannot write the mirror (full disk? read-only file?)",
				d.PID, Age(d.ReportAge))
		default:
			add(CheckDaemon, Degraded, false, "not running (last report %s ago, pid %d)", Age(d.ReportAge), d.PID)
		}
	}
	stale := r.StaleAfter
	switch age := f.Now.Sub(f.LastSync); {
	case f.LastSync.IsZero() && f.Syncing != "":
		add(CheckSync, Degraded, true, "no successful sync yet; %s", f.Syncing)
	case f.LastSync.IsZero():
		add(CheckSync, Failing, true, "no successful sync yet")
	case age > 2*stale:
		add(CheckSync, Failing, true, "last successful sync %s ago (over twice BANKMIRROR_STALE_AFTER=%s)", Age(age), stale)
	case age > stale:
		add(CheckSync, Degraded, true, "last successful sync %s ago (over BANKMIRROR_STALE_AFTER=%s)", Age(age), stale)
	default:
		add(CheckSync, OK, true, "last successful sync %s ago", Age(age))
	}
	if c, ok := tokenCheck(f); ok {
		out = append(out, c)
	} else if f.TokenRejected {
		add(CheckToken, Failing, true, "the bank rejected the token (401) %s ago: syncs and webhook refetches wait for a new token "+
			"(put it in the token file, /etc/bankmirror/token with the unit, then `systemctl restart bankmirror`; without systemd, send SIGHUP)", Age(f.Now.Sub(f.TokenRejectedAt)))
	} else {
		add(CheckToken, OK, true, "accepted at last use")
	}
	pendingAfter := r.PendingAfter
	if pendingAfter <= 0 {
		pendingAfter = DefaultPendingAfter
	}
	switch wait := f.Now.Sub(f.OldestPending); {
	case f.Stuck > 0:
		add(CheckInbox, Failing, true, "%d webhook events ran out of attempts (`bankmirror events stuck`, then `events retry`); %d pending", f.Stuck, f.Pending)
	case f.Pending > 0 && wait > pendingAfter:
		add(CheckInbox, Degraded, true, "%d webhook events pending, the oldest for %s", f.Pending, Age(wait))
	default:
		add(CheckInbox, OK, true, "%d pending, 0 stuck", f.Pending)
	}
	if f.BudgetWait != "" {
		add(CheckBudget, Degraded, false, "%s", f.BudgetWait)
	}
	if f.WorkerPaused != "" {
		add(CheckWorker, Degraded, false, "webhook worker paused: %s", f.WorkerPaused)
	}
	if o := f.BankOutage; o.Syncs > 0 {
		// Not a readiness check: the mirror is as good as its last sync,
		// which the sync check ages; this says why no newer one came.
		retry := ""
		if !o.RetryAt.IsZero() {
			retry = ", syncing again at " + r.At(o.RetryAt)
		}
		add(CheckBank, Degraded, false, "%s could not reach the bank, since %s (%s ago)%s: %s",
			LastSyncs(o.Syncs), r.At(o.Since), Age(f.Now.Sub(o.Since)), retry, o.LastError)
	}
	if f.Undelivered > 0 {
		add(CheckDeliveries, Degraded, false, "the bank could not deliver %d webhook events in the last %s (see `bankmirror webhook logs`): is the webhook URL reachable?",
			f.Undelivered, Age(f.UndeliveredWindow))
	}
	return append(out, feedChecks(f.Now, f.FailingFeeds, r)...)
}

// LastSyncs is "the last sync", or "the last 3 syncs".
func LastSyncs(n int) string {
	if n == 1 {
		return "the last sync"
	}
	return fmt.Sprintf("the last %d syncs", n)
}

// readOutage reads the bank outage the syncs recorded (none: zero).
func readOutage(ctx context.Context, st interface {
	GetState(ctx context.Context, key string, v any) (time.Time, bool, error)
}) (replica.Outage, error) {
	var o replica.Outage
	_, _, err := st.GetState(ctx, replica.OutageKey, &o)
	return o, err
}

// Verdict is the worst level among checks and the reasons at that level,
// joined.
func Verdict(checks []Check) (Level, string) {
	worst := OK
	for _, c := range checks {
		worst = max(worst, c.Level)
	}
	if worst == OK {
		return OK, ""
	}
	var reasons []string
	for _, c := range checks {
		if c.Level == worst {
			reasons = append(reasons, c.Name+": "+c.Detail)
		}
	}
	return worst, strings.Join(reasons, "; ")
}

// Ready reports whether every readiness check is OK.
func Ready(checks []Check) bool {
	for _, c := range checks {
		if c.Readiness && c.Level != OK {
			return false
		}
	}
	return true
}

// Age renders a duration for people, at most two units: "45s", "3m",
// "2h5m", "3d4h".
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		if m := int(d%time.Hour) / int(time.Minute); m > 0 {
			return fmt.Sprintf("%dh%dm", int(d/time.Hour), m)
		}
		return fmt.Sprintf("%dh", int(d/time.Hour))
	default:
		if h := int(d%(24*time.Hour)) / int(time.Hour); h > 0 {
			return fmt.Sprintf("%dd%dh", int(d/(24*time.Hour)), h)
		}
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	}
}
