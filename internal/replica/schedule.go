package replica

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/pause"
	"github.com/bankmirror/bankmirror/internal/store"
)

// inboxPruner is what the schedule needs of the store besides the syncer's.
type inboxPruner interface {
	PruneInbox(ctx context.Context, cutoff time.Time) (events, logs int64, err error)
	ReleaseMemory(ctx context.Context) error
	GetState(ctx context.Context, key string, v any) (updated time.Time, ok bool, err error)
	PutState(ctx context.Context, key string, v any) error
	RecentRuns(ctx context.Context, n int) ([]store.Run, error)
	NeedsFullSync(ctx context.Context) (bool, error)
}

// FreshSync is how recent a successful sync makes the start-up sync
// unneeded after a crash: a daemon that died (killed, out of memory, a
// crash loop) and restarted within it was down for less, and the bank's
// retries of the deliveries it missed, with the heal from the delivery
// logs, bring what changed meanwhile; listing the last hours again would
// fetch what the mirror already has. After a clean stop the start-up
// sync always runs.
const FreshSync = 2 * time.Minute

// runningKey is the daemon_state key a running schedule holds, removed
// when it stops: found at start, the last daemon died.
const runningKey = "schedule_running"

var _ inboxPruner = (*store.Store)(nil)

// ScheduleConfig says when syncs run.
type ScheduleConfig struct {
	Sync           string        // cron spec of incremental syncs, e.g. "@every 15m"
	Reconcile      string        // cron spec of full reconciliations, e.g. "@daily"
	InboxRetention time.Duration // processed events older than this are pruned after a full sync; 0 keeps them
	// OnRun, if set, is told of every sync and heal the schedule ran: its
	// kind (KindIncremental, KindFull, KindHeal), how long it took and its
	// error (nil on success).
	OnRun func(kind string, took time.Duration, err error)
	// StartupDone, if set, is the channel Schedule.StartupDone closes
	// (the daemon makes it before the schedule exists); nil: NewSchedule
	// makes one.
	StartupDone chan struct{}
	// RetryBase and RetryMax pace the syncs retried after one the bank or
	// the network failed (bank.Outage): the first RetryBase later
	// (default DefaultOutageRetryBase), each wait after it twice the last,
	// up to RetryMax (default DefaultOutageRetryMax), until one succeeds.
	RetryBase, RetryMax time.Duration
}

// Defaults of ScheduleConfig.RetryBase and RetryMax: a daemon started
// while the bank or the network is down syncs again 5 s later, then
// after 10 s, 20 s, ... and every 5 minutes at most, not at the next tick
// of its schedule (30 minutes by default).
const (
	DefaultOutageRetryBase = 5 * time.Second
	DefaultOutageRetryMax  = 5 * time.Minute
)

// KindHeal names a heal from the delivery logs in ScheduleConfig.OnRun.
const KindHeal = "heal"

// Runner is what the schedule runs: a Syncer, or a household's syncs of
// several people. TokenRejected reports whether no sync can run because
// the bank rejected the token (every token), and a channel closed when a
// new one is given.
type Runner interface {
	Full(ctx context.Context) (Result, error)
	Incremental(ctx context.Context) (Result, error)
	tokenGate
}

var _ Runner = (*Syncer)(nil)

// Schedule runs syncs: an incremental one (a full one when the mirror has
// never completed one, or one was interrupted) right after Start, then
// incremental and full ones on their cron schedules. Each sync is followed
// by a heal from the webhook delivery logs; syncs never overlap.
type Schedule struct {
	syncer Runner
	healer *Healer
	worker interface{ Notify() }
	store  inboxPruner
	cfg    ScheduleConfig
	log    zerolog.Logger
	now    func() time.Time

	cron    *cron.Cron
	mu      sync.Mutex // held while a sync runs
	running atomic.Bool
	bg      sync.WaitGroup
	// failing is the cause of the last sync's failure while it was the
	// bank's or the network's fault (nil after any other outcome); outage
	// wakes the retrying goroutine (retryOutage).
	failing atomic.Pointer[error]
	outage  chan struct{}
	// StartupDone is closed when the start-up sync is over.
	StartupDone chan struct{}
}

// NewSchedule returns a Schedule; worker is woken after a heal recovered
// events.
func NewSchedule(s Runner, h *Healer, worker interface{ Notify() }, st inboxPruner, cfg ScheduleConfig, log zerolog.Logger) *Schedule {
	done := cfg.StartupDone
	if done == nil {
		done = make(chan struct{})
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = DefaultOutageRetryBase
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = DefaultOutageRetryMax
	}
	return &Schedule{syncer: s, healer: h, worker: worker, store: st, cfg: cfg, now: time.Now,
		log: log.With().Str(logfield.Component, "schedule").Logger(), StartupDone: done, outage: make(chan struct{}, 1)}
}

