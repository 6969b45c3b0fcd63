package feeds_test

import (
	"maps"
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

// legCase is a household transfer the app took as one transfer in a push
// cut off before the mirror recorded it, one leg of which the bank then
// deleted.
type legCase struct {
	e         *householdEnv
	opener    feeds.Opener // the app's real opener
	kind      string       // the feed's kind
	deleteOut bool         // the bank deletes the payer's leg, else the payee's
	batch     int          // history rows a batch (0: the engine's)
	// before reports whether the app has the legs out and in as one
	// transfer (after the cut-off push).
	before func(out, in string) bool

	gone, kept string       // the deleted leg and the other
	keptTx     store.FeedTx // the other leg as the mirror has it
	keptIn     string       // the app account the other leg belongs in
	rep        feeds.Report // what the next, fault-free push did
}

// run makes a held payment from alex to sam, feeds it through a push the
// app takes whole (both legs, one transfer) but that is cut off before
// the mirror records it, has the bank delete one leg (a payment
// returned), and pushes again without faults.
func (c *legCase) run(t *testing.T) {
	t.Helper()
	e := c.e
	e.push()
	crash := &crashingOpener{Opener: c.opener}
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{c.kind: {Opener: crash, Batch: c.batch}}, e.file, e.engine.Dir(""), zerolog.Nop())
	out, in, err := e.sim.PayPerson(simulator.Payment{From: "alex", To: "sam", AmountBaseUnits: 3175, Message: "tickets", Held: true})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	crash.crashes = 1
	if _, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{}); err == nil {
		t.Fatal("the cut-off push said it succeeded")
	}
	if !c.before(out, in) {
		t.Fatal("the cut-off push did not leave the payment in the app as one transfer: the test tests nothing")
	}
	if rows, err := e.st.FeedRows(t.Context(), c.kind, []string{out, in}); err != nil || len(rows) != 0 {
		t.Fatalf("the mirror recorded the cut-off push: %+v %v", rows, err)
	}
	c.gone, c.kept, c.keptIn = out, in, "Sam Spending"
	if !c.deleteOut {
		c.gone, c.kept, c.keptIn = in, out, "Alex Spending"
	}
	if err := e.sim.Delete(c.gone); err != nil {
		t.Fatal(err)
	}
	e.sync()
	txs, err := e.st.FeedTransactions(t.Context(), []string{c.kept})
	if err != nil || len(txs) != 1 {
		t.Fatalf("the other leg in the mirror: %+v %v", txs, err)
	}
	c.keptTx = txs[0]
	if c.keptTx.OtherID != "" {
		t.Fatalf("the other leg is still paired with %s in the mirror", c.keptTx.OtherID)
	}
	c.rep = e.push()
}

// after checks what every app must show once the other leg is back: check
// exact, nothing left pending, and a push after it changing nothing.
func (c *legCase) after(t *testing.T) {
	t.Helper()
	e := c.e
	res := e.exact()
	if res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
	if reason, ok := c.pending(t)[c.kept]; ok {
		t.Errorf("the other leg, back in the app, is still pending (%s)", reason)
	}
	if again := e.push(); again.Changed() {
		t.Errorf("a push with nothing new changed the app: %+v", again)
	}
}

func (c *legCase) pending(t *testing.T) map[string]string {
	t.Helper()
	pending, err := c.e.st.FeedPending(t.Context(), c.kind)
	if err != nil {
		t.Fatal(err)
	}
	return pending
}

// oneRound checks the push's report when the deleted leg's row came out
// and the other leg's went back in the same round.
func (c *legCase) oneRound(t *testing.T) {
	t.Helper()
	if c.rep.Deleted != 1 || c.rep.Created != 1 {
		t.Errorf("the push deleted %d rows and created %d, want the deleted leg's row out and the other leg's back: %+v",
			c.rep.Deleted, c.rep.Created, c.rep)
	}
}

