package feeds_test

import (
	"context"
	"errors"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/actual"
	feedynab "github.com/bankmirror/bankmirror/internal/feeds/ynab"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// splittingOpener opens the real app's sessions; the first of them takes
// each transfer between fed accounts as ordinary rows, both legs for one
// transfer and only the first leg for the next, and then dies before the
// mirror records the batch (its Sync fails): what a push killed after the
// app took the legs as rows of their own leaves.
type splittingOpener struct {
	feeds.Opener
	crashes int
	split   int // transfers taken as ordinary rows
}

func (o *splittingOpener) Open(ctx context.Context, t feeds.Target) (feeds.Session, error) {
	s, err := o.Opener.Open(ctx, t)
	if err != nil || o.crashes == 0 {
		return s, err
	}
	o.crashes--
	return &splittingSession{Session: s, o: o}, nil
}

type splittingSession struct {
	feeds.Session
	o *splittingOpener
}

func (s *splittingSession) Create(ctx context.Context, rows []feeds.NewRow) (map[string]string, error) {
	var plain []feeds.NewRow
	for _, r := range rows {
		if r.TransferAccount == "" {
			plain = append(plain, r)
			continue
		}
		s.o.split++
		leg := r
		leg.TransferAccount, leg.TransferImportID, leg.TransferCleared = "", "", false
		plain = append(plain, leg)
		if s.o.split%2 == 1 {
			plain = append(plain, feeds.NewRow{ImportID: r.TransferImportID, Account: r.TransferAccount, Date: r.Date,
				Amount: -r.Amount, Cleared: r.TransferCleared, Payee: r.Payee, Notes: r.Notes})
		}
	}
	return s.Session.Create(ctx, plain)
}

func (s *splittingSession) Sync(ctx context.Context) error {
	if err := s.Session.Sync(ctx); err != nil {
		return err
	}
	return errors.New("killed")
}

// pays adds payments between the partners, so that the household has
// transfers between fed accounts.
func pays(t *testing.T, sim *simulator.Bank, n int) {
	t.Helper()
	for i := range n {
		from, to := "alex", "sam"
		if i%2 == 1 {
			from, to = to, from
		}
		if _, _, err := sim.PayPerson(simulator.Payment{From: from, To: to, AmountBaseUnits: int64(1000 + 100*i), Message: "share"}); err != nil {
			t.Fatal(err)
		}
	}
}

// crashSplitThenPush runs a push through a splittingOpener, then one
// through the real app, and returns the second's report.
func crashSplitThenPush(t *testing.T, e *householdEnv, real feeds.Opener, kind string) feeds.Report {
	t.Helper()
	split := &splittingOpener{Opener: real, crashes: 1}
	e.engine = feeds.NewEngine(e.st, map[string]feeds.App{kind: {Opener: split}}, e.file, e.engine.Dir(""), zerolog.Nop())
	if _, err := e.engine.Push(t.Context(), &e.file.Feeds[0], feeds.PushOptions{}); err == nil {
		t.Fatal("the cut-off push said it succeeded")
	}
	if split.split < 2 {
		t.Fatalf("%d transfers taken as rows of their own: the test tests nothing", split.split)
	}
	return e.push()
}

// A push killed after YNAB took the legs of transfers as rows of their
// own (both legs, or one): the next push adopts them by import id and
// links them as YNAB links transfers, and check finds no transfer split.
func TestFeedLinksTransfersAdoptedAfterACrashYNAB(t *testing.T) {
	e := newHousehold(t, 200)
	pays(t, e.sim, 4)
	e.sync()
	rep := crashSplitThenPush(t, e, feedynab.New(), "ynab")
	if rep.Linked < 4 {
		t.Errorf("the push linked %d transfers, want the 4 payments: %+v", rep.Linked, rep)
	}
	if res := e.exact(); res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
	if again := e.push(); again.Changed() {
		t.Errorf("a push with nothing new changed the app: %+v", again)
	}
}

// The same with the real Actual.
func TestFeedLinksTransfersAdoptedAfterACrashActual(t *testing.T) {
	e := newActualHousehold(t, 100)
	pays(t, e.sim, 4)
	e.sync()
	rep := crashSplitThenPush(t, e.householdEnv, actual.New(actual.Config{Node: e.srv.Node()}), "actual")
	if rep.Linked < 4 {
		t.Errorf("the push linked %d transfers, want the 4 payments: %+v", rep.Linked, rep)
	}
	if res := e.exact(); res.Rows != res.Fed {
		t.Errorf("the app has %d rows for %d fed transactions", res.Rows, res.Fed)
	}
	// Read back through the person's own client: each payment is one
	// transfer, each leg carrying its own bank id.
	e.read()
	linked := 0
	for _, r := range e.rows {
		if r.ImportID == "" {
			t.Errorf("a row without an import id: %+v", r)
			continue
		}
		if r.TransferID != "" {
			linked++
		}
	}
	if linked < 8 {
		t.Errorf("%d linked rows in Actual, want both legs of the 4 payments", linked)
	}
}
