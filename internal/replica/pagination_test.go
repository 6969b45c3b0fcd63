package replica_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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

// loopingBank serves the simulator on loopback; while loop is set, the
// second page of the unfiltered transaction listing links back to the
// first page (as the client first asked for it) instead of the third.
type loopingBank struct {
	srv  *httptest.Server
	loop atomic.Bool

	mu       sync.Mutex
	first    string // the first page's URL, as requested
	requests int    // every request while loop is set
	txPages  int    // transaction listing requests while loop is set
}

func newLoopingBank(t *testing.T, sim *simulator.Bank) *loopingBank {
	t.Helper()
	lb := &loopingBank{}
	h := sim.Handler()
	lb.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		listing := r.Method == http.MethodGet && r.URL.Path == "/api/v1/transactions" && q.Get("filter[status]") == ""
		lb.mu.Lock()
		if listing && q.Get("page[after]") == "" {
			lb.first = lb.srv.URL + r.URL.RequestURI()
		}
		first := lb.first
		if lb.loop.Load() {
			lb.requests++
			if listing {
				lb.txPages++
			}
		}
		lb.mu.Unlock()
		if !listing || q.Get("page[after]") == "" || !lb.loop.Load() {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || rec.Code != http.StatusOK {
			t.Errorf("second page: status %d, %v", rec.Code, err)
			return
		}
		links, _ := json.Marshal(map[string]any{"prev": nil, "next": first})
		doc["links"] = links
		body, _ := json.Marshal(doc)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(lb.srv.Close)
	return lb
}

func (lb *loopingBank) counts() (requests, txPages int) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.requests, lb.txPages
}

// A full listing whose second page leads back to the first stops after
// those two pages with a pagination-loop error. It never counts as
// complete: nothing is deleted, the checkpoint stays in progress with the
// failure counted. The sync lock is released: the next sync (the bank
// fixed) runs, resumes, and then does delete what the bank dropped.
func TestLoopingListingStopsAndDeletesNothing(t *testing.T) {
	sim := simulator.New(simulator.Options{Seed: 7, Transactions: 300, Token: "test-token", RateLimit: ampleBudget})
	lb := newLoopingBank(t, sim)
	client := bank.New(lb.srv.URL+"/api/v1", sim.Token(), bank.WithHourlyBudget(0),
		bank.WithBackoff(time.Millisecond, 4*time.Millisecond), bank.WithPageSize(100))
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "mirror.db"))
	must(t, err)
	t.Cleanup(func() { st.Close() })
	e := &env{sim: sim, baseURL: lb.srv.URL + "/api/v1", client: client, store: st}
	e.full(t)
	total := len(sim.Snapshot().Transactions)
	if total <= 200 {
		t.Fatalf("the bank holds %d transactions; the listing needs a third page", total)
	}
	held := heldIDs(sim.Snapshot())
	if len(held) == 0 {
		t.Fatal("no HELD transaction to delete")
	}
	must(t, sim.Delete(held[0]))

	lb.loop.Store(true)
	_, err = e.syncer(replica.Options{}).Full(context.Background())
	lb.loop.Store(false)
	if !errors.Is(err, bank.ErrPageLoop) {
		t.Fatalf("full sync over a looping listing: err = %v, want ErrPageLoop", err)
	}
	requests, txPages := lb.counts()
	if txPages != 2 || requests > 6 {
		t.Errorf("the looping sync made %d requests, %d of them listing transactions; want 2 listing pages, at most 6 in all",
			requests, txPages)
	}
	if n := e.count(t, "SELECT count(*) FROM transaction_history WHERE change = 'deleted'"); n != 0 {
		t.Errorf("%d deletions recorded from an incomplete listing", n)
	}
	if n := e.count(t, "SELECT count(*) FROM transactions WHERE id = ?", held[0]); n != 1 {
		t.Errorf("the transaction the bank dropped was removed by an incomplete listing")
	}
	if n := e.count(t, "SELECT count(*) FROM sync_runs WHERE status = 'failed' AND error LIKE '%pagination loop%'"); n != 1 {
		t.Errorf("the failed run is not recorded with its cause")
	}
	if n := e.count(t, "SELECT count(*) FROM sync_state WHERE name = 'transactions' AND next_page_url IS NOT NULL AND error_count = 1"); n != 1 {
		t.Errorf("the listing is not left in progress with its failure counted")
	}
	unlock, err := st.LockSync()
	if err != nil {
		t.Fatalf("sync lock still held after the failed sync: %v", err)
	}
	unlock()

	r := e.full(t)
	if !r.Resumed || r.Deleted != 1 {
		t.Errorf("sync after the loop: resumed %v, deleted %d; want resumed, 1 deleted", r.Resumed, r.Deleted)
	}
	e.assertMirrorEqualsTruth(t)
}

// loopingLogs makes a webhook's second page of delivery logs lead back to
// the first.
type loopingLogs struct {
	*bank.Client
	calls int
	first string
}

func (b *loopingLogs) WebhookLogsPage(ctx context.Context, pageURL string) (bank.Page[bank.DeliveryLog], error) {
	p, err := b.Client.WebhookLogsPage(ctx, pageURL)
	b.calls++
	switch b.calls {
	case 1:
		b.first = pageURL
	case 2:
		p.Next = b.first
	}
	return p, err
}

// A heal whose delivery logs loop stops with ErrPageLoop after two pages
// and leaves its walk incomplete, counted as failed.
func TestLoopingDeliveryLogsStopTheHeal(t *testing.T) {
	he := newHealEnv(t, 2)
	hook := he.deadWebhook(t)
	he.addTransactions(3) // 6 entries: 3 pages
	he.waitDeliveries(t)
	b := &loopingLogs{Client: he.client}
	_, err := replica.NewHealer(b, he.store, zerolog.Nop(), replica.HealerOptions{}).Heal(context.Background())
	if !errors.Is(err, bank.ErrPageLoop) {
		t.Fatalf("heal over looping logs: err = %v, want ErrPageLoop", err)
	}
	if n := b.calls; n != 2 {
		t.Errorf("%d pages fetched, want 2", n)
	}
	if n := he.count(t, "SELECT count(*) FROM sync_state WHERE name = ? AND next_page_url IS NOT NULL AND error_count = 1",
		"heal:"+hook.ID); n != 1 {
		t.Errorf("the heal is not left incomplete with its failure counted")
	}
}