// A household transfer the app took as one transfer in a push cut off
// before the mirror recorded it, one leg of which the bank then deleted:
// the next push takes the deleted leg's row out of YNAB (which deletes
// the other leg's row with it), and the other leg comes back once, as an
// ordinary row with the bank's amount and date; check is exact.
func TestFeedInterruptedPushOfATransferLegDeletedSinceYNAB(t *testing.T) {
	for _, tc := range []struct {
		name      string
		deleteOut bool
		batch     int
	}{
		{"payer's leg deleted", true, 0},
		{"payee's leg deleted", false, 0},
		// In batches of one history row the push adopts (and records)
		// the payer's leg before the batch of the payee's deletion takes
		// its row out: the payer's leg is then forgotten by the mirror
		// too, pending, and back in the app at the next push.
		{"payee's leg deleted, batches of one", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newHousehold(t, 100)
			c := &legCase{e: e, opener: feedynab.New(), kind: "ynab", deleteOut: tc.deleteOut, batch: tc.batch,
				before: func(out, in string) bool {
					o, i := e.appRows(out), e.appRows(in)
					return len(o) == 1 && len(i) == 1 && o[0].TransferID == i[0].ID && i[0].TransferID == o[0].ID
				}}
			c.run(t)
			if rows := e.appRows(c.gone); len(rows) != 0 {
				t.Errorf("the deleted leg still has rows in the app: %+v", rows)
			}
			if tc.batch == 1 {
				if c.rep.Deleted != 1 || c.rep.Adopted != 1 {
					t.Errorf("the push deleted %d rows and adopted %d, want the deleted leg's row out after the other's adopted: %+v",
						c.rep.Deleted, c.rep.Adopted, c.rep)
				}
				if rows := e.appRows(c.kept); len(rows) != 0 {
					t.Errorf("the other leg's row outlived its transfer's deletion: %+v", rows)
				}
				if _, ok := c.pending(t)[c.kept]; !ok {
					t.Fatal("the other leg, forgotten by the mirror, is not pending")
				}
				if rows, err := e.st.FeedRows(t.Context(), c.kind, []string{c.kept}); err != nil || len(rows) != 0 {
					t.Fatalf("the mirror still maps the other leg to a deleted row: %+v %v", rows, err)
				}
				if rep := e.push(); rep.Created != 1 || rep.Deleted != 0 {
					t.Errorf("the next push created %d rows and deleted %d, want the other leg's back: %+v", rep.Created, rep.Deleted, rep)
				}
			} else {
				c.oneRound(t)
			}
			r := e.one(c.kept)
			if r.TransferID != "" || r.TransferAccount != "" {
				t.Errorf("the other leg is still a transfer in the app: %+v", r)
			}
			if r.Amount != c.keptTx.Amount*10 || r.Date != c.keptTx.Date || r.Account != e.plan.Accounts[c.keptIn] ||
				r.Cleared != "uncleared" {
				t.Errorf("the other leg in the app: %+v, want %d milliunits on %s in %s, uncleared",
					r, c.keptTx.Amount*10, c.keptTx.Date, c.keptIn)
			}
			c.after(t)
		})
	}
}

// The same with the real Actual.
func TestFeedInterruptedPushOfATransferLegDeletedSinceActual(t *testing.T) {
	e := newActualHousehold(t, 60)
	c := &legCase{e: e.householdEnv, opener: actual.New(actual.Config{Node: e.srv.Node()}), kind: "actual", deleteOut: true,
		before: func(out, in string) bool {
			e.read()
			o, i := e.appRows(out), e.appRows(in)
			return len(o) == 1 && len(i) == 1 && o[0].TransferID == i[0].ID && i[0].TransferID == o[0].ID
		}}
	c.run(t)
	c.oneRound(t)
	e.read()
	if rows := e.appRows(c.gone); len(rows) != 0 {
		t.Errorf("the deleted leg still has rows in the app: %+v", rows)
	}
	r := e.one(c.kept)
	if r.TransferID != "" {
		t.Errorf("the other leg is still a transfer in the app: %+v", r)
	}
	if r.Amount != c.keptTx.Amount || r.Date != c.keptTx.Date || r.Account != e.budget.Accounts[c.keptIn] || r.Cleared {
		t.Errorf("the other leg in the app: %+v, want %d cents on %s in %s, not cleared",
			r, c.keptTx.Amount, c.keptTx.Date, c.keptIn)
	}
	c.after(t)
}

