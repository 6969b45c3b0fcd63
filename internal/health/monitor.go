package health

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Sync kinds, as in sync_runs.kind, plus heals from the delivery logs.
const (
	KindIncremental = "incremental"
	KindFull        = "full"
	KindHeal        = "heal"
)

// monitorStore is what the monitor needs of the store.
type monitorStore interface {
	ProbeWrite(ctx context.Context) error
	LastSuccessfulRuns(ctx context.Context, kinds ...string) (map[string]time.Time, error)
	HealState(ctx context.Context) (store.HealState, error)
	InboxHealth(ctx context.Context, maxAttempts int) (store.InboxHealth, error)
	CountTransactions(ctx context.Context) (int64, error)
	GetState(ctx context.Context, key string, v any) (time.Time, bool, error)
	FailingFeeds(ctx context.Context) ([]store.FailingFeed, error)
}

var _ monitorStore = (*store.Store)(nil)

// MonitorConfig configures a Monitor. Zero durations take the defaults.
type MonitorConfig struct {
	Store monitorStore
	// Token reports the bank client's token state.
	Token func() bank.TokenState
	// People, if set, reports each person's token and budget (a
	// household); a rejected token is then judged per person.
	People func() []PersonState
	// Syncing describes a sync in progress, "" when none runs.
	Syncing     func() string
	MaxAttempts int // an event's attempts, past which it is stuck
	Rules       Rules
	// Interval is the period of the background check (write probe
	// included): default 30s.
	Interval time.Duration
	// Timeout bounds one check's probe and queries: default 10s.
	Timeout time.Duration
	// ProbeMaxAge is how old a write probe's result may be for Check to
	// use it rather than probe again: default DefaultProbeMaxAge. Every
	// /readyz runs a Check; without it, each would commit and sync a row.
	ProbeMaxAge time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// OnProbe, if set, is called after each background check with the
	// write probe's error (the daemon feeds systemd's watchdog on nil).
	OnProbe func(err error)
	// OnStatus, if set, is called with the one-line state whenever it
	// changes (the daemon sends it to systemd as STATUS=).
	OnStatus func(line string)
	Log      zerolog.Logger
}

// DefaultProbeMaxAge is the default MonitorConfig.ProbeMaxAge.
const DefaultProbeMaxAge = time.Second

// Snapshot is the outcome of one check.
type Snapshot struct {
	At     time.Time
	Facts  Facts
	Checks []Check
	Ready  bool
	// Transactions mirrored, and the last successful run of each kind
	// (KindIncremental, KindFull, KindHeal; absent when none).
	Transactions int64
	LastRuns     map[string]time.Time
	Heal         store.HealState
}

// Monitor checks the daemon's health: a write probe, the last syncs, the
// token and the inbox. It runs the check in the background (feeding the
// watchdog and the status line) and on demand (/readyz, /metrics).
type Monitor struct {
	cfg MonitorConfig
	log zerolog.Logger

	probeMu  sync.Mutex // one probe at a time
	mu       sync.Mutex // guards what follows
	snap     Snapshot
	probed   time.Time // when the last write probe started; zero before the first
	probeErr error     // its outcome
	line     string    // the last status line sent
}

