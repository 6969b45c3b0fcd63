//go:build unix

package main

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// The randomized convergence test of a household: two people, alex and
// sam, each with their own token, accounts and webhook, sharing a 2Up
// joint account the bank sends no webhook events for. A seeded history of
// purchases (own and joint, held or settled), settlements, dropped holds
// (with an event, or silently on the joint account), Up-to-Up payments
// between them, API errors and duplicated deliveries runs against the
// daemon, after a first full sync killed with SIGKILL and resumed by the
// daemon; partway, alex's token is revoked (what only alex sees waits,
// the rest goes on) and later restored (SIGHUP: Reload). The joint account
// is polled, and has no events. It ends exact after the event stream and
// a poll, and again after an incremental sync and after a full one. Each token stays
// within its own rate limit: the bank never answers 429.
//
//	go test -tags sqlite_fts5 -race -count=1 -run 'TestHouseholdConvergence' ./cmd/bankmirror/

var householdSeeds = []uint64{1, 2, 5}

func TestHouseholdConvergence(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bankmirror in a subprocess")
	}
	for _, seed := range householdSeeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { runHouseholdConvergence(t, seed) })
	}
}

// householdRun is one run.
type householdRun struct {
	t      *testing.T
	rng    *mrand.Rand
	sim    *simulator.Bank
	apiURL string
	clock  atomic.Int64
	env    map[string]string // the daemon's configuration
	m      *daemon.Daemon
	ops    []string
	held   []string // HELD at the bank, in order
}

func (h *householdRun) logf(format string, args ...any) {
	h.ops = append(h.ops, fmt.Sprintf("%3d ", len(h.ops))+fmt.Sprintf(format, args...))
}