// Start validates the cron specs, starts the schedule, and runs the
// start-up sync in the background. Syncs use ctx; cancel it, then Stop.
func (s *Schedule) Start(ctx context.Context) error {
	clog := cronLogger{s.log}
	s.cron = cron.New(cron.WithChain(cron.Recover(clog), cron.SkipIfStillRunning(clog)), cron.WithLogger(clog))
	if _, err := s.cron.AddFunc(s.cfg.Sync, func() { s.Run(ctx, false) }); err != nil {
		return fmt.Errorf("sync schedule: %w", err)
	}
	if _, err := s.cron.AddFunc(s.cfg.Reconcile, func() { s.Run(ctx, true) }); err != nil {
		return fmt.Errorf("reconcile schedule: %w", err)
	}
	s.cron.Start()
	// The channel of the next token is taken here, not in the goroutine:
	// a token given before the goroutine runs must still start a sync.
	_, replaced := s.syncer.TokenRejected()
	s.bg.Go(func() { s.resumeOnNewToken(ctx, s.syncer, replaced) })
	s.bg.Go(func() { s.retryOutage(ctx) })
	crashed := s.markRunning(ctx)
	s.bg.Go(func() {
		defer close(s.StartupDone)
		if crashed && s.freshSync(ctx) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.log.Info().Msg("restarted after a crash less than 2 minutes after a sync: healing from the delivery logs only; the next sync runs on schedule")
			s.heal(ctx)
			return
		}
		// Incremental runs (or resumes) a full sync when the mirror needs
		// one; either way the mirror is current soon after a restart.
		s.Run(ctx, false)
	})
	return nil
}

// markRunning records that a schedule runs on this mirror, and reports
// whether one already was: the daemon that ran it died without stopping.
func (s *Schedule) markRunning(ctx context.Context) (crashed bool) {
	var running bool
	_, found, err := s.store.GetState(ctx, runningKey, &running)
	if err == nil {
		err = s.store.PutState(ctx, runningKey, true)
	}
	if err != nil {
		s.log.Warn().Err(err).Msg("record the schedule as running")
	}
	return found && running
}

// freshSync reports whether the mirror's last sync succeeded within
// FreshSync, with no full sync due or interrupted.
func (s *Schedule) freshSync(ctx context.Context) bool {
	if s.tokenRejected() {
		return false
	}
	if full, err := s.store.NeedsFullSync(ctx); err != nil || full {
		return false
	}
	runs, err := s.store.RecentRuns(ctx, 1)
	if err != nil || len(runs) == 0 || runs[0].Status != store.RunOK || runs[0].FinishedAt == nil {
		return false
	}
	ended, err := time.Parse(store.TimeLayout, *runs[0].FinishedAt)
	if err != nil {
		return false
	}
	ago := s.now().Sub(ended)
	return ago >= 0 && ago < FreshSync
}

// Running reports whether a sync (or its heal) is running.
func (s *Schedule) Running() bool { return s.running.Load() }

// Stop stops the schedule and waits for a running sync (cancel its
// context first to make it quick).
func (s *Schedule) Stop() {
	if s.cron != nil {
		<-s.cron.Stop().Done()
	}
	s.bg.Wait()
	if s.cron != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.store.PutState(ctx, runningKey, false); err != nil {
			s.log.Warn().Err(err).Msg("record the schedule as stopped")
		}
	}
}

// resumeOnNewToken syncs at once whenever the bank client gets a new
// token: after a rejected one, the mirror catches up without waiting for
// the next tick.
func (s *Schedule) resumeOnNewToken(ctx context.Context, g tokenGate, replaced <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-replaced:
		}
		// Watch for the next token before syncing: one given while this
		// sync runs starts another.
		_, replaced = g.TokenRejected()
		s.log.Info().Msg("new token; syncing now")
		s.Run(ctx, false)
	}
}

// tokenRejected reports whether the bank rejected the client's token.
func (s *Schedule) tokenRejected() bool {
	rejected, _ := s.syncer.TokenRejected()
	return rejected
}

// Run runs one sync, then heals missed webhook events from the delivery
// logs, and after a full sync prunes the inbox. Failures are logged and
// recorded by the syncer and healer; the next run retries, and after a
// sync the bank or the network failed (bank.Outage) that run comes soon
// (RetryBase, backing off), not at the schedule's next tick. While the
// bank rejects the token nothing runs: a new token starts a sync at once.
func (s *Schedule) Run(ctx context.Context, full bool) {
	if s.run(ctx, full) {
		select {
		case s.outage <- struct{}{}:
		default:
		}
	}
}

