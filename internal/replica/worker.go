package replica

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/time/rate"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/pause"
	"github.com/bankmirror/bankmirror/internal/store"
)

// eventInbox is what the worker needs of the store.
type eventInbox interface {
	MakeStaleWaitsDue(ctx context.Context, maxWait time.Duration) (int64, error)
	PendingEvents(ctx context.Context, limit, maxAttempts int) ([]store.InboxEvent, error)
	NextEventDue(ctx context.Context, maxAttempts int) (time.Time, error)
	ApplyEvents(ctx context.Context, b store.EventBatch) (store.BatchResult, error)
	FailEvents(ctx context.Context, ids []string, cause error, retryAt time.Time) error
	KnownTransactions(ctx context.Context, ids []string) (map[string]store.KnownTransaction, error)
	DeletedTransactions(ctx context.Context, ids []string) (map[string]bool, error)
	CountCreatedSince(ctx context.Context, since time.Time) (int, error)
	UpsertAccounts(ctx context.Context, accounts []bank.Account) (int, error)
	ReleaseMemory(ctx context.Context) error
}

var _ eventInbox = (*store.Store)(nil)

// workerBank is what the worker needs of the bank client.
type workerBank interface {
	Transaction(ctx context.Context, id string) (bank.Transaction, error)
	TransactionsURL(f bank.TransactionFilter) string
	TransactionsPageSparse(ctx context.Context, pageURL string, want func(id string) bool) (bank.Page[bank.Transaction], error)
	Account(ctx context.Context, id string) (bank.Account, error)
	Accounts(ctx context.Context) ([]bank.Account, error)
	// PageSize is the transactions in a page of a listing.
	PageSize() int
	tokenGate
}

var _ workerBank = (*bank.Client)(nil)

// WorkerBank is what the worker needs of a bank client (a
// *bank.Client): WorkerOptions.BankFor returns one per person.
type WorkerBank = workerBank

// tokenGate is what the worker and the schedule ask of the bank client,
// which stops sending a token the bank rejected: whether it holds one,
// and a channel closed when a new one is given. They wait for it instead
// of retrying.
type tokenGate interface {
	TokenRejected() (rejected bool, replaced <-chan struct{})
}

// WorkerOptions tune a Worker. Zero values take the defaults.
type WorkerOptions struct {
	Concurrency int           // transactions fetched at once (default 4)
	MaxAttempts int           // attempts before an event is left for an operator (default 12)
	RetryBase   time.Duration // first retry delay of an event's own failure (default 1s), doubling
	RetryMax    time.Duration // longest retry delay, and longest pause for an unavailable bank or database (default 10m)
	// RoundLimit caps the events one round reads and resolves together
	// (default 500); it applies them in a few small commits (commits.go).
	RoundLimit int
	// DirectRate and DirectBurst bound the transactions fetched one GET
	// each (default 10/s, burst 20): beyond that, pending events are
	// coalesced into rounds that list instead.
	DirectRate  rate.Limit
	DirectBurst int
	// ListAbove is the number of distinct transactions above which a
	// round lists instead of GETting each (default 3).
	ListAbove int
	// Coalesce is the shortest time between two rounds while events
	// arrive faster than DirectRate (default 250ms).
	Coalesce time.Duration
	// Yield is how long the worker waits at most while a burst of
	// deliveries lasts (Notify calls less than 20 ms apart, the last pair
	// less than 100 ms ago): during a burst the processor and the
	// database's writer go to the acknowledgements first (default 1s).
	Yield time.Duration
	// Margin widens a round's listing window before its oldest event
	// (default 2s): the bank may date a transaction a little before the
	// event about it.
	Margin time.Duration
	// BalanceEvery is the shortest time between two balance refreshes
	// (default 1s).
	BalanceEvery time.Duration
	// OnApplied, if set, is called after each event is applied.
	OnApplied func(e store.InboxEvent, c store.Change)
	// OnFailed, if set, is called after an event's own failure has been
	// recorded; e.Attempts counts it.
	OnFailed func(e store.InboxEvent, err error)
	// OnIdle, if set, is called when the worker has caught up: no event
	// due and no balance left to refresh.
	OnIdle func()
	// StopGrace is how long a round in progress when Run's context ends
	// may go on to commit what it has fetched (default DefaultStopGrace);
	// then it is cancelled, and its events wait for the next start.
	StopGrace time.Duration
	// BankFor, if set, is the client through which an event's transaction
	// is fetched: in a household, that of a person who sees its account.
	// Events whose client's token the bank rejected wait, uncounted, for a
	// new one, while the others are applied. When it returns nil no client
	// may fetch the transaction (no person of the household sees its
	// account): the event is applied leaving it as it is, and logged.
	BankFor func(e store.InboxEvent) WorkerBank
	// MayDelete, if set, reports which of ids, found missing through b (a
	// 404, or absent from b's listing of where they were), are deleted: in
	// a household, those b's person sees the account of, and those the
	// mirror does not hold. The others are left as they are, and logged: a
	// token that does not see a transaction's account answers 404 for it
	// while the bank still has it.
	MayDelete func(ctx context.Context, b WorkerBank, ids []string) (map[string]bool, error)
	// Gate, if set, says when no event can be applied at all because the
	// bank rejected every token (default: the worker's own client).
	Gate interface {
		TokenRejected() (rejected bool, replaced <-chan struct{})
	}
	// RefreshBalances, if set, refreshes the balances of accounts in
	// place of the worker's own client (a household routes each account
	// to a token that sees it).
	RefreshBalances func(ctx context.Context, accounts []string) error
}

