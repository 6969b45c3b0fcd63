package ynab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	fake "github.com/bankmirror/bankmirror/internal/simulator/ynab"
	"github.com/bankmirror/bankmirror/internal/simulator/ynab/ynabspec"
)

type clock struct {
	mu sync.Mutex
	at time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.at = c.at.Add(d)
	c.mu.Unlock()
}

// env is the fake YNAB on loopback with a plan "Household" (accounts
// Spending, Saver, Joint), every response of which is validated against
// YNAB's description.
type env struct {
	t     *testing.T
	fake  *fake.Fake
	url   string
	clock *clock
	plan  fake.Plan
}

func newEnv(t *testing.T, limit int) *env {
	t.Helper()
	c := &clock{at: time.Date(2026, 3, 3, 9, 30, 0, 0, time.UTC)}
	var mu sync.Mutex
	var invalid []error
	f, err := fake.New(fake.Options{Token: "tok", Spec: ynabspec.MustLoad(), Now: c.now, Limit: limit, OnInvalid: func(err error) {
		mu.Lock()
		invalid = append(invalid, err)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(f.Handler())
	t.Cleanup(func() {
		srv.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, err := range invalid {
			t.Errorf("fake wrote an invalid response: %v", err)
		}
	})
	pl := f.AddPlan("Household", []string{"Spending", "Saver", "Joint"}, map[string][]string{"Everyday": {"Groceries", "Rent"}})
	return &env{t: t, fake: f, url: srv.URL + "/v1", clock: c, plan: pl}
}

func (e *env) opener(opts ...Option) *Opener {
	return New(append([]Option{WithClock(e.clock.now)}, opts...)...)
}

func (e *env) target(budget string) feeds.Target {
	return feeds.Target{Feed: "ynab", URL: e.url, Secret: "tok", Budget: budget, Log: zerolog.Nop()}
}

func (e *env) open(o *Opener) feeds.Session {
	e.t.Helper()
	s, err := o.Open(context.Background(), e.target("Household"))
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// live returns the fake's live rows by import id.
func (e *env) live() map[string]fake.Transaction {
	out := map[string]fake.Transaction{}
	for _, x := range e.fake.Transactions(e.plan.ID) {
		if x.Deleted {
			continue
		}
		if _, dup := out[x.ImportID]; dup && x.ImportID != "" {
			e.t.Fatalf("two live rows with import id %s", x.ImportID)
		}
		out[x.ImportID] = x
	}
	return out
}

func bankID(i int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i) }

func bankRow(e *env, i int, acct string, cents int64) feeds.NewRow {
	return feeds.NewRow{ImportID: bankID(i), Account: e.plan.Accounts[acct], Date: "2026-03-01", Amount: cents,
		Payee: "Shop " + fmt.Sprint(i), Notes: "note"}
}

func byImport(rows []feeds.AppRow) map[string]feeds.AppRow {
	m := map[string]feeds.AppRow{}
	for _, r := range rows {
		m[r.ImportID] = r
	}
	return m
}

var ctx = context.Background()

func TestCreateSettleDelete(t *testing.T) {
	e := newEnv(t, 0)
	s := e.open(e.opener())
	cat := e.plan.Categories["Groceries"]
	rows := []feeds.NewRow{bankRow(e, 1, "Spending", -1250), bankRow(e, 2, "Spending", -399), bankRow(e, 3, "Saver", 10000)}
	rows[0].Category = cat
	rows[2].Cleared = true
	ids, err := s.Create(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 {
		t.Fatalf("ids %v", ids)
	}
	live := e.live()
	if x := live[bankID(1)]; x.Amount != -12500 || x.Cleared != "uncleared" || x.Category != "Groceries" || x.Payee != "Shop 1" || x.Memo != "note" || x.ID != ids[bankID(1)] {
		t.Fatalf("row 1 in ynab: %+v", x)
	}
	if x := live[bankID(3)]; x.Amount != 100000 || x.Cleared != "cleared" {
		t.Fatalf("row 3 in ynab: %+v", x)
	}
	got, err := s.Rows(ctx, []string{e.plan.Accounts["Spending"]}, "2026-01-01")
	if err != nil {
		t.Fatal(err)
	}
	m := byImport(got)
	if len(m) != 2 || m[bankID(1)].Amount != -1250 || m[bankID(1)].ID != ids[bankID(1)] || m[bankID(1)].Category != cat {
		t.Fatalf("rows %+v", got)
	}
	// The hold settles at another amount and date.
	if err := s.Update(ctx, []feeds.Facts{{ID: ids[bankID(1)], Date: "2026-03-02", Amount: -1300, Cleared: true}}); err != nil {
		t.Fatal(err)
	}
	if x := e.live()[bankID(1)]; x.Amount != -13000 || x.Date != "2026-03-02" || x.Cleared != "cleared" || x.Category != "Groceries" {
		t.Fatalf("settled row: %+v", x)
	}
	// A dropped hold goes.
	if err := s.Delete(ctx, []string{ids[bankID(2)]}); err != nil {
		t.Fatal(err)
	}
	got, err = s.Rows(ctx, []string{e.plan.Accounts["Spending"], e.plan.Accounts["Saver"]}, "")
	if err != nil {
		t.Fatal(err)
	}
	m = byImport(got)
	if _, ok := m[bankID(2)]; ok || len(m) != 2 || m[bankID(1)].Amount != -1300 || !m[bankID(1)].Cleared {
		t.Fatalf("rows after settle and delete: %+v", got)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestRowsReadOnlyWhatChanged(t *testing.T) {
	e := newEnv(t, 0)
	o := e.opener()
	s := e.open(o)
	accts := []string{e.plan.Accounts["Spending"]}
	if _, err := s.Rows(ctx, accts, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, []feeds.NewRow{bankRow(e, 1, "Spending", -100)}); err != nil {
		t.Fatal(err)
	}
	id, err := e.fake.PersonAdd(e.plan.ID, e.plan.Accounts["Spending"], "2026-03-02", -7770, "Cafe")
	if err != nil {
		t.Fatal(err)
	}
	s = e.open(o)
	got, err := s.Rows(ctx, accts, "")
	if err != nil {
		t.Fatal(err)
	}
	if m := byImport(got); len(got) != 2 || m[""].ID != id || m[""].Amount != -777 || m[bankID(1)].Amount != -100 {
		t.Fatalf("rows %+v", got)
	}
	reqs := e.fake.Requests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(last, "last_knowledge_of_server=") || strings.Contains(last, "last_knowledge_of_server=0") {
		t.Fatalf("the second round read %q, not a delta", last)
	}
	if slices.ContainsFunc(reqs[1:], func(r string) bool { return strings.HasPrefix(r, "GET /v1/plans?") || r == "GET /v1/plans" }) {
		t.Fatalf("the plan was looked up again: %v", reqs)
	}
}

func TestTransferBothLegsCarryImportIDs(t *testing.T) {
	e := newEnv(t, 0)
	s := e.open(e.opener())
	if _, err := s.Accounts(ctx); err != nil {
		t.Fatal(err)
	}
	r := bankRow(e, 1, "Spending", -5000)
	r.TransferAccount, r.TransferImportID, r.TransferCleared = e.plan.Accounts["Saver"], bankID(2), true
	r.Cleared = true
	ids, err := s.Create(ctx, []feeds.NewRow{r})
	if err != nil {
		t.Fatal(err)
	}
	live := e.live()
	a, b := live[bankID(1)], live[bankID(2)]
	if len(live) != 2 || a.ID != ids[bankID(1)] || b.ID != ids[bankID(2)] {
		t.Fatalf("ids %v, rows %+v", ids, live)
	}
	if a.TransferID != b.ID || b.TransferID != a.ID || a.Amount != -50000 || b.Amount != 50000 || b.Account != e.plan.Accounts["Saver"] || b.Cleared != "cleared" || a.Cleared != "cleared" {
		t.Fatalf("legs %+v %+v", a, b)
	}
	got, err := s.Rows(ctx, []string{e.plan.Accounts["Spending"], e.plan.Accounts["Saver"]}, "")
	if err != nil {
		t.Fatal(err)
	}
	m := byImport(got)
	if m[bankID(1)].TransferID != b.ID || m[bankID(2)].TransferID != a.ID {
		t.Fatalf("rows %+v", got)
	}
	// Both legs given, each naming the other: still one transfer.
	r2 := bankRow(e, 3, "Spending", -700)
	r2.TransferAccount, r2.TransferImportID = e.plan.Accounts["Joint"], bankID(4)
	r4 := bankRow(e, 4, "Joint", 700)
	r4.TransferAccount, r4.TransferImportID = e.plan.Accounts["Spending"], bankID(3)
	both, err := s.Create(ctx, []feeds.NewRow{r2, r4})
	if err != nil {
		t.Fatal(err)
	}
	if l := e.live(); len(l) != 4 || l[bankID(4)].TransferID != both[bankID(3)] || l[bankID(4)].ID != both[bankID(4)] {
		t.Fatalf("both legs given: %v, rows %+v", both, l)
	}
	if err := s.Delete(ctx, []string{both[bankID(3)]}); err != nil {
		t.Fatal(err)
	}
	// Again, as after a crash before the map was saved: the same ids.
	again, err := e.open(e.opener()).Create(ctx, []feeds.NewRow{r})
	if err != nil {
		t.Fatal(err)
	}
	if again[bankID(1)] != a.ID || again[bankID(2)] != b.ID || len(e.live()) != 2 {
		t.Fatalf("again %v", again)
	}
	// Either leg deleted takes both.
	if err := s.Delete(ctx, []string{a.ID, b.ID}); err != nil {
		t.Fatal(err)
	}
	if n := len(e.live()); n != 0 {
		t.Fatalf("%d rows left", n)
	}
}

func TestDuplicateCreateAfterCrashReturnsTheExistingRow(t *testing.T) {
	e := newEnv(t, 0)
	rows := []feeds.NewRow{bankRow(e, 1, "Spending", -100), bankRow(e, 2, "Joint", -200)}
	first, err := e.open(e.opener()).Create(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	// A new process: nothing cached; YNAB holds the rows.
	second, err := e.open(e.opener()).Create(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	if first[bankID(1)] == "" || first[bankID(1)] != second[bankID(1)] || first[bankID(2)] != second[bankID(2)] {
		t.Fatalf("first %v, second %v", first, second)
	}
	// The same with a stale copy: the opener read the plan before
	// another process created the rows; YNAB says duplicate.
	e2 := newEnv(t, 0)
	o := e2.opener()
	if _, err := e2.open(o).Rows(ctx, nil, ""); err != nil {
		t.Fatal(err)
	}
	rows = []feeds.NewRow{bankRow(e2, 1, "Spending", -100)}
	created, err := e2.open(e2.opener()).Create(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e2.open(o).Create(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	if got[bankID(1)] != created[bankID(1)] || len(e2.live()) != 1 {
		t.Fatalf("created %v, stale copy got %v, rows %v", created, got, e2.live())
	}
}

func TestReappearedTransactionIsOneRow(t *testing.T) {
	e := newEnv(t, 0)
	o := e.opener()
	s := e.open(o)
	r := bankRow(e, 1, "Spending", -100)
	ids, err := s.Create(ctx, []feeds.NewRow{r})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, []string{ids[bankID(1)]}); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		again, err := e.open(o).Create(ctx, []feeds.NewRow{r})
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.open(o).Rows(ctx, []string{e.plan.Accounts["Spending"]}, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].ImportID != bankID(1) || got[0].ID != again[bankID(1)] || got[0].ID == ids[bankID(1)] {
			t.Fatalf("round %d: rows %+v, ids %v", round, got, again)
		}
		if round == 0 {
			// The person deletes it too; the engine asks for it back.
			if err := e.fake.PersonDelete(e.plan.ID, got[0].ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A fresh process sees the same.
	got, err := e.open(e.opener()).Rows(ctx, []string{e.plan.Accounts["Spending"]}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ImportID != bankID(1) {
		t.Fatalf("fresh rows %+v", got)
	}
}

func TestThePersonWins(t *testing.T) {
	e := newEnv(t, 0)
	s := e.open(e.opener())
	ids, err := s.Create(ctx, []feeds.NewRow{bankRow(e, 1, "Spending", -100), bankRow(e, 2, "Saver", -200)})
	if err != nil {
		t.Fatal(err)
	}
	hand, err := e.fake.PersonAdd(e.plan.ID, e.plan.Accounts["Spending"], "2026-02-01", -5550, "Cash")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.fake.PersonEdit(e.plan.ID, ids[bankID(1)], "Rent", "mine"); err != nil {
		t.Fatal(err)
	}
	// Row 2 settles and the person reconciles it.
	if err := s.Update(ctx, []feeds.Facts{{ID: ids[bankID(2)], Date: "2026-03-01", Amount: -200, Cleared: true}}); err != nil {
		t.Fatal(err)
	}
	if err := e.fake.PersonReconcile(e.plan.ID, e.plan.Accounts["Saver"]); err != nil {
		t.Fatal(err)
	}
	s = e.open(e.opener())
	got, err := s.Rows(ctx, []string{e.plan.Accounts["Spending"], e.plan.Accounts["Saver"]}, "")
	if err != nil {
		t.Fatal(err)
	}
	if m := byImport(got); !m[bankID(2)].Reconciled || !m[bankID(2)].Cleared || m[bankID(1)].Notes != "mine" || m[""].ID != hand {
		t.Fatalf("rows %+v", got)
	}
	err = s.Update(ctx, []feeds.Facts{
		{ID: ids[bankID(1)], Date: "2026-03-01", Amount: -150, Cleared: true},
		{ID: ids[bankID(2)], Date: "2026-03-05", Amount: -999, Cleared: false},
		{ID: hand, Date: "2026-03-01", Amount: -1, Cleared: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, []string{hand, ids[bankID(2)]}); err != nil {
		t.Fatal(err)
	}
	live := e.live()
	if x := live[bankID(1)]; x.Amount != -1500 || x.Cleared != "cleared" || x.Category != "Rent" || x.Memo != "mine" || x.Payee != "Shop 1" || !x.Approved {
		t.Fatalf("the person's row after an update: %+v", x)
	}
	if x := live[bankID(2)]; x.Amount != -2000 || x.Cleared != "reconciled" || x.Date != "2026-03-01" {
		t.Fatalf("reconciled row changed: %+v", x)
	}
	if x := live[""]; x.ID != hand || x.Amount != -5550 || x.Date != "2026-02-01" {
		t.Fatalf("hand-entered row touched: %+v", x)
	}
}

func TestRequestBudgetAndPace(t *testing.T) {
	e := newEnv(t, 0)
	o := e.opener(WithLimit(4))
	if o.Pace() != quickPace || New().Pace() != quickPace {
		t.Fatalf("pace %v at 4 an hour, %v at YNAB's limit, before any request; want %v", o.Pace(), New().Pace(), quickPace)
	}
	s := e.open(o) // 1: the plans
	for range 3 {
		if _, err := s.Accounts(ctx); err != nil {
			t.Fatal(err)
		}
	}
	sent := len(e.fake.Requests())
	if n := o.Requests("tok"); n != 4 || n != sent {
		t.Fatalf("the opener counted %d requests, the fake %d", n, sent)
	}
	// Past a quarter of the hour's requests, rounds slow to the pace that
	// keeps the hour inside the limit.
	if o.Pace() != 100*time.Minute {
		t.Fatalf("pace %v after 4 requests of 4 an hour, want 100m", o.Pace())
	}
	_, err := s.Categories(ctx)
	var u *feeds.Unavailable
	if !errors.As(err, &u) || !errors.Is(err, feeds.ErrUnavailable) || !u.RetryAfter.Equal(e.clock.now().Add(time.Hour)) {
		t.Fatalf("fifth request in the hour: %v", err)
	}
	if n := len(e.fake.Requests()); n != sent {
		t.Fatalf("a request was sent over the budget (%d, was %d)", n, sent)
	}
	e.clock.add(time.Hour)
	if _, err := s.Categories(ctx); err != nil {
		t.Fatalf("an hour later: %v", err)
	}

	// YNAB's own 429, from requests the opener did not count (another
	// client with the same token): the wait it gives is kept.
	e2 := newEnv(t, 2)
	o2 := e2.opener()
	s2 := e2.open(o2)
	e2.clock.add(10 * time.Minute)
	if _, err := s2.Accounts(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = s2.Accounts(ctx)
	if !errors.As(err, &u) || !u.RetryAfter.Equal(e2.clock.now().Add(50*time.Minute)) {
		t.Fatalf("after a 429: %v", err)
	}
	sent = len(e2.fake.Requests())
	e2.clock.add(49 * time.Minute)
	if _, err := s2.Accounts(ctx); !errors.As(err, &u) || len(e2.fake.Requests()) != sent {
		t.Fatalf("before Retry-After: %v, %d requests (was %d)", err, len(e2.fake.Requests()), sent)
	}
	e2.clock.add(time.Minute)
	if _, err := s2.Accounts(ctx); err != nil {
		t.Fatalf("after Retry-After: %v", err)
	}

	// The app down is unavailable, without a time.
	e2.fake.SetDown(true)
	if _, err := s2.Categories(ctx); !errors.As(err, &u) || !u.RetryAfter.IsZero() {
		t.Fatalf("down: %v", err)
	}
}

func TestOpenPlanByNameOrID(t *testing.T) {
	e := newEnv(t, 0)
	other := e.fake.AddPlan("Old budget", []string{"Cash"}, nil)
	o := e.opener()
	for _, b := range []string{"Household", e.plan.ID} {
		s, err := o.Open(ctx, e.target(b))
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		accts, err := s.Accounts(ctx)
		if err != nil || len(accts) != 3 {
			t.Fatalf("%s: accounts %v %v", b, accts, err)
		}
	}
	_, err := o.Open(ctx, e.target("Holiday"))
	if !errors.Is(err, ErrNoPlan) || !strings.Contains(err.Error(), `"Household" (`+e.plan.ID+`)`) || !strings.Contains(err.Error(), other.ID) {
		t.Fatalf("unknown plan: %v", err)
	}
	e.fake.AddPlan("Household", nil, nil)
	if _, err := e.opener().Open(ctx, e.target("Household")); !errors.Is(err, ErrNoPlan) || !strings.Contains(err.Error(), "2 plans are named") {
		t.Fatalf("two plans of the name: %v", err)
	}
	bad := e.target("Household")
	bad.Secret = "nope"
	var u *feeds.Unavailable
	if _, err := e.opener().Open(ctx, bad); !errors.Is(err, ErrUnauthorized) || !errors.As(err, &u) || u.Mend == "" {
		t.Fatalf("bad token: %v", err)
	}
}

// A url that is not YNAB's API (a web page, the bank's own API's page)
// says so, names the url and the setting, and shows no page; an error's
// detail from the app is one line, its control characters shown.
func TestAnAddressThatIsNotYNABSaysSo(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/html/plans":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, "<!DOCTYPE html>\n<html><body>hello</body></html>\n")
		case "/gone/plans":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, "<html>Not Found</html>\n")
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"id":"400","name":"bad_request","detail":"boom \u001b[31mred\u0007\nline two"}}`)
		}
	}))
	t.Cleanup(page.Close)
	for _, path := range []string{"/html", "/gone"} {
		tg := feeds.Target{Feed: "ynab", URL: page.URL + path, Secret: "tok", Budget: "Household", Log: zerolog.Nop()}
		_, err := New().Open(ctx, tg)
		var u *feeds.Unavailable
		if !errors.As(err, &u) || !strings.Contains(err.Error(), page.URL+path+" answered") || !strings.Contains(err.Error(), "not ynab's json") ||
			!strings.Contains(u.Mend, "feed's url") || strings.Contains(err.Error(), "<") {
			t.Errorf("%s: %v", path, err)
		}
	}
	tg := feeds.Target{Feed: "ynab", URL: page.URL + "/json", Secret: "tok", Budget: "Household", Log: zerolog.Nop()}
	_, err := New().Open(ctx, tg)
	if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "boom ⟨U+001B⟩[31mred⟨U+0007⟩⟨U+000A⟩line two") {
		t.Errorf("an app's detail with control characters: %q", err)
	}
}

func TestMissingAccount(t *testing.T) {
	e := newEnv(t, 0)
	s := e.open(e.opener())
	r := bankRow(e, 1, "Spending", -100)
	r.Account = "3f1c0000-0000-4000-8000-000000000000"
	if _, err := s.Create(ctx, []feeds.NewRow{r}); !errors.Is(err, ErrNoAccount) || !strings.Contains(err.Error(), r.Account) {
		t.Fatalf("missing account: %v", err)
	}
	r = bankRow(e, 1, "Spending", -100)
	r.TransferAccount, r.TransferImportID = "3f1c0000-0000-4000-8000-000000000001", bankID(2)
	if _, err := s.Create(ctx, []feeds.NewRow{r}); !errors.Is(err, ErrNoAccount) || !strings.Contains(err.Error(), r.TransferAccount) {
		t.Fatalf("missing transfer account: %v", err)
	}
	if n := len(e.fake.Transactions(e.plan.ID)); n != 0 {
		t.Fatalf("%d rows created", n)
	}
}

// TestCreate10000Requests counts the requests of a first push of 10,000
// transactions, the plan looked up and the accounts read: YNAB allows
// 200 an hour, and the target is at most 5 per 1,000.
func TestCreate10000Requests(t *testing.T) {
	e := newEnv(t, 0)
	s := e.open(e.opener())
	accts := []string{e.plan.Accounts["Spending"], e.plan.Accounts["Saver"]}
	if _, err := s.Rows(ctx, accts, ""); err != nil {
		t.Fatal(err)
	}
	rows := make([]feeds.NewRow, 10000)
	for i := range rows {
		rows[i] = bankRow(e, i, []string{"Spending", "Saver"}[i%2], int64(-100-i))
		rows[i].Date = time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i/30).Format(time.DateOnly)
	}
	ids, err := s.Create(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != len(rows) || len(e.live()) != len(rows) {
		t.Fatalf("%d ids, %d rows", len(ids), len(e.live()))
	}
	n := len(e.fake.Requests())
	t.Logf("10,000 transactions created in %d requests (plans, rows read, accounts, %d POSTs)", n, len(rows)/MaxBatch)
	if n > 50 {
		t.Fatalf("%d requests for 10,000 transactions, more than 5 per 1,000", n)
	}
}

// A first push larger than the hour's budget stops with what it created
// and the time to go on, and goes on from there without a duplicate.
func TestInterruptedPushResumes(t *testing.T) {
	e := newEnv(t, 0)
	o := e.opener(WithLimit(6), WithBatch(10))
	rows := make([]feeds.NewRow, 50)
	for i := range rows {
		rows[i] = bankRow(e, i, "Spending", int64(-100-i))
	}
	first, err := e.open(o).Create(ctx, rows)
	var u *feeds.Unavailable
	if !errors.As(err, &u) || u.RetryAfter.IsZero() {
		t.Fatalf("over the budget: %v", err)
	}
	if len(first) != 30 || len(e.live()) != 30 {
		t.Fatalf("returned %d ids, %d rows in ynab; want the 3 batches the budget had room for", len(first), len(e.live()))
	}
	e.clock.add(time.Hour)
	all, err := e.open(o).Create(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 50 || len(e.live()) != 50 {
		t.Fatalf("%d ids, %d rows", len(all), len(e.live()))
	}
	for k, id := range first {
		if all[k] != id {
			t.Fatalf("%s: %s, was %s", k, all[k], id)
		}
	}
}

// A crash between a transfer's create and the import of its other leg:
// the next push gives the leg YNAB made its import id, no second pair.
func TestTransferLinkedAfterACrash(t *testing.T) {
	e := newEnv(t, 0)
	r := bankRow(e, 1, "Spending", -5000)
	r.TransferAccount = e.plan.Accounts["Joint"]
	half := r // as far as the first POST went
	if _, err := e.open(e.opener()).Create(ctx, []feeds.NewRow{half}); err != nil {
		t.Fatal(err)
	}
	if live := e.live(); len(live) != 2 || live[""].TransferID != live[bankID(1)].ID {
		t.Fatalf("after the first POST: %+v", live)
	}
	r.TransferImportID, r.TransferCleared = bankID(2), true
	ids, err := e.open(e.opener()).Create(ctx, []feeds.NewRow{r})
	if err != nil {
		t.Fatal(err)
	}
	live := e.live()
	if len(live) != 2 || live[bankID(2)].ID != ids[bankID(2)] || live[bankID(2)].TransferID != ids[bankID(1)] || live[bankID(2)].Cleared != "cleared" {
		t.Fatalf("ids %v, rows %+v", ids, live)
	}
}

// Between sessions the plan's copy waits in the feed's folder, not in
// memory: after Close the Opener holds none, the file is the owner's
// alone, and a session of another Opener (another process, a restarted
// daemon) reads only what changed since, the person's row added meanwhile
// included.
func TestPlanCopyWaitsInTheFeedsFolder(t *testing.T) {
	e := newEnv(t, 0)
	dir := t.TempDir()
	target := e.target("Household")
	target.Dir = dir
	o := e.opener()
	s, err := o.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	accts := []string{e.plan.Accounts["Spending"]}
	if _, err := s.Rows(ctx, accts, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, []feeds.NewRow{bankRow(e, 1, "Spending", -100)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	o.mu.Lock()
	held := len(o.plans)
	o.mu.Unlock()
	if held != 0 {
		t.Errorf("the Opener holds %d plan copies after Close, want none", held)
	}
	file := filepath.Join(dir, "ynab-plan-"+e.plan.ID+".json")
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the plan's copy: %v %v, want a file of mode 0600", fi, err)
	}
	id, err := e.fake.PersonAdd(e.plan.ID, e.plan.Accounts["Spending"], "2026-03-02", -7770, "Cafe")
	if err != nil {
		t.Fatal(err)
	}
	s, err = e.opener().Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Rows(ctx, accts, "")
	if err != nil {
		t.Fatal(err)
	}
	if m := byImport(got); len(got) != 2 || m[""].ID != id || m[bankID(1)].Amount != -100 {
		t.Fatalf("rows %+v", got)
	}
	reqs := e.fake.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(last, "last_knowledge_of_server=") || strings.Contains(last, "last_knowledge_of_server=0") {
		t.Fatalf("the new Opener read %q, not a delta from the copy", last)
	}
	// A copy that does not read is no copy: the plan is read whole.
	if err := os.WriteFile(file, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = e.opener().Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Rows(ctx, accts, ""); err != nil || len(got) != 2 {
		t.Fatalf("rows after a bad copy: %d, %v", len(got), err)
	}
	reqs = e.fake.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(last, "last_knowledge_of_server=0") {
		t.Fatalf("after a bad copy the Opener read %q, want the plan whole", last)
	}
}

// A plan id comes from the server: it names a file in the feed's folder
// only when it is a plain id, never a path.
func TestPlanFileNameIsOnlyInTheFolder(t *testing.T) {
	if got := planFileName("/d", "0c5d2f6e-3a1b-4c4d-9e8f-123456789abc"); got != "/d/ynab-plan-0c5d2f6e-3a1b-4c4d-9e8f-123456789abc.json" {
		t.Errorf("a UUID: %q", got)
	}
	for _, id := range []string{"../../etc/x", "a/b", "", "x\x00y", strings.Repeat("a", 65)} {
		if got := planFileName("/d", id); got != "" {
			t.Errorf("id %q names %q, want no file", id, got)
		}
	}
	if got := planFileName("", "abc"); got != "" {
		t.Errorf("no folder names %q", got)
	}
}
