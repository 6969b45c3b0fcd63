package feeds_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/actual"
	feedynab "github.com/bankmirror/bankmirror/internal/feeds/ynab"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// remap maps the bank account key of the first feed to the app account
// app.
func (e *householdEnv) remap(key, app string) {
	e.t.Helper()
	for i, a := range e.file.Feeds[0].Accounts {
		if a.Key == key {
			e.file.Feeds[0].Accounts[i].App = app
			return
		}
	}
	e.t.Fatalf("no account key %q in the feed", key)
}

// accountTransactions are the mirror's transactions of the bank account.
func (e *householdEnv) accountTransactions(key string) []string {
	e.t.Helper()
	txs, err := e.st.FeedAccountTransactions(e.t.Context(), []string{e.ids[key]}, "")
	if err != nil {
		e.t.Fatal(err)
	}
	if len(txs) == 0 {
		e.t.Fatalf("no transactions on %s: the test tests nothing", key)
	}
	var ids []string
	for _, t := range txs {
		ids = append(ids, t.ID)
	}
	return ids
}

// A push cut off after the app took its rows and before the mirror
// recorded them; the person then maps the bank account to another app
// account: the next push puts each transaction into the new account once
// and takes the cut-off rows out of the old one, so that the budget does
// not count them twice; check is exact.
func TestFeedRemappedAccountLeavesNoCutOffRowBehind(t *testing.T) {
	e := newHousehold(t, 100)
	crash := &crashingOpener{Opener: feedynab.New(), crashes: 1}
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{"ynab": {Opener: crash}}, e.file, t.TempDir(), zerolog.Nop())
	if _, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{}); err == nil {
		t.Fatal("the cut-off push said it succeeded")
	}
	ids := e.accountTransactions("alex/Spending")
	for _, id := range ids {
		if r := e.one(id); r.Account != e.plan.Accounts["Alex Spending"] {
			t.Fatalf("the cut-off push put %s in %s: the test tests nothing", id, r.Account)
		}
	}
	e.remap("alex/Spending", "Cash")
	rep := e.push()
	for _, id := range ids {
		rows := e.appRows(id)
		if len(rows) != 1 || rows[0].Account != e.plan.Accounts["Cash"] {
			var where []string
			for _, r := range rows {
				where = append(where, r.Account)
			}
			t.Fatalf("%s has %d rows in the app, in %v: want one, in Cash (the push: %+v)", id, len(rows), where, rep)
		}
	}
	res := e.exact()
	if res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
	if again := e.push(); again.Changed() {
		t.Errorf("a push with nothing new changed the app: %+v", again)
	}
}

// A row of a fed bank transaction in another of the feed's app accounts
// than the one its bank account is fed into (another feed of the budget
// feeds that bank account there) is not its row: the feed makes the row
// in its own account rather than adopt that one, and leaves that one be.
func TestFeedDoesNotAdoptARowInAnotherAppAccount(t *testing.T) {
	e := newHousehold(t, 100)
	second := e.file.Feeds[0]
	second.Name = "sam"
	second.Accounts = []feeds.AccountKey{{Key: "2Up Spending", App: "Sam Spending", Line: 1}}
	e.file.Feeds = append(e.file.Feeds, second)
	if _, err := e.engine.Push(t.Context(), &e.file.Feeds[1], feeds.PushOptions{}); err != nil {
		t.Fatalf("push of the second feed: %v", err)
	}
	joint := e.accountTransactions("2Up Spending")
	e.push()
	for _, id := range joint {
		var where []string
		for _, r := range e.appRows(id) {
			where = append(where, r.Account)
		}
		slices.Sort(where)
		want := []string{e.plan.Accounts["Joint"], e.plan.Accounts["Sam Spending"]}
		slices.Sort(want)
		if !slices.Equal(where, want) {
			t.Fatalf("the joint account's %s has rows in %v, want one in Joint (the first feed's) and one in Sam Spending (the second's)", id, where)
		}
	}
	e.exact()
	if again := e.push(); again.Changed() {
		t.Errorf("a push with nothing new changed the app: %+v", again)
	}
}

