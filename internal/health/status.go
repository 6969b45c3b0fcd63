package health

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// statusStore is what `bankmirror status` reads (a read-only store).
type statusStore interface {
	GetState(ctx context.Context, key string, v any) (time.Time, bool, error)
	LastSuccessfulRuns(ctx context.Context, kinds ...string) (map[string]time.Time, error)
	HealState(ctx context.Context) (store.HealState, error)
	InboxHealth(ctx context.Context, maxAttempts int) (store.InboxHealth, error)
	InboxStats(ctx context.Context, maxAttempts int) (store.InboxStats, error)
	UndeliveredSince(ctx context.Context, since time.Time) (store.Undelivered, error)
	OldestHeld(ctx context.Context) (*store.HeldTransaction, error)
	Stats(ctx context.Context) (store.Stats, error)
	Size(ctx context.Context) (store.Size, error)
	RecentRuns(ctx context.Context, n int) ([]store.Run, error)
	PeopleSummaries(ctx context.Context) ([]store.PersonSummary, error)
	FailingFeeds(ctx context.Context) ([]store.FailingFeed, error)
}

var _ statusStore = (*store.Store)(nil)

// StatusOptions tune GatherStatus.
type StatusOptions struct {
	MaxAttempts int
	Rules       Rules
	Now         time.Time
	// PIDAlive reports whether a process with that id exists here.
	PIDAlive func(pid int) bool
	// UndeliveredWindow is how far back delivery failures count
	// (default 24h).
	UndeliveredWindow time.Duration
	// People, if set, are the people configured: the status lists them,
	// those not recorded in the mirror yet too, and not the people the
	// mirror still records but the configuration no longer names.
	People []string
	// WithoutCounts leaves Rows out: its counts read an index entry of
	// every row (transactions and their history), tens of milliseconds at
	// a million, and the verdict does not use them. For a status shown at
	// every page, such as the dashboard's health line.
	WithoutCounts bool
}

// Status is the answer of `bankmirror status` (its --json output).
type Status struct {
	Level  Level   `json:"level"`
	Reason string  `json:"reason,omitempty"`
	Checks []Check `json:"checks"`

	Daemon     DaemonStatus          `json:"daemon"`
	Syncs      map[string]SyncStatus `json:"last_successful"`
	Syncing    *replica.Progress     `json:"sync_in_progress,omitempty"`
	Token      TokenStatus           `json:"token"`
	Budget     *bank.BudgetState     `json:"budget,omitempty"`
	Worker     *replica.WorkerState  `json:"worker,omitempty"`
	Inbox      InboxStatus           `json:"inbox"`
	Deliveries DeliveriesStatus      `json:"undeliverable"`
	OldestHeld *HeldStatus           `json:"oldest_held"`
	Rows       store.Stats           `json:"rows"`
	Size       store.Size            `json:"size"`
	Runs       []store.Run           `json:"recent_runs"`
	// BankOutage is the syncs that failed in a row because the bank or
	// the network did, absent when the last sync did not.
	BankOutage *replica.Outage `json:"bank_outage,omitempty"`
	Webhooks   int             `json:"webhooks"`
	// People is each person of the household, by name.
	People []PersonStatus `json:"people,omitempty"`
}

// PersonStatus is one person of the household: what the mirror records of
// them and what the running daemon reported of their token and budget.
type PersonStatus struct {
	Name       string `json:"name"`
	CustomerID string `json:"customer_id,omitempty"`
	// Accounts are the display names of the accounts their token lists.
	Accounts []string `json:"accounts"`
	// Webhooks are the ids of their registered webhooks.
	Webhooks []string  `json:"webhooks"`
	LastSync time.Time `json:"last_sync,omitzero"`
	// TokenState is what the mirror last recorded: ok, revoked or unknown.
	TokenState string      `json:"token_state"`
	Token      TokenStatus `json:"token"`
	// Budget is what the running daemon knows of their token's budget.
	Budget *bank.BudgetState `json:"budget,omitempty"`
}

// DaemonStatus is what the daemon last reported of itself.
type DaemonStatus struct {
	Running  bool      `json:"running"`
	Reported bool      `json:"reported"`
	Stopped  bool      `json:"stopped"` // it said so as it shut down
	PID      int       `json:"pid,omitempty"`
	ReportAt time.Time `json:"report_at,omitzero"`
	// ReportAge is in seconds.
	ReportAge float64 `json:"report_age_seconds,omitempty"`
	// DatabaseError is the daemon's last write probe failure.
	DatabaseError string `json:"database_error,omitempty"`
	// AdminExposed is the admin listener's address while the running
	// daemon has it bound beyond loopback.
	AdminExposed string `json:"admin_exposed,omitempty"`
}

// SyncStatus is the last successful run of one kind.
type SyncStatus struct {
	At  time.Time `json:"at"`
	Age float64   `json:"age_seconds"`
}