// Rows the app took in a push cut off before the mirror recorded them, of
// transactions the feed no longer covers when it pushes again (its since
// moved past their date): the push takes them out of the app, as it does
// the recorded row of a transaction no longer fed, a transfer's two legs
// with one deletion; the transactions the feed still covers are adopted.
func TestFeedInterruptedPushOfTransactionsNoLongerFed(t *testing.T) {
	e := newHousehold(t, 100)
	e.push()
	crash := &crashingOpener{Opener: feedynab.New()}
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{"ynab": {Opener: crash}}, e.file, e.engine.Dir(""), zerolog.Nop())
	old := e.sim.Now().AddDate(0, 0, -10)
	before, err := e.sim.PurchaseAs("alex", e.ids["alex/Spending"], simulator.NewTransaction{Description: "Bike shop",
		AmountBaseUnits: -8950, CreatedAt: old})
	if err != nil {
		t.Fatal(err)
	}
	out, in, err := e.sim.PayPerson(simulator.Payment{From: "sam", To: "alex", AmountBaseUnits: 2275, Message: "bike share", CreatedAt: old})
	if err != nil {
		t.Fatal(err)
	}
	after, err := e.sim.PurchaseAs("sam", e.ids["sam/Spending"], simulator.NewTransaction{Description: "Bakery", AmountBaseUnits: -640})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	crash.crashes = 1
	if _, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{}); err == nil {
		t.Fatal("the cut-off push said it succeeded")
	}
	for _, id := range []string{before, out, in, after} {
		if n := len(e.appRows(id)); n != 1 {
			t.Fatalf("the cut-off push left %d rows of %s in the app, want 1: the test tests nothing", n, id)
		}
	}
	txs, err := e.st.FeedTransactions(t.Context(), []string{before, after})
	if err != nil || len(txs) != 2 || txs[0].Date == txs[1].Date {
		t.Fatalf("the purchases in the mirror: %+v %v", txs, err)
	}
	e.file.Feeds[0].Since = max(txs[0].Date, txs[1].Date)

	rep := e.push()
	for _, id := range []string{before, out, in} {
		if rows := e.appRows(id); len(rows) != 0 {
			t.Errorf("%s, no longer fed, is still in the app: %+v", id, rows)
		}
	}
	if rep.Deleted != 2 || rep.Adopted != 1 {
		t.Errorf("the push deleted %d rows and adopted %d, want the purchase's and the payment's out and the later purchase adopted: %+v",
			rep.Deleted, rep.Adopted, rep)
	}
	e.one(after)
	res := e.exact()
	if res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
	if pending, err := e.st.FeedPending(t.Context(), "ynab"); err != nil || len(pending) != 0 {
		t.Errorf("pending after the push: %v %v", pending, err)
	}
	if again := e.push(); again.Changed() {
		t.Errorf("a push with nothing new changed the app: %+v", again)
	}
}

// Two feeds may put different bank accounts into one app account (each
// person's feed of one shared budget, say). A push of one must leave the
// other's rows there alone: a row of a transaction of an account the feed
// does not feed is not a row its own push was cut off after.
func TestFeedLeavesAnotherFeedsRowsInASharedAppAccount(t *testing.T) {
	e := newHousehold(t, 100)
	other := "" // an account of sam's the feed does not feed (it feeds sam/Spending)
	for _, k := range slices.Sorted(maps.Keys(e.ids)) {
		if strings.HasPrefix(k, "sam/") && k != "sam/Spending" {
			other = k
			break
		}
	}
	if other == "" {
		t.Fatalf("no account of sam's outside the feed among %v", e.ids)
	}
	purchase, err := e.sim.PurchaseAs("sam", e.ids[other], simulator.NewTransaction{Description: "Hardware", AmountBaseUnits: -4120})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	second := e.file.Feeds[0]
	second.Name = "sam-savings"
	second.Accounts = []feeds.AccountKey{{Key: other, App: "Sam Spending", Line: 1}}
	e.file.Feeds = append(e.file.Feeds, second)
	if _, err := e.engine.Push(t.Context(), &e.file.Feeds[1], feeds.PushOptions{}); err != nil {
		t.Fatalf("push of the second feed: %v", err)
	}
	if n := len(e.appRows(purchase)); n != 1 {
		t.Fatalf("the second feed put %d rows of the purchase in the app, want 1: the test tests nothing", n)
	}
	e.push()
	if n := len(e.appRows(purchase)); n != 1 {
		t.Errorf("after the first feed's push the app has %d rows of the second feed's purchase, want 1", n)
	}
}