// NewMonitor returns a Monitor; call Run for the background check.
func NewMonitor(cfg MonitorConfig) *Monitor {
	if cfg.Interval <= 0 {
		cfg.Interval = 30 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.ProbeMaxAge <= 0 {
		cfg.ProbeMaxAge = DefaultProbeMaxAge
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Token == nil {
		cfg.Token = func() bank.TokenState { return bank.TokenState{} }
	}
	if cfg.Syncing == nil {
		cfg.Syncing = func() string { return "" }
	}
	return &Monitor{cfg: cfg, log: cfg.Log.With().Str(logfield.Component, "health").Logger()}
}

// Run checks every Interval until ctx ends, the first time at once.
func (m *Monitor) Run(ctx context.Context) {
	t := time.NewTicker(m.cfg.Interval)
	defer t.Stop()
	wasFailing := false
	for {
		s := m.Check(ctx)
		if ctx.Err() != nil {
			return
		}
		failed := s.Facts.ProbeErr != nil
		switch {
		case failed && !wasFailing:
			m.log.Error().Err(s.Facts.ProbeErr).Msg("the mirror cannot be written (write probe failed); not ready, and the watchdog is not fed")
		case !failed && wasFailing:
			m.log.Info().Msg("the mirror can be written again")
		}
		wasFailing = failed
		if m.cfg.OnProbe != nil {
			m.cfg.OnProbe(s.Facts.ProbeErr)
		}
		m.publish(s)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Check gathers the facts now, with a write probe no older than
// ProbeMaxAge, and returns the verdict. The probe is shared: callers
// arriving while one runs wait for it, and a probe that started at most
// ProbeMaxAge before the call is used as it is, so that a flood of /readyz
// costs at most one commit per ProbeMaxAge.
func (m *Monitor) Check(ctx context.Context) Snapshot {
	probeErr := m.probe(ctx)
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	s := m.gather(ctx, probeErr)
	m.keep(s)
	return s
}

// probe returns the outcome of a write probe that started no earlier than
// ProbeMaxAge before the call, running one if there is none.
func (m *Monitor) probe(ctx context.Context) error {
	called := m.cfg.Now()
	m.probeMu.Lock()
	defer m.probeMu.Unlock()
	m.mu.Lock()
	probed, probeErr := m.probed, m.probeErr
	m.mu.Unlock()
	if !probed.IsZero() && !probed.Before(called.Add(-m.cfg.ProbeMaxAge)) {
		return probeErr
	}
	started := m.cfg.Now()
	// The probe is shared: a caller that goes away (a /readyz client that
	// hangs up) must not make it fail.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.cfg.Timeout)
	defer cancel()
	probeErr = m.cfg.Store.ProbeWrite(ctx)
	if probeErr != nil && ctx.Err() != nil {
		probeErr = fmt.Errorf("no answer within %s: %w", m.cfg.Timeout, probeErr)
	}
	m.mu.Lock()
	m.probed, m.probeErr = started, probeErr
	m.mu.Unlock()
	return probeErr
}

// keep makes s the last verdict unless a newer one is kept already.
func (m *Monitor) keep(s Snapshot) {
	m.mu.Lock()
	if !s.At.Before(m.snap.At) {
		m.snap = s
	}
	m.mu.Unlock()
}

// Last returns the last verdict without checking anything.
func (m *Monitor) Last() Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snap
}

// Current gathers the facts now and returns the verdict with the last
// write probe's outcome (without probing again): what /metrics reads.
func (m *Monitor) Current(ctx context.Context) Snapshot {
	m.mu.Lock()
	probeErr := m.probeErr
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	s := m.gather(ctx, probeErr)
	m.keep(s)
	return s
}

// gather reads the facts and applies the rules. A failing query counts
// against the database check.
func (m *Monitor) gather(ctx context.Context, probeErr error) Snapshot {
	s := Snapshot{At: m.cfg.Now()}
	var errs []error
	runs, err := m.cfg.Store.LastSuccessfulRuns(ctx, KindIncremental, KindFull)
	errs = append(errs, err)
	if runs == nil {
		runs = map[string]time.Time{}
	}
	heal, err := m.cfg.Store.HealState(ctx)
	errs = append(errs, err)
	if !heal.Oldest.IsZero() {
		runs[KindHeal] = heal.Oldest
	}
	inbox, err := m.cfg.Store.InboxHealth(ctx, m.cfg.MaxAttempts)
	errs = append(errs, err)
	s.Transactions, err = m.cfg.Store.CountTransactions(ctx)
	errs = append(errs, err)
	outage, err := readOutage(ctx, m.cfg.Store)
	errs = append(errs, err)
	failingFeeds, err := m.cfg.Store.FailingFeeds(ctx)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		probeErr = errors.Join(probeErr, fmt.Errorf("read the mirror: %w", err))
	}
	tok := m.cfg.Token()
	last := runs[KindIncremental]
	if runs[KindFull].After(last) {
		last = runs[KindFull]
	}
	s.LastRuns, s.Heal = runs, heal
	s.Facts = Facts{
		Now: s.At, Probed: true, ProbeErr: probeErr,
		LastSync: last, Syncing: m.cfg.Syncing(),
		TokenRejected: tok.Rejected, TokenRejectedAt: tok.RejectedAt,
		Pending: inbox.Pending, Stuck: inbox.Stuck, OldestPending: inbox.OldestPending,
		BankOutage: outage, FailingFeeds: failingFeeds,
	}
	if m.cfg.People != nil {
		s.Facts.People = m.cfg.People()
	}
	s.Checks = Evaluate(s.Facts, m.cfg.Rules)
	s.Ready = Ready(s.Checks)
	return s
}

// TokenChanged is the bank client's token observer: a rejected token is
// logged once, as an error saying what to do, and shown in the status line
// at once; a new token is logged too.
func (m *Monitor) TokenChanged(st bank.TokenState) {
	if st.Rejected {
		m.log.Error().Time(logfield.RejectedAt, st.RejectedAt).Msg("the bank rejected the token (401): scheduled syncs and webhook refetches " +
			"are paused, webhooks are still received and queued. Put a new token in the token file (/etc/bankmirror/token " +
			"with the unit) and run `systemctl restart bankmirror` (without systemd, send SIGHUP)")
	} else {
		m.log.Info().Msg(tokenSetMessage(st) + "; resuming syncs and webhook refetches")
	}
	m.mu.Lock()
	s := m.snap
	m.mu.Unlock()
	m.publish(s)
}

// tokenSetMessage says what a token given again is: a new one, or the
// rejected one tried again.
func tokenSetMessage(st bank.TokenState) string {
	if st.Same {
		return "the same token read again: trying it again"
	}
	return "token replaced"
}

// PersonTokenChanged returns the token observer of person's client in a
// household: a rejected token is logged once, naming the person and what
// to do (advice: where the new token goes and what makes the daemon take
// it), and shown in the status line at once.
func (m *Monitor) PersonTokenChanged(person, advice string) func(bank.TokenState) {
	return func(st bank.TokenState) {
		if st.Rejected {
			m.log.Error().Str(logfield.Person, person).Time(logfield.RejectedAt, st.RejectedAt).Msg("the bank rejected " + person +
				"'s token (401): what only their token sees waits, the other people's work goes on; " + advice)
		} else {
			m.log.Info().Str(logfield.Person, person).Msg(tokenSetMessage(st) + "; resuming their syncs and webhook refetches")
		}
		m.mu.Lock()
		s := m.snap
		m.mu.Unlock()
		m.publish(s)
	}
}

// publish sends the status line if it changed.
func (m *Monitor) publish(s Snapshot) {
	if m.cfg.OnStatus == nil {
		return
	}
	line := StatusLine(s, m.cfg.Token(), time.Now())
	m.mu.Lock()
	changed := line != m.line
	m.line = line
	m.mu.Unlock()
	if changed {
		m.cfg.OnStatus(line)
	}
}

// StatusLine is the one-line state for `systemctl status`.
func StatusLine(s Snapshot, tok bank.TokenState, now time.Time) string {
	f := s.Facts
	switch {
	case AllRejected(tok, f.People):
		return "token rejected by the bank: waiting for a new token (systemctl restart)"
	case f.Probed && f.ProbeErr != nil:
		return "database not writable: " + f.ProbeErr.Error()
	case f.LastSync.IsZero() && f.Syncing != "":
		return "first sync: " + f.Syncing
	case s.At.IsZero():
		return "starting"
	}
	last := "never"
	if !f.LastSync.IsZero() {
		last = Age(now.Sub(f.LastSync)) + " ago"
	}
	line := fmt.Sprintf("mirroring: %s transactions, last sync %s, %d pending", money.Thousands(s.Transactions), last, f.Pending)
	if f.Stuck > 0 {
		line += fmt.Sprintf(", %d stuck", f.Stuck)
	}
	if o := f.BankOutage; o.Syncs > 0 {
		line += fmt.Sprintf(", bank unreachable for %s", Age(now.Sub(o.Since)))
	}
	if names, _ := rejected(f.People); len(names) > 0 && len(names) < len(f.People) {
		line += fmt.Sprintf(", %s token rejected", possessive(names))
	}
	return line
}
