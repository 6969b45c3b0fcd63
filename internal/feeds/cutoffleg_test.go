package feeds_test

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/actual"
	feedynab "github.com/bankmirror/bankmirror/internal/feeds/ynab"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// The push that deletes alex's leg of a transfer (the bank dropped it; the
// app deletes sam's leg with it) is cut off after the app took it, before
// the mirror recorded it. The next push finds alex's row gone, as after
// the person deleted the transfer, but the push had marked sam's leg gone
// with it before deleting: it is put back, and kept exact after.
func TestFeedPushCutOffAfterDeletingATransferLegPutsTheOtherBackYNAB(t *testing.T) {
	e := newHousehold(t, 60)
	e.push()
	out, in, err := e.sim.PayPerson(simulator.Payment{From: "alex", To: "sam", AmountBaseUnits: 2450, Message: "rent", Held: true})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	if len(e.appRows(in)) != 1 {
		t.Fatal("no row of sam's leg: the test tests nothing")
	}
	crash := &crashingOpener{Opener: feedynab.New(), crashes: 1}
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{"ynab": {Opener: crash}}, e.file, e.engine.Dir(""), zerolog.Nop())
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
	if n := len(e.appRows(in)); n != 1 {
		t.Errorf("sam's leg, which the bank still has and nobody deleted, has %d rows in the app, want 1", n)
	}
	e.exact()
	if err := e.sim.Settle(in); err != nil {
		t.Fatal(err)
	}
	e.sync()
	t.Logf("push after the bank settled sam's leg: %+v", e.push())
	if n := len(e.appRows(in)); n != 1 {
		t.Errorf("after the bank settled sam's leg: %d rows in the app, want 1", n)
	}
	e.exact()
}

// TestFeedPushCutOffAfterDeletingATransferLegPutsTheOtherBackYNAB with the
// real Actual.
func TestFeedPushCutOffAfterDeletingATransferLegPutsTheOtherBackActual(t *testing.T) {
	e := newActualHousehold(t, 60)
	e.push()
	out, in, err := e.sim.PayPerson(simulator.Payment{From: "alex", To: "sam", AmountBaseUnits: 2450, Message: "rent", Held: true})
	if err != nil {
		t.Fatal(err)
	}
	e.sync()
	e.push()
	e.read()
	if len(e.appRows(in)) != 1 {
		t.Fatal("no row of sam's leg: the test tests nothing")
	}
	crash := &crashingOpener{Opener: actual.New(actual.Config{Node: e.srv.Node()}), crashes: 1}
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{"actual": {Opener: crash, Batch: 2000}}, e.file, e.engine.Dir(""), zerolog.Nop())
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
	e.read()
	if n := len(e.appRows(in)); n != 1 {
		t.Errorf("sam's leg, which the bank still has and nobody deleted, has %d rows in the app, want 1", n)
	}
	e.exact()
}