// retryOutage syncs again, backing off, after a sync the bank or the
// network failed, until one does not (a scheduled sync meanwhile counts).
// Each wait is recorded with the outage, for status.
func (s *Schedule) retryOutage(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.outage:
		}
		for attempt := 1; !s.tokenRejected(); attempt++ {
			cause := s.failing.Load()
			if cause == nil {
				break // a scheduled sync succeeded meanwhile
			}
			d := bank.Backoff(s.cfg.RetryBase, s.cfg.RetryMax, attempt)
			s.recordRetry(ctx, s.now().Add(d))
			s.log.Warn().Err(*cause).Dur(logfield.RetryIn, d).Msg("the bank or the network failed the sync; syncing again soon")
			if pause.For(ctx, d) != nil {
				return
			}
			if s.failing.Load() != nil {
				s.run(ctx, false)
			}
		}
		// Retries of a scheduled sync that failed meanwhile are done.
		select {
		case <-s.outage:
		default:
		}
	}
}

// recordRetry adds when the next sync runs to the outage the syncer
// recorded, so that status says when the bank is tried again.
func (s *Schedule) recordRetry(ctx context.Context, at time.Time) {
	var o Outage
	_, ok, err := s.store.GetState(ctx, OutageKey, &o)
	if err == nil && ok && o.Syncs > 0 {
		o.RetryAt = at.UTC()
		err = s.store.PutState(ctx, OutageKey, o)
	}
	if err != nil && ctx.Err() == nil {
		s.log.Warn().Err(err).Msg("record the next sync for status")
	}
}

// run is Run; it reports whether the sync failed by the bank's or the
// network's fault.
func (s *Schedule) run(ctx context.Context, full bool) (outage bool) {
	if s.tokenRejected() {
		s.log.Debug().Bool(logfield.Full, full).Msg("skipped a scheduled sync: the bank rejected the token")
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running.Store(true)
	defer s.running.Store(false)
	var err error
	var res Result
	start := s.now()
	if full {
		res, err = s.syncer.Full(ctx)
	} else {
		res, err = s.syncer.Incremental(ctx)
	}
	if errors.Is(err, store.ErrSyncRunning) {
		s.log.Warn().Bool(logfield.Full, full).Msg("skipped a scheduled sync: another process is syncing this mirror")
	} else {
		kind := res.Kind
		if kind == "" {
			kind = KindIncremental
			if full {
				kind = KindFull
			}
		}
		s.observe(kind, start, err)
		outage = bank.Outage(err) && ctx.Err() == nil
		var cause *error
		if outage {
			cause = &err
		}
		s.failing.Store(cause)
	}
	if ctx.Err() != nil || s.tokenRejected() {
		return outage // stopping, or the heal would be refused too
	}
	if outage {
		return true // the heal would fail too
	}
	s.heal(ctx)
	if full && s.cfg.InboxRetention > 0 {
		events, logs, err := s.store.PruneInbox(ctx, s.now().Add(-s.cfg.InboxRetention))
		if err != nil {
			s.log.Warn().Err(err).Msg("prune webhook inbox")
		} else if events+logs > 0 {
			s.log.Info().Int64(logfield.Events, events).Int64(logfield.DeliveryLogs, logs).Msg("pruned old webhook events")
		}
	}
	s.idle(ctx, res.Kind == KindFull)
	return false
}

// heal recovers missed webhook events from the delivery logs.
func (s *Schedule) heal(ctx context.Context) {
	start := s.now()
	healed, err := s.healer.Heal(ctx)
	s.observe(KindHeal, start, err)
	if len(healed.RecoveredIDs) > 0 {
		s.worker.Notify()
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		s.log.Warn().Err(err).Msg("heal from delivery logs")
	}
}

// idle returns what a sync used to the OS, as the daemon now waits for
// the next tick: SQLite's page caches and the C heap pages they freed, and
// after a full sync (a backfill leaves megabytes of freed heap) Go's free
// memory at once rather than minutes later.
func (s *Schedule) idle(ctx context.Context, full bool) { ReleaseMemory(ctx, s.store, s.log, full) }

func (s *Schedule) observe(kind string, start time.Time, err error) {
	if s.cfg.OnRun != nil {
		s.cfg.OnRun(kind, s.now().Sub(start), err)
	}
}

// cronLogger adapts zerolog to cron.Logger.
type cronLogger struct{ log zerolog.Logger }

func (l cronLogger) Info(msg string, kv ...any) {
	l.log.Debug().Fields(kv).Msg(msg)
}

func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Error().Err(err).Fields(kv).Msg(msg)
}
