package replica_test

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// ampleBudget makes the bank report X-RateLimit-Remaining with headroom,
// as the real bank does.
var ampleBudget = simulator.RateLimit{Limit: 1_000_000}

type env struct {
	sim     *simulator.Bank
	baseURL string
	client  *bank.Client
	store   *store.Store
}

func newEnv(t *testing.T, n int, opts ...store.Option) *env {
	t.Helper()
	sim := simulator.New(simulator.Options{Seed: 7, Transactions: n, Token: "test-token", RateLimit: ampleBudget})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	base := srv.URL + "/api/v1"
	client := bank.New(base, sim.Token(), bank.WithHourlyBudget(0),
		bank.WithBackoff(time.Millisecond, 4*time.Millisecond),
		bank.WithRateLimitBackoff(time.Millisecond, 4*time.Millisecond))
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "mirror.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &env{sim: sim, baseURL: base, client: client, store: st}
}

func (e *env) syncer(opts replica.Options) *replica.Syncer {
	return replica.New(e.client, e.store, zerolog.Nop(), opts)
}

func (e *env) full(t *testing.T) replica.Result {
	t.Helper()
	r, err := e.syncer(replica.Options{}).Full(context.Background())
	if err != nil {
		t.Fatalf("full sync: %v", err)
	}
	return r
}

func (e *env) incremental(t *testing.T) replica.Result {
	t.Helper()
	r, err := e.syncer(replica.Options{}).Incremental(context.Background())
	if err != nil {
		t.Fatalf("incremental sync: %v", err)
	}
	return r
}

func (e *env) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	return mirrortest.Int(t, e.store.Reader(), q, args...)
}

func (e *env) assertMirrorEqualsTruth(t *testing.T) {
	t.Helper()
	mirrortest.AssertEqualsTruth(t, e.sim, e.store.Reader(), e.baseURL)
}

func (e *env) history(t *testing.T, id string) []string {
	t.Helper()
	return mirrortest.Strings(t, e.store.Reader(), "SELECT change FROM transaction_history WHERE transaction_id = ? ORDER BY seq", id)
}

func TestFullSyncMirrorsTheBank(t *testing.T) {
	const n = 1500
	e := newEnv(t, n)
	r := e.full(t)
	e.assertMirrorEqualsTruth(t)

	snap := e.sim.Snapshot()
	if r.Listed < len(snap.Transactions) || r.Upserted != int64(len(snap.Transactions)) {
		t.Errorf("listed %d upserted %d, bank has %d", r.Listed, r.Upserted, len(snap.Transactions))
	}
	// Request floor: one request per 100 transactions plus a few for
	// accounts, categories, tags, attachments and the held page; allow 5%.
	floor := float64((len(snap.Transactions)+99)/100 + 5)
	if float64(r.Requests) > floor*1.05+1 {
		t.Errorf("full sync made %d requests, floor is %.0f", r.Requests, floor)
	}
	if n := e.count(t, "SELECT count(*) FROM transaction_history WHERE change = 'created'"); n != len(snap.Transactions) {
		t.Errorf("created history rows = %d", n)
	}
	if n := e.count(t, "SELECT count(*) FROM sync_runs WHERE kind = 'full' AND status = 'ok' AND requests = ?", r.Requests); n != 1 {
		t.Errorf("sync_runs row missing")
	}
	if n := e.count(t, "SELECT count(*) FROM attachments"); n != len(snap.Attachments) {
		t.Errorf("attachments = %d, bank has %d", n, len(snap.Attachments))
	}
	if n := e.count(t, "SELECT count(*) FROM v_transactions WHERE account_name IS NULL"); n != 0 {
		t.Errorf("%d transactions without an account in v_transactions", n)
	}
}

