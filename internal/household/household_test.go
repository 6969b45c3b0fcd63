package household_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/household"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// accountListing is the simulator's route of one account's transactions.
const accountListing = "/accounts/{id}/transactions"

type env struct {
	t    *testing.T
	sim  *simulator.Bank
	base string
	st   *store.Store
	h    *household.Household
}

// newEnv is a simulated household of alex and sam (unless opts names
// people) and an empty mirror with a household of no one yet.
func newEnv(t *testing.T, opts simulator.Options, hopts household.Options) *env {
	t.Helper()
	if opts.People == nil {
		opts.People = []string{"alex", "sam"}
	}
	opts.RateLimit = simulator.RateLimit{Limit: 1_000_000}
	sim := simulator.New(opts)
	t.Cleanup(sim.Close)
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	e := &env{t: t, sim: sim, base: srv.URL + "/api/v1"}
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e.st = st
	hopts.NewClient = e.client
	e.h = household.New(st, zerolog.Nop(), hopts)
	return e
}

func (e *env) client(p household.Person) *bank.Client {
	return bank.New(e.base, p.Token, bank.WithHourlyBudget(0),
		bank.WithBackoff(time.Millisecond, 4*time.Millisecond), bank.WithRateLimitBackoff(time.Millisecond, 4*time.Millisecond))
}

// people makes the household the named people of the bank, with their
// tokens now.
func (e *env) people(names ...string) {
	e.t.Helper()
	var ps []household.Person
	for _, n := range names {
		ps = append(ps, household.Person{Name: n, Token: e.sim.PersonToken(n)})
	}
	if err := e.h.SetPeople(e.t.Context(), ps); err != nil {
		e.t.Fatal(err)
	}
}

// requests counts the person's GETs of route so far.
func (e *env) requests(person, route string) int64 {
	var n int64
	for _, c := range e.sim.PersonRequestCounts(person) {
		if c.Route == route && c.Method == "GET" {
			n += c.Count
		}
	}
	return n
}

// pagesOf is how many pages of 100 the account's transactions fill (one
// for none).
func (e *env) pagesOf(account string) int64 {
	n := 0
	for _, tx := range e.sim.Snapshot().Transactions {
		if tx.AccountID == account {
			n++
		}
	}
	return int64(max(1, (n+99)/100))
}

func (e *env) exact() {
	e.t.Helper()
	mirrortest.AssertEqualsTruth(e.t, e.sim, e.st.Reader(), e.base)
}

func (e *env) full() replica.Result {
	e.t.Helper()
	r, err := e.h.Full(e.t.Context())
	if err != nil {
		e.t.Fatalf("full sync: %v", err)
	}
	return r
}

func (e *env) incremental() replica.Result {
	e.t.Helper()
	r, err := e.h.Incremental(e.t.Context())
	if err != nil {
		e.t.Fatalf("incremental sync: %v", err)
	}
	return r
}

// countOn is the mirrored transactions of the accounts.
func (e *env) countOn(accounts ...string) int {
	e.t.Helper()
	n := 0
	for _, a := range accounts {
		var c int
		if err := e.st.Reader().QueryRow("SELECT count(*) FROM transactions WHERE account_id = ?", a).Scan(&c); err != nil {
			e.t.Fatal(err)
		}
		n += c
	}
	return n
}