func (o *WorkerOptions) defaults() {
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 12
	}
	if o.RetryBase <= 0 {
		o.RetryBase = time.Second
	}
	if o.RetryMax <= 0 {
		o.RetryMax = 10 * time.Minute
	}
	if o.RoundLimit <= 0 {
		o.RoundLimit = 500
	}
	if o.DirectRate <= 0 {
		o.DirectRate = 10
	}
	if o.DirectBurst <= 0 {
		o.DirectBurst = 20
	}
	if o.ListAbove <= 0 {
		o.ListAbove = 3
	}
	if o.Coalesce <= 0 {
		o.Coalesce = 250 * time.Millisecond
	}
	if o.Yield <= 0 {
		o.Yield = time.Second
	}
	if o.Margin <= 0 {
		o.Margin = 2 * time.Second
	}
	if o.BalanceEvery <= 0 {
		o.BalanceEvery = time.Second
	}
	if o.StopGrace <= 0 {
		o.StopGrace = DefaultStopGrace
	}
}

// roundTimeout bounds a round: one that takes longer (a bank that stopped
// answering) is abandoned as the bank's failure, and its events wait.
const roundTimeout = 2 * time.Minute

// Worker applies inbox events to the mirror. An event carries only a
// transaction's id, so the worker makes the mirror's copy equal to the
// bank's current state, which makes duplicates and order irrelevant. It
// works in rounds: the pending events of a round share one fetch per
// transaction, or, when many are pending, a listing of the window they
// fall in (and of what is HELD), and are applied in a few small commits.
// Rounds run one at a time: the daemon's single worker owns the inbox, so
// nothing is claimed durably.
type Worker struct {
	bank   workerBank
	inbox  eventInbox
	log    zerolog.Logger
	opts   WorkerOptions
	now    func() time.Time
	wake   chan struct{}
	direct *rate.Limiter

	lastRound  time.Time
	lastTook   time.Duration  // how long the last round took
	commitSize int            // transactions and events in the next commit (commits.go)
	listed     bool           // a round listed since the worker was last idle: a burst
	paused     failureBackoff // the bank or the network is unavailable
	dbDown     failureBackoff // the database cannot be read or written

	notified   atomic.Int64 // when Notify was last called (UnixNano)
	burst      atomic.Int64 // when Notify was last called within burstGap of the call before (UnixNano)
	yieldSince time.Time    // when the worker began to yield to a burst of deliveries

	mu          sync.Mutex
	dirty       map[string]bool // accounts whose balances to refresh
	nextBalance time.Time
	state       WorkerState
}

// WorkerState is what the worker is doing, for status and health.
type WorkerState struct {
	Paused       bool      // the bank or the network is unavailable
	PausedUntil  time.Time // next try
	PauseCause   string
	Unauthorized bool // the bank rejected the token
}

// NewWorker returns a Worker; call Run to start it.
func NewWorker(b workerBank, in eventInbox, log zerolog.Logger, opts WorkerOptions) *Worker {
	opts.defaults()
	// The limiter starts with one round's worth of direct fetches
	// (ListAbove), not a full DirectBurst: a restarted daemon (a crash
	// loop, a kill in the middle of a burst) earns the rest at DirectRate
	// like a running one rather than spending a fresh burst each time;
	// meanwhile its events are coalesced into listings.
	direct := rate.NewLimiter(opts.DirectRate, opts.DirectBurst)
	direct.AllowN(time.Now(), max(opts.DirectBurst-opts.ListAbove, 0))
	return &Worker{
		bank: b, inbox: in, opts: opts, now: time.Now,
		log:    log.With().Str(logfield.Component, "worker").Logger(),
		wake:   make(chan struct{}, 1),
		direct: direct,
		dirty:  map[string]bool{},
		paused: failureBackoff{base: opts.RetryBase, max: min(opts.RetryMax, time.Minute)},
		dbDown: failureBackoff{base: opts.RetryBase, max: min(opts.RetryMax, time.Minute)},
	}
}

// MaxAttempts is the number of attempts after which an event is left alone.
func (w *Worker) MaxAttempts() int { return w.opts.MaxAttempts }

// State reports whether the worker is paused and why.
func (w *Worker) State() WorkerState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state
}