func TestResyncOfUnchangedDataWritesNothing(t *testing.T) {
	e := newEnv(t, 400)
	e.full(t)
	hist := e.count(t, "SELECT count(*) FROM transaction_history")
	var maxUpdated string
	e.store.Reader().QueryRow("SELECT max(updated_at) FROM transactions").Scan(&maxUpdated)

	r := e.full(t)
	if r.Upserted != 0 || r.Deleted != 0 {
		t.Errorf("second full sync changed %d and deleted %d rows", r.Upserted, r.Deleted)
	}
	r = e.incremental(t)
	if r.Upserted != 0 || r.Deleted != 0 {
		t.Errorf("idle incremental changed %d and deleted %d rows", r.Upserted, r.Deleted)
	}
	// An idle incremental sync costs a handful of requests: accounts, the
	// newest page, the held page, and nothing per transaction.
	if r.Requests > 4 {
		t.Errorf("idle incremental made %d requests", r.Requests)
	}
	if n := e.count(t, "SELECT count(*) FROM transaction_history"); n != hist {
		t.Errorf("history grew from %d to %d on unchanged data", hist, n)
	}
	var maxUpdated2 string
	e.store.Reader().QueryRow("SELECT max(updated_at) FROM transactions").Scan(&maxUpdated2)
	if maxUpdated != maxUpdated2 {
		t.Errorf("updated_at moved: %s -> %s", maxUpdated, maxUpdated2)
	}
}

func heldIDs(snap simulator.Snapshot) []string {
	var ids []string
	for _, tx := range snap.Transactions {
		if tx.Status == "HELD" {
			ids = append(ids, tx.ID)
		}
	}
	return ids
}

func TestMutationsThenIncrementalThenFull(t *testing.T) {
	e := newEnv(t, 600)
	e.full(t)
	snap := e.sim.Snapshot()
	held := heldIDs(snap)
	if len(held) < 3 {
		t.Fatalf("simulator has only %d HELD transactions; need 3", len(held))
	}
	// The oldest settled transaction that takes a category: the seeded
	// data is laid out back from now, so which one is oldest (a transfer
	// takes none) depends on the hour the test runs.
	var old string
	for i := len(snap.Transactions) - 1; i >= 0 && old == ""; i-- {
		if tx := snap.Transactions[i]; tx.Status == "SETTLED" && tx.IsCategorizable {
			old = tx.ID
		}
	}
	if old == "" {
		t.Fatal("no settled transaction takes a category")
	}

	newHeld := e.sim.AddTransaction(simulator.NewTransaction{Description: "New hold", AmountBaseUnits: -1234, Held: true})
	newSettled := e.sim.AddTransaction(simulator.NewTransaction{Description: "New purchase", AmountBaseUnits: -999})
	must(t, e.sim.Settle(held[0]))
	must(t, e.sim.Delete(held[1]))
	replacement, err := e.sim.SettleAsReplacement(held[2])
	must(t, err)
	must(t, e.sim.SetTags(old, []string{"café", "Holiday 2024"}))
	must(t, e.sim.SetCategory(old, "takeaway"))

	r := e.incremental(t)
	if r.Deleted != 2 {
		t.Errorf("incremental deleted %d, want 2 (a deleted hold and a replaced one)", r.Deleted)
	}
	for id, want := range map[string][]string{
		newHeld:     {"created"},
		newSettled:  {"created"},
		held[0]:     {"created", "settled"},
		held[1]:     {"created", "deleted"},
		held[2]:     {"created", "deleted"},
		replacement: {"created"},
	} {
		if got := e.history(t, id); !slices.Equal(got, want) {
			t.Errorf("history of %s = %v, want %v", id, got, want)
		}
	}
	// A silent re-tag of an old settled transaction is invisible to an
	// incremental pass; the full reconciliation picks it up.
	if got := e.history(t, old); !slices.Equal(got, []string{"created"}) {
		t.Errorf("history of silently changed %s after incremental = %v", old, got)
	}
	r = e.full(t)
	if r.Upserted != 1 || r.Deleted != 0 {
		t.Errorf("full after incremental changed %d deleted %d, want 1 and 0", r.Upserted, r.Deleted)
	}
	if got := e.history(t, old); !slices.Equal(got, []string{"created", "updated"}) {
		t.Errorf("history of %s after full = %v", old, got)
	}
	e.assertMirrorEqualsTruth(t)
}