func runHouseholdConvergence(t *testing.T, seed uint64) {
	h := &householdRun{t: t, rng: mrand.New(mrand.NewPCG(seed, 0x40e5e401d))}
	h.clock.Store(convergenceBankStart.UnixNano())
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("history of seed %d:\n%s", seed, strings.Join(h.ops, "\n"))
		}
	})
	nTx := 150 + h.rng.IntN(150)
	nJoint := 100 + h.rng.IntN(150)
	nOps := 40 + h.rng.IntN(40)
	apiErrors := []float64{0, 0.03}[h.rng.IntN(2)]
	dup := h.rng.IntN(2) == 1
	h.logf("run: %d transactions each, %d joint, %d operations, API errors %.2f, duplicates %v", nTx, nJoint, nOps, apiErrors, dup)
	b := newBankWith(t, simulator.Options{Seed: seed, People: []string{"alex", "sam"}, Transactions: nTx, JointTransactions: nJoint,
		Now: func() time.Time { return time.Unix(0, h.clock.Load()) },
		// Each token its own bucket of 1,000 an hour, as the real bank's.
		RateLimit:        simulator.RateLimit{Limit: 1000, Bucket: time.Hour},
		WebhookRetryBase: time.Millisecond, WebhookRetryMax: 20 * time.Millisecond, WebhookMaxAttempts: 50})
	h.sim, h.apiURL = b.sim, b.apiURL
	for _, tx := range h.sim.Snapshot().Transactions {
		if tx.Status == "HELD" {
			h.held = append(h.held, tx.ID)
		}
	}

	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	must(t, os.Mkdir(tokens, 0o700))
	for _, p := range []string{"alex", "sam"} {
		must(t, os.WriteFile(filepath.Join(tokens, p), []byte(h.sim.PersonToken(p)+"\n"), 0o600))
	}
	h.env = map[string]string{
		"BANKMIRROR_API_URL": b.apiURL, "BANKMIRROR_TOKENS_DIR": tokens, "BANKMIRROR_DB": filepath.Join(dir, "mirror.db"),
		"BANKMIRROR_REQUESTS_PER_HOUR": "0", "BANKMIRROR_LOG_FORMAT": "json",
		"BANKMIRROR_SYNC_SCHEDULE": "@every 1000h", "BANKMIRROR_RECONCILE_SCHEDULE": "@every 1000h",
		"BANKMIRROR_POLL_INTERVAL": "0", "BANKMIRROR_INBOX_RETENTION": "0",
	}

	// The first full sync, killed (SIGKILL) after a few pages.
	floor := h.accountPages()
	h.killedFirstSync()
	listedBefore := h.listingRequests()

	// The daemon resumes it at start.
	h.start()
	if again := h.listingRequests() - listedBefore; again >= floor {
		t.Errorf("the daemon's first sync fetched %d pages of accounts' transactions, the floor is %d: it started over", again, floor)
	}
	st := h.m.Store
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM sync_runs WHERE status = 'interrupted'"); n != 1 {
		t.Errorf("interrupted runs = %d, want 1 (the killed one)", n)
	}
	if diffs := mirrortest.TruthDiffs(t, h.sim, st.Reader(), h.apiURL); len(diffs) > 0 {
		t.Fatalf("the resumed first sync left %d differences, e.g.\n%s", len(diffs), strings.Join(diffs[:min(len(diffs), 10)], "\n"))
	}
	h.register()
	h.sim.SetFaults(simulator.Faults{ErrorRate: apiErrors})
	if dup {
		h.sim.SetWebhookFaults(simulator.WebhookFaults{Duplicate: 1, DuplicateCopies: 1})
	}

	revokeAt, restoreAt := nOps/4+h.rng.IntN(nOps/4), nOps/2+h.rng.IntN(nOps/4)
	for i := range nOps {
		h.clock.Add(int64(5+h.rng.IntN(56)) * int64(time.Second)) // within the 3h sync overlap
		switch i {
		case revokeAt:
			must(t, h.sim.RevokePersonToken("alex"))
			h.logf("alex's token revoked")
		case restoreAt:
			_, err := h.sim.RestorePersonToken("alex")
			must(t, err)
			must(t, h.m.Reload())
			h.logf("alex's token restored; SIGHUP")
		}
		h.step()
		if h.rng.IntN(5) == 0 {
			if _, err := h.m.Household.Poll(context.Background()); err != nil {
				t.Errorf("poll: %v", err)
			}
			h.logf("poll")
		}
	}
	h.finish()
}

// accountPages is the floor of a first sync: every distinct account's
// pages of 100 once.
func (h *householdRun) accountPages() int64 {
	per := map[string]int{}
	snap := h.sim.Snapshot()
	for _, tx := range snap.Transactions {
		per[tx.AccountID]++
	}
	var n int64
	for _, a := range snap.Accounts {
		n += int64(max(1, (per[a.ID]+99)/100))
	}
	return n
}

// listingRequests counts both tokens' GETs of accounts' transactions.
func (h *householdRun) listingRequests() int64 {
	var n int64
	for _, p := range []string{"alex", "sam"} {
		for _, c := range h.sim.PersonRequestCounts(p) {
			if c.Route == "/accounts/{id}/transactions" && c.Method == "GET" {
				n += c.Count
			}
		}
	}
	return n
}

// killedFirstSync runs `bankmirror sync --full` for the household on a
// slowed bank and kills it with SIGKILL once it has stored a few pages.
func (h *householdRun) killedFirstSync() {
	t := h.t
	h.sim.SetFaults(simulator.Faults{Latency: 15 * time.Millisecond})
	defer h.sim.SetFaults(simulator.Faults{})
	var out syncBuffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bankmirror sync output:\n%s", out.String())
		}
	})
	c := startChild(t, childEnviron(h.env), &out, "sync", "--full")
	pagesDone := func() int {
		st, err := store.OpenReadOnly(context.Background(), h.env["BANKMIRROR_DB"])
		if err != nil {
			return 0
		}
		defer st.Close()
		var n int
		_ = st.Reader().QueryRow("SELECT pages FROM sync_state WHERE name = 'transactions'").Scan(&n)
		return n
	}
	poll(t, c, 30*time.Second, "a few stored pages", func() bool { return pagesDone() >= 2 })
	must(t, c.cmd.Process.Kill())
	if err := c.wait(10 * time.Second); !killedBy(err, syscall.SIGKILL) {
		t.Fatalf("the first sync did not die of SIGKILL: %v", err)
	}
	h.logf("first full sync killed after %d pages", pagesDone())
}

