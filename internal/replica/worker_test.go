package replica_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// fakeBank is a hand-written fake of the worker's bank.
type fakeBank struct {
	mu            sync.Mutex
	TransactionFn func(ctx context.Context, id string) (bank.Transaction, error)
	// TokenRejectedFn, if set, says whether the bank rejected the token
	// (nil: it accepts it).
	TokenRejectedFn func() (bool, <-chan struct{})
	calls           int
}

// PageSize is the client's default.
func (f *fakeBank) PageSize() int { return 100 }

func (f *fakeBank) TokenRejected() (bool, <-chan struct{}) {
	if f.TokenRejectedFn == nil {
		return false, nil
	}
	return f.TokenRejectedFn()
}

func (f *fakeBank) Transaction(ctx context.Context, id string) (bank.Transaction, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	return f.TransactionFn(ctx, id)
}

// The worker lists only when many transactions are pending; these tests
// keep rounds small, so a listing or a balance refresh is a test failure.
func (f *fakeBank) TransactionsURL(bank.TransactionFilter) string {
	return "http://bank.invalid/transactions"
}

func (f *fakeBank) TransactionsPageSparse(context.Context, string, func(string) bool) (bank.Page[bank.Transaction], error) {
	return bank.Page[bank.Transaction]{}, errors.New("fake bank: unexpected listing")
}

func (f *fakeBank) Account(_ context.Context, id string) (bank.Account, error) {
	return bank.Account{ID: id, DisplayName: "Spending", AccountType: "TRANSACTIONAL", OwnershipType: "INDIVIDUAL",
		Balance: bank.Money{CurrencyCode: "AUD", Value: "1.00", ValueInBaseUnits: 100}, CreatedAt: "2020-01-01T00:00:00+11:00", Raw: []byte(`{}`)}, nil
}

func (f *fakeBank) Accounts(ctx context.Context) ([]bank.Account, error) {
	a, err := f.Account(ctx, "a1")
	return []bank.Account{a}, err
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func txFor(id, status string) bank.Transaction {
	return bank.Transaction{ID: id, Status: status, Description: "Shop", AccountID: "a1",
		Amount:    bank.Money{CurrencyCode: "AUD", Value: "-1.00", ValueInBaseUnits: -100},
		CreatedAt: "2026-01-01T10:00:00+11:00", DeepLinkURL: "up://t/" + id, Raw: []byte(`{"id":"` + id + `","s":"` + status + `"}`)}
}

func inboxEvent(id, typ, txID string) store.InboxEvent {
	return store.InboxEvent{ID: id, EventType: typ, WebhookID: "w1", TransactionID: txID, CreatedAt: "2026-01-01T10:00:00+11:00", Body: "{}"}
}

// runWorker runs w until every id in want has been applied or marked as
// failed the given number of times, then stops it.
type observed struct {
	mu      sync.Mutex
	applied map[string]store.Change
	ch      chan struct{}
}

func newObserved() *observed {
	return &observed{applied: map[string]store.Change{}, ch: make(chan struct{}, 100)}
}

func (o *observed) onApplied(e store.InboxEvent, c store.Change) {
	o.mu.Lock()
	o.applied[e.ID] = c
	o.mu.Unlock()
	o.ch <- struct{}{}
}

func (o *observed) waitFor(t *testing.T, ids ...string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		o.mu.Lock()
		done := true
		for _, id := range ids {
			if _, ok := o.applied[id]; !ok {
				done = false
			}
		}
		o.mu.Unlock()
		if done {
			return
		}
		select {
		case <-o.ch:
		case <-timeout:
			t.Fatalf("events %v not all applied", ids)
		}
	}
}