func TestFullSyncDeletesWhatTheBankNoLongerLists(t *testing.T) {
	e := newEnv(t, 300)
	e.full(t)
	held := heldIDs(e.sim.Snapshot())
	if len(held) == 0 {
		t.Fatal("no HELD transaction to delete")
	}
	must(t, e.sim.Delete(held[0]))
	r := e.full(t)
	if r.Deleted != 1 {
		t.Errorf("deleted = %d, want 1", r.Deleted)
	}
	if got := e.history(t, held[0]); !slices.Equal(got, []string{"created", "deleted"}) {
		t.Errorf("history = %v", got)
	}
	e.assertMirrorEqualsTruth(t)
}

func TestKilledFullSyncResumes(t *testing.T) {
	const n = 1200
	e := newEnv(t, n)
	// A slow bank keeps the writer ahead of the fetcher, so pages are
	// stored one at a time and the sync can be stopped after the fifth.
	e.sim.SetFaults(simulator.Faults{Latency: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	s := e.syncer(replica.Options{OnProgress: func(p replica.Progress) {
		if p.Pages >= 5 {
			cancel()
		}
	}})
	if _, err := s.Full(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted sync: err = %v, want context.Canceled", err)
	}
	e.sim.SetFaults(simulator.Faults{})
	stored := e.count(t, "SELECT count(*) FROM transactions")
	if stored < 500 || stored >= n {
		t.Fatalf("after 5 pages the mirror holds %d transactions", stored)
	}
	// Meanwhile a hold disappears at the bank; the resumed listing must still
	// notice it.
	held := heldIDs(e.sim.Snapshot())
	must(t, e.sim.Delete(held[0]))

	r := e.full(t)
	if !r.Resumed {
		t.Error("second full sync did not resume")
	}
	total := len(e.sim.Snapshot().Transactions)
	if r.Listed >= total {
		t.Errorf("resumed sync listed %d transactions, the whole bank is %d: it started over", r.Listed, total)
	}
	if n := e.count(t, "SELECT count(*) FROM sync_runs WHERE status = 'interrupted'"); n != 1 {
		t.Errorf("interrupted runs = %d, want 1", n)
	}
	e.assertMirrorEqualsTruth(t)
}

func TestFaultsDoNotChangeTheResult(t *testing.T) {
	e := newEnv(t, 800)
	e.sim.SetFaults(simulator.Faults{ErrorRate: 0.1, RateLimitBurst: 5})
	e.full(t)
	e.assertMirrorEqualsTruth(t)

	must(t, e.sim.Settle(heldIDs(e.sim.Snapshot())[0]))
	e.sim.AddTransaction(simulator.NewTransaction{Description: "During faults", AmountBaseUnits: -500, Held: true})
	e.sim.SetFaults(simulator.Faults{ErrorRate: 0.1, RateLimitBurst: 3})
	e.incremental(t)
	e.full(t)
	e.assertMirrorEqualsTruth(t)
}

func TestIncrementalOnEmptyMirrorRunsFull(t *testing.T) {
	e := newEnv(t, 200)
	r := e.incremental(t)
	if r.Kind != replica.KindFull {
		t.Errorf("kind = %s, want full", r.Kind)
	}
	e.assertMirrorEqualsTruth(t)
}

func TestUnauthorizedTokenFailsTheRunAndChangesNothing(t *testing.T) {
	e := newEnv(t, 100)
	bad := bank.New(e.baseURL, "wrong-token", bank.WithHourlyBudget(0))
	_, err := replica.New(bad, e.store, zerolog.Nop(), replica.Options{}).Full(context.Background())
	if !errors.Is(err, bank.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	if n := e.count(t, "SELECT count(*) FROM transactions"); n != 0 {
		t.Errorf("%d transactions written with a rejected token", n)
	}
	if n := e.count(t, "SELECT count(*) FROM sync_runs WHERE status = 'failed' AND error LIKE '%token%'"); n != 1 {
		t.Errorf("failed run not recorded")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestFetchFailureMidListingFailsTheRunThenResumes(t *testing.T) {
	e := newEnv(t, 900)
	// A slow bank keeps the writer ahead, so the failure lands mid-listing.
	e.sim.SetFaults(simulator.Faults{Latency: 20 * time.Millisecond})
	s := e.syncer(replica.Options{OnProgress: func(p replica.Progress) {
		if p.Pages >= 2 {
			e.sim.SetFaults(simulator.Faults{ErrorRate: 1})
		}
	}})
	_, err := s.Full(context.Background())
	if !errors.Is(err, bank.ErrServer) {
		t.Fatalf("err = %v, want ErrServer", err)
	}
	if n := e.count(t, "SELECT count(*) FROM sync_runs WHERE status = 'failed'"); n != 1 {
		t.Errorf("failed runs = %d", n)
	}
	if n := e.count(t, "SELECT count(*) FROM sync_state WHERE error_count = 1 AND next_page_url IS NOT NULL"); n != 1 {
		t.Errorf("checkpoint with error count missing")
	}
	e.sim.SetFaults(simulator.Faults{})
	r := e.full(t)
	if !r.Resumed {
		t.Error("full sync after a failure did not resume")
	}
	e.assertMirrorEqualsTruth(t)
}

// Two syncs of one mirror never run at once: the second fails at once.
func TestConcurrentSyncIsRefused(t *testing.T) {
	e := newEnv(t, 300)
	var second error
	tried := false
	s := e.syncer(replica.Options{OnProgress: func(p replica.Progress) {
		if !tried {
			tried = true
			_, second = e.syncer(replica.Options{}).Full(context.Background())
		}
	}})
	if _, err := s.Full(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(second, store.ErrSyncRunning) {
		t.Fatalf("second sync: %v, want ErrSyncRunning", second)
	}
	if n := e.count(t, "SELECT count(*) FROM sync_runs"); n != 1 {
		t.Errorf("sync_runs = %d, want 1 (the refused sync records no run)", n)
	}
	e.assertMirrorEqualsTruth(t)
}

// A saved cursor the bank refuses (400) starts the listing over instead of
// failing every full sync until the checkpoint ages out.
func TestRefusedResumeCursorStartsOver(t *testing.T) {
	e := newEnv(t, 500)
	ctx := context.Background()
	l, err := e.store.BeginListing(ctx, "transactions", e.client.TransactionsURL(bank.TransactionFilter{}), time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	bogus := e.baseURL + "/transactions?page%5Bafter%5D=bm90LWEtY3Vyc29y&page%5Bsize%5D=100"
	if _, err := e.store.SaveListingPage(ctx, &l, nil, bogus); err != nil {
		t.Fatal(err)
	}
	r := e.full(t)
	if r.Resumed {
		t.Error("result says resumed although the listing started over")
	}
	e.assertMirrorEqualsTruth(t)
}

// A complete full listing marks as processed every event about a
// transaction received before it began (stuck ones included): its pages
// are newer than them.
func TestFullSyncMarksCoveredEventsProcessed(t *testing.T) {
	e := newEnv(t, 200)
	ctx := context.Background()
	id := e.sim.AddTransaction(simulator.NewTransaction{Description: "Before the sync", AmountBaseUnits: -100})
	_, err := e.store.InsertEvents(ctx, []store.InboxEvent{
		{ID: "ev-1", EventType: bank.EventTransactionCreated, WebhookID: "w", TransactionID: id, CreatedAt: "2026-01-01T10:00:00+11:00", Body: "{}"},
		{ID: "ev-stuck", EventType: bank.EventTransactionSettled, WebhookID: "w", TransactionID: "gone", CreatedAt: "2026-01-01T10:00:00+11:00", Body: "{}"},
		{ID: "ev-ping", EventType: bank.EventPing, WebhookID: "w", CreatedAt: "2026-01-01T10:00:00+11:00", Body: "{}"},
	})
	must(t, err)
	for range 3 {
		must(t, e.store.FailEvents(ctx, []string{"ev-stuck"}, errors.New("bad answer"), time.Now()))
	}
	e.full(t)
	got := mirrortest.Strings(t, e.store.Reader(), "SELECT id FROM webhook_events WHERE processed_at IS NULL ORDER BY id")
	if !slices.Equal(got, []string{"ev-ping"}) {
		t.Errorf("unprocessed after the full sync: %v, want only the PING (no transaction)", got)
	}
	e.assertMirrorEqualsTruth(t)
}

// A clock stepped back one hour in the middle of a full listing must not
// make the listing delete a row a webhook mirrored meanwhile (it is newer
// than the listing's first page, so absent from it), nor mark processed an
// event received meanwhile.
func TestClockSteppedBackMidListingDeletesNothingLive(t *testing.T) {
	var offset atomic.Int64 // nanoseconds added to the wall clock
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	e := newEnv(t, 350, store.WithClock(clock))
	ctx := context.Background()
	var liveID string
	stepped := false
	opts := replica.Options{OnProgress: func(p replica.Progress) {
		if stepped {
			return
		}
		stepped = true
		offset.Add(int64(-time.Hour))
		liveID = e.sim.AddTransaction(simulator.NewTransaction{Description: "Bought during the listing", AmountBaseUnits: -4200})
		tx, err := e.client.Transaction(ctx, liveID)
		must(t, err)
		_, err = e.store.UpsertTransactions(ctx, []bank.Transaction{tx})
		must(t, err)
		_, err = e.store.InsertEvents(ctx, []store.InboxEvent{{ID: "ev-during", EventType: bank.EventTransactionSettled, WebhookID: "w",
			TransactionID: liveID, CreatedAt: "2026-01-01T10:00:00+11:00", Body: "{}"}})
		must(t, err)
	}}
	r, err := e.syncer(opts).Full(ctx)
	must(t, err)
	if !stepped {
		t.Fatal("the listing reported no progress, so the clock never stepped")
	}
	if r.Deleted != 0 {
		t.Errorf("the listing deleted %d rows, want 0", r.Deleted)
	}
	if n := e.count(t, "SELECT count(*) FROM transactions WHERE id = ?", liveID); n != 1 {
		t.Errorf("the row mirrored during the listing is gone (count %d)", n)
	}
	if h := e.history(t, liveID); slices.Contains(h, "deleted") {
		t.Errorf("history of the live row: %v, want no deletion", h)
	}
	if n := e.count(t, "SELECT count(*) FROM webhook_events WHERE id = 'ev-during' AND processed_at IS NULL"); n != 1 {
		t.Error("an event received during the listing was marked processed by it")
	}
	e.assertMirrorEqualsTruth(t)
}

// budgetClient is the bank client with a budget the test sets.
type budgetClient struct {
	*bank.Client
	budget bank.BudgetState
}

func (c budgetClient) Budget() bank.BudgetState { return c.budget }

// A sync's progress lines say how much of the bank's budget is left, when
// the client knows it.
func TestSyncProgressShowsTheBudgetLeft(t *testing.T) {
	e := newEnv(t, 300)
	var logs bytes.Buffer
	client := budgetClient{Client: e.client, budget: bank.BudgetState{Known: true, Remaining: 742}}
	if _, err := replica.New(client, e.store, zerolog.New(&logs), replica.Options{LogEvery: time.Nanosecond}).Full(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), `"budget_remaining":742`) {
		t.Errorf("no progress line with the budget left:\n%s", logs.String())
	}
}

// Progress counts the pages and the transactions of one listing: the HELD
// listing that follows a full one starts again from one page, so that its
// few transactions never show beside the full listing's many pages.
func TestProgressCountsPagesAndTransactionsOfOneListing(t *testing.T) {
	e := newEnv(t, 350)
	var reports []replica.Progress
	s := e.syncer(replica.Options{OnProgress: func(p replica.Progress) { reports = append(reports, p) }})
	r, err := s.Full(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	restarts := 0
	for i, p := range reports {
		// Pages of 100: n pages hold more than n-1 pages' worth.
		if p.Pages < 1 || p.Transactions > 100*p.Pages || p.Transactions <= 100*(p.Pages-1) {
			t.Errorf("progress %d: %d pages, %d transactions", i, p.Pages, p.Transactions)
		}
		if i > 0 && p.Pages < reports[i-1].Pages {
			restarts++
		}
	}
	if restarts != 1 || r.Pages <= reports[len(reports)-1].Pages {
		t.Errorf("want the HELD listing counted from its own first page; run: %d pages; reports: %+v", r.Pages, reports)
	}
}