// start opens the daemon on the household's configuration and waits for
// its start-up sync.
func (h *householdRun) start() {
	t := h.t
	cfg, err := config.Load(h.env)
	must(t, err)
	cfg.Listen, cfg.AdminListen = "127.0.0.1:0", config.AdminOff
	people, err := config.People(h.env)
	must(t, err)
	m := daemon.New(cfg, zerolog.Nop())
	m.Environ, m.People = h.env, people
	if err := m.Open(context.Background()); err != nil {
		_ = m.Close()
		t.Fatalf("open the daemon: %v", err)
	}
	h.m = m
	t.Cleanup(func() { _ = m.Close() })
	select {
	case <-m.InitialSyncDone:
	case <-time.After(convDrainWait):
		t.Fatalf("the daemon's start-up sync did not finish within %v", convDrainWait)
	}
}

// register registers a webhook per person through their own token, as
// `bankmirror webhook register` does.
func (h *householdRun) register() {
	for _, p := range []string{"alex", "sam"} {
		c := bank.New(h.apiURL, h.sim.PersonToken(p), bank.WithHourlyBudget(0))
		w, err := c.CreateWebhook(context.Background(), h.m.URL()+h.m.Config.WebhookPath, nil)
		must(h.t, err)
		must(h.t, h.m.Store.SaveWebhook(context.Background(), store.Webhook{ID: w.ID, URL: w.URL, SecretKey: w.SecretKey,
			CreatedAt: w.CreatedAt, Person: p}))
	}
}

// step is one operation of the history at the bank.
func (h *householdRun) step() {
	t, sim, rng := h.t, h.sim, h.rng
	people := []string{"alex", "sam"}
	who := people[rng.IntN(2)]
	joint := sim.JointAccount()
	switch k := rng.IntN(10); {
	case k < 3: // a purchase on the person's own account
		acct := sim.PersonAccounts(who)[0]
		id, err := sim.PurchaseAs(who, acct, simulator.NewTransaction{AmountBaseUnits: -int64(100 + rng.IntN(20000)), Held: rng.IntN(2) == 0})
		must(t, err)
		h.noteHeld(id)
		h.logf("%s buys on their own account: %s", who, id)
	case k < 6: // a purchase on the joint account: no webhook event
		id, err := sim.PurchaseAs(who, joint, simulator.NewTransaction{AmountBaseUnits: -int64(100 + rng.IntN(20000)), Held: rng.IntN(2) == 0})
		must(t, err)
		h.noteHeld(id)
		h.logf("%s buys on the joint account: %s", who, id)
	case k < 8 && len(h.held) > 0: // a hold settles
		i := rng.IntN(len(h.held))
		id := h.held[i]
		h.held = slices.Delete(h.held, i, i+1)
		must(t, sim.Settle(id))
		h.logf("settled %s", id)
	case k < 9 && len(h.held) > 0: // a hold is dropped: silently on the joint account (no webhook), with an event elsewhere
		i := rng.IntN(len(h.held))
		id := h.held[i]
		h.held = slices.Delete(h.held, i, i+1)
		if h.accountOf(id) == joint {
			must(t, sim.DeleteWithoutEvent(id))
			h.logf("joint hold %s dropped", id)
		} else {
			must(t, sim.Delete(id))
			h.logf("hold %s dropped", id)
		}
	default: // an Up-to-Up payment between them
		to := people[1-slices.Index(people, who)]
		out, in, err := sim.PayPerson(simulator.Payment{From: who, To: to, AmountBaseUnits: int64(100 + rng.IntN(5000)), Message: "share"})
		must(t, err)
		h.logf("%s pays %s: %s, %s", who, to, out, in)
	}
}

