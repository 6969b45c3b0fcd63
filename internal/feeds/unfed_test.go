package feeds_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/simulator"
	fakeynab "github.com/bankmirror/bankmirror/internal/simulator/ynab"
	"github.com/bankmirror/bankmirror/internal/store"
)

// A bank account taken out of the feed's accounts: its rows stay in the
// app as they are, whatever the bank does to their transactions since (a
// category changed, a hold deleted, one settled at another amount); the
// feed keeps their records (for when the account is fed again), the
// next push says so once in the log at info (the account and how many
// rows) and in its report, and check is exact.
func TestFeedLeavesTheRowsOfAnAccountTakenOut(t *testing.T) {
	e := newHousehold(t, 100)
	ctx := t.Context()
	logs := e.logged()
	sam := e.ids["sam/Spending"]
	dropped, err := e.sim.PurchaseAs("sam", sam, simulator.NewTransaction{Description: "Bakery", AmountBaseUnits: -900, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	settled, err := e.sim.PurchaseAs("sam", sam, simulator.NewTransaction{Description: "Fuel", AmountBaseUnits: -6000, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	samRows := e.accountTransactions("sam/Spending")
	before := map[string]fakeynab.Transaction{}
	for _, id := range samRows {
		before[id] = e.one(id)
	}
	st, err := e.st.FeedStatuses(ctx, []string{"ynab"})
	if err != nil {
		t.Fatal(err)
	}
	rowsBefore := st[0].Rows

	e.file.Feeds[0].Accounts = slices.DeleteFunc(e.file.Feeds[0].Accounts,
		func(a feeds.AccountKey) bool { return a.Key == "sam/Spending" })
	e.exact() // before the push that forgets them, the rows left are not extra
	touched := ""
	for _, id := range samRows {
		if id != dropped && id != settled && e.sim.SetCategory(id, "fuel") == nil {
			touched = id
			break
		}
	}
	if touched == "" {
		t.Fatal("no transaction of sam's to categorize: the test tests nothing")
	}
	if err := e.sim.Delete(dropped); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.SettleAt(settled, -6500); err != nil {
		t.Fatal(err)
	}
	e.sync()
	rep := e.push()
	if rep.Changed() || rep.Left != len(samRows) {
		t.Errorf("the push: %+v; want nothing changed and %d rows left", rep, len(samRows))
	}
	for id, was := range before {
		if now := e.one(id); now != was {
			t.Errorf("the row of %s changed: %+v, was %+v", id, now, was)
		}
	}
	st, err = e.st.FeedStatuses(ctx, []string{"ynab"})
	if err != nil {
		t.Fatal(err)
	}
	if st[0].Rows != rowsBefore {
		t.Errorf("the feed records %d rows, want %d (those of the account taken out kept)", st[0].Rows, rowsBefore)
	}
	if again := e.push(); again.Changed() || again.Left != 0 {
		t.Errorf("the push after it: %+v", again)
	}
	var said []map[string]any
	for line := range strings.Lines(logs.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m["account_id"] == sam {
			said = append(said, m)
		}
	}
	if len(said) != 1 || said[0]["level"] != "info" || said[0]["rows"] != float64(len(samRows)) ||
		said[0]["app_account"] != e.plan.Accounts["Sam Spending"] {
		t.Errorf("the log said of the account taken out %+v, want once at info with its %d rows:\n%s", said, len(samRows), logs.String())
	}
	e.exact()
}

// takeOut takes the bank account key out of the first feed's accounts
// and returns a function that puts it back (into its app account then,
// which remap may change).
func (e *householdEnv) takeOut(key string) (putBack func()) {
	e.t.Helper()
	keep := slices.Clone(e.file.Feeds[0].Accounts)
	n := len(keep)
	e.file.Feeds[0].Accounts = slices.DeleteFunc(slices.Clone(keep), func(a feeds.AccountKey) bool { return a.Key == key })
	if len(e.file.Feeds[0].Accounts) == n {
		e.t.Fatalf("no account key %q in the feed", key)
	}
	return func() { e.file.Feeds[0].Accounts = keep }
}

// An account taken out of the feed for a push, then fed again into the
// same app account or another (a move in two edits), pushed with --since
// as docs/feeds.md says or not: the feed knows the rows it left again
// (it neither adopts nor makes any anew, nor fails to link a transfer),
// each transaction is in the budget once, a purchase the bank made
// meanwhile is added by the push with --since, and check is exact.
func TestFeedAccountTakenOutAndFedAgainIsNotDoubled(t *testing.T) {
	for _, c := range []struct {
		name, app, since string
	}{
		{"same app account, push --since", "Sam Spending", "2000-01-01"},
		{"another app account, push --since", "Cash", "2000-01-01"},
		{"another app account, plain push", "Cash", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newHousehold(t, 60)
			sam := e.ids["sam/Spending"]
			id, err := e.sim.PurchaseAs("sam", sam, simulator.NewTransaction{Description: "Bakery", AmountBaseUnits: -900})
			if err != nil {
				t.Fatal(err)
			}
			e.sync()
			e.push()
			samRows := e.accountTransactions("sam/Spending")
			putBack := e.takeOut("sam/Spending")
			if rep := e.push(); rep.Changed() || rep.Left != len(samRows) {
				t.Errorf("the push with sam's account taken out: %+v; want nothing changed, %d rows left", rep, len(samRows))
			}
			meanwhile, created := "", 0
			if c.since != "" {
				if meanwhile, err = e.sim.PurchaseAs("sam", sam, simulator.NewTransaction{Description: "Florist", AmountBaseUnits: -3100}); err != nil {
					t.Fatal(err)
				}
				created = 1
				e.sync()
				e.push()
			}
			putBack()
			e.remap("sam/Spending", c.app)
			if err := e.sim.SetCategory(id, "fuel"); err != nil { // so that a plain push looks at it
				t.Fatal(err)
			}
			e.sync()
			var total feeds.Report
			for i := range 2 {
				rep, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{Since: c.since})
				if err != nil {
					t.Fatalf("push %d with sam's account fed again: %v", i, err)
				}
				total.Created += rep.Created
				total.Adopted += rep.Adopted
				total.Deleted += rep.Deleted
				total.Linked += rep.Linked
			}
			if total.Created != created || total.Adopted+total.Deleted+total.Linked != 0 {
				t.Errorf("the pushes with sam's account fed again: %+v; want %d created, nothing adopted, deleted or linked", total, created)
			}
			for _, tx := range samRows {
				if n := len(e.appRows(tx)); n != 1 {
					t.Errorf("%s has %d rows in the budget, want 1", tx, n)
				}
			}
			if meanwhile != "" {
				if r := e.one(meanwhile); r.Account != e.plan.Accounts[c.app] {
					t.Errorf("the purchase made meanwhile is in %s, want %s", r.Account, c.app)
				}
			}
			if res := e.exact(); res.Rows != res.Fed {
				t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
			}
		})
	}
}

// A row the person deleted in the app before the account was taken out
// of the feed, and one they deleted while it was out, stay deleted once
// it is fed again and pushed with --since: the feed still knows them,
// as deleted in the app.
func TestFeedAccountFedAgainKeepsRowsDeletedInTheApp(t *testing.T) {
	e := newHousehold(t, 60)
	ctx := t.Context()
	sam := e.ids["sam/Spending"]
	before, err := e.sim.PurchaseAs("sam", sam, simulator.NewTransaction{Description: "Bakery", AmountBaseUnits: -900})
	if err != nil {
		t.Fatal(err)
	}
	during, err := e.sim.PurchaseAs("sam", sam, simulator.NewTransaction{Description: "Newsagent", AmountBaseUnits: -450})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	if err := e.ynab.PersonDelete(e.plan.ID, e.one(before).ID); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.SetCategory(before, "fuel"); err != nil { // so that a push sees it deleted in the app
		t.Fatal(err)
	}
	e.sync()
	if rep := e.push(); rep.DeletedInApp != 1 {
		t.Fatalf("the push did not see the row deleted in the app: %+v", rep)
	}
	samRows := e.accountTransactions("sam/Spending")
	putBack := e.takeOut("sam/Spending")
	if rep := e.push(); rep.Left != len(samRows)-1 {
		t.Errorf("the push with sam's account taken out left %d rows in the app, want %d (not the one deleted there)", rep.Left, len(samRows)-1)
	}
	if err := e.ynab.PersonDelete(e.plan.ID, e.one(during).ID); err != nil {
		t.Fatal(err)
	}
	putBack()
	rep, err := e.engine.Push(ctx, &e.file.Feeds[0], feeds.PushOptions{Since: "2000-01-01"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Created != 0 || rep.DeletedInApp != 1 {
		t.Errorf("the push --since: %+v; want nothing created, the row deleted meanwhile seen deleted in the app", rep)
	}
	rows, err := e.st.FeedRows(ctx, "ynab", []string{before, during})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{before, during} {
		if n := len(e.appRows(id)); n != 0 {
			t.Errorf("the row of %s the person deleted in the app is back: %d rows", id, n)
		}
		if rows[id].State != store.FeedDeletedInApp {
			t.Errorf("the feed records %s as %q, want deleted in the app", id, rows[id].State)
		}
	}
	for _, f := range e.exact(feeds.DeletedInApp).Findings {
		if f.TransactionID != before && f.TransactionID != during {
			t.Errorf("check: %s %s, which the person did not delete", f.Kind, f.TransactionID)
		}
	}
}

// The engine says once for each account taken out that it leaves its
// rows: not again when another account is taken out too, nor at a push
// with no change, nor after a restart, and again once the account was fed
// again and taken out again.
func TestFeedSaysOnceForEachAccountTakenOut(t *testing.T) {
	e := newHousehold(t, 60)
	logs := e.logged()
	e.push()
	said := func() []string {
		var accounts []string
		for line := range strings.Lines(logs.String()) {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			if a, ok := m["account_id"].(string); ok && m["rows"] != nil {
				accounts = append(accounts, a)
			}
		}
		logs.Reset()
		return accounts
	}
	sam, joint := e.ids["sam/Spending"], e.ids["2Up Spending"]
	samRows, jointRows := len(e.accountTransactions("sam/Spending")), len(e.accountTransactions("2Up Spending"))
	putBackSam := e.takeOut("sam/Spending")
	if rep := e.push(); rep.Left != samRows || !slices.Equal(said(), []string{sam}) {
		t.Errorf("sam's account taken out: %d rows left, want %d", rep.Left, samRows)
	}
	if rep := e.push(); rep.Left != 0 || len(said()) != 0 {
		t.Errorf("a push with no change said it left %d rows", rep.Left)
	}
	logs = e.logged() // a new engine: the daemon restarted
	if rep := e.push(); rep.Left != 0 || len(said()) != 0 {
		t.Errorf("after a restart, a push with no change said it left %d rows", rep.Left)
	}
	putBackJoint := e.takeOut("2Up Spending")
	if rep := e.push(); rep.Left != jointRows || !slices.Equal(said(), []string{joint}) {
		t.Errorf("the joint account taken out too: %d rows left, want %d, only the joint account's", rep.Left, jointRows)
	}
	putBackJoint()
	e.push()
	putBackSam()
	e.push()
	if got := said(); len(got) != 0 {
		t.Errorf("the accounts put back: said %v", got)
	}
	e.takeOut("sam/Spending")
	if rep := e.push(); rep.Left != samRows || !slices.Equal(said(), []string{sam}) {
		t.Errorf("sam's account taken out again: %d rows left, want %d", rep.Left, samRows)
	}
}

// The move in two edits of TestFeedAccountTakenOutAndFedAgainIsNotDoubled
// (into Cash, pushed with --since) with the real Actual, which links a
// transfer's legs too.
func TestFeedAccountTakenOutAndFedAgainIsNotDoubledActual(t *testing.T) {
	e := newActualHousehold(t, 60)
	e.push()
	samRows := e.accountTransactions("sam/Spending")
	putBack := e.takeOut("sam/Spending")
	e.push()
	putBack()
	e.remap("sam/Spending", "Cash")
	for i := range 2 {
		rep, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{Since: "2000-01-01"})
		if err != nil {
			t.Fatalf("push %d with sam's account fed again: %v", i, err)
		}
		if rep.Changed() || rep.Adopted != 0 {
			t.Errorf("push %d with sam's account fed again: %+v; want nothing changed or adopted", i, rep)
		}
	}
	e.read()
	for _, tx := range samRows {
		if n := len(e.appRows(tx)); n != 1 {
			t.Errorf("%s has %d rows in the budget, want 1", tx, n)
		}
	}
	if res := e.exact(); res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
}