func startWorker(t *testing.T, b *fakeBank, st *store.Store, opts replica.WorkerOptions) (*replica.Worker, func()) {
	t.Helper()
	w := replica.NewWorker(b, st, zerolog.Nop(), opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return w, stop
}

func TestWorkerAppliesEachEventType(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	// t-gone is mirrored, then deleted at the bank before its SETTLED event
	// is processed: the fetch answers 404, which means deleted. t-del's
	// deletion is confirmed by a 404 too; t-live gets a DELETED event but
	// the bank still has it, so it stays.
	if _, err := st.UpsertTransactions(ctx, []bank.Transaction{txFor("t-del", "HELD"), txFor("t-gone", "HELD"), txFor("t-live", "HELD")}); err != nil {
		t.Fatal(err)
	}
	fb := &fakeBank{TransactionFn: func(_ context.Context, id string) (bank.Transaction, error) {
		switch id {
		case "t-new":
			return txFor(id, "SETTLED"), nil
		case "t-live":
			return txFor(id, "HELD"), nil
		case "t-gone", "t-del":
			return bank.Transaction{}, fmt.Errorf("get: %w", bank.ErrNotFound)
		}
		return bank.Transaction{}, fmt.Errorf("unexpected fetch of %s: %w", id, bank.ErrBadRequest)
	}}
	obs := newObserved()
	w, _ := startWorker(t, fb, st, replica.WorkerOptions{OnApplied: obs.onApplied})
	if _, err := st.InsertEvents(ctx, []store.InboxEvent{
		inboxEvent("e1", bank.EventTransactionCreated, "t-new"),
		inboxEvent("e2", bank.EventTransactionDeleted, "t-del"),
		inboxEvent("e3", bank.EventTransactionSettled, "t-gone"),
		inboxEvent("e4", bank.EventPing, ""),
	}); err != nil {
		t.Fatal(err)
	}
	w.Notify()
	obs.waitFor(t, "e1", "e2", "e3", "e4")
	if _, err := st.InsertEvents(ctx, []store.InboxEvent{inboxEvent("e5", bank.EventTransactionDeleted, "t-live")}); err != nil {
		t.Fatal(err)
	}
	w.Notify()
	obs.waitFor(t, "e5")
	want := map[string]store.Change{"e1": store.Created, "e2": store.Deleted, "e3": store.Deleted, "e4": "", "e5": ""}
	for id, c := range want {
		if obs.applied[id] != c {
			t.Errorf("event %s: change %q, want %q", id, obs.applied[id], c)
		}
	}
	db := st.Reader()
	if got := mirrortest.Strings(t, db, "SELECT id FROM transactions ORDER BY id"); !slices.Equal(got, []string{"t-live", "t-new"}) {
		t.Errorf("live transactions = %v, want t-live and t-new", got)
	}
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM webhook_events WHERE processed_at IS NOT NULL"); n != 5 {
		t.Errorf("processed = %d, want 5", n)
	}
	// The accounts of changed transactions get a fresh balance.
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM account_balances WHERE account_id = 'a1'"); n != 1 {
		t.Errorf("balance rows of a1 = %d, want 1", n)
	}
}