func (h *householdRun) accountOf(id string) string {
	for _, tx := range h.sim.Snapshot().Transactions {
		if tx.ID == id {
			return tx.AccountID
		}
	}
	return ""
}

func (h *householdRun) noteHeld(id string) {
	for _, tx := range h.sim.Snapshot().Transactions {
		if tx.ID == id && tx.Status == "HELD" {
			h.held = append(h.held, id)
		}
	}
}

// finish lets the event stream end, polls, and checks the mirror after an
// incremental sync and after a full one.
func (h *householdRun) finish() {
	t, sim, m := h.t, h.sim, h.m
	sim.SetFaults(simulator.Faults{})
	sim.SetWebhookFaults(simulator.WebhookFaults{})
	ctx, cancel := context.WithTimeout(context.Background(), convDeliveryWait)
	defer cancel()
	if err := sim.WaitDeliveries(ctx); err != nil {
		t.Fatalf("the bank's deliveries did not finish: %v", err)
	}
	h.drained("the event stream")
	if _, err := m.Household.Poll(context.Background()); err != nil {
		t.Errorf("poll: %v", err)
	}
	// The events (each person's through their own token, alex's waiting
	// out the revocation) and a poll of the joint account: exact already.
	// Balances of individual accounts are refreshed at most once a second
	// after events: they are compared after the syncs.
	others := "account "
	diffs := slices.DeleteFunc(mirrortest.TruthDiffs(t, sim, m.Store.Reader(), h.apiURL), func(d string) bool {
		return strings.HasPrefix(d, others) && !strings.HasPrefix(d, others+sim.JointAccount())
	})
	if len(diffs) > 0 {
		t.Errorf("after the events and a poll %d differences, e.g.\n%s", len(diffs), strings.Join(diffs[:min(len(diffs), 10)], "\n"))
	}
	scheduledSync(context.Background(), m, false)
	h.drained("the incremental sync")
	if diffs := mirrortest.TruthDiffs(t, sim, m.Store.Reader(), h.apiURL); len(diffs) > 0 {
		t.Errorf("after the incremental sync %d differences, e.g.\n%s", len(diffs), strings.Join(diffs[:min(len(diffs), 10)], "\n"))
	}
	scheduledSync(context.Background(), m, true)
	h.drained("the full sync")
	if diffs := mirrortest.TruthDiffs(t, sim, m.Store.Reader(), h.apiURL); len(diffs) > 0 {
		t.Errorf("after the full sync %d differences, e.g.\n%s", len(diffs), strings.Join(diffs[:min(len(diffs), 10)], "\n"))
	}
	for _, d := range mirrortest.AccountDiffs(t, sim.Snapshot(), m.Store.Reader()) {
		t.Errorf("after the full sync: %s", d)
	}
	people, err := m.Store.People(context.Background())
	must(t, err)
	for _, p := range people {
		if p.TokenState != store.TokenOK {
			t.Errorf("%s's token is %s after its restoration", p.Name, p.TokenState)
		}
	}
	// Each token within its own budget: the bank never refused one.
	for _, p := range []string{"alex", "sam"} {
		var total, limited int64
		for _, c := range sim.PersonRequestCounts(p) {
			total += c.Count
			if c.Status == 429 {
				limited += c.Count
			}
		}
		if limited > 0 {
			t.Errorf("%s's token was answered 429 %d times (of %d requests)", p, limited, total)
		}
		h.logf("%s: %d requests", p, total)
	}
}

