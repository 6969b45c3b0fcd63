package replica_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// liveEnv is the simulated bank, a mirror fully synced from it and a
// worker applying inbox events with the real client: the receiver's part
// (storing each event in the inbox) is played by the test.
type liveEnv struct {
	*env
	worker *replica.Worker
	idle   chan struct{}
	seq    atomic.Int64
}

// requestCounter counts the bank's answers by route and status, and when
// each arrived, in front of the simulator's handler.
type requestCounter struct {
	mu     sync.Mutex
	counts map[string]int
	times  []time.Time
}

func (rc *requestCounter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: 200}
		h.ServeHTTP(sw, r)
		route := r.Method + " " + r.URL.Path
		if i := strings.Index(r.URL.Path, "/transactions/"); i >= 0 && r.Method == http.MethodGet {
			route = "GET one transaction"
		}
		if r.URL.Query().Get("filter[status]") == "HELD" {
			route += " (HELD)"
		}
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.counts == nil {
			rc.counts = map[string]int{}
		}
		rc.counts[fmt.Sprintf("%s %d", route, sw.status)]++
		rc.times = append(rc.times, time.Now())
	})
}

func (rc *requestCounter) snapshot() (map[string]int, int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out, total := map[string]int{}, 0
	for k, v := range rc.counts {
		out[k] = v
		total += v
	}
	return out, total
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(s int) { w.status = s; w.ResponseWriter.WriteHeader(s) }

// newLiveEnv makes a bank of n transactions behind rc (if set) and an
// empty mirror; start runs the worker.
func newLiveEnv(t *testing.T, n int, rc *requestCounter, rl simulator.RateLimit, clientOpts ...bank.Option) *liveEnv {
	t.Helper()
	if rl.Limit == 0 {
		rl = ampleBudget
	}
	sim := simulator.New(simulator.Options{Seed: 11, Transactions: n, Token: "test-token", RateLimit: rl})
	h := sim.Handler()
	if rc != nil {
		h = rc.wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	base := srv.URL + "/api/v1"
	copts := append([]bank.Option{bank.WithBackoff(time.Millisecond, 4*time.Millisecond),
		bank.WithRateLimitBackoff(time.Millisecond, 20*time.Millisecond), bank.WithMaxAttempts(2)}, clientOpts...)
	client := bank.New(base, sim.Token(), copts...)
	e := &env{sim: sim, baseURL: base, client: client, store: openStore(t)}
	return &liveEnv{env: e, idle: make(chan struct{}, 1)}
}

// start runs a worker with opts, logging to log, until the test ends.
func (le *liveEnv) start(t *testing.T, opts replica.WorkerOptions, log zerolog.Logger) {
	t.Helper()
	opts.OnIdle = func() {
		select {
		case le.idle <- struct{}{}:
		default:
		}
	}
	le.worker = replica.NewWorker(le.client, le.store, log, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = le.worker.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// event stores an event about txID in the inbox, as the receiver would.
func (le *liveEnv) event(typ, txID string) store.InboxEvent {
	return store.InboxEvent{ID: fmt.Sprintf("ev-%d", le.seq.Add(1)), EventType: typ, WebhookID: "w1", TransactionID: txID,
		CreatedAt: le.sim.Now().Format(time.RFC3339), Body: "{}"}
}

func (le *liveEnv) deliver(t *testing.T, evs []store.InboxEvent) {
	t.Helper()
	if _, err := le.store.InsertEvents(context.Background(), evs); err != nil {
		t.Fatal(err)
	}
	le.worker.Notify()
}

// caughtUp waits until the worker is idle with nothing pending.
func (le *liveEnv) caughtUp(t *testing.T) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case <-le.idle:
		case <-timeout:
			t.Fatalf("worker never caught up: %d events pending", le.count(t, "SELECT count(*) FROM webhook_events WHERE processed_at IS NULL"))
		}
		if le.count(t, "SELECT count(*) FROM webhook_events WHERE processed_at IS NULL") == 0 {
			return
		}
	}
}

func (le *liveEnv) assertBalances(t *testing.T) {
	t.Helper()
	for _, a := range le.sim.Snapshot().Accounts {
		got := le.count(t, "SELECT balance_base_units FROM accounts WHERE id = ?", a.ID)
		if int64(got) != a.Balance.ValueInBaseUnits {
			t.Errorf("account %s (%s): mirror balance %d, bank %d", a.ID, a.DisplayName, got, a.Balance.ValueInBaseUnits)
		}
	}
}

// burst makes a burst of changes at the bank and returns their events,
// with duplicates, in a shuffled order: new purchases (half held), settled
// holds, deleted holds, settlements by DELETED+CREATED.
func (le *liveEnv) burst(t *testing.T, rng *rand.Rand, created int) ([]store.InboxEvent, map[string]bool) {
	t.Helper()
	var evs []store.InboxEvent
	touched := map[string]bool{}
	var held []string
	for i := range created {
		id := le.sim.AddTransaction(simulator.NewTransaction{Held: i%2 == 0})
		evs = append(evs, le.event(bank.EventTransactionCreated, id))
		touched[id] = true
		if i%2 == 0 {
			held = append(held, id)
		}
	}
	for i, id := range held {
		switch i % 4 {
		case 0, 1:
			must(t, le.sim.Settle(id))
			evs = append(evs, le.event(bank.EventTransactionSettled, id))
		case 2:
			must(t, le.sim.Delete(id))
			evs = append(evs, le.event(bank.EventTransactionDeleted, id))
		case 3:
			repl, err := le.sim.SettleAsReplacement(id)
			must(t, err)
			evs = append(evs, le.event(bank.EventTransactionDeleted, id), le.event(bank.EventTransactionCreated, repl))
			touched[repl] = true
		}
	}
	for range len(evs) / 5 {
		evs = append(evs, evs[rng.IntN(len(evs))]) // redelivered: same event id
	}
	rng.Shuffle(len(evs), func(i, j int) { evs[i], evs[j] = evs[j], evs[i] })
	return evs, touched
}

// A burst of events costs a fraction of one GET per transaction: the
// worker lists the window they fall in. The mirror and the balances end
// equal to the bank's.
func TestWorkerCoalescesABurst(t *testing.T) {
	rc := &requestCounter{}
	le := newLiveEnv(t, 400, rc, simulator.RateLimit{})
	le.full(t)
	le.start(t, replica.WorkerOptions{}, zerolog.Nop())
	_, before := rc.snapshot()
	evs, touched := le.burst(t, rand.New(rand.NewPCG(1, 2)), 300)
	le.deliver(t, evs)
	le.caughtUp(t)
	counts, after := rc.snapshot()
	used := after - before
	t.Logf("%d requests for %d events about %d transactions: %v", used, len(evs), len(touched), counts)
	if used*4 > len(touched) {
		t.Errorf("%d requests for %d events about %d transactions, want at most 25%% of one GET each: %v", used, len(evs), len(touched), counts)
	}
	le.assertMirrorEqualsTruth(t)
	le.assertBalances(t)
	if n := le.count(t, "SELECT count(*) FROM webhook_events WHERE processed_at IS NULL"); n != 0 {
		t.Errorf("%d events unprocessed", n)
	}
}

// A few events are fetched one GET each, at once; a DELETED event for a
// transaction the bank still has removes nothing.
func TestWorkerTrickleFetchesEachAndConfirmsDeletions(t *testing.T) {
	rc := &requestCounter{}
	le := newLiveEnv(t, 200, rc, simulator.RateLimit{})
	le.full(t)
	le.start(t, replica.WorkerOptions{}, zerolog.Nop())
	live := le.sim.AddTransaction(simulator.NewTransaction{Held: true})
	le.deliver(t, []store.InboxEvent{le.event(bank.EventTransactionCreated, live)})
	le.caughtUp(t)
	// A forged or mistaken DELETED for a live transaction.
	le.deliver(t, []store.InboxEvent{le.event(bank.EventTransactionDeleted, live)})
	le.caughtUp(t)
	if n := le.count(t, "SELECT count(*) FROM transactions WHERE id = ?", live); n != 1 {
		t.Fatal("a DELETED event removed a transaction the bank still has")
	}
	must(t, le.sim.Delete(live))
	le.deliver(t, []store.InboxEvent{le.event(bank.EventTransactionDeleted, live)})
	le.caughtUp(t)
	if n := le.count(t, "SELECT count(*) FROM transactions WHERE id = ?", live); n != 0 {
		t.Fatal("a confirmed deletion was not applied")
	}
	counts, _ := rc.snapshot()
	if counts["GET one transaction 200"] != 2 || counts["GET one transaction 404"] != 1 {
		t.Errorf("requests %v: want one GET per event", counts)
	}
	le.assertMirrorEqualsTruth(t)
	le.assertBalances(t)
}

// The bank failing (5xx for longer than an event's attempts would last)
// pauses the worker; no event uses an attempt or gets stuck, and all are
// applied once the bank answers again.
func TestWorkerOutageLeavesNoEventStuck(t *testing.T) {
	const maxAttempts = 3
	failedRounds := make(chan struct{}, 100)
	le := newLiveEnv(t, 200, nil, simulator.RateLimit{})
	le.full(t)
	// Watch the worker's failed rounds through its log.
	logger := zerolog.New(nil).Level(zerolog.DebugLevel).Hook(zerolog.HookFunc(func(_ *zerolog.Event, _ zerolog.Level, msg string) {
		if strings.HasPrefix(msg, "bank unavailable") {
			select {
			case failedRounds <- struct{}{}:
			default:
			}
		}
	}))
	le.start(t, replica.WorkerOptions{MaxAttempts: maxAttempts, RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond}, logger)

	le.sim.SetFaults(simulator.Faults{ErrorRate: 1})
	var evs []store.InboxEvent
	for range 5 {
		evs = append(evs, le.event(bank.EventTransactionCreated, le.sim.AddTransaction(simulator.NewTransaction{})))
	}
	le.deliver(t, evs)
	for range maxAttempts + 3 {
		select {
		case <-failedRounds:
		case <-time.After(30 * time.Second):
			t.Fatal("the worker never tried")
		}
	}
	if st := le.worker.State(); !st.Paused || st.Unauthorized {
		t.Errorf("worker state %+v, want paused", st)
	}
	if n := le.count(t, "SELECT count(*) FROM webhook_events WHERE attempts > 0"); n != 0 {
		t.Errorf("%d events used attempts for the bank's failure", n)
	}
	le.sim.SetFaults(simulator.Faults{})
	le.caughtUp(t)
	if st := le.worker.State(); st.Paused {
		t.Errorf("still paused after the bank recovered: %+v", st)
	}
	stats, err := le.store.InboxStats(context.Background(), maxAttempts)
	if err != nil || stats.Stuck != 0 || stats.Pending != 0 {
		t.Errorf("inbox %+v (%v): want nothing stuck or pending", stats, err)
	}
	le.assertMirrorEqualsTruth(t)
}

// A revoked token stops the worker after one refused request: events wait
// in the inbox without using attempts and without further requests (the
// client sends a rejected token no more), until a new token is given;
// then every event is applied.
func TestWorkerWaitsForANewTokenAfter401(t *testing.T) {
	const maxAttempts = 3
	rc := &requestCounter{}
	le := newLiveEnv(t, 200, rc, simulator.RateLimit{})
	le.full(t)
	le.start(t, replica.WorkerOptions{MaxAttempts: maxAttempts, RetryBase: time.Millisecond, RetryMax: 5 * time.Millisecond}, zerolog.Nop())

	le.sim.RevokeToken()
	var evs []store.InboxEvent
	for range 5 {
		evs = append(evs, le.event(bank.EventTransactionCreated, le.sim.AddTransaction(simulator.NewTransaction{})))
	}
	le.deliver(t, evs)
	deadline := time.After(30 * time.Second)
	for !le.worker.State().Unauthorized {
		select {
		case <-deadline:
			t.Fatalf("worker state %+v: never saw the 401", le.worker.State())
		case <-time.After(time.Millisecond):
		}
	}
	// More events arrive, and the worker is woken: it sends nothing.
	le.deliver(t, []store.InboxEvent{le.event(bank.EventTransactionCreated, le.sim.AddTransaction(simulator.NewTransaction{}))})
	if rejected, _ := le.client.TokenRejected(); !rejected {
		t.Fatal("client does not hold the token as rejected")
	}
	le.worker.Notify()
	if n := le.count(t, "SELECT count(*) FROM webhook_events WHERE attempts > 0"); n != 0 {
		t.Errorf("%d events used attempts for a rejected token", n)
	}
	le.sim.RotateToken("test-token")
	le.client.SetToken("test-token")
	le.caughtUp(t)
	if st := le.worker.State(); st.Paused || st.Unauthorized {
		t.Errorf("still paused after a new token: %+v", st)
	}
	counts, _ := rc.snapshot()
	refused := 0
	for k, n := range counts {
		if strings.HasSuffix(k, " 401") {
			refused += n
		}
	}
	// The worker fetches up to 4 transactions at once: those in flight
	// when the first 401 came back are refused too; nothing after.
	if refused < 1 || refused > 4 {
		t.Errorf("%d requests refused with 401 (requests %v): want the first refusals and no retries", refused, counts)
	}
	stats, err := le.store.InboxStats(context.Background(), maxAttempts)
	if err != nil || stats.Stuck != 0 || stats.Pending != 0 {
		t.Errorf("inbox %+v (%v): want nothing stuck or pending", stats, err)
	}
	le.assertMirrorEqualsTruth(t)
}

// A backfill larger than one of the bank's buckets keeps the reserve for
// webhooks: events arriving while the full sync waits for the next bucket
// are applied before it resumes, the backfill uses few buckets and gets at
// most a handful of 429s, and the mirror ends exact.
func TestBackfillAcrossBucketsLeavesRoomForLiveEvents(t *testing.T) {
	const limit, reserve = 20, 6
	bucket := 5 * time.Second // long enough that the sync reaches the reserve inside its first bucket on a loaded machine
	rc := &requestCounter{}
	waiting := make(chan struct{}, 1)
	le := newLiveEnv(t, 2500, rc, simulator.RateLimit{Limit: limit, Bucket: bucket},
		bank.WithReserve(reserve), bank.WithBucket(bucket), bank.WithRateLimitBackoff(10*time.Millisecond, bucket/4),
		bank.WithBudgetObserver(func(s bank.BudgetState) {
			if s.Waiting && strings.Contains(s.WaitReason, "reserve") {
				select {
				case waiting <- struct{}{}:
				default:
				}
			}
		}))
	applied := make(chan string, 16)
	le.start(t, replica.WorkerOptions{OnApplied: func(e store.InboxEvent, _ store.Change) { applied <- e.ID }}, zerolog.Nop())

	syncDone := make(chan error, 1)
	go func() { _, err := le.syncer(replica.Options{}).Full(context.Background()); syncDone <- err }()
	select {
	case <-waiting:
	case err := <-syncDone:
		t.Fatalf("the full sync never waited for the bank's budget (err %v)", err)
	case <-time.After(60 * time.Second):
		t.Fatal("the full sync never reached the reserve")
	}
	var evs []store.InboxEvent
	for range 3 {
		evs = append(evs, le.event(bank.EventTransactionCreated, le.sim.AddTransaction(simulator.NewTransaction{})))
	}
	le.deliver(t, evs)
	for range evs {
		select {
		case <-applied:
		case err := <-syncDone:
			t.Fatalf("the full sync finished (err %v) before the live events were applied", err)
		case <-time.After(60 * time.Second):
			t.Fatal("live events not applied")
		}
	}
	if err := <-syncDone; err != nil {
		t.Fatal(err)
	}
	le.caughtUp(t)
	counts, total := rc.snapshot()
	limited := 0
	for k, v := range counts {
		if strings.HasSuffix(k, " 429") {
			limited += v
		}
	}
	if limited > 3 {
		t.Errorf("%d answers were 429, want at most a handful: %v", limited, counts)
	}
	// Buckets the requests fell in, by the bank's clock alignment.
	rc.mu.Lock()
	buckets := map[int64]bool{}
	for _, at := range rc.times {
		buckets[at.UnixNano()/bucket.Nanoseconds()] = true
	}
	rc.mu.Unlock()
	if min := (total + limit - reserve - 1) / (limit - reserve); len(buckets) > min+2 {
		t.Errorf("%d requests took %d buckets, want at most %d", total, len(buckets), min+2)
	}
	t.Logf("%d requests in %d buckets, %d answers 429", total, len(buckets), limited)
	le.assertMirrorEqualsTruth(t)
}

// Events about old transactions (a backlog recovered from delivery logs,
// settlements of old holds) are resolved by listing back far enough when
// that is cheaper than one GET each.
func TestWorkerListsBackForOldTransactions(t *testing.T) {
	rc := &requestCounter{}
	le := newLiveEnv(t, 400, rc, simulator.RateLimit{})
	le.full(t)
	le.start(t, replica.WorkerOptions{}, zerolog.Nop())
	_, before := rc.snapshot()
	var evs []store.InboxEvent
	snap := le.sim.Snapshot()
	for i := 0; i < len(snap.Transactions); i += 3 {
		evs = append(evs, le.event(bank.EventTransactionSettled, snap.Transactions[i].ID))
	}
	le.deliver(t, evs)
	le.caughtUp(t)
	counts, after := rc.snapshot()
	// The whole history is 4 or 5 pages; the events name 134 transactions.
	if used := after - before; used > 8 {
		t.Errorf("%d requests for %d events about old transactions, want a listing of the history: %v", used, len(evs), counts)
	}
	le.assertMirrorEqualsTruth(t)
}