// A feed removed from the file (here: renamed) leaves its rows in the app;
// the feed that follows it, from a later since, leaves those dated before
// its since alone (it never put them there), and takes out the row of a
// transaction the bank deleted, within what it feeds.
func TestFeedLeavesARemovedFeedsRowsBeforeItsSince(t *testing.T) {
	e := newHousehold(t, 200)
	e.file.Feeds[0].Name = "old"
	e.push()
	hold, err := e.sim.PurchaseAs("alex", e.ids["alex/Spending"], simulator.NewTransaction{Description: "Hotel deposit",
		AmountBaseUnits: -20000, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	e.one(hold)
	var dates []string
	before := map[string]bool{}
	for _, tx := range e.ynab.Transactions(e.plan.ID) {
		if !tx.Deleted {
			dates = append(dates, tx.Date)
		}
	}
	slices.Sort(dates)
	since := dates[len(dates)/2]
	for _, tx := range e.ynab.Transactions(e.plan.ID) {
		if !tx.Deleted && tx.Date < since {
			before[tx.ID] = true
		}
	}
	if len(before) == 0 || since > e.one(hold).Date {
		t.Fatalf("since %s leaves %d rows before it, the hold on %s: the test tests nothing", since, len(before), e.one(hold).Date)
	}
	if err := e.sim.Delete(hold); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.file.Feeds[0].Name, e.file.Feeds[0].Since = "new", since
	rep := e.push()
	left := 0
	for _, tx := range e.ynab.Transactions(e.plan.ID) {
		if !tx.Deleted && before[tx.ID] {
			left++
		}
	}
	if left != len(before) {
		t.Errorf("the new feed's push left %d of the old feed's %d rows before its since (the push: %+v)", left, len(before), rep)
	}
	if rows := e.appRows(hold); len(rows) != 0 {
		t.Errorf("the hold the bank deleted is still in the app: %+v", rows)
	}
	if rep.Deleted != 1 {
		t.Errorf("the push deleted %d rows, want the deleted hold's: %+v", rep.Deleted, rep)
	}
	e.exact()
}

// Every app account the feed names that the app does not have is named in
// one error.
func TestFeedNamesEveryMissingAppAccount(t *testing.T) {
	e := newHousehold(t, 20)
	e.remap("alex/Spending", "Travel")
	e.remap("sam/Spending", "Holidays")
	_, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{})
	if err == nil || !strings.Contains(err.Error(), `the app has no accounts "Holidays", "Travel" (its accounts: `) {
		t.Errorf("push with two accounts missing in the app: %v", err)
	}
}

// Rows the mirror recorded in the app account a bank account was fed into
// before the person mapped it to another stay where they are and are kept
// exact; the bank account's new transactions go into the new account.
func TestFeedRemappedAccountKeepsItsRecordedRows(t *testing.T) {
	e := newHousehold(t, 60)
	hold, err := e.sim.PurchaseAs("alex", e.ids["alex/Spending"], simulator.NewTransaction{Description: "Corner Cafe", AmountBaseUnits: -1250, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	if r := e.one(hold); r.Account != e.plan.Accounts["Alex Spending"] {
		t.Fatalf("the hold in %s: the test tests nothing", r.Account)
	}
	e.remap("alex/Spending", "Cash")
	if err := e.sim.SettleAt(hold, -1400); err != nil {
		t.Fatal(err)
	}
	later, err := e.sim.PurchaseAs("alex", e.ids["alex/Spending"], simulator.NewTransaction{Description: "Bakery", AmountBaseUnits: -640})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	rep := e.push()
	if r := e.one(hold); r.Account != e.plan.Accounts["Alex Spending"] || r.Amount != -14000 || r.Cleared != "cleared" {
		t.Errorf("the settled hold in the app: %+v (the push: %+v)", r, rep)
	}
	if r := e.one(later); r.Account != e.plan.Accounts["Cash"] {
		t.Errorf("the new purchase in %s, want Cash", r.Account)
	}
	res := e.exact()
	if res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
}

// A cut-off push's rows the person reconciled in the app account before
// mapping the bank account to another are never changed: they are adopted
// where they are rather than made again in the new account, and the rows
// not reconciled move to the new one.
func TestFeedRemappedAccountAdoptsCutOffRowsReconciled(t *testing.T) {
	e := newHousehold(t, 100)
	crash := &crashingOpener{Opener: feedynab.New(), crashes: 1}
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{"ynab": {Opener: crash}}, e.file, t.TempDir(), zerolog.Nop())
	if _, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{}); err == nil {
		t.Fatal("the cut-off push said it succeeded")
	}
	old := e.plan.Accounts["Alex Spending"]
	if err := e.ynab.PersonReconcile(e.plan.ID, old); err != nil {
		t.Fatal(err)
	}
	reconciled := map[string]bool{}
	ids := e.accountTransactions("alex/Spending")
	for _, id := range ids {
		if r := e.one(id); r.Cleared == "reconciled" && r.TransferID == "" {
			reconciled[id] = true
		}
	}
	if len(reconciled) == 0 || len(reconciled) == len(ids) {
		t.Fatalf("%d of %d rows reconciled: the test tests nothing", len(reconciled), len(ids))
	}
	e.remap("alex/Spending", "Cash")
	rep := e.push()
	for _, id := range ids {
		rows := e.appRows(id)
		if len(rows) != 1 {
			t.Fatalf("%s has %d rows in the app, want 1 (the push: %+v)", id, len(rows), rep)
		}
		if reconciled[id] && rows[0].Account != old {
			t.Errorf("the reconciled row of %s moved to %s", id, rows[0].Account)
		}
		if !reconciled[id] && rows[0].Account == old && rows[0].Cleared != "reconciled" {
			t.Errorf("the row of %s, not reconciled, stayed in the old account", id)
		}
	}
	e.exact(feeds.ReconciledChanged)
}

// The same with the real Actual, whose client finds the rows a batch
// already made by import id: in the row's own account only.
func TestFeedDoesNotAdoptARowInAnotherAppAccountActual(t *testing.T) {
	e := newActualHousehold(t, 60)
	second := e.file.Feeds[0]
	second.Name = "sam"
	second.Accounts = []feeds.AccountKey{{Key: "2Up Spending", App: "Sam Spending", Line: 1}}
	e.file.Feeds = append(e.file.Feeds, second)
	e.srv.FeedDir(t, e.engine.Dir("sam"))
	if _, err := e.engine.Push(t.Context(), &e.file.Feeds[1], feeds.PushOptions{}); err != nil {
		t.Fatalf("push of the second feed: %v", err)
	}
	joint := e.accountTransactions("2Up Spending")
	e.push()
	e.read()
	want := []string{e.budget.Accounts["Joint"], e.budget.Accounts["Sam Spending"]}
	slices.Sort(want)
	for _, id := range joint {
		var where []string
		for _, r := range e.appRows(id) {
			where = append(where, r.Account)
		}
		slices.Sort(where)
		if !slices.Equal(where, want) {
			t.Fatalf("the joint account's %s has rows in %v, want one in Joint (the first feed's) and one in Sam Spending (the second's)", id, where)
		}
	}
	e.exact()
}

// The remap of TestFeedRemappedAccountLeavesNoCutOffRowBehind with the
// real Actual.
func TestFeedRemappedAccountLeavesNoCutOffRowBehindActual(t *testing.T) {
	e := newActualHousehold(t, 60)
	crash := &crashingOpener{Opener: actual.New(actual.Config{Node: e.srv.Node()}), crashes: 1}
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{"actual": {Opener: crash}}, e.file, e.engine.Dir(""), zerolog.Nop())
	if _, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{}); err == nil {
		t.Fatal("the cut-off push said it succeeded")
	}
	ids := e.accountTransactions("alex/Spending")
	e.read()
	for _, id := range ids {
		if r := e.one(id); r.Account != e.budget.Accounts["Alex Spending"] {
			t.Fatalf("the cut-off push put %s in %s: the test tests nothing", id, r.Account)
		}
	}
	e.remap("alex/Spending", "Cash")
	rep := e.push()
	e.read()
	for _, id := range ids {
		rows := e.appRows(id)
		if len(rows) != 1 || rows[0].Account != e.budget.Accounts["Cash"] {
			t.Fatalf("%s has %d rows in the app: want one, in Cash (the push: %+v)", id, len(rows), rep)
		}
	}
	res := e.exact()
	if res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
}

