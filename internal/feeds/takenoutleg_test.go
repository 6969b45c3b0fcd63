package feeds_test

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	feedynab "github.com/bankmirror/bankmirror/internal/feeds/ynab"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// takenOutLegCase is a transfer from alex (fed) to sam (an account taken
// out): the bank drops alex's leg, the push deletes its row, and the app
// deletes sam's leg with it. sam's record is kept, waiting for the
// account: fed again, by a plain push or one with a since, the leg is
// made again, once, and the feed is exact. (It used to be forgotten: a
// plain push never made it again, and check said it was missing.)
type takenOutLegCase struct {
	e *householdEnv
	// rows are the app's live rows of a bank transaction, by app id.
	rows func(bankID string) []string
}

func (c *takenOutLegCase) run(t *testing.T, since string) {
	e := c.e
	e.push()
	out, in, err := e.sim.PayPerson(simulator.Payment{From: "alex", To: "sam", AmountBaseUnits: 2450, Message: "rent", Held: true})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	if len(c.rows(in)) != 1 || len(c.rows(out)) != 1 {
		t.Fatalf("transfer not in the app: the test tests nothing")
	}
	putBack := e.takeOut("sam/Spending")
	e.push()
	if err := e.sim.Delete(out); err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	e.push() // while the account is out, the leg stays pending
	e.exact()
	putBack()
	for range 2 {
		if _, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{Since: since}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.rows(in)); n != 1 {
		t.Errorf("sam's leg, fed again, has %d rows in the app, want 1", n)
	}
	e.exact()
}

func TestFeedLegOfAnAccountTakenOutComesBackWithItYNAB(t *testing.T) {
	for _, since := range []string{"", "2000-01-01"} {
		t.Run("since="+since, func(t *testing.T) {
			e := newHousehold(t, 60)
			(&takenOutLegCase{e: e, rows: e.rowIDs}).run(t, since)
		})
	}
}

// TestFeedLegOfAnAccountTakenOutComesBackWithItYNAB with the real Actual,
// put back by a plain push.
func TestFeedLegOfAnAccountTakenOutComesBackWithItActual(t *testing.T) {
	e := newActualHousehold(t, 60)
	(&takenOutLegCase{e: e.householdEnv, rows: e.rowIDs}).run(t, "")
}

// sam's account taken out while the bank drops one hold, settles another
// at a new amount and settles a third as a new transaction; put back and
// pushed plainly (no --since), the feed catches up with those changes and
// is exact at once: pushed by the engine that said the account was taken
// out, by another (the daemon restarted, or a `feeds push` of its own),
// and by the same engine after its first push after the account was put
// back failed (the app unreachable).
func TestFeedAccountPutBackCatchesUpWithTheBank(t *testing.T) {
	for _, then := range []string{"same engine", "after a restart", "after a failed push"} {
		t.Run(then, func(t *testing.T) { putBackCatchesUp(t, then) })
	}
}

func putBackCatchesUp(t *testing.T, then string) {
	e := newHousehold(t, 60)
	crash := &crashingOpener{Opener: feedynab.New()}
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{"ynab": {Opener: crash}}, e.file, e.engine.Dir(""), zerolog.Nop())
	sam := e.ids["sam/Spending"]
	var held [3]string
	for i, d := range []string{"Bakery", "Fuel", "Chemist"} {
		id, err := e.sim.PurchaseAs("sam", sam, simulator.NewTransaction{Description: d, AmountBaseUnits: -900 - 100*int64(i), Held: true})
		if err != nil {
			t.Fatal(err)
		}
		held[i] = id
	}
	e.sync()
	e.push()
	putBack := e.takeOut("sam/Spending")
	e.push()
	if err := e.sim.Delete(held[0]); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.SettleAt(held[1], -6500); err != nil {
		t.Fatal(err)
	}
	replacement, err := e.sim.SettleAsReplacement(held[2])
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	putBack()
	switch then {
	case "after a restart":
		e.logged() // a new engine, knowing nothing of the last
	case "after a failed push":
		crash.crashes, crash.unreachable = 1, true
		if _, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{}); err == nil {
			t.Fatal("the push with the app unreachable said it succeeded")
		}
	}
	e.push()
	if n := len(e.appRows(held[0])); n != 0 {
		t.Errorf("the hold the bank dropped has %d rows in the app, want 0", n)
	}
	if rows := e.appRows(held[1]); len(rows) != 1 {
		t.Errorf("the hold settled at a new amount has %d rows, want 1", len(rows))
	}
	if n := len(e.appRows(held[2])) + len(e.appRows(replacement)); n != 1 {
		t.Errorf("the hold settled as a new transaction has %d rows with its replacement, want 1", n)
	}
	e.exact()
}
