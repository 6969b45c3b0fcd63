package feeds_test

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/actual"
	feedynab "github.com/bankmirror/bankmirror/internal/feeds/ynab"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// cutOffLegCase is a held household transfer from alex to sam in the
// app; the bank drops alex's leg, and the push that deletes alex's row
// (the app deletes sam's leg with it) is cut off after the app took it,
// before the mirror recorded it. The next push finds alex's row gone, as
// after the person deleted the transfer, but the push had marked sam's
// leg gone with it before deleting: it is put back, and kept exact after
// the bank settles it.
type cutOffLegCase struct {
	e *householdEnv
	// rows are the app's live rows of a bank transaction, by app id.
	rows func(bankID string) []string
	// kind and app are the feed's app, whose opener is made to crash once.
	kind string
	app  feeds.App
}

func (c *cutOffLegCase) run(t *testing.T) {
	e := c.e
	e.push()
	out, in, err := e.sim.PayPerson(simulator.Payment{From: "alex", To: "sam", AmountBaseUnits: 2450, Message: "rent", Held: true})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	if len(c.rows(in)) != 1 {
		t.Fatal("no row of sam's leg: the test tests nothing")
	}
	app := c.app
	app.Opener = &crashingOpener{Opener: app.Opener, crashes: 1}
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{c.kind: app}, e.file, e.engine.Dir(""), zerolog.Nop())
	if err := e.sim.Delete(out); err != nil {
		t.Fatal(err)
	}
	e.sync()
	if _, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{}); err == nil {
		t.Fatal("the cut-off push said it succeeded")
	}
	for range 2 {
		t.Logf("push: %+v", e.push())
	}
	if n := len(c.rows(in)); n != 1 {
		t.Errorf("sam's leg, which the bank still has and nobody deleted, has %d rows in the app, want 1", n)
	}
	e.exact()
	if err := e.sim.Settle(in); err != nil {
		t.Fatal(err)
	}
	e.sync()
	t.Logf("push after the bank settled sam's leg: %+v", e.push())
	if n := len(c.rows(in)); n != 1 {
		t.Errorf("after the bank settled sam's leg: %d rows in the app, want 1", n)
	}
	e.exact()
}

func TestFeedPushCutOffAfterDeletingATransferLegPutsTheOtherBackYNAB(t *testing.T) {
	e := newHousehold(t, 60)
	c := &cutOffLegCase{e: e, rows: e.rowIDs, kind: "ynab", app: feeds.App{Opener: feedynab.New()}}
	c.run(t)
}

func TestFeedPushCutOffAfterDeletingATransferLegPutsTheOtherBackActual(t *testing.T) {
	e := newActualHousehold(t, 60)
	c := &cutOffLegCase{e: e.householdEnv, rows: e.rowIDs, kind: "actual",
		app: feeds.App{Opener: actual.New(actual.Config{Node: e.srv.Node()}), Batch: 2000}}
	c.run(t)
}