// A first sync of a household lists every distinct account's pages once:
// the joint account through one token, not both; the mirror ends exact,
// and says who sees which account.
func TestFirstSyncListsEachAccountOnce(t *testing.T) {
	e := newEnv(t, simulator.Options{Seed: 3, Transactions: 260, JointTransactions: 230}, household.Options{})
	e.people("alex", "sam")
	r := e.full()
	e.exact()
	var floor int64
	for _, a := range e.sim.Snapshot().Accounts {
		floor += e.pagesOf(a.ID)
	}
	listed := e.requests("alex", accountListing) + e.requests("sam", accountListing)
	if listed != floor {
		t.Errorf("first sync fetched %d pages of accounts' transactions, want the floor %d (every distinct account's pages once)", listed, floor)
	}
	if r.Requests <= floor {
		t.Errorf("run counted %d requests, fewer than its %d pages", r.Requests, floor)
	}
	accounts, err := e.st.AccountsWithPeople(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range accounts {
		want := e.sim.AccountPeople(a.AccountID)
		if !slices.Equal(a.ListedBy, want) {
			t.Errorf("account %s listed by %v, want %v", a.AccountID, a.ListedBy, want)
		}
	}
	// A second full sync changes nothing and deletes nothing.
	if r := e.full(); r.Deleted != 0 || r.Upserted != 0 {
		t.Errorf("second full sync: %d upserted, %d deleted", r.Upserted, r.Deleted)
	}
	e.exact()
}

// A revoked token stops only its person's work: the other person's
// accounts and the joint account stay exact through the other token,
// nothing of the revoked person's accounts is deleted, and their token's
// state is recorded; restored, the mirror is exact again.
func TestRevokedTokenStopsOnlyItsPerson(t *testing.T) {
	e := newEnv(t, simulator.Options{Seed: 4, Transactions: 150, JointTransactions: 60}, household.Options{})
	e.people("alex", "sam")
	e.full()
	alexOwn := e.sim.PersonAccounts("alex")
	samOwn := e.sim.PersonAccounts("sam")
	joint := e.sim.JointAccount()
	before := e.countOn(alexOwn...)

	if err := e.sim.RevokePersonToken("alex"); err != nil {
		t.Fatal(err)
	}
	onJoint, err := e.sim.PurchaseAs("alex", joint, simulator.NewTransaction{Description: "Groceries", AmountBaseUnits: -5400})
	if err != nil {
		t.Fatal(err)
	}
	samBuys, err := e.sim.PurchaseAs("sam", samOwn[0], simulator.NewTransaction{Description: "Books", AmountBaseUnits: -2100})
	if err != nil {
		t.Fatal(err)
	}
	alexBuys, err := e.sim.PurchaseAs("alex", alexOwn[0], simulator.NewTransaction{Description: "Fuel", AmountBaseUnits: -7000})
	if err != nil {
		t.Fatal(err)
	}
	e.incremental()
	mirrored := func(id string) bool {
		var n int
		if err := e.st.Reader().QueryRow("SELECT count(*) FROM transactions WHERE id = ?", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	if !mirrored(onJoint) || !mirrored(samBuys) {
		t.Errorf("with alex's token revoked, the joint purchase (%v) and sam's (%v) should be mirrored through sam's", mirrored(onJoint), mirrored(samBuys))
	}
	if mirrored(alexBuys) {
		t.Error("alex's own purchase mirrored through a revoked token")
	}
	// A full reconciliation deletes nothing of what only alex sees.
	if r := e.full(); r.Deleted != 0 {
		t.Errorf("full sync with alex's token revoked deleted %d", r.Deleted)
	}
	if got := e.countOn(alexOwn...); got != before {
		t.Errorf("alex's accounts hold %d transactions, had %d", got, before)
	}
	people, err := e.st.People(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, p := range people {
		states[p.Name] = p.TokenState
	}
	if states["alex"] != store.TokenRevoked || states["sam"] != store.TokenOK {
		t.Errorf("token states %v, want alex revoked and sam ok", states)
	}
	accounts, err := e.st.AccountsWithPeople(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range accounts {
		if a.GoneAt != "" {
			t.Errorf("account %s marked gone while its token is only revoked", a.AccountID)
		}
	}

	if _, err := e.sim.RestorePersonToken("alex"); err != nil {
		t.Fatal(err)
	}
	e.people("alex", "sam") // SIGHUP: the token read again
	if rejected, _ := e.h.TokenRejected(); rejected {
		t.Fatal("household still rejected")
	}
	e.incremental()
	e.exact()
}

// Joint accounts get no webhook events: a poll brings a joint purchase, its
// settlement and a dropped hold, and a quiet poll costs one request.
func TestPollCatchesJointPurchasesSettlementsAndDroppedHolds(t *testing.T) {
	e := newEnv(t, simulator.Options{Seed: 5, Transactions: 80, JointTransactions: 40}, household.Options{})
	e.people("alex", "sam")
	e.full()
	joint := e.sim.JointAccount()
	poll := func() household.PollResult {
		t.Helper()
		r, err := e.h.Poll(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if r.Accounts != 1 {
			t.Errorf("polled %d accounts, want the joint one", r.Accounts)
		}
		return r
	}
	// The first sync stored the accounts before their transactions: the
	// first poll fetches the joint account's balance again, once.
	if r := poll(); r.Requests != 2 || r.Upserted != 0 {
		t.Errorf("first poll: %d requests, %d upserted; want 2 (the listing, the balance) and 0", r.Requests, r.Upserted)
	}
	if r := poll(); r.Requests != 1 || r.Upserted != 0 {
		t.Errorf("quiet poll: %d requests, %d upserted; want 1 and 0", r.Requests, r.Upserted)
	}
	held, err := e.sim.PurchaseAs("sam", joint, simulator.NewTransaction{Description: "Hotel deposit", AmountBaseUnits: -20000, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	held2, err := e.sim.PurchaseAs("alex", joint, simulator.NewTransaction{Description: "Cafe", AmountBaseUnits: -900, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	poll()
	e.exact()
	if err := e.sim.Settle(held2); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.DeleteWithoutEvent(held); err != nil {
		t.Fatal(err)
	}
	r := poll()
	if r.Deleted != 1 {
		t.Errorf("poll deleted %d, want the dropped hold", r.Deleted)
	}
	e.exact()
	if r := poll(); r.Requests != 1 {
		t.Errorf("quiet poll after the holds: %d requests, want 1", r.Requests)
	}
}

// A poll goes through whichever token sees the joint account and is not
// rejected.
func TestPollGoesThroughTheOtherToken(t *testing.T) {
	e := newEnv(t, simulator.Options{Seed: 6, Transactions: 40, JointTransactions: 20}, household.Options{})
	e.people("alex", "sam")
	e.full()
	for _, who := range []string{"alex", "sam"} {
		other := "sam"
		if who == "sam" {
			other = "alex"
		}
		if err := e.sim.RevokePersonToken(who); err != nil {
			t.Fatal(err)
		}
		id, err := e.sim.PurchaseAs(other, e.sim.JointAccount(), simulator.NewTransaction{AmountBaseUnits: -1234})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.h.Poll(t.Context()); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := e.st.Reader().QueryRow("SELECT count(*) FROM transactions WHERE id = ?", id).Scan(&n); err != nil || n != 1 {
			t.Errorf("with %s's token revoked the joint purchase is not mirrored (%v)", who, err)
		}
		if _, err := e.sim.RestorePersonToken(who); err != nil {
			t.Fatal(err)
		}
		e.people("alex", "sam")
	}
	e.exact()
}

// A mirror of one token becomes a household of one at its first start,
// nothing fetched again; a second person added later gets their accounts
// listed whole, and the joint account is not listed again.
func TestUpgradeFetchesNothingAgain(t *testing.T) {
	e := newEnv(t, simulator.Options{Seed: 7, Transactions: 200, JointTransactions: 250}, household.Options{})
	alex := e.client(household.Person{Name: "alex", Token: e.sim.PersonToken("alex")})
	if _, err := replica.New(alex, e.st, zerolog.Nop(), replica.Options{}).Full(t.Context()); err != nil {
		t.Fatal(err)
	}
	before := e.sim.PersonRequestCounts("alex")
	e.people("alex")
	r := e.incremental()
	if r.Kind != replica.KindIncremental {
		t.Errorf("first sync after the upgrade is %s, want incremental", r.Kind)
	}
	if got := e.requests("alex", accountListing); got != 0 {
		t.Errorf("the upgrade listed accounts' transactions %d times", got)
	}
	if r.Requests > 6 {
		t.Errorf("first sync after the upgrade: %d requests (before: %v)", r.Requests, before)
	}
	accounts, err := e.st.AccountsWithPeople(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range accounts {
		if !slices.Equal(a.ListedBy, []string{"alex"}) {
			t.Errorf("account %s listed by %v after the upgrade, want alex", a.AccountID, a.ListedBy)
		}
	}

	e.people("alex", "sam")
	e.incremental()
	e.exact()
	var want int64
	for _, a := range e.sim.PersonAccounts("sam") {
		want += e.pagesOf(a)
	}
	// Only sam's own accounts are listed whole; what the mirror held is
	// listed since its newest transactions.
	got := e.requests("alex", accountListing) + e.requests("sam", accountListing)
	if got != want {
		t.Errorf("adding sam fetched %d pages of accounts' transactions, want %d (sam's own, whole)", got, want)
	}
	if e.pagesOf(e.sim.JointAccount()) < 3 {
		t.Fatal("the joint account should fill several pages for this test to tell")
	}
}

// A full sync of a household killed part-way resumes from its checkpoint
// (the account and page it had reached) and ends exact.
func TestInterruptedFullSyncResumes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pages := 0
	e := newEnv(t, simulator.Options{Seed: 8, Transactions: 400, JointTransactions: 300}, household.Options{Sync: replica.Options{
		OnProgress: func(replica.Progress) {
			if pages++; pages == 5 {
				cancel()
			}
		}}})
	e.people("alex", "sam")
	if _, err := e.h.Full(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted full sync: %v", err)
	}
	listedBefore := e.requests("alex", accountListing) + e.requests("sam", accountListing)
	r := e.full()
	if !r.Resumed {
		t.Error("second full sync did not resume")
	}
	e.exact()
	var floor int64
	for _, a := range e.sim.Snapshot().Accounts {
		floor += e.pagesOf(a.ID)
	}
	again := e.requests("alex", accountListing) + e.requests("sam", accountListing) - listedBefore
	// At least five pages were stored with their checkpoint before the
	// kill: the resumed listing does not fetch them again.
	if again > floor-5 {
		t.Errorf("resumed listing fetched %d pages, floor %d: it started over", again, floor)
	}
}

// An idle incremental sync costs each token three requests (its accounts,
// its transactions since, what it holds) however many accounts it sees;
// with polling on, the joint account is left to the polls; a quiet poll
// costs one.
func TestIdleCosts(t *testing.T) {
	e := newEnv(t, simulator.Options{Seed: 9, Transactions: 120, JointTransactions: 50}, household.Options{PollInterval: 5 * time.Minute})
	e.people("alex", "sam")
	e.full()
	e.incremental()
	before := e.sim.Snapshot()
	req := func() int64 {
		var n int64
		for _, p := range []string{"alex", "sam"} {
			for _, c := range e.sim.PersonRequestCounts(p) {
				n += c.Count
			}
		}
		return n
	}
	r0 := req()
	r := e.incremental()
	if got := req() - r0; got != 6 || r.Requests != 6 {
		t.Errorf("an idle incremental sync of two people cost %d requests (run counted %d), want 6", got, r.Requests)
	}
	r0 = req()
	if _, err := e.h.Poll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := req() - r0; got != 1 {
		t.Errorf("a quiet poll cost %d requests, want 1", got)
	}
	if len(e.sim.Snapshot().Transactions) != len(before.Transactions) {
		t.Fatal("the bank changed")
	}
	e.exact()
}

// A receipt is fetched through the token of the person who has it,
// whoever's token is asked first.
func TestAttachmentThroughItsPersonsToken(t *testing.T) {
	e := newEnv(t, simulator.Options{Seed: 10, Transactions: 300, JointTransactions: 20}, household.Options{})
	e.people("alex", "sam")
	e.full()
	for _, p := range []string{"alex", "sam"} {
		var id string
		err := e.st.Reader().QueryRow(`SELECT a.id FROM attachments AS a JOIN transactions AS t ON t.id = a.transaction_id
			WHERE t.account_id IN (SELECT value FROM json_each(?)) LIMIT 1`, `["`+strings.Join(e.sim.PersonAccounts(p), `","`)+`"]`).Scan(&id)
		if err != nil {
			t.Fatalf("no attachment of %s's: %v", p, err)
		}
		a, err := e.h.Attachment(t.Context(), id)
		if err != nil || a.ID != id {
			t.Errorf("attachment %s of %s: %v", id, p, err)
		}
	}
}

// An event's transaction is fetched through the token of the webhook's
// person; when that token is rejected, or the webhook's person is
// unknown, through a token that sees the mirrored transaction's account.
func TestBankForEvent(t *testing.T) {
	e := newEnv(t, simulator.Options{Seed: 11, Transactions: 60, JointTransactions: 20}, household.Options{})
	e.people("alex", "sam")
	e.full()
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.st.SaveWebhook(ctx, store.Webhook{ID: "hook-alex", URL: "https://x/w", SecretKey: "s1", CreatedAt: "2026-01-01T00:00:00Z", Person: "alex"}))
	txOn := func(account string) string {
		var id string
		must(e.st.Reader().QueryRow("SELECT id FROM transactions WHERE account_id = ? LIMIT 1", account).Scan(&id))
		return id
	}
	joint, alexOwn, samOwn := txOn(e.sim.JointAccount()), txOn(e.sim.PersonAccounts("alex")[0]), txOn(e.sim.PersonAccounts("sam")[0])
	alex, sam := e.h.Client("alex"), e.h.Client("sam")
	check := func(what string, ev store.InboxEvent, want *bank.Client) {
		t.Helper()
		if got := e.h.BankForEvent(ev); got != replica.WorkerBank(want) {
			t.Errorf("%s: fetched through the wrong person's token", what)
		}
	}
	check("alex's webhook, a joint transaction", store.InboxEvent{WebhookID: "hook-alex", TransactionID: joint}, alex)
	check("an unknown webhook, sam's transaction", store.InboxEvent{WebhookID: "elsewhere", TransactionID: samOwn}, sam)
	// alex's token rejected.
	must(e.sim.RevokePersonToken("alex"))
	if _, err := alex.Accounts(ctx); !errors.Is(err, bank.ErrUnauthorized) {
		t.Fatalf("alex's token still accepted: %v", err)
	}
	check("alex's webhook, a joint transaction, alex's token rejected", store.InboxEvent{WebhookID: "hook-alex", TransactionID: joint}, sam)
	check("alex's webhook, alex's own transaction, alex's token rejected", store.InboxEvent{WebhookID: "hook-alex", TransactionID: alexOwn}, alex)
}

// With one person, every event's transaction is fetched through their
// token, whatever webhook delivered it: the mirror is not read for it.
func TestBankForEventOfOnePerson(t *testing.T) {
	e := newEnv(t, simulator.Options{Seed: 12, Transactions: 10}, household.Options{})
	e.people("alex")
	alex := e.h.Client("alex")
	for _, ev := range []store.InboxEvent{
		{WebhookID: "elsewhere", TransactionID: "never-mirrored"},
		{WebhookID: "", TransactionID: ""},
	} {
		if got := e.h.BankForEvent(ev); got != replica.WorkerBank(alex) {
			t.Errorf("event %+v: not fetched through the one person's token", ev)
		}
	}
}

// A 2Up account with nothing in it yet (just opened) is polled too: its
// first purchase needs no webhook and no daily reconciliation.
func TestPollCatchesTheFirstPurchaseOfAnEmptyJointAccount(t *testing.T) {
	e := newEnv(t, simulator.Options{Seed: 5, Transactions: 4, JointTransactions: -1}, household.Options{})
	e.people("alex", "sam")
	e.full()
	joint := e.sim.JointAccount()
	if n := e.countOn(joint); n != 0 {
		t.Fatalf("the joint account has %d transactions; the test wants none", n)
	}
	if _, err := e.sim.PurchaseAs("sam", joint, simulator.NewTransaction{Description: "First groceries", AmountBaseUnits: -4200}); err != nil {
		t.Fatal(err)
	}
	r, err := e.h.Poll(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if r.Accounts != 1 || r.Upserted != 1 {
		t.Fatalf("poll of the empty joint account: %+v, want it polled and the purchase upserted", r)
	}
	e.exact()
}

// Issue 30: an event a partner can sign (their own webhook's, naming the
// other person's transaction) or one naming the other's webhook must not
// delete the other's transaction: the token of a person who does not see
// its account answers 404 while the bank still has it. The worker fetches
// a mirrored transaction through a token that sees its account, and only
// such a token's 404 deletes. A genuine deletion still deletes.
func TestAPartnersEventDeletesNothingOfTheOther(t *testing.T) {
	e := newEnv(t, simulator.Options{Seed: 13, Transactions: 40, JointTransactions: 10}, household.Options{})
	e.people("alex", "sam")
	e.full()
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"alex", "sam"} {
		must(e.st.SaveWebhook(ctx, store.Webhook{ID: "hook-" + p, URL: "https://x/w", SecretKey: "s-" + p,
			CreatedAt: "2026-01-01T00:00:00Z", Person: p}))
	}
	txOn := func(account, status string) string {
		t.Helper()
		var id string
		must(e.st.Reader().QueryRow("SELECT id FROM transactions WHERE account_id = ? AND status = ? LIMIT 1", account, status).Scan(&id))
		return id
	}
	alexTx, samTx := txOn(e.sim.PersonAccounts("alex")[0], "SETTLED"), txOn(e.sim.PersonAccounts("sam")[0], "SETTLED")
	alexHeld, err := e.sim.PurchaseAs("alex", "", simulator.NewTransaction{Description: "Hotel deposit", AmountBaseUnits: -20000, Held: true})
	must(err)
	e.incremental()
	must(e.sim.DeleteWithoutEvent(alexHeld))

	idle := make(chan struct{}, 1)
	w := replica.NewWorker(e.h.Primary(), e.st, zerolog.Nop(), replica.WorkerOptions{
		BankFor: e.h.BankForEvent, MayDelete: e.h.MayDelete, Gate: e.h, RefreshBalances: e.h.RefreshBalances,
		OnIdle: func() {
			select {
			case idle <- struct{}{}:
			default:
			}
		},
		OnApplied: func(store.InboxEvent, store.Change) {
			select {
			case idle <- struct{}{}:
			default:
			}
		}})
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(wctx) }()
	t.Cleanup(func() { cancel(); <-done })

	samGets := e.requests("sam", "/transactions/{id}")
	now := e.sim.Now().Format(time.RFC3339)
	ev := func(id, hook, typ, tx string) store.InboxEvent {
		return store.InboxEvent{ID: id, EventType: typ, WebhookID: hook, TransactionID: tx, CreatedAt: now, Source: store.SourceWebhook, Body: "{}"}
	}
	_, err = e.st.InsertEvents(ctx, []store.InboxEvent{
		ev("ev-1", "hook-sam", bank.EventTransactionDeleted, alexTx),    // sam's webhook, alex's transaction
		ev("ev-2", "hook-alex", bank.EventTransactionSettled, samTx),    // alex's own webhook, sam's transaction
		ev("ev-3", "hook-alex", bank.EventTransactionDeleted, alexHeld), // a genuine deletion
	})
	must(err)
	w.Notify()
	deadline := time.After(60 * time.Second)
	for {
		var pending int
		must(e.st.Reader().QueryRow("SELECT count(*) FROM webhook_events WHERE processed_at IS NULL").Scan(&pending))
		if pending == 0 {
			break
		}
		select {
		case <-idle:
		case <-deadline:
			t.Fatalf("%d events still pending", pending)
		}
	}
	held := func(id string) bool {
		var n int
		must(e.st.Reader().QueryRow("SELECT count(*) FROM transactions WHERE id = ?", id).Scan(&n))
		return n == 1
	}
	if !held(alexTx) {
		t.Error("alex's transaction, named by an event of sam's webhook, was deleted from the mirror")
	}
	if !held(samTx) {
		t.Error("sam's transaction, named by an event of alex's webhook, was deleted from the mirror")
	}
	if held(alexHeld) {
		t.Error("alex's dropped hold, named by an event of alex's webhook, is still in the mirror")
	}
	if e.requests("sam", "/transactions/{id}") == samGets {
		t.Error("sam's transaction was not fetched through sam's token")
	}
}

// A mirrored transaction no person of the household sees any more (kim
// left; her history stays) is left as it is by an event naming it: with
// two people no token is asked (BankForEvent has none), and with one, the
// one token asked answers 404, which deletes nothing it does not see
// (MayDelete).
func TestATokenThatDoesNotSeeTheAccountDeletesNothing(t *testing.T) {
	e := newEnv(t, simulator.Options{Seed: 14, People: []string{"alex", "kim", "sam"}, Transactions: 20, JointTransactions: 5}, household.Options{})
	e.people("alex", "kim", "sam")
	e.full()
	ctx := t.Context()
	var kimTx string
	if err := e.st.Reader().QueryRow("SELECT id FROM transactions WHERE account_id = ? LIMIT 1", e.sim.PersonAccounts("kim")[0]).Scan(&kimTx); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SaveWebhook(ctx, store.Webhook{ID: "hook-alex", URL: "https://x/w", SecretKey: "s-alex",
		CreatedAt: "2026-01-01T00:00:00Z", Person: "alex"}); err != nil {
		t.Fatal(err)
	}
	for i, people := range [][]string{{"alex", "sam"}, {"alex"}} {
		e.people(people...)
		idle := make(chan struct{}, 1)
		w := replica.NewWorker(e.h.Primary(), e.st, zerolog.Nop(), replica.WorkerOptions{
			BankFor: e.h.BankForEvent, MayDelete: e.h.MayDelete, Gate: e.h, RefreshBalances: e.h.RefreshBalances,
			OnIdle: func() {
				select {
				case idle <- struct{}{}:
				default:
				}
			},
			OnApplied: func(store.InboxEvent, store.Change) {
				select {
				case idle <- struct{}{}:
				default:
				}
			}})
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); _ = w.Run(wctx) }()
		id := fmt.Sprintf("ev-%d", i)
		if _, err := e.st.InsertEvents(ctx, []store.InboxEvent{{ID: id, EventType: bank.EventTransactionDeleted, WebhookID: "hook-alex",
			TransactionID: kimTx, CreatedAt: e.sim.Now().Format(time.RFC3339), Source: store.SourceWebhook, Body: "{}"}}); err != nil {
			t.Fatal(err)
		}
		w.Notify()
		deadline := time.After(60 * time.Second)
		for processed := false; !processed; {
			if err := e.st.Reader().QueryRow("SELECT processed_at IS NOT NULL FROM webhook_events WHERE id = ?", id).Scan(&processed); err != nil {
				t.Fatal(err)
			}
			if processed {
				break
			}
			select {
			case <-idle:
			case <-deadline:
				t.Fatalf("household %v: event still pending", people)
			}
		}
		cancel()
		<-done
		var n int
		if err := e.st.Reader().QueryRow("SELECT count(*) FROM transactions WHERE id = ?", kimTx).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("household %v: kim's transaction was deleted through a token that does not see her account", people)
		}
	}
}
