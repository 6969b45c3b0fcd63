package feeds_test

import (
	"testing"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// otherLegCase is a household transfer from alex to sam that the
// household's feed puts into the app as one transfer, while sam's own
// feed of the same budget (sam's account only) maps sam's leg, the row
// the app made; the bank then deletes alex's leg.
type otherLegCase struct {
	e *householdEnv
	// rows are the app's live rows of a bank transaction, by app id.
	rows func(bankID string) []string
	// samFirst: sam's feed pushes before the household's feed pushes
	// again, else after.
	samFirst bool
}

func (c *otherLegCase) push(t *testing.T, i int) feeds.Report {
	t.Helper()
	rep, err := c.e.engine.Push(t.Context(), &c.e.file.Feeds[i], feeds.PushOptions{})
	if err != nil {
		t.Fatalf("push of %s: %v", c.e.file.Feeds[i].Name, err)
	}
	return rep
}

func (c *otherLegCase) check(t *testing.T, i int) feeds.CheckResult {
	t.Helper()
	res, err := c.e.engine.Check(t.Context(), &c.e.file.Feeds[i])
	if err != nil {
		t.Fatalf("check of %s: %v", c.e.file.Feeds[i].Name, err)
	}
	return res
}

// transfer adds sam's feed to the file, makes the held transfer from
// alex to sam, and has the household's feed push it and sam's feed map
// sam's leg: its bank ids.
func (c *otherLegCase) transfer(t *testing.T) (out, in string) {
	t.Helper()
	e := c.e
	sam := e.file.Feeds[0]
	sam.Name = "sam"
	sam.Accounts = []feeds.AccountKey{{Key: "sam/Spending", App: "Sam Spending", Line: 1}}
	e.file.Feeds = append(e.file.Feeds, sam)
	c.push(t, 0)
	c.push(t, 1)
	out, in, err := e.sim.PayPerson(simulator.Payment{From: "alex", To: "sam", AmountBaseUnits: 2450, Message: "rent", Held: true})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	c.push(t, 0)
	if rep := c.push(t, 1); rep.Adopted != 1 {
		t.Fatalf("sam's feed adopted %d rows of the transfer, want sam's leg: %+v", rep.Adopted, rep)
	}
	if rows, err := e.st.FeedRows(t.Context(), "sam", []string{in}); err != nil || len(rows) != 1 || len(c.rows(in)) != 1 ||
		rows[in].AppID != c.rows(in)[0] {
		t.Fatalf("sam's feed does not map sam's leg to its row: %+v %v (rows %v): the test tests nothing", rows, err, c.rows(in))
	}
	return out, in
}

// run: when the household's feed removes alex's leg (the app deletes
// sam's with it), sam's feed does not take sam's leg for one the person
// deleted: its check says the row is missing, not deleted in the app, its
// next push puts it back (or adopts the one the household's feed put
// back), and in the end the app has one row of sam's leg, which both
// feeds map, and both checks are exact.
func (c *otherLegCase) run(t *testing.T) {
	e := c.e
	ctx := t.Context()
	out, in := c.transfer(t)

	if err := e.sim.Delete(out); err != nil {
		t.Fatal(err)
	}
	e.sync()
	if rep := c.push(t, 0); rep.Deleted != 1 {
		t.Fatalf("the household's feed deleted %d rows, want alex's leg: %+v", rep.Deleted, rep)
	}
	if rows := c.rows(in); len(rows) != 0 {
		t.Fatalf("the app kept sam's leg when alex's was deleted: %v: the test tests nothing", rows)
	}
	for _, f := range c.check(t, 1).Findings {
		if f.Kind != feeds.Missing || f.TransactionID != in {
			t.Errorf("sam's check before its push: %s %s %s; want only sam's leg missing", f.Kind, f.TransactionID, f.Detail)
		}
	}
	if c.samFirst {
		c.push(t, 1)
		c.push(t, 0)
	} else {
		c.push(t, 0)
		c.push(t, 1)
	}
	rows := c.rows(in)
	if len(rows) != 1 {
		t.Fatalf("sam's leg has %d rows in the app, want 1", len(rows))
	}
	for _, feed := range []string{"sam", e.file.Feeds[0].Name} {
		m, err := e.st.FeedRows(ctx, feed, []string{in})
		if err != nil || m[in].AppID != rows[0] || m[in].State != store.FeedPushed {
			t.Errorf("%s maps sam's leg to %+v (%v), want its row %s as pushed", feed, m[in], err, rows[0])
		}
	}
	for i := range 2 {
		res := c.check(t, i)
		for _, f := range res.Findings {
			t.Errorf("check of %s: %s %s %s", e.file.Feeds[i].Name, f.Kind, f.TransactionID, f.Detail)
		}
	}
	st, err := e.st.FeedStatuses(ctx, []string{"sam"})
	if err != nil {
		t.Fatal(err)
	}
	if st[0].DeletedInApp != 0 || st[0].Pending != 0 {
		t.Errorf("sam's feed: %d rows taken for deleted by the person, %d pending", st[0].DeletedInApp, st[0].Pending)
	}
	for i := range 2 {
		if rep := c.push(t, i); rep.Changed() {
			t.Errorf("a push of %s with nothing new changed the app: %+v", e.file.Feeds[i].Name, rep)
		}
	}
}

func TestFeedPutsBackATransferLegAnotherFeedRemovedYNAB(t *testing.T) {
	for _, samFirst := range []bool{true, false} {
		name := "sam's feed pushes last"
		if samFirst {
			name = "sam's feed pushes first"
		}
		t.Run(name, func(t *testing.T) {
			e := newHousehold(t, 60)
			c := &otherLegCase{e: e, samFirst: samFirst, rows: e.rowIDs}
			c.run(t)
		})
	}
}

func TestFeedPutsBackATransferLegAnotherFeedRemovedActual(t *testing.T) {
	e := newActualHousehold(t, 60)
	e.srv.FeedDir(t, e.engine.Dir("sam"))
	c := &otherLegCase{e: e.householdEnv, samFirst: true, rows: e.rowIDs}
	c.run(t)
}

// deletedTransferCase is a held household transfer from alex to sam that
// the household's feed puts into the app as one transfer, while sam's own
// feed of the same budget maps sam's leg; the person then deletes the
// transfer in the app (the app deletes both legs), and the bank drops
// alex's leg (the held payment declined) and later settles sam's.
type deletedTransferCase struct {
	otherLegCase
	// deleteInApp deletes the app's row of a bank transaction as the
	// person does.
	deleteInApp func(bankID string)
}

// run: neither feed puts sam's leg back, whatever order they push in;
// both record it as deleted in the app once the bank changes it, and
// both checks say only that.
func (c *deletedTransferCase) run(t *testing.T) {
	e := c.e
	ctx := t.Context()
	out, in := c.transfer(t)
	c.deleteInApp(out)
	if n := len(c.rows(in)); n != 0 {
		t.Fatalf("the app kept sam's leg: %d rows: the test tests nothing", n)
	}
	for _, step := range []struct {
		what  string
		bank  func(id string) error
		id    string
		order [2]int // the feeds, in the order they push
	}{
		{"the bank dropped alex's leg", e.sim.Delete, out, [2]int{1, 0}},
		{"the bank settled sam's leg", e.sim.Settle, in, [2]int{0, 1}},
	} {
		if err := step.bank(step.id); err != nil {
			t.Fatal(err)
		}
		e.sync()
		for range 2 {
			c.push(t, step.order[0])
			c.push(t, step.order[1])
		}
		if n := len(c.rows(in)); n != 0 {
			t.Errorf("%s: sam's leg, which the person deleted in the app, is back: %d rows", step.what, n)
		}
	}
	for i, feed := range []string{e.file.Feeds[0].Name, "sam"} {
		m, err := e.st.FeedRows(ctx, feed, []string{in})
		if err != nil {
			t.Fatal(err)
		}
		if m[in].State != store.FeedDeletedInApp {
			t.Errorf("%s records sam's leg as %+v, want deleted in the app", feed, m[in])
		}
		for _, f := range c.check(t, i).Findings {
			if f.Kind != feeds.DeletedInApp || f.TransactionID != in {
				t.Errorf("check of %s: %s %s %s; want only sam's leg deleted in the app", feed, f.Kind, f.TransactionID, f.Detail)
			}
		}
	}
}

func TestFeedTransferDeletedInTheAppStaysDeletedWhenTheBankDropsOneLegYNAB(t *testing.T) {
	e := newHousehold(t, 60)
	c := &deletedTransferCase{otherLegCase: otherLegCase{e: e, rows: e.rowIDs}, deleteInApp: func(id string) {
		if err := e.ynab.PersonDelete(e.plan.ID, e.one(id).ID); err != nil {
			t.Fatal(err)
		}
	}}
	c.run(t)
}

func TestFeedTransferDeletedInTheAppStaysDeletedWhenTheBankDropsOneLegActual(t *testing.T) {
	e := newActualHousehold(t, 60)
	e.srv.FeedDir(t, e.engine.Dir("sam"))
	c := &deletedTransferCase{otherLegCase: otherLegCase{e: e.householdEnv, rows: e.rowIDs}, deleteInApp: func(id string) { e.srv.Delete(t, e.budget.SyncID, id) }}
	c.run(t)
}
