package feeds_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/simulator"
	fakeynab "github.com/bankmirror/bankmirror/internal/simulator/ynab"
)

// A bank account taken out of the feed's accounts: its rows stay in the
// app as they are, whatever the bank does to their transactions since (a
// category changed, a hold deleted, one settled at another amount); the
// next push forgets them, says so once in the log at info (the account
// and how many rows) and in its report, and check is exact.
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
	if want := rowsBefore - int64(len(samRows)); st[0].Rows != want {
		t.Errorf("the feed keeps %d rows, want %d (those of the account taken out forgotten)", st[0].Rows, want)
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