// A push that writes nothing to the app records no span: the person who
// moves since earlier for a while (a push then has nothing to push and
// only opens the app) and back again has not made the feed the owner of
// the rows dated between the two. A transaction of that stretch the bank
// changes later keeps the row a removed feed (or an import) put in the
// app for it.
func TestFeedPushThatWritesNothingRecordsNoSpan(t *testing.T) {
	e := newHousehold(t, 200)
	ctx := t.Context()
	e.file.Feeds[0].Name = "old"
	e.push()
	txs, err := e.st.FeedAccountTransactions(ctx, []string{e.ids["alex/Spending"]}, "")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(txs, func(a, b store.FeedTx) int { return strings.Compare(a.Date, b.Date) })
	since := txs[len(txs)/2].Date
	old := txs[0]
	if old.Date >= since {
		t.Fatalf("no transaction before %s: the test tests nothing", since)
	}
	before := e.one(old.ID)
	e.file.Feeds[0].Name, e.file.Feeds[0].Since = "new", since
	e.push()
	e.file.Feeds[0].Since = "" // for a while
	if rep := e.push(); rep.Changed() || rep.Adopted > 0 {
		t.Fatalf("a push with nothing new did something: %+v", rep)
	}
	e.file.Feeds[0].Since = since
	if err := e.sim.SetCategory(old.ID, "fuel"); err != nil {
		t.Fatal(err)
	}
	e.sync()
	rep := e.push()
	if rows := e.appRows(old.ID); len(rows) != 1 || rows[0].ID != before.ID {
		t.Errorf("the removed feed's row of %s (%s, before the feed's since %s) is gone: %d rows now (the push: %+v)",
			old.ID, old.Date, since, len(rows), rep)
	}
	if rep.Deleted != 0 {
		t.Errorf("the push deleted %d rows: %+v", rep.Deleted, rep)
	}
}