// The bank's failures (5xx) pause the worker without counting attempts;
// an event's own failure (a response that cannot be decoded) counts, and
// after MaxAttempts the event is left, stuck, with its error.
func TestWorkerRetriesTransientFailuresThenLeavesTheEvent(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	failures := 2
	var mu sync.Mutex
	fb := &fakeBank{TransactionFn: func(_ context.Context, id string) (bank.Transaction, error) {
		mu.Lock()
		defer mu.Unlock()
		if id == "t-flaky" && failures > 0 {
			failures--
			return bank.Transaction{}, fmt.Errorf("get: %w", bank.ErrServer)
		}
		if id == "t-broken" {
			return bank.Transaction{}, fmt.Errorf("get: %w: missing id", bank.ErrDecode)
		}
		return txFor(id, "SETTLED"), nil
	}}
	obs := newObserved()
	const maxAttempts = 3
	lastFailure := make(chan struct{})
	w, stop := startWorker(t, fb, st, replica.WorkerOptions{OnApplied: obs.onApplied, MaxAttempts: maxAttempts,
		RetryBase: time.Millisecond, RetryMax: 2 * time.Millisecond,
		OnFailed: func(e store.InboxEvent, _ error) {
			if e.ID == "e-broken" && e.Attempts == maxAttempts {
				close(lastFailure)
			}
		}})
	if _, err := st.InsertEvents(ctx, []store.InboxEvent{
		inboxEvent("e-flaky", bank.EventTransactionCreated, "t-flaky"),
		inboxEvent("e-broken", bank.EventTransactionCreated, "t-broken"),
	}); err != nil {
		t.Fatal(err)
	}
	w.Notify()
	obs.waitFor(t, "e-flaky")
	var flakyAttempts int
	if err := st.Reader().QueryRow("SELECT attempts FROM webhook_events WHERE id = 'e-flaky'").Scan(&flakyAttempts); err != nil || flakyAttempts != 0 {
		t.Errorf("flaky event counted %d attempts (%v), want 0: the bank's 5xx are not its fault", flakyAttempts, err)
	}
	// The broken one runs out of attempts: it stays, unprocessed, with its
	// last error, and counts as stuck.
	select {
	case <-lastFailure:
	case <-time.After(30 * time.Second):
		t.Fatal("broken event never reached its last attempt")
	}
	if s, err := st.InboxStats(ctx, maxAttempts); err != nil || s.Stuck != 1 || s.Pending != 0 {
		t.Fatalf("inbox = %+v, %v; want 1 stuck, 0 pending", s, err)
	}
	stop()
	stuck, err := st.StuckEvents(ctx, maxAttempts, 10)
	if err != nil || len(stuck) != 1 || stuck[0].ID != "e-broken" || stuck[0].LastError == nil || *stuck[0].LastError == "" {
		t.Fatalf("stuck = %+v, %v", stuck, err)
	}
	if obs.applied["e-broken"] != "" {
		t.Error("broken event reported as applied")
	}
}

// An event claimed by a worker that died before trying it (an attempt
// counted, a wait set, no error recorded) is applied at once when a
// worker starts, not when the claim would have run out.
func TestWorkerResumesClaimedEventsAfterRestart(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	if _, err := st.InsertEvents(ctx, []store.InboxEvent{inboxEvent("e1", bank.EventTransactionCreated, "t1")}); err != nil {
		t.Fatal(err)
	}
	// The dead process's claim: an hour's wait.
	if err := st.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec("UPDATE webhook_events SET attempts = 1, next_attempt_at = ?", time.Now().Add(time.Hour).UTC().Format(store.TimeLayout))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	fb := &fakeBank{TransactionFn: func(_ context.Context, id string) (bank.Transaction, error) { return txFor(id, "SETTLED"), nil }}
	obs := newObserved()
	startWorker(t, fb, st, replica.WorkerOptions{OnApplied: obs.onApplied})
	obs.waitFor(t, "e1")
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transactions WHERE id = 't1'"); n != 1 {
		t.Errorf("transaction not applied after restart")
	}
}