// Each person's feed of one shared budget may both feed the joint account
// into one app account (the app keeps one row per import id, which both
// feeds adopt), one from a later since than the other. The later one's
// push must leave the other's rows dated before its since: they are not
// rows its own push was cut off after.
func TestFeedLeavesAnotherFeedsRowsBeforeItsSince(t *testing.T) {
	e := newHousehold(t, 200)
	e.push()
	joint := e.plan.Accounts["Joint"]
	var dates []string
	for _, tx := range e.ynab.Transactions(e.plan.ID) {
		if tx.Account == joint && !tx.Deleted {
			dates = append(dates, tx.Date)
		}
	}
	slices.Sort(dates)
	if len(dates) < 2 || dates[0] == dates[len(dates)-1] {
		t.Fatalf("the joint account's rows are dated %v: the test tests nothing", dates)
	}
	second := e.file.Feeds[0]
	second.Name = "sam"
	second.Since = dates[len(dates)/2]
	if second.Since == dates[0] {
		second.Since = dates[len(dates)-1]
	}
	second.Accounts = []feeds.AccountKey{{Key: "2Up Spending", App: "Joint", Line: 1}}
	e.file.Feeds = append(e.file.Feeds, second)
	rep, err := e.engine.Push(t.Context(), &e.file.Feeds[1], feeds.PushOptions{})
	if err != nil {
		t.Fatalf("push of the second feed: %v", err)
	}
	if rep.Deleted != 0 {
		t.Errorf("the second feed's push deleted %d rows, want none: %+v", rep.Deleted, rep)
	}
	if rep.Adopted == 0 {
		t.Errorf("the second feed adopted none of the joint account's rows from its since: %+v", rep)
	}
	res := e.exact()
	if res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions of the first feed", res.Rows, res.Fed)
	}
	if again := e.push(); again.Changed() {
		t.Errorf("the first feed's push after the second's changed the app: %+v", again)
	}
}

// A transfer's legs go together in the app, so a transfer one leg of which
// the person reconciled is left whole when the bank deletes its other leg
// (a held payment the payee's bank settled, then the payer's dropped),
// whether the mirror recorded the transfer or the push that put it in the
// app was cut off: deleting the other leg's row would delete the
// reconciled one with it.
func TestFeedLeavesATransferWithAReconciledLeg(t *testing.T) {
	for _, cutOff := range []bool{false, true} {
		t.Run(map[bool]string{false: "recorded", true: "cut-off push"}[cutOff], func(t *testing.T) {
			e := newHousehold(t, 100)
			e.push()
			crash := &crashingOpener{Opener: feedynab.New()}
			e.engine = feeds.NewEngine(e.st, map[string]feeds.App{"ynab": {Opener: crash}}, e.file, e.engine.Dir(""), zerolog.Nop())
			out, in, err := e.sim.PayPerson(simulator.Payment{From: "alex", To: "sam", AmountBaseUnits: 5150, Message: "power bill", Held: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.sim.Settle(in); err != nil {
				t.Fatal(err)
			}
			e.sync()
			if cutOff {
				crash.crashes = 1
				if _, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{}); err == nil {
					t.Fatal("the cut-off push said it succeeded")
				}
			} else {
				e.push()
			}
			o, i := e.one(out), e.one(in)
			if o.TransferID != i.ID || i.Cleared != "cleared" {
				t.Fatalf("the payment in the app: out %+v, in %+v: the test tests nothing", o, i)
			}
			if err := e.ynab.PersonReconcile(e.plan.ID, e.plan.Accounts["Sam Spending"]); err != nil {
				t.Fatal(err)
			}
			if e.one(in).Cleared != "reconciled" || e.one(out).Cleared == "reconciled" {
				t.Fatalf("after sam reconciled: out %+v, in %+v", e.one(out), e.one(in))
			}
			if err := e.sim.Delete(out); err != nil {
				t.Fatal(err)
			}
			e.sync()
			rep := e.push()
			if r := e.appRows(in); len(r) != 1 || r[0].Cleared != "reconciled" {
				t.Errorf("the reconciled leg in the app: %+v (the push: %+v)", r, rep)
			}
			if rep.Deleted != 0 {
				t.Errorf("the push deleted %d rows: %+v", rep.Deleted, rep)
			}
			if again := e.push(); again.Changed() {
				t.Errorf("a push with nothing new changed the app: %+v", again)
			}
		})
	}
}