// Each person's feed of one budget may feed the joint account into one
// app account, both mapping the one row of each transaction. When one of
// them stops feeding a transaction (its since moved past it, or the joint
// account taken out of its accounts), its push leaves the row the other
// feed still feeds, even when the bank changes the transaction: deleting
// it would take it out of the budget for good (the other feed takes a row
// gone from the app for one the person deleted).
func TestFeedLeavesARowAnotherFeedStillFeeds(t *testing.T) {
	for _, how := range []string{"since", "unmapped"} {
		t.Run(how, func(t *testing.T) {
			e := newHousehold(t, 100)
			second := e.file.Feeds[0]
			second.Name = "sam"
			second.Accounts = []feeds.AccountKey{{Key: "2Up Spending", App: "Joint", Line: 1}}
			e.file.Feeds = append(e.file.Feeds, second)
			pushSam := func() feeds.Report {
				t.Helper()
				rep, err := e.engine.Push(t.Context(), &e.file.Feeds[1], feeds.PushOptions{})
				if err != nil {
					t.Fatalf("push of the second feed: %v", err)
				}
				return rep
			}
			e.push()
			if rep := pushSam(); rep.Adopted == 0 {
				t.Fatalf("the second feed adopted none of the joint account's rows: %+v", rep)
			}
			joint := e.accountTransactions("2Up Spending")
			changed := ""
			for _, id := range joint {
				if r := e.one(id); !r.Deleted && r.TransferID == "" {
					changed = id
					break
				}
			}
			if changed == "" {
				t.Fatal("no joint transaction outside a transfer: the test tests nothing")
			}
			switch how {
			case "since":
				e.file.Feeds[0].Since = "2999-01-01"
			case "unmapped":
				e.file.Feeds[0].Accounts = slices.DeleteFunc(e.file.Feeds[0].Accounts,
					func(a feeds.AccountKey) bool { return a.Key == "2Up Spending" })
			}
			if err := e.sim.SetCategory(changed, "fuel"); err != nil {
				t.Fatal(err)
			}
			e.sync()
			e.push()
			pushSam()
			if rows := e.appRows(changed); len(rows) != 1 {
				t.Errorf("the joint transaction %s the second feed still feeds has %d rows in the app, want 1", changed, len(rows))
			}
			st, err := e.st.FeedStatuses(t.Context(), []string{"sam"})
			if err != nil {
				t.Fatal(err)
			}
			if st[0].DeletedInApp != 0 {
				t.Errorf("the second feed takes %d rows for deleted by the person", st[0].DeletedInApp)
			}
		})
	}
}