// An event that failed on its own keeps its backoff and its attempts
// across a restart; one whose wait is longer than any backoff (the clock
// stepped back since its failure was recorded) is due at once.
func TestWorkerRestartKeepsAnEventsOwnBackoff(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	if _, err := st.InsertEvents(ctx, []store.InboxEvent{inboxEvent("e-backoff", bank.EventTransactionCreated, "t1"),
		inboxEvent("e-clock", bank.EventTransactionCreated, "t2")}); err != nil {
		t.Fatal(err)
	}
	const retryMax = 10 * time.Minute
	if err := st.FailEvents(ctx, []string{"e-backoff"}, errors.New("undecodable"), time.Now().Add(retryMax/2)); err != nil {
		t.Fatal(err)
	}
	if err := st.FailEvents(ctx, []string{"e-clock"}, errors.New("undecodable"), time.Now().Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	waitOf := func() string {
		return mirrortest.Strings(t, st.Reader(), "SELECT next_attempt_at FROM webhook_events WHERE id = 'e-backoff'")[0]
	}
	before := waitOf()
	fb := &fakeBank{TransactionFn: func(_ context.Context, id string) (bank.Transaction, error) { return txFor(id, "SETTLED"), nil }}
	obs := newObserved()
	startWorker(t, fb, st, replica.WorkerOptions{OnApplied: obs.onApplied, RetryMax: retryMax})
	obs.waitFor(t, "e-clock")
	obs.mu.Lock()
	_, applied := obs.applied["e-backoff"]
	obs.mu.Unlock()
	if applied {
		t.Error("the event backing off from its own failure was retried at the restart")
	}
	if after := waitOf(); after != before {
		t.Errorf("its retry moved from %s to %s at the restart", before, after)
	}
	if n := mirrortest.Int(t, st.Reader(), "SELECT attempts FROM webhook_events WHERE id = 'e-backoff'"); n != 1 {
		t.Errorf("attempts = %d, want the 1 it failed", n)
	}
}

// fullDisk is the store with a database that cannot be written while full
// is set.
type fullDisk struct {
	*store.Store
	full  atomic.Bool
	tries chan struct{}
}

func (f *fullDisk) ApplyEvents(ctx context.Context, b store.EventBatch) (store.BatchResult, error) {
	if f.full.Load() {
		select {
		case f.tries <- struct{}{}:
		default:
		}
		return store.BatchResult{}, errors.New("database or disk is full")
	}
	return f.Store.ApplyEvents(ctx, b)
}

// A database that cannot be written makes the worker back off, with one
// error line for the whole episode and no attempt counted, then resume.
func TestWorkerBacksOffWhileTheDatabaseIsFull(t *testing.T) {
	st := openStore(t)
	disk := &fullDisk{Store: st, tries: make(chan struct{}, 1)}
	disk.full.Store(true)
	var errorLines atomic.Int64
	logger := zerolog.New(nil).Hook(zerolog.HookFunc(func(_ *zerolog.Event, level zerolog.Level, msg string) {
		if level >= zerolog.ErrorLevel {
			errorLines.Add(1)
		}
	}))
	fb := &fakeBank{TransactionFn: func(_ context.Context, id string) (bank.Transaction, error) { return txFor(id, "SETTLED"), nil }}
	obs := newObserved()
	w := replica.NewWorker(fb, disk, logger, replica.WorkerOptions{OnApplied: obs.onApplied, RetryBase: time.Millisecond, RetryMax: 4 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	if _, err := st.InsertEvents(context.Background(), []store.InboxEvent{inboxEvent("e1", bank.EventTransactionCreated, "t1")}); err != nil {
		t.Fatal(err)
	}
	w.Notify()
	for range 5 {
		select {
		case <-disk.tries:
		case <-time.After(30 * time.Second):
			t.Fatal("the worker stopped trying")
		}
	}
	if n := errorLines.Load(); n != 1 {
		t.Errorf("%d error lines for one full-disk episode, want 1", n)
	}
	disk.full.Store(false)
	obs.waitFor(t, "e1")
	if n := mirrortest.Int(t, st.Reader(), "SELECT attempts FROM webhook_events WHERE id = 'e1'"); n != 0 {
		t.Errorf("attempts = %d after a full disk, want 0", n)
	}
}

// A round in progress when the worker stops, waiting for a bank that
// answers nothing, is cut off after the stop grace: Run returns, and the
// event waits, unharmed (no attempt counted), for the next start.
func TestWorkerStopsWithinItsGraceWhileTheBankHangs(t *testing.T) {
	st := openStore(t)
	asked := make(chan struct{}, 1)
	fb := &fakeBank{TransactionFn: func(ctx context.Context, _ string) (bank.Transaction, error) {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-ctx.Done() // the bank answers nothing
		return bank.Transaction{}, fmt.Errorf("get: %w", ctx.Err())
	}}
	w := replica.NewWorker(fb, st, zerolog.Nop(), replica.WorkerOptions{StopGrace: time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	if _, err := st.InsertEvents(ctx, []store.InboxEvent{inboxEvent("e1", bank.EventTransactionCreated, "t1")}); err != nil {
		t.Fatal(err)
	}
	w.Notify()
	<-asked
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run still running a minute after it was stopped: the round waits for the bank")
	}
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM webhook_events WHERE processed_at IS NULL AND attempts = 0"); n != 1 {
		t.Errorf("%d events pending with no attempt counted, want 1", n)
	}
}

// A round whose bank answers after the stop began, within the grace,
// commits what it fetched.
func TestWorkerCommitsARoundTheBankAnswersWithinTheGrace(t *testing.T) {
	st := openStore(t)
	asked, stopped := make(chan struct{}, 1), make(chan struct{})
	fb := &fakeBank{TransactionFn: func(_ context.Context, id string) (bank.Transaction, error) {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-stopped // the answer arrives after the stop began
		return txFor(id, "SETTLED"), nil
	}}
	obs := newObserved()
	w := replica.NewWorker(fb, st, zerolog.Nop(), replica.WorkerOptions{OnApplied: obs.onApplied, StopGrace: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	if _, err := st.InsertEvents(ctx, []store.InboxEvent{inboxEvent("e1", bank.EventTransactionCreated, "t1")}); err != nil {
		t.Fatal(err)
	}
	w.Notify()
	<-asked
	cancel()
	close(stopped)
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	if obs.applied["e1"] != store.Created {
		t.Errorf("event applied as %q, want %q", obs.applied["e1"], store.Created)
	}
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transactions WHERE id = 't1'"); n != 1 {
		t.Error("the round's transaction is not in the mirror")
	}
}

// tokenState is a fake bank's token: rejected or not, and a channel closed
// when a new one is given.
type tokenState struct {
	mu       sync.Mutex
	rejected bool
	replaced chan struct{}
	asked    chan struct{} // receives when the worker finds the token rejected
}

func (s *tokenState) TokenRejected() (bool, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rejected {
		select {
		case s.asked <- struct{}{}:
		default:
		}
	}
	return s.rejected, s.replaced
}

// replace gives a new token, which the bank accepts.
func (s *tokenState) replace() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejected = false
	close(s.replaced)
	s.replaced = make(chan struct{})
}

// While the bank client holds a token the bank rejected, the worker sends
// nothing and counts no attempt; it says why it waits, and a new token
// resumes it at once.
func TestWorkerWaitsForANewTokenWhileTheTokenIsRejected(t *testing.T) {
	st := openStore(t)
	tok := &tokenState{rejected: true, replaced: make(chan struct{}), asked: make(chan struct{}, 1)}
	fb := &fakeBank{TokenRejectedFn: tok.TokenRejected,
		TransactionFn: func(_ context.Context, id string) (bank.Transaction, error) { return txFor(id, "SETTLED"), nil }}
	if _, err := st.InsertEvents(context.Background(), []store.InboxEvent{inboxEvent("e1", bank.EventTransactionCreated, "t1")}); err != nil {
		t.Fatal(err)
	}
	obs := newObserved()
	w, _ := startWorker(t, fb, st, replica.WorkerOptions{OnApplied: obs.onApplied})
	<-tok.asked
	deadline := time.After(30 * time.Second)
	for !w.State().Unauthorized {
		select {
		case <-deadline:
			t.Fatalf("worker state %+v: never said it waits for a token", w.State())
		case <-time.After(time.Millisecond):
		}
	}
	if st := w.State(); !st.Paused || st.PauseCause == "" {
		t.Errorf("worker state %+v: want paused, with its cause", st)
	}
	fb.mu.Lock()
	calls := fb.calls
	fb.mu.Unlock()
	if calls != 0 {
		t.Errorf("%d fetches with a rejected token, want none", calls)
	}
	if n := mirrortest.Int(t, st.Reader(), "SELECT attempts FROM webhook_events WHERE id = 'e1'"); n != 0 {
		t.Errorf("attempts = %d while waiting for a token, want 0", n)
	}
	tok.replace()
	obs.waitFor(t, "e1")
	if st := w.State(); st.Paused || st.Unauthorized {
		t.Errorf("worker state %+v after a new token: want it running", st)
	}
}

// listingBank is a fake bank whose listings answer, in one page, the
// wanted transactions it holds, with pages of the size it says; it
// records the filters of the listings it was asked for.
type listingBank struct {
	fakeBank
	pageSize int
	txs      map[string]bank.Transaction
	filters  []bank.TransactionFilter // under fakeBank.mu
}

func (b *listingBank) PageSize() int { return b.pageSize }

func (b *listingBank) TransactionsURL(f bank.TransactionFilter) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.filters = append(b.filters, f)
	return "http://bank.invalid/transactions"
}

func (b *listingBank) TransactionsPageSparse(_ context.Context, _ string, want func(string) bool) (bank.Page[bank.Transaction], error) {
	var p bank.Page[bank.Transaction]
	for id, t := range b.txs {
		if want(id) {
			p.Data = append(p.Data, t)
		}
	}
	return p, nil
}

// Events about old transactions widen the round's listing back to them
// only when that takes fewer pages, of the client's size, than fetching
// them one by one would take requests.
func TestWorkerListsBackByTheClientsPageSize(t *testing.T) {
	for _, c := range []struct {
		pageSize int
		wider    bool
	}{{100, true}, {10, false}} {
		t.Run(fmt.Sprint("page size ", c.pageSize), func(t *testing.T) {
			st := openStore(t)
			ctx := context.Background()
			// 100 transactions mirrored, months older than the events
			// about the oldest 10 of them.
			oldest := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
			b := &listingBank{pageSize: c.pageSize, txs: map[string]bank.Transaction{}}
			var mirrored []bank.Transaction
			var evs []store.InboxEvent
			for i := range 100 {
				tx := txFor(fmt.Sprintf("t%03d", i), "SETTLED")
				tx.CreatedAt = oldest.Add(time.Duration(i) * time.Hour).Format(time.RFC3339)
				mirrored = append(mirrored, tx)
				if i < 10 {
					b.txs[tx.ID] = tx
					evs = append(evs, inboxEvent(fmt.Sprintf("e%d", i), bank.EventTransactionSettled, tx.ID))
				}
			}
			if _, err := st.UpsertTransactions(ctx, mirrored); err != nil {
				t.Fatal(err)
			}
			if _, err := st.InsertEvents(ctx, evs); err != nil {
				t.Fatal(err)
			}
			obs := newObserved()
			w := replica.NewWorker(b, st, zerolog.Nop(), replica.WorkerOptions{OnApplied: obs.onApplied})
			wctx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- w.Run(wctx) }()
			obs.waitFor(t, "e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9")
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			if len(b.filters) == 0 {
				t.Fatal("the round did not list")
			}
			if wider := b.filters[0].Since.Before(oldest.Add(time.Minute)); wider != c.wider {
				t.Errorf("listing since %v: widened to the old transactions = %v, want %v", b.filters[0].Since, wider, c.wider)
			}
		})
	}
}

// refusedListing is a listingBank whose listings are refused (a 400).
type refusedListing struct{ listingBank }

func (b *refusedListing) TransactionsPageSparse(context.Context, string, func(string) bool) (bank.Page[bank.Transaction], error) {
	return bank.Page[bank.Transaction]{}, fmt.Errorf("list: %w", &bank.APIError{StatusCode: 400})
}

// A round whose listing is refused before its first page confirms no
// deletion: it fetches its transactions one by one instead.
func TestWorkerDeletesNothingOnARefusedListing(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	b := &refusedListing{listingBank{pageSize: 100}}
	b.TransactionFn = func(_ context.Context, id string) (bank.Transaction, error) { return txFor(id, "SETTLED"), nil }
	var txs []bank.Transaction
	var evs []store.InboxEvent
	var ids []string
	for i := range 6 {
		txs = append(txs, txFor(fmt.Sprintf("t%d", i), "HELD"))
		evs = append(evs, inboxEvent(fmt.Sprintf("e%d", i), bank.EventTransactionSettled, txs[i].ID))
		ids = append(ids, evs[i].ID)
	}
	if _, err := st.UpsertTransactions(ctx, txs); err != nil {
		t.Fatal(err)
	}
	if _, err := st.InsertEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	obs := newObserved()
	w := replica.NewWorker(b, st, zerolog.Nop(), replica.WorkerOptions{OnApplied: obs.onApplied})
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	obs.waitFor(t, ids...)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for id, c := range obs.applied {
		if c != store.Settled {
			t.Errorf("event %s applied as %q, want %q", id, c, store.Settled)
		}
	}
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transactions WHERE status = 'SETTLED'"); n != len(txs) {
		t.Errorf("%d of %d transactions in the mirror, settled", n, len(txs))
	}
}