// Notify wakes the worker at once, after new events were committed.
func (w *Worker) Notify() {
	// Real time, as for every wait of the worker: yielding paces the
	// processor, whatever clock the events are stamped with.
	now := time.Now().UnixNano()
	if prev := w.notified.Swap(now); now-prev < int64(burstGap) {
		w.burst.Store(now)
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run applies events until ctx is cancelled; a round in progress then has
// StopGrace to commit. First, events whose wait is stale (an earlier
// worker's claim, a clock that stepped back) are made due at once; an
// event that failed on its own keeps its backoff.
func (w *Worker) Run(ctx context.Context) error {
	for attempt := 1; ; attempt++ {
		n, err := w.inbox.MakeStaleWaitsDue(ctx, w.opts.RetryMax)
		if err == nil {
			if n > 0 {
				w.log.Info().Int64(logfield.Events, n).Msg("events whose wait was stale are due now")
			}
			break
		}
		w.log.Error().Err(err).Int(logfield.Attempt, attempt).Msg("make stale event waits due")
		if pause.For(ctx, bank.Backoff(w.opts.RetryBase, w.opts.RetryMax, attempt)) != nil {
			return ctx.Err()
		}
	}
	for ctx.Err() == nil {
		if w.waitForToken(ctx) {
			continue
		}
		more, wait := w.round(ctx)
		if more {
			continue
		}
		w.waitFor(ctx, wait)
	}
	return nil
}

// round runs one round. It reports whether another should follow at once,
// or else how long to wait at most.
func (w *Worker) round(ctx context.Context) (bool, time.Duration) {
	if d := w.paused.wait(w.now()); d > 0 {
		return false, d
	}
	if d := w.dbDown.wait(w.now()); d > 0 {
		return false, d
	}
	if d := w.yieldFor(time.Now()); d > 0 {
		if pause.For(ctx, d) != nil {
			return false, 0
		}
		return true, 0
	}
	evs, err := w.inbox.PendingEvents(ctx, w.opts.RoundLimit, w.opts.MaxAttempts)
	if err != nil {
		if ctx.Err() != nil {
			return false, 0
		}
		w.databaseFailed(err)
		return false, 0
	}
	if len(evs) == 0 {
		w.refreshBalances(ctx)
		w.mu.Lock()
		idle := len(w.dirty) == 0
		w.mu.Unlock()
		if idle && w.listed {
			w.listed = false
			w.release(ctx)
		}
		if idle && w.opts.OnIdle != nil {
			w.opts.OnIdle()
		}
		return false, w.untilNextDue(ctx)
	}
	if evs, err = w.skipCovered(ctx, evs); err != nil {
		if ctx.Err() == nil {
			w.databaseFailed(err)
		}
		return false, 0
	}
	if len(evs) == 0 {
		return true, 0
	}
	ids := transactionIDs(evs)
	now := w.now()
	direct := len(ids) <= w.opts.ListAbove && w.direct.AllowN(now, len(ids))
	if !direct {
		// Events arrive faster than they should be fetched one by one:
		// let them gather, then list.
		// Rounds take at most a third of the time, so that a busy worker
		// leaves the processor to the receiver.
		gap := max(w.opts.Coalesce, 2*w.lastTook)
		if d := w.lastRound.Add(gap).Sub(now); d > 0 {
			if pause.For(ctx, d) != nil {
				return false, 0
			}
			return true, 0 // read again: more events have gathered
		}
	}
	w.lastRound = now
	w.listed = w.listed || !direct
	applied := w.apply(ctx, evs, ids, direct)
	w.refreshBalances(ctx)
	w.lastTook = w.now().Sub(now)
	if applied == 0 && len(evs) > 0 && ctx.Err() == nil && w.paused.failures == 0 && w.dbDown.failures == 0 {
		// Every event waits for a token the bank rejected: wait for a
		// Notify (a new token) rather than read them again at once.
		return false, time.Minute
	}
	return len(evs) == w.opts.RoundLimit, 0
}

// A burst of deliveries is two commits of the receiver (two Notify calls)
// less than burstGap apart; it lasts until burstQuiet passes without such
// a pair. An event on its own is applied at once.
const (
	burstGap   = 20 * time.Millisecond
	burstQuiet = 100 * time.Millisecond
	// yieldPoll is how often a yielding worker looks again.
	yieldPoll = 20 * time.Millisecond
)

// yieldFor is how long to wait before the next round while a burst of
// deliveries lasts (WorkerOptions.Yield): 0 once it has ended, or once the
// worker has yielded Yield since it began; then it yields no more until
// the burst ends.
func (w *Worker) yieldFor(now time.Time) time.Duration {
	if now.Sub(time.Unix(0, w.burst.Load())) >= burstQuiet {
		w.yieldSince = time.Time{}
		return 0
	}
	if w.yieldSince.IsZero() {
		w.yieldSince = now
	}
	if now.Sub(w.yieldSince) >= w.opts.Yield {
		return 0
	}
	return yieldPoll
}

// skipCovered applies, without asking the bank, the events whose change
// the mirror already holds: their transaction's copy was fetched after
// they were received (store.KnownTransaction.Covers), by a round or a
// sync, before a restart as well as since; or the bank confirmed it
// deleted, which is final. It returns the others.
func (w *Worker) skipCovered(ctx context.Context, evs []store.InboxEvent) ([]store.InboxEvent, error) {
	ids := transactionIDs(evs)
	known, err := w.inbox.KnownTransactions(ctx, ids)
	if err != nil {
		return nil, err
	}
	deleted, err := w.inbox.DeletedTransactions(ctx, ids)
	if err != nil {
		return nil, err
	}
	var covered []store.InboxEvent
	rest := evs[:0:0]
	for _, e := range evs {
		k, ok := known[e.TransactionID]
		if transactionEvent(e) && (deleted[e.TransactionID] || ok && k.Covers(e.ReceivedAt)) {
			covered = append(covered, e)
		} else {
			rest = append(rest, e)
		}
	}
	if len(covered) == 0 {
		return evs, nil
	}
	b := store.EventBatch{Events: make([]string, len(covered))}
	for i, e := range covered {
		b.Events[i] = e.ID
	}
	err = w.commit(ctx, b, covered, func(events []store.InboxEvent, _ store.BatchResult, _ map[string]store.Change) {
		for _, e := range events {
			w.log.Debug().Str(logfield.EventID, bank.LogID(e.ID)).Str(logfield.EventType, e.EventType).
				Str(logfield.TransactionID, bank.LogID(e.TransactionID)).Msg("event applied: the mirror's copy is newer")
			if w.opts.OnApplied != nil {
				w.opts.OnApplied(e, "")
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return rest, nil
}

// partition groups evs by the client their transactions are fetched
// through (WorkerOptions.BankFor), in order of first appearance; events
// whose client's token the bank rejected are left out (they wait), and
// those no client may fetch are returned apart (unseen).
func (w *Worker) partition(evs []store.InboxEvent) (groups []eventGroup, waiting int, unseen []store.InboxEvent) {
	if w.opts.BankFor == nil {
		return []eventGroup{{bank: w.bank, evs: evs}}, 0, nil
	}
	index := map[workerBank]int{}
	for _, e := range evs {
		b := w.opts.BankFor(e)
		if b == nil {
			unseen = append(unseen, e)
			continue
		}
		if rejected, _ := b.TokenRejected(); rejected {
			waiting++
			continue
		}
		i, ok := index[b]
		if !ok {
			i = len(groups)
			index[b] = i
			groups = append(groups, eventGroup{bank: b})
		}
		groups[i].evs = append(groups[i].evs, e)
	}
	return groups, waiting, unseen
}

// eventGroup is the events of a round fetched through one client.
type eventGroup struct {
	bank workerBank
	evs  []store.InboxEvent
}

// apply resolves the current state of the round's transactions and applies
// it with the events in a few small commits (commits.go). It returns the
// number of events it took on: those waiting for a rejected token are not.
func (w *Worker) apply(ctx context.Context, evs []store.InboxEvent, ids []string, direct bool) int {
	groups, waiting, unseen := w.partition(evs)
	for _, e := range unseen {
		w.log.Warn().Str(logfield.EventID, bank.LogID(e.ID)).Str(logfield.EventType, e.EventType).
			Str(logfield.TransactionID, bank.LogID(e.TransactionID)).
			Msg("no token of the household sees the account of the event's transaction; the mirror's copy is left as it is")
	}
	if waiting > 0 || len(unseen) > 0 {
		if waiting > 0 {
			w.log.Debug().Int(logfield.Events, waiting).Msg("events wait for a token the bank rejected")
		}
		// Unseen events are applied with nothing fetched: no change.
		var taken []store.InboxEvent
		for _, g := range groups {
			taken = append(taken, g.evs...)
		}
		taken = append(taken, unseen...)
		evs, ids = taken, transactionIDs(taken)
	}
	if len(evs) == 0 {
		return 0
	}
	w.applyGroups(ctx, groups, evs, ids, direct)
	return len(evs)
}

// applyGroups is apply once the events are grouped by client.
func (w *Worker) applyGroups(ctx context.Context, groups []eventGroup, evs []store.InboxEvent, ids []string, direct bool) {
	// A round in progress when the stop begins commits what it has
	// fetched if it can within the grace.
	actx, cancelStop := afterStop(ctx, w.opts.StopGrace)
	defer cancelStop()
	actx, cancel := context.WithTimeout(actx, roundTimeout)
	defer cancel()
	actx = bank.WithLane(actx, bank.LaneWebhook)
	stopped := func(err error) bool {
		if ctx.Err() == nil {
			return false
		}
		w.log.Debug().Err(err).Int(logfield.Events, len(evs)).Msg("round stopped; its events wait for the next start")
		return true
	}
	res := &resolution{found: map[string]bank.Transaction{}, gone: map[string]bool{}, failed: map[string]error{}}
	var err error
	for _, g := range groups {
		var gr *resolution
		if gr, err = w.resolve(actx, g.bank, g.evs, transactionIDs(g.evs), direct); err != nil {
			break
		}
		if verr := w.vouch(actx, g.bank, gr); verr != nil {
			if !stopped(verr) {
				w.databaseFailed(verr)
			}
			return
		}
		res = res.merge(gr)
	}
	if err != nil {
		if !stopped(err) {
			w.bankFailed(err)
		}
		return
	}
	if w.paused.failures > 0 {
		w.log.Info().Msg("bank available again; applying webhook events")
	}
	w.paused.succeeded(w.setState)

	batch, failed := res.batch(evs, ids)
	err = w.commit(actx, batch, evs, func(events []store.InboxEvent, out store.BatchResult, changes map[string]store.Change) {
		w.markDirty(out.Accounts)
		for _, e := range events {
			c := changes[e.TransactionID]
			w.log.Debug().Str(logfield.EventID, bank.LogID(e.ID)).Str(logfield.EventType, e.EventType).Str(logfield.TransactionID, bank.LogID(e.TransactionID)).
				Str(logfield.Change, string(c)).Msg("event applied")
			if w.opts.OnApplied != nil {
				w.opts.OnApplied(e, c)
			}
		}
	})
	if err != nil {
		if !stopped(err) {
			w.databaseFailed(err)
		}
		return
	}
	w.dbDown.succeeded(nil)
	w.recordFailures(actx, failed, res.failed)
	w.log.Debug().Int(logfield.Events, len(evs)).Int(logfield.Transactions, len(ids)).Bool(logfield.Listed, !direct).
		Int(logfield.Upserted, len(batch.Upserts)).Int(logfield.Deleted, len(batch.Deletes)).Msg("round applied")
}

// resolve learns the current state of the round's transactions: from
// listings unless the round is direct, then by fetching each transaction
// still unresolved. It returns the first failure of the bank or the
// network.
func (w *Worker) resolve(ctx context.Context, b workerBank, evs []store.InboxEvent, ids []string, direct bool) (*resolution, error) {
	res := &resolution{found: map[string]bank.Transaction{}, gone: map[string]bool{}, failed: map[string]error{}}
	if !direct {
		if err := w.list(ctx, b, evs, ids, res); err != nil {
			return nil, err
		}
	}
	if err := w.fetch(ctx, b, res.unresolved(ids), res); err != nil {
		return nil, err
	}
	return res, nil
}

// vouch keeps gone only those of res's transactions that b may show
// deleted (WorkerOptions.MayDelete); the others are left as they are
// (their events are applied with no change), and logged.
func (w *Worker) vouch(ctx context.Context, b workerBank, res *resolution) error {
	if w.opts.MayDelete == nil || len(res.gone) == 0 {
		return nil
	}
	ids := make([]string, 0, len(res.gone))
	for id := range res.gone {
		ids = append(ids, id)
	}
	may, err := w.opts.MayDelete(ctx, b, ids)
	if err != nil {
		return fmt.Errorf("who may delete: %w", err)
	}
	for _, id := range ids {
		if !may[id] {
			delete(res.gone, id)
			w.log.Warn().Str(logfield.TransactionID, bank.LogID(id)).
				Msg("transaction not found through a token that does not see its account; not deleted")
		}
	}
	return nil
}

// merge adds o's findings to r (nil: a new one). A transaction two
// clients resolved (a joint account's, delivered to two people's
// webhooks) is found if either found it.
func (r *resolution) merge(o *resolution) *resolution {
	if r == nil {
		return o
	}
	for id, t := range o.found {
		r.found[id] = t
		delete(r.gone, id)
		delete(r.failed, id)
	}
	for id := range o.gone {
		if _, ok := r.found[id]; !ok {
			r.gone[id] = true
		}
	}
	for id, err := range o.failed {
		if _, ok := r.found[id]; !ok && !r.gone[id] {
			r.failed[id] = err
		}
	}
	return r
}

// resolution is what a round learned of its transactions.
type resolution struct {
	found  map[string]bank.Transaction
	gone   map[string]bool  // confirmed deleted: a 404, or absent from a listing that covered it
	failed map[string]error // the transaction's own failure (not the bank's)
}

// failedOwn reports whether e's transaction failed on its own: e is not
// applied, and counts an attempt.
func (r *resolution) failedOwn(e store.InboxEvent) bool {
	_, bad := r.failed[e.TransactionID]
	return bad && e.TransactionID != ""
}

// batch is the round's commit: the transactions found are upserted, those
// gone deleted, and every event applied but those whose transaction
// failed on its own, which it returns.
func (r *resolution) batch(evs []store.InboxEvent, ids []string) (store.EventBatch, []store.InboxEvent) {
	var b store.EventBatch
	for _, id := range ids {
		if t, ok := r.found[id]; ok {
			b.Upserts = append(b.Upserts, t)
		} else if r.gone[id] {
			b.Deletes = append(b.Deletes, id)
		}
	}
	var failed []store.InboxEvent
	for _, e := range evs {
		if r.failedOwn(e) {
			failed = append(failed, e)
			continue
		}
		b.Events = append(b.Events, e.ID)
	}
	return b, failed
}

func (r *resolution) unresolved(ids []string) []string {
	var out []string
	for _, id := range ids {
		_, found := r.found[id]
		_, failed := r.failed[id]
		if !found && !failed && !r.gone[id] {
			out = append(out, id)
		}
	}
	return out
}

// list resolves what it can of ids from listings: the window since the
// round's oldest event, then, if many remain, what is HELD. A listing
// stops when it has cost as many requests as GETs of what is left would.
func (w *Worker) list(ctx context.Context, b workerBank, evs []store.InboxEvent, ids []string, res *resolution) error {
	since, ok := oldestEvent(evs)
	if !ok {
		return nil
	}
	since = since.Add(-w.opts.Margin)
	known, err := w.inbox.KnownTransactions(ctx, ids)
	if err != nil {
		return err
	}
	// Events about older transactions (settlements of old holds, or a
	// backlog) fall outside the events' window: list back far enough to
	// cover the mirrored ones too when that costs fewer requests than
	// fetching them one by one.
	if oldest, ok := oldestKnown(known); ok && oldest.Before(since) {
		wider := oldest.Add(-w.opts.Margin)
		if n, err := w.inbox.CountCreatedSince(ctx, wider); err == nil && n/b.PageSize()+1 < len(ids)/2 {
			since = wider
		}
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	covered, ok, err := w.listPages(ctx, b, b.TransactionsURL(bank.TransactionFilter{Since: since}), since, want, ids, res)
	if err != nil {
		return err
	}
	if ok {
		w.confirmGone(evs, known, covered, ids, res)
	}
	if len(res.unresolved(ids)) > w.opts.ListAbove {
		held := b.TransactionsURL(bank.TransactionFilter{Status: "HELD"})
		if _, _, err := w.listPages(ctx, b, held, time.Time{}, want, ids, res); err != nil {
			return err
		}
	}
	return nil
}

// confirmGone marks gone the unresolved transactions that a listing
// complete from covered on shows deleted. A row mirrored before the
// listing began (every row in known: it was read before the first page
// was asked for, so no clock is consulted), created inside that range,
// and absent from it, is gone at the bank. So is one never mirrored that
// the bank announced deleted, if its event falls in that range: the
// listing confirms the announcement.
func (w *Worker) confirmGone(evs []store.InboxEvent, known map[string]store.KnownTransaction, covered time.Time, ids []string, res *resolution) {
	deletedAt := map[string]time.Time{}
	for _, e := range evs {
		if e.EventType == bank.EventTransactionDeleted {
			if at, err := time.Parse(time.RFC3339, e.CreatedAt); err == nil {
				deletedAt[e.TransactionID] = at
			}
		}
	}
	for _, id := range res.unresolved(ids) {
		k, ok := known[id]
		switch {
		case ok:
			if created, err := time.Parse(time.RFC3339, k.CreatedAt); err == nil && !created.Before(covered) {
				res.gone[id] = true
			}
		case !ok:
			if at, announced := deletedAt[id]; announced && !at.Before(covered.Add(w.opts.Margin)) {
				res.gone[id] = true
			}
		}
	}
}

// listPages follows a listing, keeping the wanted transactions it meets.
// It reports the createdAt from which on the listing is complete: from,
// when it reached its end; else just after the oldest createdAt it saw
// (rows at that instant may continue on the next page). When it stopped
// before seeing any transaction (its first page refused: a 4xx, a page
// that cannot be decoded) it vouches for nothing: ok is false.
func (w *Worker) listPages(ctx context.Context, b workerBank, first string, from time.Time, want map[string]bool, ids []string,
	res *resolution) (covered time.Time, ok bool, err error) {
	pages := 0
	var oldest time.Time
	stopped := func() (time.Time, bool, error) { return oldest.Add(time.Nanosecond), !oldest.IsZero(), nil }
	page := func(ctx context.Context, pageURL string) (bank.Page[bank.Transaction], error) {
		return b.TransactionsPageSparse(ctx, pageURL, func(id string) bool { return want[id] })
	}
	for p, err := range bank.Pages(ctx, first, page) {
		if err != nil {
			if bank.Unavailable(err) {
				return time.Time{}, false, err
			}
			w.log.Warn().Err(err).Msg("listing for webhook events failed; fetching one by one")
			return stopped()
		}
		pages++
		for _, t := range p.Data {
			if want[t.ID] {
				res.found[t.ID] = t
			}
			if c, err := time.Parse(time.RFC3339, t.CreatedAt); err == nil && (oldest.IsZero() || c.Before(oldest)) {
				oldest = c
			}
		}
		if p.Next != "" && pages >= len(res.unresolved(ids)) {
			return stopped() // GETs are now cheaper
		}
	}
	return from, true, nil
}

// fetch GETs each id, a few at a time. A 404 confirms a deletion. The
// first failure of the bank or the network is returned; a transaction's
// own failure is recorded in res.failed.
func (w *Worker) fetch(ctx context.Context, b workerBank, ids []string, res *resolution) error {
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, w.opts.Concurrency)
	var wg sync.WaitGroup
	for _, id := range ids {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			t, err := b.Transaction(ctx, id)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				res.found[id] = t
			case errors.Is(err, bank.ErrNotFound):
				res.gone[id] = true
			case bank.Unavailable(err):
				if firstErr == nil {
					firstErr = err
					cancel()
				}
			default:
				res.failed[id] = err
			}
		})
	}
	wg.Wait()
	return firstErr
}

// recordFailures counts an attempt for events whose transaction failed on
// its own (a response that cannot be decoded, a 4xx).
func (w *Worker) recordFailures(ctx context.Context, evs []store.InboxEvent, failed map[string]error) {
	for _, e := range evs {
		cause := failed[e.TransactionID]
		e.Attempts++
		retry := w.now().Add(bank.Backoff(w.opts.RetryBase, w.opts.RetryMax, e.Attempts))
		if err := w.inbox.FailEvents(ctx, []string{e.ID}, cause, retry); err != nil {
			w.databaseFailed(err)
			return
		}
		ev := w.log.Warn() //nolint:zerologlint // sent below
		if e.Attempts >= w.opts.MaxAttempts {
			ev = w.log.Error() //nolint:zerologlint // sent below
		}
		ev.Err(cause).Str(logfield.EventID, bank.LogID(e.ID)).Str(logfield.TransactionID, bank.LogID(e.TransactionID)).Int(logfield.Attempts, e.Attempts).
			Time(logfield.RetryAt, retry).Msg("event not applied")
		if w.opts.OnFailed != nil {
			w.opts.OnFailed(e, cause)
		}
	}
}

// waitForToken waits while the bank client holds a token the bank
// rejected: events stay in the inbox, none uses an attempt, and no request
// is sent, until a new token is given (or ctx ends). It reports whether it
// waited.
func (w *Worker) waitForToken(ctx context.Context) bool {
	var gate tokenGate = w.bank
	if w.opts.Gate != nil {
		gate = w.opts.Gate
	}
	rejected, replaced := gate.TokenRejected()
	if !rejected {
		return false
	}
	w.setState(func(s *WorkerState) {
		*s = WorkerState{Paused: true, PauseCause: "the bank rejected the token; waiting for a new one", Unauthorized: true}
	})
	w.log.Debug().Msg("token rejected; webhook events wait for a new token")
	select {
	case <-ctx.Done():
		return true
	case <-replaced:
	}
	w.paused = failureBackoff{base: w.paused.base, max: w.paused.max}
	w.setState(func(s *WorkerState) { *s = WorkerState{} })
	w.log.Info().Msg("new token; applying webhook events")
	return true
}

// bankFailed pauses the worker: the bank or the network failed, which is
// no event's fault, so no attempt is counted. A rejected token is logged
// once by the daemon (the client reports it), not here; the worker then
// waits for a new one (waitForToken).
func (w *Worker) bankFailed(err error) {
	d, first := w.paused.failed(w.now())
	unauthorized := errors.Is(err, bank.ErrUnauthorized)
	w.setState(func(s *WorkerState) {
		s.Paused, s.PausedUntil, s.PauseCause, s.Unauthorized = true, w.now().Add(d), err.Error(), unauthorized
	})
	ev := w.log.Debug() //nolint:zerologlint // sent below
	if first && !unauthorized {
		ev = w.log.Error() //nolint:zerologlint // sent below
	}
	ev.Err(err).Dur(logfield.RetryIn, d).Msg("bank unavailable; webhook events wait (no attempt counted)")
}

// databaseFailed backs off after the database could not be read or
// written (a full disk, a locked file); one error line per episode.
func (w *Worker) databaseFailed(err error) {
	d, first := w.dbDown.failed(w.now())
	ev := w.log.Debug() //nolint:zerologlint // sent below
	if first {
		ev = w.log.Error() //nolint:zerologlint // sent below
	}
	ev.Err(err).Dur(logfield.RetryIn, d).Msg("webhook inbox unavailable; retrying")
}

func (w *Worker) setState(f func(*WorkerState)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f(&w.state)
}

func (w *Worker) markDirty(accounts []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, a := range accounts {
		if a != "" {
			w.dirty[a] = true
		}
	}
}

// refreshBalances fetches the balances of accounts whose transactions
// changed, at most once per BalanceEvery: one GET for one account, the
// account list for more.
func (w *Worker) refreshBalances(ctx context.Context) {
	w.mu.Lock()
	if len(w.dirty) == 0 || w.now().Before(w.nextBalance) {
		w.mu.Unlock()
		return
	}
	var ids []string
	for a := range w.dirty {
		ids = append(ids, a)
	}
	w.nextBalance = w.now().Add(w.opts.BalanceEvery)
	w.mu.Unlock()

	ctx = bank.WithLane(ctx, bank.LaneWebhook)
	var accounts []bank.Account
	var err error
	switch {
	case w.opts.RefreshBalances != nil:
		err = w.opts.RefreshBalances(ctx, ids)
	case len(ids) == 1:
		var a bank.Account
		a, err = w.bank.Account(ctx, ids[0])
		accounts = []bank.Account{a}
	default:
		accounts, err = w.bank.Accounts(ctx)
	}
	if err == nil && accounts != nil {
		_, err = w.inbox.UpsertAccounts(ctx, accounts)
	}
	if err != nil {
		w.log.Warn().Err(err).Msg("refresh account balances")
		return
	}
	w.mu.Lock()
	for _, a := range ids {
		delete(w.dirty, a)
	}
	w.mu.Unlock()
}

// release returns what a burst of events used to the OS once the worker
// has caught up, as the schedule does after a sync: SQLite's page caches,
// the C heap pages they freed, and Go's free heap. A daemon that applied
// a burst otherwise keeps its peak until the next sync.
func (w *Worker) release(ctx context.Context) { ReleaseMemory(ctx, w.inbox, w.log, true) }

// untilNextDue is how long to wait for the next retry or balance refresh.
func (w *Worker) untilNextDue(ctx context.Context) time.Duration {
	d := time.Minute
	if due, err := w.inbox.NextEventDue(ctx, w.opts.MaxAttempts); err == nil && !due.IsZero() {
		d = min(max(due.Sub(w.now()), time.Millisecond), d)
	}
	w.mu.Lock()
	if len(w.dirty) > 0 {
		d = min(d, max(w.nextBalance.Sub(w.now()), time.Millisecond))
	}
	w.mu.Unlock()
	return d
}

// waitFor sleeps up to d, until a Notify, or until ctx ends.
func (w *Worker) waitFor(ctx context.Context, d time.Duration) {
	if d <= 0 {
		d = time.Millisecond
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-w.wake:
	case <-t.C:
	}
}

// transactionIDs lists the distinct transactions events refer to, in
// order, leaving out events about none (PING) and types the worker does
// not know (the next sync covers them).
func transactionIDs(evs []store.InboxEvent) []string {
	seen := map[string]bool{}
	var ids []string
	for _, e := range evs {
		if transactionEvent(e) && !seen[e.TransactionID] {
			seen[e.TransactionID] = true
			ids = append(ids, e.TransactionID)
		}
	}
	return ids
}

// transactionEvent reports whether e is about a transaction, of a type
// the worker applies.
func transactionEvent(e store.InboxEvent) bool {
	switch e.EventType {
	case bank.EventTransactionCreated, bank.EventTransactionSettled, bank.EventTransactionDeleted:
		return e.TransactionID != ""
	}
	return false
}

// oldestKnown is the earliest createdAt among mirrored transactions.
func oldestKnown(known map[string]store.KnownTransaction) (time.Time, bool) {
	var oldest time.Time
	for _, k := range known {
		if t, err := time.Parse(time.RFC3339, k.CreatedAt); err == nil && (oldest.IsZero() || t.Before(oldest)) {
			oldest = t
		}
	}
	return oldest, !oldest.IsZero()
}

// oldestEvent is the earliest createdAt among events about transactions.
func oldestEvent(evs []store.InboxEvent) (time.Time, bool) {
	var oldest time.Time
	for _, e := range evs {
		if e.TransactionID == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, e.CreatedAt)
		if err != nil {
			return time.Time{}, false
		}
		if oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
	}
	return oldest, !oldest.IsZero()
}

// failureBackoff tracks an episode of failures: a doubling pause, and
// whether a failure is the episode's first (logged at error, the rest at
// debug).
type failureBackoff struct {
	base, max time.Duration
	failures  int
	until     time.Time
}

func (f *failureBackoff) failed(now time.Time) (time.Duration, bool) {
	f.failures++
	d := bank.Backoff(f.base, f.max, f.failures)
	f.until = now.Add(d)
	return d, f.failures == 1
}

func (f *failureBackoff) wait(now time.Time) time.Duration {
	if f.failures == 0 {
		return 0
	}
	return max(f.until.Sub(now), 0)
}

// succeeded ends an episode; clear, if set, resets the worker's state.
func (f *failureBackoff) succeeded(clear func(func(*WorkerState))) {
	if f.failures == 0 {
		return
	}
	f.failures = 0
	if clear != nil {
		clear(func(s *WorkerState) { *s = WorkerState{} })
	}
}
