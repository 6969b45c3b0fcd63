package feeds_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/actual"
	"github.com/bankmirror/bankmirror/internal/feeds/actual/actualtest"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// actualEnv is the household of newHousehold fed to a budget on the real
// Actual sync-server instead of the YNAB fake.
type actualEnv struct {
	*householdEnv
	srv    *actualtest.Server
	budget actualtest.Budget
	rows   []actualtest.Row // the budget as last read back
}

func newActualHousehold(t *testing.T, transactions int) *actualEnv {
	t.Helper()
	srv := actualtest.Launch(t)
	e := &actualEnv{householdEnv: newHousehold(t, transactions), srv: srv}
	e.budget = srv.Budget(t, "Household", "Alex Spending", "Alex Saver", "Sam Spending", "Joint", "Cash")
	saver := ""
	for k := range e.ids {
		if strings.HasPrefix(k, "alex/") && k != "alex/Spending" && saver == "" {
			saver = k
		}
	}
	text := fmt.Sprintf(`[[feed]]
name = "actual"
kind = "actual"
url = %q
budget = %q
[feed.accounts]
"alex/Spending" = "Alex Spending"
%q = "Alex Saver"
"sam/Spending" = "Sam Spending"
"2Up Spending" = "Joint"
`, srv.URL, e.budget.SyncID, saver)
	var err error
	e.file, err = feeds.Parse(filepath.Join(t.TempDir(), "feeds.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	e.file.Feeds[0].Secret = actualtest.Password
	dir := t.TempDir()
	srv.FeedDir(t, filepath.Join(dir, "actual"))
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{"actual": {Opener: actual.New(actual.Config{Node: srv.Node()}), Batch: 2000}}, e.file, dir, zerolog.Nop())
	return e
}

// read reads the budget back through the person's own client, which
// downloads it from the server: what it sees is what reached the server.
func (e *actualEnv) read() {
	e.t.Helper()
	e.rows = e.srv.Rows(e.t, e.budget.SyncID)
}

// appRows are the live rows (as last read) carrying the bank id.
func (e *actualEnv) appRows(bankID string) []actualtest.Row {
	var out []actualtest.Row
	for _, r := range e.rows {
		if r.ImportID == bankID {
			out = append(out, r)
		}
	}
	return out
}

// rowIDs reads the budget back and returns the app ids of appRows.
func (e *actualEnv) rowIDs(bankID string) []string {
	e.read()
	var out []string
	for _, r := range e.appRows(bankID) {
		out = append(out, r.ID)
	}
	return out
}

func (e *actualEnv) one(bankID string) actualtest.Row {
	e.t.Helper()
	rows := e.appRows(bankID)
	if len(rows) != 1 {
		e.t.Fatalf("%d rows in the app for %s, want 1", len(rows), bankID)
	}
	return rows[0]
}

// The feed puts every transaction of the fed accounts into the real
// Actual once and keeps it exact as the bank changes: a hold settled at
// another amount is updated, a dropped hold removed, a payment to the
// partner is one linked transfer, the joint account is fed once; the
// person's category stands, and a row they delete is not put back unless
// asked.
func TestFeedKeepsActualExact(t *testing.T) {
	e := newActualHousehold(t, 200)
	if first := e.push(); first.Created == 0 {
		t.Fatal("the first push created nothing")
	}
	res := e.exact()
	if res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
	// A second push changes nothing.
	if again := e.push(); again.Changed() {
		t.Errorf("a push with nothing new changed the app: %+v", again)
	}
	// The joint account is fed once although both tokens see it.
	e.read()
	joint := 0
	for _, r := range e.rows {
		if r.Account == e.budget.Accounts["Joint"] {
			joint++
		}
		if n := len(e.appRows(r.ImportID)); r.ImportID != "" && n != 1 {
			t.Errorf("%d rows for %s", n, r.ImportID)
		}
	}
	if joint == 0 {
		t.Error("nothing fed to the joint account")
	}

	held, err := e.sim.PurchaseAs("alex", e.ids["alex/Spending"], simulator.NewTransaction{Description: "Corner Cafe", AmountBaseUnits: -1250, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	dropped, err := e.sim.PurchaseAs("sam", e.ids["sam/Spending"], simulator.NewTransaction{Description: "Hotel deposit", AmountBaseUnits: -20000, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	out, in, err := e.sim.PayPerson(simulator.Payment{From: "alex", To: "sam", AmountBaseUnits: 4200, Message: "rent share"})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	e.read()
	if r := e.one(held); r.Amount != -1250 || r.Cleared || r.Payee != "Corner Cafe" || r.Account != e.budget.Accounts["Alex Spending"] {
		t.Errorf("the hold in the app: %+v", r)
	}
	if r := e.one(dropped); r.Amount != -20000 || r.Account != e.budget.Accounts["Sam Spending"] {
		t.Errorf("the second hold in the app: %+v", r)
	}
	// The payment to the partner is one transfer: both rows, linked,
	// each with its own bank leg's id.
	o, i := e.one(out), e.one(in)
	if o.TransferID != i.ID || i.TransferID != o.ID || o.Amount != -4200 || i.Amount != 4200 ||
		o.Account != e.budget.Accounts["Alex Spending"] || i.Account != e.budget.Accounts["Sam Spending"] {
		t.Errorf("the payment: out %+v, in %+v", o, i)
	}

	// The person sets a category on the hold in the app; the bank then
	// settles it at another amount and drops the other hold.
	e.srv.SetCategory(t, e.budget.SyncID, held, "Eating out", "coffee with Jo")
	if err := e.sim.SettleAt(held, -1400); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.Delete(dropped); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	e.read()
	r := e.one(held)
	if r.Amount != -1400 || !r.Cleared {
		t.Errorf("the settled hold: %+v", r)
	}
	if r.Category != "Eating out" || r.Notes != "coffee with Jo" {
		t.Errorf("the person's category and notes were not kept: %+v", r)
	}
	if rows := e.appRows(dropped); len(rows) != 0 {
		t.Errorf("the dropped hold is still in the app: %+v", rows)
	}

	// A row the person deletes in the app is not put back, and check
	// names it; --restore puts it back.
	e.srv.Delete(t, e.budget.SyncID, out)
	e.push()
	res = e.exact(feeds.DeletedInApp)
	named := false
	for _, f := range res.Findings {
		named = named || (f.Kind == feeds.DeletedInApp && f.TransactionID == out)
	}
	e.read()
	if len(e.appRows(out)) != 0 || !named {
		t.Errorf("deleted in the app: rows %d, check %+v", len(e.appRows(out)), res.Findings)
	}
	rep, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{Restore: []string{out}})
	if err != nil {
		t.Fatal(err)
	}
	e.read()
	if len(e.appRows(out)) != 1 || len(e.appRows(in)) != 1 || rep.Created == 0 {
		t.Fatalf("--restore did not put the transfer back: %+v", rep)
	}
	if o, i := e.one(out), e.one(in); o.TransferID != i.ID || i.TransferID != o.ID {
		t.Errorf("the restored transfer is not linked: %+v %+v", o, i)
	}
	// Restored, it is followed again, and the app is exact.
	res = e.exact()
	if res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
}

// A first push of a long history to the real Actual through the engine,
// timed: run with BANKMIRROR_FEEDS_PERF=1 (it takes minutes); the figures
// go in docs/performance.md.
func TestFeedFirstPushTimedActual(t *testing.T) {
	if os.Getenv("BANKMIRROR_FEEDS_PERF") == "" {
		t.Skip("set BANKMIRROR_FEEDS_PERF=1 to time a first push of about 10,000 rows to Actual")
	}
	e := newActualHousehold(t, 5_000)
	start := time.Now()
	rep := e.push()
	took := time.Since(start)
	res := e.exact()
	t.Logf("first push: %d rows created (%d fed) in %s", rep.Created, res.Fed, took.Round(time.Second))
}

// With nothing to push, the feed still logs in to the real Actual every
// ten minutes: a password the server refuses now (changed on the server,
// or in the feed's file) is a failure the status shows, naming the setting
// to mend, and once the password is right again the failure is cleared.
func TestFeedWithNothingToPushFindsAWrongPasswordActual(t *testing.T) {
	e := newActualHousehold(t, 30)
	ctx := t.Context()
	now := time.Now()
	e.engine.SetClock(func() time.Time { return now })
	fd := &e.file.Feeds[0]
	e.engine.RunOnce(ctx) // the first push
	status := func() store.FeedStatus {
		t.Helper()
		st, err := e.st.FeedStatuses(ctx, []string{fd.Name})
		if err != nil {
			t.Fatal(err)
		}
		return st[0]
	}
	if st := status(); st.LastError != "" || st.Rows == 0 {
		t.Fatalf("after the first push: %+v", st)
	}
	rounds := 0
	e.engine.AfterRound = func(string, error) { rounds++ }
	fd.Secret = "not the password"
	now = now.Add(11 * time.Minute)
	e.engine.RunOnce(ctx)
	st := status()
	if rounds != 1 || !strings.Contains(st.LastError, "the actual server at "+e.srv.URL+" refused the password") ||
		!strings.Contains(st.LastError, "password_file") || st.FailingSince == "" {
		t.Fatalf("ten minutes on, with a wrong password: %d rounds, status %+v", rounds, st)
	}
	if failing, err := e.st.FailingFeeds(ctx); err != nil || len(failing) != 1 {
		t.Errorf("failing feeds: %+v %v", failing, err)
	}
	fd.Secret = actualtest.Password
	now = now.Add(time.Hour) // past the backoff
	e.engine.RunOnce(ctx)
	if st := status(); rounds != 2 || st.LastError != "" || st.FailingSince != "" {
		t.Errorf("the password right again: %d rounds, status %+v", rounds, st)
	}
}