// TokenStatus is the token's state as the daemon last reported it.
type TokenStatus struct {
	Rejected   bool      `json:"rejected"`
	RejectedAt time.Time `json:"rejected_at,omitzero"`
	// Known: a daemon reported on it (else nothing is known).
	Known bool `json:"known"`
}

// InboxStatus counts the webhook inbox.
type InboxStatus struct {
	Received  int64 `json:"received"`
	Pending   int64 `json:"pending"`
	Stuck     int64 `json:"stuck"`
	Recovered int64 `json:"recovered"`
	// OldestPendingAge is in seconds, 0 when nothing is pending.
	OldestPendingAge float64 `json:"oldest_pending_age_seconds"`
}

// DeliveriesStatus is what the stored delivery logs say of deliveries
// that failed.
type DeliveriesStatus struct {
	Window     string    `json:"window"`
	Events     int64     `json:"events"`
	Last       time.Time `json:"last,omitzero"`
	LastStatus string    `json:"last_status,omitempty"`
	LastCode   *int64    `json:"last_code,omitempty"`
}

// HeldStatus is the oldest HELD transaction.
type HeldStatus struct {
	ID          string    `json:"id"`
	Description string    `json:"description"`
	CreatedAt   time.Time `json:"created_at"`
	Age         float64   `json:"age_seconds"`
}

// GatherStatus reads the mirror and the daemon's report and applies the
// rules.
func GatherStatus(ctx context.Context, st statusStore, o StatusOptions) (Status, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.UndeliveredWindow <= 0 {
		o.UndeliveredWindow = 24 * time.Hour
	}
	if o.PIDAlive == nil {
		o.PIDAlive = func(int) bool { return false }
	}
	every := o.Rules.ReportEvery
	if every <= 0 {
		every = DefaultReportEvery
	}
	var s Status
	var errs []error
	var rep Report
	at, reported, err := st.GetState(ctx, ReportKey, &rep)
	errs = append(errs, err)
	d := &Daemon{Reported: reported}
	if reported {
		d.ReportAge, d.PID = o.Now.Sub(at), rep.PID
		d.PIDAlive = o.PIDAlive(rep.PID)
		d.Stopped = rep.Stopped
		s.Daemon = DaemonStatus{Reported: true, PID: rep.PID, ReportAt: at, ReportAge: d.ReportAge.Seconds(),
			Running: d.ReportAge <= 3*every && !rep.Stopped, Stopped: rep.Stopped, DatabaseError: rep.DatabaseError}
		s.Token = TokenStatus{Known: true, Rejected: rep.Token.Rejected, RejectedAt: rep.Token.RejectedAt}
		if len(rep.People) > 1 {
			// A household's token is rejected when every person's is.
			names, since := rejected(rep.People)
			s.Token.Rejected = len(names) == len(rep.People)
			s.Token.RejectedAt = time.Time{}
			if s.Token.Rejected {
				s.Token.RejectedAt = since
			}
		}
	}
	runs, err := st.LastSuccessfulRuns(ctx, KindIncremental, KindFull)
	errs = append(errs, err)
	heal, err := st.HealState(ctx)
	errs = append(errs, err)
	s.Webhooks = heal.Webhooks
	s.Syncs = map[string]SyncStatus{}
	for kind, t := range runs {
		s.Syncs[kind] = SyncStatus{At: t, Age: o.Now.Sub(t).Seconds()}
	}
	if !heal.Oldest.IsZero() {
		s.Syncs[KindHeal] = SyncStatus{At: heal.Oldest, Age: o.Now.Sub(heal.Oldest).Seconds()}
	}
	ih, err := st.InboxHealth(ctx, o.MaxAttempts)
	errs = append(errs, err)
	is, err := st.InboxStats(ctx, o.MaxAttempts)
	errs = append(errs, err)
	s.Inbox = InboxStatus{Received: is.Total, Pending: ih.Pending, Stuck: ih.Stuck, Recovered: is.Recovered}
	if !ih.OldestPending.IsZero() {
		s.Inbox.OldestPendingAge = o.Now.Sub(ih.OldestPending).Seconds()
	}
	und, err := st.UndeliveredSince(ctx, o.Now.Add(-o.UndeliveredWindow))
	errs = append(errs, err)
	s.Deliveries = DeliveriesStatus{Window: Age(o.UndeliveredWindow), Events: und.Events, Last: und.Last, LastStatus: und.LastStatus, LastCode: und.LastCode}
	held, err := st.OldestHeld(ctx)
	errs = append(errs, err)
	if held != nil {
		s.OldestHeld = &HeldStatus{ID: held.ID, Description: held.Description, CreatedAt: held.CreatedAt, Age: o.Now.Sub(held.CreatedAt).Seconds()}
	}
	if !o.WithoutCounts {
		s.Rows, err = st.Stats(ctx)
		errs = append(errs, err)
	}
	s.Size, err = st.Size(ctx)
	errs = append(errs, err)
	s.Runs, err = st.RecentRuns(ctx, 5)
	errs = append(errs, err)
	outage, err := readOutage(ctx, st)
	errs = append(errs, err)
	if outage.Syncs > 0 {
		s.BankOutage = &outage
	}
	people, err := st.PeopleSummaries(ctx)
	errs = append(errs, err)
	var live []PersonState
	if reported && d.ReportAge <= 3*every && !rep.Stopped {
		live = rep.People
	}
	s.People = personStatuses(people, live, o.People)
	if err := errors.Join(errs...); err != nil {
		return s, fmt.Errorf("read the mirror: %w", err)
	}

	last := runs[KindIncremental]
	if runs[KindFull].After(last) {
		last = runs[KindFull]
	}
	f := Facts{
		Now: o.Now, LastSync: last, Daemon: d,
		Pending: ih.Pending, Stuck: ih.Stuck, OldestPending: ih.OldestPending,
		TokenRejected: s.Token.Rejected, TokenRejectedAt: s.Token.RejectedAt,
		Undelivered: und.Events, UndeliveredWindow: o.UndeliveredWindow,
		BankOutage: outage,
	}
	if f.FailingFeeds, err = st.FailingFeeds(ctx); err != nil {
		return s, fmt.Errorf("read the mirror: %w", err)
	}
	if s.Daemon.Running {
		s.Daemon.AdminExposed = rep.AdminExposed
		// What only a live daemon knows: its write probe, a wait for the
		// budget, a paused worker, a sync in progress.
		if rep.DatabaseError != "" {
			f.Probed, f.ProbeErr = true, errors.New(rep.DatabaseError)
		}
		s.Budget, s.Worker, s.Syncing = &rep.Budget, &rep.Worker, rep.Sync
		if b := rep.Budget; b.Waiting {
			f.BudgetWait = fmt.Sprintf("waiting for the bank's request budget until %s: %s", b.WaitUntil.Local().Format("15:04:05"), b.WaitReason)
		}
		if w := rep.Worker; w.Paused && !w.Unauthorized {
			f.WorkerPaused = w.PauseCause
		}
		if p := rep.Sync; p != nil {
			f.Syncing = fmt.Sprintf("a %s sync is running: %s transactions listed", p.Kind, money.Thousands(int64(p.Transactions)))
		}
		f.People = rep.People
	}
	s.Checks = Evaluate(f, o.Rules)
	s.Level, s.Reason = Verdict(s.Checks)
	return s, nil
}

