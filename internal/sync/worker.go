package sync

import (
	"context"
	"errors"
	gosync "sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/store"
)

// eventInbox is what the worker needs of the store.
type eventInbox interface {
	ReleaseLeases(ctx context.Context) error
	ClaimEvent(ctx context.Context, lease time.Duration, maxAttempts int) (store.InboxEvent, error)
	ApplyEvent(ctx context.Context, eventID string, upsert *bank.Transaction, deleteID string) (store.Change, error)
	FailEvent(ctx context.Context, eventID string, cause error, retryAt time.Time) error
	NextEventDue(ctx context.Context, maxAttempts int) (time.Time, error)
}

var _ eventInbox = (*store.Store)(nil)

// transactionFetcher is what the worker needs of the bank client.
type transactionFetcher interface {
	Transaction(ctx context.Context, id string) (bank.Transaction, error)
}

// Webhook event types.
const (
	EventCreated = "TRANSACTION_CREATED"
	EventSettled = "TRANSACTION_SETTLED"
	EventDeleted = "TRANSACTION_DELETED"
	EventPing    = "PING"
)

// WorkerOptions tune a Worker. Zero values take the defaults.
type WorkerOptions struct {
	Concurrency int           // events applied at once (default 4)
	Lease       time.Duration // how long a claimed event is hidden (default 5m: longer than an apply waiting behind others of its transaction)
	MaxAttempts int           // attempts before an event is left for an operator (default 12)
	RetryBase   time.Duration // first retry delay (default 1s), doubling
	RetryMax    time.Duration // longest retry delay (default 10m)
	// OnApplied, if set, is called after each event is applied.
	OnApplied func(e store.InboxEvent, c store.Change)
	// OnFailed, if set, is called after a failed attempt has been recorded;
	// e.Attempts counts it.
	OnFailed func(e store.InboxEvent, err error)
}

// Worker applies inbox events to the mirror. The event carries only a
// link, so the worker fetches the transaction's current state, which makes
// the order of events irrelevant; events about one transaction are applied
// one at a time so an older fetch never overwrites a newer one.
type Worker struct {
	bank  transactionFetcher
	inbox eventInbox
	log   zerolog.Logger
	opts  WorkerOptions
	now   func() time.Time
	wake  chan struct{}
	locks keyedMutex
}

// NewWorker returns a Worker; call Run to start it.
func NewWorker(b transactionFetcher, in eventInbox, log zerolog.Logger, opts WorkerOptions) *Worker {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.Lease <= 0 {
		opts.Lease = 5 * time.Minute
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 12
	}
	if opts.RetryBase <= 0 {
		opts.RetryBase = time.Second
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = 10 * time.Minute
	}
	return &Worker{
		bank: b, inbox: in, opts: opts, now: time.Now,
		log:  log.With().Str("component", "worker").Logger(),
		wake: make(chan struct{}, opts.Concurrency),
	}
}

// MaxAttempts is the number of attempts after which an event is left alone.
func (w *Worker) MaxAttempts() int { return w.opts.MaxAttempts }

// Notify wakes the worker at once, after new events were committed.
func (w *Worker) Notify() {
	for range cap(w.wake) {
		select {
		case w.wake <- struct{}{}:
		default:
			return
		}
	}
}