// An event received before the mirror's copy of its transaction was asked
// for (by a sync, or a round before a restart) is applied without asking
// the bank again, and so is one about a transaction the bank confirmed
// deleted (final); one received after the copy was asked for is fetched.
func TestWorkerSkipsEventsTheMirrorsCopyCovers(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	now := time.Now()
	fetched := now.Add(-time.Minute)
	covered, newer, gone := txFor("t-covered", "HELD"), txFor("t-newer", "HELD"), txFor("t-gone", "HELD")
	covered.FetchedAt, newer.FetchedAt, gone.FetchedAt = fetched, fetched, fetched
	if _, err := st.ApplyEvents(ctx, store.EventBatch{Upserts: []bank.Transaction{covered, newer, gone}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ApplyEvents(ctx, store.EventBatch{Deletes: []string{"t-gone"}}); err != nil {
		t.Fatal(err)
	}
	before, after := inboxEvent("e-before", bank.EventTransactionSettled, "t-covered"), inboxEvent("e-after", bank.EventTransactionSettled, "t-newer")
	late := inboxEvent("e-late", bank.EventTransactionCreated, "t-gone")
	before.ReceivedAt = fetched.Add(-time.Second).UTC().Format(store.TimeLayout)
	after.ReceivedAt = fetched.Add(time.Second).UTC().Format(store.TimeLayout)
	if _, err := st.InsertEvents(ctx, []store.InboxEvent{before, after, late}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []string
	b := &fakeBank{TransactionFn: func(_ context.Context, id string) (bank.Transaction, error) {
		mu.Lock()
		asked = append(asked, id)
		mu.Unlock()
		return txFor(id, "SETTLED"), nil
	}}
	o := newObserved()
	startWorker(t, b, st, replica.WorkerOptions{OnApplied: o.onApplied})
	o.waitFor(t, "e-before", "e-after", "e-late")
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(asked, []string{"t-newer"}) {
		t.Errorf("the bank was asked for %v, want only t-newer (t-covered's copy was fetched after its event arrived, t-gone was deleted)", asked)
	}
	var n int
	if err := st.Reader().QueryRowContext(ctx, "SELECT count(*) FROM transactions WHERE id = 't-gone'").Scan(&n); err != nil || n != 0 {
		t.Errorf("t-gone: %d rows, %v; want it still deleted", n, err)
	}
	var status string
	if err := st.Reader().QueryRowContext(ctx, "SELECT status FROM transactions WHERE id = 't-newer'").Scan(&status); err != nil || status != "SETTLED" {
		t.Errorf("t-newer: status %q, %v; want SETTLED", status, err)
	}
	if n := pendingEvents(t, st); n != 0 {
		t.Errorf("%d events pending, want none", n)
	}
}

func pendingEvents(t *testing.T, st *store.Store) int {
	t.Helper()
	var n int
	if err := st.Reader().QueryRowContext(context.Background(), "SELECT count(*) FROM webhook_events WHERE processed_at IS NULL").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