// CheckConfig is the check of a bad setting the status command ran
// without (a setting it does not read, which would stop the commands that
// do).
const CheckConfig = "config"

// Add adds checks found outside the mirror and makes the verdict the worst
// of all, keeping the reasons already given.
func (s *Status) Add(checks ...Check) {
	s.Checks = append(s.Checks, checks...)
	level, reason := Verdict(checks)
	switch {
	case level == OK || level < s.Level:
	case level > s.Level || s.Reason == "":
		s.Level, s.Reason = level, reason
	default:
		s.Reason += "; " + reason
	}
}

// personStatuses merges the people the mirror records (removed ones
// left out) with what the running daemon reported of each (live; none
// without a running daemon), by name; with configured, the people
// configured only.
func personStatuses(recorded []store.PersonSummary, live []PersonState, configured []string) []PersonStatus {
	var out []PersonStatus
	index := map[string]int{}
	for _, name := range configured {
		index[name] = len(out)
		out = append(out, PersonStatus{Name: name, TokenState: tokenUnknown})
	}
	for _, p := range recorded {
		i, ok := index[p.Name]
		if p.Removed || (configured != nil && !ok) {
			continue
		}
		ps := PersonStatus{Name: p.Name, CustomerID: p.CustomerID, Accounts: p.Accounts, Webhooks: p.Webhooks, TokenState: p.TokenState}
		if t, err := time.Parse(store.TimeLayout, p.LastSyncAt); err == nil {
			ps.LastSync = t
		}
		if !ok {
			i = len(out)
			index[p.Name] = i
			out = append(out, ps)
		}
		out[i] = ps
	}
	for _, l := range live {
		i, ok := index[l.Name]
		if !ok && configured != nil {
			continue
		}
		if !ok {
			i = len(out)
			index[l.Name] = i
			out = append(out, PersonStatus{Name: l.Name, TokenState: tokenUnknown})
		}
		b := l.Budget
		out[i].Budget = &b
		out[i].Token = TokenStatus{Known: true, Rejected: l.Token.Rejected, RejectedAt: l.Token.RejectedAt}
		// The daemon's word is the newest.
		out[i].TokenState = tokenOK
		if l.Token.Rejected {
			out[i].TokenState = tokenRevoked
		}
	}
	slices.SortFunc(out, func(a, b PersonStatus) int { return strings.Compare(a.Name, b.Name) })
	return out
}