// Run applies events until ctx is cancelled, then waits for the events in
// flight. Events a previous process had claimed are released first, so a
// restart resumes them at once.
func (w *Worker) Run(ctx context.Context) error {
	// Without this step a restart would leave claimed events waiting for
	// their leases; keep trying rather than leave the inbox unattended.
	for attempt := 1; ; attempt++ {
		err := w.inbox.ReleaseLeases(ctx)
		if err == nil {
			break
		}
		w.log.Error().Err(err).Int("attempt", attempt).Msg("release event leases")
		t := time.NewTimer(backoff(w.opts.RetryBase, w.opts.RetryMax, attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	var wg gosync.WaitGroup
	for range w.opts.Concurrency {
		wg.Go(func() { w.loop(ctx) })
	}
	wg.Wait()
	return nil
}

func (w *Worker) loop(ctx context.Context) {
	for ctx.Err() == nil {
		// Apply events for as long as some are due.
		for ctx.Err() == nil {
			e, err := w.inbox.ClaimEvent(context.WithoutCancel(ctx), w.opts.Lease, w.opts.MaxAttempts)
			if errors.Is(err, store.ErrNotFound) {
				break
			}
			if err != nil {
				w.log.Error().Err(err).Msg("claim event")
				break
			}
			w.process(ctx, e)
		}
		w.wait(ctx)
	}
}

// wait sleeps until a Notify, the next retry falling due, or ctx ends.
func (w *Worker) wait(ctx context.Context) {
	d := time.Minute
	if due, err := w.inbox.NextEventDue(ctx, w.opts.MaxAttempts); err == nil && !due.IsZero() {
		d = min(max(due.Sub(w.now()), time.Millisecond), d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-w.wake:
	case <-t.C:
	}
}

// process applies one claimed event, or records why it could not.
func (w *Worker) process(ctx context.Context, e store.InboxEvent) {
	log := w.log.With().Str("event_id", e.ID).Str("event_type", e.EventType).Str("transaction_id", e.TransactionID).Logger()
	if e.TransactionID != "" {
		unlock := w.locks.lock(e.TransactionID)
		defer unlock()
	}
	change, err := w.apply(ctx, e)
	if err != nil {
		retry := w.now().Add(backoff(w.opts.RetryBase, w.opts.RetryMax, e.Attempts))
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if ferr := w.inbox.FailEvent(fctx, e.ID, err, retry); ferr != nil {
			log.Error().Err(ferr).Msg("record event failure")
		}
		ev := log.Warn()
		if e.Attempts >= w.opts.MaxAttempts {
			ev = log.Error()
		}
		ev.Err(err).Int("attempts", e.Attempts).Time("retry_at", retry).Msg("event not applied")
		if w.opts.OnFailed != nil {
			w.opts.OnFailed(e, err)
		}
		return
	}
	log.Debug().Str("change", string(change)).Msg("event applied")
	if w.opts.OnApplied != nil {
		w.opts.OnApplied(e, change)
	}
}

// apply performs one event's effect.
func (w *Worker) apply(ctx context.Context, e store.InboxEvent) (store.Change, error) {
	// A claimed event is finished even when shutdown begins, within limits.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	switch e.EventType {
	case EventPing:
		return w.inbox.ApplyEvent(actx, e.ID, nil, "")
	case EventDeleted:
		return w.inbox.ApplyEvent(actx, e.ID, nil, e.TransactionID)
	case EventCreated, EventSettled:
		t, err := w.bank.Transaction(actx, e.TransactionID)
		if errors.Is(err, bank.ErrNotFound) {
			// Already gone: the current state is "deleted".
			return w.inbox.ApplyEvent(actx, e.ID, nil, e.TransactionID)
		}
		if err != nil {
			return "", err
		}
		return w.inbox.ApplyEvent(actx, e.ID, &t, "")
	default:
		// Unknown types are recorded and skipped: the next sync covers them.
		return w.inbox.ApplyEvent(actx, e.ID, nil, "")
	}
}

// backoff is the delay before attempt n+1: base doubling per attempt, capped.
func backoff(base, maxDelay time.Duration, attempt int) time.Duration {
	d := base
	for i := 1; i < attempt && d < maxDelay; i++ {
		d *= 2
	}
	return min(d, maxDelay)
}

// keyedMutex serialises work per key.
type keyedMutex struct {
	mu    gosync.Mutex
	locks map[string]*keyedEntry
}

type keyedEntry struct {
	mu   gosync.Mutex
	refs int
}

func (k *keyedMutex) lock(key string) (unlock func()) {
	k.mu.Lock()
	if k.locks == nil {
		k.locks = map[string]*keyedEntry{}
	}
	e := k.locks[key]
	if e == nil {
		e = &keyedEntry{}
		k.locks[key] = e
	}
	e.refs++
	k.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		k.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
}
