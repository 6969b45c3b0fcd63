package feeds_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/feeds"
	feedynab "github.com/bankmirror/bankmirror/internal/feeds/ynab"
	"github.com/bankmirror/bankmirror/internal/household"
	"github.com/bankmirror/bankmirror/internal/simulator"
	fakeynab "github.com/bankmirror/bankmirror/internal/simulator/ynab"
	"github.com/bankmirror/bankmirror/internal/simulator/ynab/ynabspec"
	"github.com/bankmirror/bankmirror/internal/store"
)

// household is a simulated household of alex and sam mirrored into a
// real SQLite file, and a YNAB fake (validated by YNAB's spec) with a
// plan whose accounts the feed names.
type householdEnv struct {
	t      *testing.T
	sim    *simulator.Bank
	st     *store.Store
	h      *household.Household
	ynab   *fakeynab.Fake
	plan   fakeynab.Plan
	file   *feeds.File
	engine *feeds.Engine
	ids    map[string]string // "alex/Spending" -> bank account id
}

func newHousehold(t *testing.T, transactions int) *householdEnv {
	t.Helper()
	return newHouseholdSeeded(t, transactions, 7)
}

func newHouseholdSeeded(t *testing.T, transactions int, seed uint64) *householdEnv {
	t.Helper()
	ctx := t.Context()
	sim := simulator.New(simulator.Options{Seed: seed, Transactions: transactions, People: []string{"alex", "sam"},
		RateLimit: simulator.RateLimit{Limit: 1_000_000}})
	t.Cleanup(sim.Close)
	bankSrv := httptest.NewServer(sim.Handler())
	t.Cleanup(bankSrv.Close)
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	base := bankSrv.URL + "/api/v1"
	h := household.New(st, zerolog.Nop(), household.Options{NewClient: func(p household.Person) *bank.Client {
		return bank.New(base, p.Token, bank.WithHourlyBudget(0), bank.WithBackoff(time.Millisecond, 4*time.Millisecond))
	}})
	if err := h.SetPeople(ctx, []household.Person{{Name: "alex", Token: sim.PersonToken("alex")}, {Name: "sam", Token: sim.PersonToken("sam")}}); err != nil {
		t.Fatal(err)
	}
	e := &householdEnv{t: t, sim: sim, st: st, h: h, ids: map[string]string{}}
	e.sync()
	accounts, err := st.FeedAccounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range accounts {
		if len(a.People) == 1 {
			e.ids[a.People[0]+"/"+a.Name] = a.ID
		} else {
			e.ids[a.Name] = a.ID
		}
	}
	e.ynab, err = fakeynab.New(fakeynab.Options{Limit: -1, Spec: ynabspec.MustLoad(), OnInvalid: func(err error) { t.Errorf("the fake broke YNAB's spec: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	ynabSrv := httptest.NewServer(e.ynab.Handler())
	t.Cleanup(ynabSrv.Close)
	e.plan = e.ynab.AddPlan("Household", []string{"Alex Spending", "Alex Saver", "Sam Spending", "Joint", "Cash"},
		map[string][]string{"Everyday": {"Groceries", "Eating out"}})
	saver := ""
	for k := range e.ids {
		if strings.HasPrefix(k, "alex/") && k != "alex/Spending" && saver == "" {
			saver = k
		}
	}
	text := fmt.Sprintf(`[[feed]]
name = "ynab"
kind = "ynab"
url = %q
budget = "Household"
[feed.accounts]
"alex/Spending" = "Alex Spending"
%q = "Alex Saver"
"sam/Spending" = "Sam Spending"
"2Up Spending" = "Joint"
[feed.categories]
"groceries" = "Groceries"
`, ynabSrv.URL+"/v1", saver)
	e.file, err = feeds.Parse(filepath.Join(t.TempDir(), "feeds.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	e.file.Feeds[0].Secret = e.ynab.Token()
	e.engine = feeds.NewEngine(st, map[string]feeds.App{"ynab": {Opener: feedynab.New()}}, e.file, t.TempDir(), zerolog.Nop())
	return e
}

// logged makes the engine anew, logging as JSON into the buffer it
// returns.
func (e *householdEnv) logged() *bytes.Buffer {
	var logs bytes.Buffer
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{"ynab": {Opener: feedynab.New()}}, e.file, e.t.TempDir(),
		zerolog.New(zerolog.SyncWriter(&logs)))
	return &logs
}

func (e *householdEnv) sync() {
	e.t.Helper()
	if _, err := e.h.Full(e.t.Context()); err != nil {
		e.t.Fatalf("full sync: %v", err)
	}
}

func (e *householdEnv) push() feeds.Report {
	e.t.Helper()
	rep, err := e.engine.Push(e.t.Context(), &e.file.Feeds[0], feeds.PushOptions{})
	if err != nil {
		e.t.Fatalf("push: %v", err)
	}
	return rep
}

// exact checks the app against the mirror and fails on any finding but
// the kinds allowed.
func (e *householdEnv) exact(allowed ...string) feeds.CheckResult {
	e.t.Helper()
	res, err := e.engine.Check(e.t.Context(), &e.file.Feeds[0])
	if err != nil {
		e.t.Fatalf("check: %v", err)
	}
	ok := map[string]bool{}
	for _, k := range allowed {
		ok[k] = true
	}
	for _, f := range res.Findings {
		if !ok[f.Kind] {
			e.t.Errorf("check: %s %s %s", f.Kind, f.TransactionID, f.Detail)
		}
	}
	if res.Fed == 0 {
		e.t.Fatal("check: nothing fed")
	}
	return res
}

// appRows are the fake's live rows of the bank transaction: its import
// id is the bank id, or a re-import id ("r2:" and the id's hex digits)
// once a row of it was deleted (YNAB keeps a deleted row's import id).
func (e *householdEnv) appRows(bankID string) []fakeynab.Transaction {
	var out []fakeynab.Transaction
	hex := strings.ReplaceAll(bankID, "-", "")
	for _, tx := range e.ynab.Transactions(e.plan.ID) {
		_, rest, reimport := strings.Cut(tx.ImportID, ":")
		if (tx.ImportID == bankID || (reimport && rest == hex)) && !tx.Deleted {
			out = append(out, tx)
		}
	}
	return out
}

// rowIDs are the app ids of appRows.
func (e *householdEnv) rowIDs(bankID string) []string {
	var out []string
	for _, r := range e.appRows(bankID) {
		out = append(out, r.ID)
	}
	return out
}

func (e *householdEnv) one(importID string) fakeynab.Transaction {
	e.t.Helper()
	rows := e.appRows(importID)
	if len(rows) != 1 {
		e.t.Fatalf("%d rows in the app for %s, want 1", len(rows), importID)
	}
	return rows[0]
}

// The feed puts every transaction of the fed accounts into YNAB once, and
// keeps the app exact as the bank changes: a hold settled at another
// amount is updated, a dropped hold removed, a payment to the partner is
// one transfer, the joint account is fed once; what the person does in the
// app stands, and a row they delete is not put back unless asked.
func TestFeedKeepsYNABExact(t *testing.T) {
	e := newHousehold(t, 400)
	ctx := context.Background()
	first := e.push()
	if first.Created == 0 {
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

	// A hold that settles at another amount.
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
	if r := e.one(held); r.Amount != -12500 || r.Cleared != "uncleared" || r.Payee != "Corner Cafe" {
		t.Errorf("the hold in the app: %+v", r)
	}
	// The payment to the partner is one transfer: both rows, linked,
	// each with its own bank leg's id.
	o, i := e.one(out), e.one(in)
	if o.TransferID != i.ID || i.TransferID != o.ID || o.Amount != -42000 || i.Amount != 42000 {
		t.Errorf("the payment: out %+v, in %+v", o, i)
	}

	// The person sets a category on the hold in the app.
	if err := e.ynab.PersonEdit(e.plan.ID, e.one(held).ID, "Eating out", "coffee with Jo"); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.SettleAt(held, -1400); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.Delete(dropped); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	r := e.one(held)
	if r.Amount != -14000 || r.Cleared != "cleared" {
		t.Errorf("the settled hold: %+v", r)
	}
	if r.Category != "Eating out" || r.Memo != "coffee with Jo" {
		t.Errorf("the person's category and memo were not kept: %+v", r)
	}
	if rows := e.appRows(dropped); len(rows) != 0 {
		t.Errorf("the dropped hold is still in the app: %+v", rows)
	}

	// A row the person deletes in the app is not put back, and check
	// names it; --restore puts it back.
	if err := e.ynab.PersonDelete(e.plan.ID, e.one(out).ID); err != nil {
		t.Fatal(err)
	}
	e.push()
	res = e.exact(feeds.DeletedInApp)
	var named []string
	for _, f := range res.Findings {
		named = append(named, f.TransactionID)
	}
	sort.Strings(named)
	if len(e.appRows(out)) != 0 || !strings.Contains(strings.Join(named, ","), out) {
		t.Errorf("deleted in the app: rows %d, check names %v", len(e.appRows(out)), named)
	}
	rep, err := e.engine.Push(ctx, &e.file.Feeds[0], feeds.PushOptions{Restore: []string{out}})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.appRows(out)) != 1 || len(e.appRows(in)) != 1 || rep.Created != 2 {
		t.Errorf("--restore did not put the transfer back: %+v", rep)
	}
	if o, i := e.one(out), e.one(in); o.TransferID != i.ID {
		t.Errorf("the restored transfer is not linked: %+v %+v", o, i)
	}
	// Restored, it is followed again, and the app is exact.
	if again := e.push(); again.Changed() {
		t.Errorf("a push after the restore changed the app: %+v", again)
	}
	e.exact()
}

// crashingOpener opens the real YNAB client's sessions and makes the
// first n of them end as a process killed after the app took a batch's
// writes and before the mirror recorded them (Sync fails); with unreachable,
// the first n fail to open, as when the app is down.
type crashingOpener struct {
	feeds.Opener
	crashes     int
	unreachable bool
}

func (c *crashingOpener) Open(ctx context.Context, t feeds.Target) (feeds.Session, error) {
	if c.unreachable && c.crashes > 0 {
		c.crashes--
		return nil, errors.New("the app is unreachable")
	}
	s, err := c.Opener.Open(ctx, t)
	if err != nil || c.crashes == 0 {
		return s, err
	}
	c.crashes--
	return crashingSession{s}, nil
}

type crashingSession struct{ feeds.Session }

func (s crashingSession) Sync(ctx context.Context) error {
	_ = s.Session.Sync(ctx)
	return fmt.Errorf("killed")
}

// A push cut off after the app took its rows and before the mirror
// recorded them leaves no duplicate: the next push finds the rows by
// their import ids and adopts them, and the app ends exact.
func TestFeedInterruptedPushLeavesNoDuplicate(t *testing.T) {
	e := newHousehold(t, 300)
	crash := &crashingOpener{Opener: feedynab.New(), crashes: 1}
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{"ynab": {Opener: crash, Batch: 150}}, e.file, t.TempDir(), zerolog.Nop())
	if _, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{}); err == nil {
		t.Fatal("the cut-off push said it succeeded")
	}
	written := 0
	for _, tx := range e.ynab.Transactions(e.plan.ID) {
		if !tx.Deleted {
			written++
		}
	}
	if written == 0 {
		t.Fatal("the cut-off push wrote nothing to the app: the test tests nothing")
	}
	rep := e.push()
	if rep.Adopted == 0 {
		t.Errorf("the rows the app took were not adopted: %+v", rep)
	}
	res := e.exact()
	if res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
}

// A push cut off after the app took a held purchase and before the
// mirror recorded it, and the bank then drops the hold: the next push
// takes the row out of the app, though the mirror never recorded it
// there (the push finds the row through what the history kept of the
// deleted transaction).
func TestFeedInterruptedPushOfATransactionDeletedSince(t *testing.T) {
	e := newHousehold(t, 100)
	crash := &crashingOpener{Opener: feedynab.New()}
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{"ynab": {Opener: crash}}, e.file, t.TempDir(), zerolog.Nop())
	e.push()
	id, err := e.sim.PurchaseAs("alex", e.ids["alex/Spending"], simulator.NewTransaction{Description: "Shop",
		AmountBaseUnits: -17698, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	crash.crashes = 1
	if _, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{}); err == nil {
		t.Fatal("the cut-off push said it succeeded")
	}
	if n := len(e.appRows(id)); n != 1 {
		t.Fatalf("the cut-off push left %d rows of the hold in the app, want 1", n)
	}
	if err := e.sim.Delete(id); err != nil {
		t.Fatal(err)
	}
	e.sync()
	if rep := e.push(); rep.Deleted != 1 {
		t.Errorf("the push deleted %d rows, want the hold's: %+v", rep.Deleted, rep)
	}
	if n := len(e.appRows(id)); n != 0 {
		t.Errorf("the hold the bank dropped still has %d rows in the app", n)
	}
	res := e.exact()
	if res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
}

// An app that is down is retried with backoff; the failure is recorded
// (status says DEGRADED after an hour) and the feed catches up when the
// app is back.
func TestFeedCatchesUpWhenTheAppIsBack(t *testing.T) {
	e := newHousehold(t, 200)
	ctx := t.Context()
	now := time.Now()
	e.engine.SetClock(func() time.Time { return now })
	e.ynab.SetDown(true)
	e.engine.RunOnce(ctx)
	failing, err := e.st.FailingFeeds(ctx)
	if err != nil || len(failing) != 1 || failing[0].Feed != "ynab" {
		t.Fatalf("failing feeds: %+v, %v", failing, err)
	}
	st, err := e.st.FeedStatuses(ctx, []string{"ynab"})
	if err != nil {
		t.Fatal(err)
	}
	if st[0].NextAttemptAt == "" || st[0].Rows != 0 {
		t.Errorf("after a failure: %+v", st[0])
	}
	// Not before its backoff.
	e.ynab.SetDown(false)
	e.engine.RunOnce(ctx)
	if st, _ := e.st.FeedStatuses(ctx, []string{"ynab"}); st[0].Rows != 0 {
		t.Errorf("a round ran before the backoff ended")
	}
	now = now.Add(time.Hour)
	e.engine.RunOnce(ctx)
	if failing, _ := e.st.FailingFeeds(ctx); len(failing) != 0 {
		t.Errorf("still failing once the app is back: %+v", failing)
	}
	res := e.exact()
	if res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
}

// A feed with nothing new in the history but a transaction pending (a
// transfer's leg waiting for its other leg) looks at it again every ten
// minutes, not at every look: an Actual round starts a Node process.
func TestPendingAloneIsLookedAtEveryTenMinutes(t *testing.T) {
	e := newHousehold(t, 60)
	ctx := t.Context()
	now := time.Now()
	e.engine.SetClock(func() time.Time { return now })
	rounds := 0
	e.engine.AfterRound = func(string, error) { rounds++ }
	e.engine.RunOnce(ctx) // the first push
	if rounds != 1 {
		t.Fatalf("first rounds = %d", rounds)
	}
	e.engine.RunOnce(ctx)
	if rounds != 1 {
		t.Fatalf("a round ran with nothing new: %d", rounds)
	}
	if err := e.st.RecordFeedRound(ctx, store.FeedRound{Feed: "ynab", Pending: map[string]string{"tx-waiting": "waiting for the transfer's other leg"}}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(3 * time.Minute) // past YNAB's pace of 2 minutes
	e.engine.RunOnce(ctx)
	if rounds != 1 {
		t.Errorf("a round ran 3 minutes after the last for a pending transaction alone")
	}
	now = now.Add(10 * time.Minute)
	e.engine.RunOnce(ctx)
	if rounds != 2 {
		t.Errorf("no round ten minutes later for the pending transaction: %d", rounds)
	}
}

// A feed with nothing to push still opens the app every ten minutes (and
// `feeds push` does at once), recording what it found as a push does: a
// token YNAB refuses now is a failure the status shows, and once the
// token is good again the failure is cleared, with nothing to push.
func TestFeedWithNothingToPushStillChecksTheApp(t *testing.T) {
	e := newHousehold(t, 60)
	ctx := t.Context()
	now := time.Now()
	e.engine.SetClock(func() time.Time { return now })
	e.engine.RunOnce(ctx) // the first push
	status := func() store.FeedStatus {
		t.Helper()
		st, err := e.st.FeedStatuses(ctx, []string{"ynab"})
		if err != nil {
			t.Fatal(err)
		}
		return st[0]
	}
	if st := status(); st.LastError != "" || st.LastPushAt == "" {
		t.Fatalf("after the first push: %+v", st)
	}
	tok := e.ynab.Token()
	e.ynab.RevokeToken(tok)
	if _, err := e.engine.Push(ctx, &e.file.Feeds[0], feeds.PushOptions{}); err == nil {
		t.Error("feeds push with nothing to push and a revoked token said it succeeded")
	}
	rounds := 0
	e.engine.AfterRound = func(string, error) { rounds++ }
	now = now.Add(3 * time.Minute)
	e.engine.RunOnce(ctx)
	if rounds != 0 {
		t.Errorf("a round with nothing to push 3 minutes after the last")
	}
	now = now.Add(10 * time.Minute)
	e.engine.RunOnce(ctx)
	st := status()
	if rounds != 1 || st.LastError == "" || st.FailingSince == "" {
		t.Fatalf("ten minutes on, with the token revoked: %d rounds, status %+v", rounds, st)
	}
	if failing, err := e.st.FailingFeeds(ctx); err != nil || len(failing) != 1 {
		t.Errorf("failing feeds: %+v %v", failing, err)
	}
	e.ynab.AddToken(tok)
	now = now.Add(time.Hour) // past the backoff
	e.engine.RunOnce(ctx)
	if st := status(); rounds != 2 || st.LastError != "" || st.FailingSince != "" {
		t.Errorf("the token good again: %d rounds, status %+v", rounds, st)
	}
	if failing, err := e.st.FailingFeeds(ctx); err != nil || len(failing) != 0 {
		t.Errorf("still failing once the token is good again: %+v %v", failing, err)
	}
}

// An app that stays down is said once in the log, when it begins to fail
// (and again if the failure changes), not at every retry: serve retries
// it every ten minutes at most, for as long as it is down. Once it works
// again, that is said once too.
func TestFeedFailingAppIsLoggedOnce(t *testing.T) {
	e := newHousehold(t, 60)
	ctx := t.Context()
	logs := e.logged()
	now := time.Now()
	e.engine.SetClock(func() time.Time { return now })
	rounds, failed := 0, 0
	e.engine.AfterRound = func(_ string, err error) {
		rounds++
		if err != nil {
			failed++
		}
	}
	e.engine.RunOnce(ctx) // the first push
	e.ynab.SetDown(true)
	for range 4 {
		now = now.Add(11 * time.Minute) // past the idle round's ten minutes and the backoff
		e.engine.RunOnce(ctx)
	}
	if rounds != 5 || failed != 4 {
		t.Fatalf("%d rounds, %d failed: want 5 and 4: the test tests nothing", rounds, failed)
	}
	count := func(level, msg string) int {
		n := 0
		for line := range strings.Lines(logs.String()) {
			if strings.Contains(line, `"level":"`+level+`"`) && strings.Contains(line, `"message":"`+msg+`"`) {
				n++
			}
		}
		return n
	}
	if n := count("warn", "feed round failed"); n != 1 {
		t.Errorf("four failed rounds of an app down logged %d warnings, want 1:\n%s", n, logs.String())
	}
	e.ynab.SetDown(false)
	now = now.Add(11 * time.Minute)
	e.engine.RunOnce(ctx)
	e.engine.RunOnce(ctx)
	if failed != 4 {
		t.Fatalf("the app back up, a round failed")
	}
	if n := count("info", "feed works again"); n != 1 {
		t.Errorf("the app back up logged %d %q, want 1:\n%s", n, "feed works again", logs.String())
	}
}