// drained waits until the worker has processed every event it can.
func (h *householdRun) drained(what string) {
	h.t.Helper()
	m := h.m
	m.Worker.Notify()
	var st store.InboxStats
	ok := eventually(h.t, nil, convDrainWait, what, func() bool {
		var err error
		st, err = m.Store.InboxStats(context.Background(), m.Worker.MaxAttempts())
		must(h.t, err)
		return st.Pending == 0
	})
	if !ok {
		h.t.Fatalf("%s: %d inbox events still pending", what, st.Pending)
	}
}

// SIGHUP re-reads the people: a person added gets their own accounts
// mirrored through their token without a restart, the joint account
// not listed again; a person removed is marked so, their history kept.
func TestReloadAddsAndRemovesPeople(t *testing.T) {
	b := newBankWith(t, simulator.Options{Seed: 4, People: []string{"alex", "sam"}, Transactions: 150, JointTransactions: 120})
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	must(t, os.Mkdir(tokens, 0o700))
	write := func(p string) {
		must(t, os.WriteFile(filepath.Join(tokens, p), []byte(b.sim.PersonToken(p)+"\n"), 0o600))
	}
	write("alex")
	h := &householdRun{t: t, sim: b.sim, apiURL: b.apiURL, env: map[string]string{
		"BANKMIRROR_API_URL": b.apiURL, "BANKMIRROR_TOKENS_DIR": tokens, "BANKMIRROR_DB": filepath.Join(dir, "mirror.db"),
		"BANKMIRROR_REQUESTS_PER_HOUR": "0", "BANKMIRROR_SYNC_SCHEDULE": "@every 1000h", "BANKMIRROR_RECONCILE_SCHEDULE": "@every 1000h",
		"BANKMIRROR_POLL_INTERVAL": "0",
	}}
	h.start()
	m := h.m
	mirrored := func(account string) int {
		return mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM transactions WHERE account_id = ?", account)
	}
	if n := mirrored(b.sim.PersonAccounts("sam")[0]); n != 0 {
		t.Fatalf("sam's account mirrored (%d) before sam is configured", n)
	}
	write("sam")
	must(t, m.Reload())
	if got := m.Household.People(); !slices.Equal(got, []string{"alex", "sam"}) {
		t.Fatalf("people after the reload: %v", got)
	}
	listed := h.listingRequests()
	scheduledSync(context.Background(), m, false)
	if diffs := mirrortest.TruthDiffs(t, b.sim, m.Store.Reader(), b.apiURL); len(diffs) > 0 {
		t.Errorf("after adding sam %d differences, e.g.\n%s", len(diffs), strings.Join(diffs[:min(len(diffs), 10)], "\n"))
	}
	var samPages int64
	for _, a := range b.sim.PersonAccounts("sam") {
		samPages += int64(max(1, (mirrored(a)+99)/100))
	}
	if got := h.listingRequests() - listed; got != samPages {
		t.Errorf("adding sam listed %d pages of accounts' transactions, want sam's own %d (not the joint account again)", got, samPages)
	}

	must(t, os.Remove(filepath.Join(tokens, "alex")))
	must(t, m.Reload())
	people, err := m.Store.People(context.Background())
	must(t, err)
	for _, p := range people {
		if removed := p.RemovedAt != ""; removed != (p.Name == "alex") {
			t.Errorf("%s removed: %v", p.Name, removed)
		}
	}
	alexOwn := b.sim.PersonAccounts("alex")[0]
	before := mirrored(alexOwn)
	scheduledSync(context.Background(), m, true)
	if got := mirrored(alexOwn); got != before || before == 0 {
		t.Errorf("alex's account holds %d transactions after alex left, had %d: their history stays", got, before)
	}
	if n := mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM accounts WHERE id = ? AND gone_at IS NOT NULL", alexOwn); n != 1 {
		t.Error("alex's own account, which no token lists any more, is not marked gone")
	}
	if n := mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM accounts WHERE id = ? AND gone_at IS NULL", b.sim.JointAccount()); n != 1 {
		t.Error("the joint account, which sam still lists, is marked gone")
	}
}
