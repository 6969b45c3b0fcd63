package feeds_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/actual"
	"github.com/bankmirror/bankmirror/internal/feeds/actual/actualtest"
	feedynab "github.com/bankmirror/bankmirror/internal/feeds/ynab"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// cuttingOpener opens the real app's sessions and, when armed, cancels
// the push's context at its cut-th call on the session (before or after
// the app handles it): a push interrupted at a random point.
type cuttingOpener struct {
	feeds.Opener
	cut    int // the call to cut at, 0: none
	before bool
	cancel context.CancelFunc
}

func (o *cuttingOpener) Open(ctx context.Context, t feeds.Target) (feeds.Session, error) {
	s, err := o.Opener.Open(ctx, t)
	if err != nil || o.cut == 0 {
		return s, err
	}
	return &cuttingSession{Session: s, o: o}, nil
}

type cuttingSession struct {
	feeds.Session
	o     *cuttingOpener
	calls int
}

// call runs fn, cancelling the push's context before or after it when
// this is the call to cut at.
func (s *cuttingSession) call(fn func() error) error {
	s.calls++
	cut := s.calls == s.o.cut
	if cut && s.o.before {
		s.o.cancel()
	}
	err := fn()
	if cut {
		s.o.cancel()
	}
	return err
}

func (s *cuttingSession) Rows(ctx context.Context, a []string, since string) (rows []feeds.AppRow, err error) {
	err = s.call(func() error { rows, err = s.Session.Rows(ctx, a, since); return err })
	return rows, err
}

func (s *cuttingSession) Create(ctx context.Context, rows []feeds.NewRow) (ids map[string]string, err error) {
	err = s.call(func() error { ids, err = s.Session.Create(ctx, rows); return err })
	return ids, err
}

func (s *cuttingSession) Update(ctx context.Context, f []feeds.Facts) error {
	return s.call(func() error { return s.Session.Update(ctx, f) })
}

func (s *cuttingSession) Delete(ctx context.Context, ids []string) error {
	return s.call(func() error { return s.Session.Delete(ctx, ids) })
}

func (s *cuttingSession) Link(ctx context.Context, l []feeds.Link) (ids map[string]string, err error) {
	err = s.call(func() error { ids, err = s.Session.Link(ctx, l); return err })
	return ids, err
}

func (s *cuttingSession) Sync(ctx context.Context) error {
	return s.call(func() error { return s.Session.Sync(ctx) })
}

// randomApp is one app fed in the randomized test, and what the person
// did in it.
type randomApp struct {
	name    string
	cut     *cuttingOpener
	deleted map[string]bool      // bank ids whose rows the person deleted
	edits   map[string][2]string // bank id -> category name, notes the person set
	edit    func(row store.FeedRow, category, notes string)
	remove  func(row store.FeedRow)
	down    func(bool)
}

// A household's bank history, with faults at the bank, pushes cut off at
// random points, the apps down for a while and the person's edits in
// them, ends exact in both apps once pushes run without faults: no
// finding but the rows the person deleted, and the person's edits kept.
// Seeded: BANKMIRROR_FEEDS_SEED repeats a run; -short runs a few rounds.
// Actual takes part when the real Actual is installed.
func TestFeedRandomized(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("BANKMIRROR_FEEDS_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("BANKMIRROR_FEEDS_SEED: %v", err)
		}
		seed = v
	}
	t.Logf("seed %d (BANKMIRROR_FEEDS_SEED=%d repeats this run)", seed, seed)
	// Actual's sessions take seconds each: in -short it takes part in
	// the last rounds only (its first push then catches up on the rest).
	rounds, actualRounds := 10, 10
	if testing.Short() {
		rounds, actualRounds = 4, 2
	}
	rng := rand.New(rand.NewPCG(seed, seed>>1|1))
	e := newHouseholdSeeded(t, 120, seed%1000+1)
	ctx := t.Context()

	// YNAB's client on a clock of the test's, moved on each round past
	// any wait a 429 asked for.
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	ynabOpener := &cuttingOpener{Opener: feedynab.New(feedynab.WithClock(now), feedynab.WithLimit(1_000_000))}
	apps := map[string]feeds.App{"ynab": {Opener: ynabOpener, Batch: 40}}
	ynabApp := &randomApp{name: "ynab", cut: ynabOpener, deleted: map[string]bool{}, edits: map[string][2]string{},
		edit: func(r store.FeedRow, category, notes string) {
			if err := e.ynab.PersonEdit(e.plan.ID, r.AppID, category, notes); err != nil {
				t.Fatal(err)
			}
		},
		remove: func(r store.FeedRow) {
			if err := e.ynab.PersonDelete(e.plan.ID, r.AppID); err != nil {
				t.Fatal(err)
			}
		},
	}
	// Down: answering 503 to everything, or 429 (a spent request budget).
	ynabApp.down = func(down bool) {
		switch {
		case !down:
			e.ynab.SetDown(false)
			e.ynab.SetLimit(-1)
		case rng.IntN(2) == 0:
			e.ynab.SetDown(true)
		default:
			e.ynab.SetLimit(1)
		}
	}
	list := []*randomApp{ynabApp}
	text := fmt.Sprintf(`[[feed]]
name = "ynab"
kind = "ynab"
url = %q
budget = "Household"
%s`, e.file.Feeds[0].URL, feedAccounts(e))
	var srv *actualtest.Server
	var budget actualtest.Budget
	if os.Getenv("BANKMIRROR_TEST_ACTUAL_DIR") != "" {
		srv = actualtest.Launch(t)
		budget = srv.Budget(t, "Household", "Alex Spending", "Alex Saver", "Sam Spending", "Joint", "Cash")
		actualOpener := &cuttingOpener{Opener: actual.New(actual.Config{Node: srv.Node()})}
		apps["actual"] = feeds.App{Opener: actualOpener}
		list = append(list, &randomApp{name: "actual", cut: actualOpener, deleted: map[string]bool{}, edits: map[string][2]string{},
			edit: func(r store.FeedRow, category, notes string) {
				srv.SetCategory(t, budget.SyncID, r.TransactionID, category, notes)
			},
			remove: func(r store.FeedRow) { srv.Delete(t, budget.SyncID, r.TransactionID) },
			down: func(down bool) {
				if down {
					srv.Down(t)
				} else {
					srv.Up(t)
				}
			},
		})
		text += fmt.Sprintf(`
[[feed]]
name = "actual"
kind = "actual"
url = %q
budget = %q
%s`, srv.URL, budget.SyncID, feedAccounts(e))
	} else {
		t.Log("the real Actual is not installed: YNAB only")
	}
	file, err := feeds.Parse(filepath.Join(t.TempDir(), "feeds.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	file.Feeds[0].Secret = e.ynab.Token()
	dir := t.TempDir()
	if srv != nil {
		file.Feeds[1].Secret = actualtest.Password
		srv.FeedDir(t, filepath.Join(dir, "actual"))
	}
	e.file = file
	e.engine = feeds.NewEngine(e.st, apps, file, dir, zerolog.Nop())
	feedOf := func(a *randomApp) *feeds.Feed {
		for i := range file.Feeds {
			if file.Feeds[i].Name == a.name {
				return &file.Feeds[i]
			}
		}
		t.Fatalf("no feed %s", a.name)
		return nil
	}
	push := func(a *randomApp) error {
		_, err := e.engine.Push(ctx, feedOf(a), feeds.PushOptions{})
		return err
	}

	var holds []string
	people := []string{"alex", "sam"}
	accountOf := map[string][]string{"alex": {e.ids["alex/Spending"], e.ids["2Up Spending"]},
		"sam": {e.ids["sam/Spending"], e.ids["2Up Spending"]}}
	for round := range rounds {
		clock.Add(int64(2 * time.Hour))
		// The bank: purchases (some held), holds settled (at another
		// amount, or as a new transaction) or dropped, partner payments.
		for range 4 + rng.IntN(6) {
			switch k := rng.IntN(10); {
			case k < 4:
				who := people[rng.IntN(2)]
				held := rng.IntN(2) == 0
				id, err := e.sim.PurchaseAs(who, accountOf[who][rng.IntN(2)], simulator.NewTransaction{
					Description: fmt.Sprintf("Shop %d", rng.IntN(50)), AmountBaseUnits: -int64(100 + rng.IntN(20000)), Held: held})
				if err != nil {
					t.Fatal(err)
				}
				if held {
					holds = append(holds, id)
				}
			case k < 7 && len(holds) > 0:
				i := rng.IntN(len(holds))
				id := holds[i]
				holds = append(holds[:i], holds[i+1:]...)
				switch rng.IntN(4) {
				case 0:
					err = e.sim.Settle(id)
				case 1:
					err = e.sim.SettleAt(id, -int64(100+rng.IntN(20000)))
				case 2:
					_, err = e.sim.SettleAsReplacement(id)
				default:
					err = e.sim.Delete(id)
				}
				if err != nil {
					t.Fatal(err)
				}
			default:
				from := people[rng.IntN(2)]
				to := people[1-slices.Index(people, from)]
				if _, _, err := e.sim.PayPerson(simulator.Payment{From: from, To: to, AmountBaseUnits: int64(100 + rng.IntN(9000)), Message: "share"}); err != nil {
					t.Fatal(err)
				}
			}
		}
		// The mirror follows, through the bank's faults at times.
		if rng.IntN(3) == 0 {
			e.sim.SetFaults(simulator.Faults{ErrorRate: 0.3})
			_, _ = e.h.Full(ctx)
			e.sim.SetFaults(simulator.Faults{})
		}
		e.sync()

		for _, a := range list {
			if a.name == "actual" && round < rounds-actualRounds {
				continue
			}
			// A push cut off at a random point.
			if rng.IntN(2) == 0 {
				cctx, cancel := context.WithCancel(ctx)
				a.cut.cut, a.cut.before, a.cut.cancel = 1+rng.IntN(6), rng.IntN(2) == 0, cancel
				_, _ = e.engine.Push(cctx, feedOf(a), feeds.PushOptions{})
				cancel()
				a.cut.cut = 0
			}
			// The app down for a while: a push fails, and says so.
			if rng.IntN(3) == 0 {
				st, err := e.st.FeedStatuses(ctx, []string{a.name})
				if err != nil {
					t.Fatal(err)
				}
				last, err := e.st.LastHistorySeq(ctx)
				if err != nil {
					t.Fatal(err)
				}
				a.down(true)
				if err := push(a); err == nil && (st[0].Cursor < last || st[0].Pending > 0) {
					t.Errorf("round %d: a push to %s while it was down succeeded", round, a.name)
				}
				a.down(false)
				clock.Add(int64(2 * time.Hour)) // past the wait a 429 asked for
			}
			if rng.IntN(3) > 0 {
				if err := push(a); err != nil {
					t.Fatalf("round %d: push %s: %v", round, a.name, err)
				}
			}
			// The person, in the app: a category and notes, or a row
			// deleted (not a transfer's leg, which takes its other leg).
			if rng.IntN(2) == 0 {
				rows, err := e.st.FeedRows(ctx, a.name, nil)
				if err != nil {
					t.Fatal(err)
				}
				txs, err := e.st.FeedTransactions(ctx, keysOf(rows))
				if err != nil {
					t.Fatal(err)
				}
				var cands []store.FeedRow
				for _, tx := range txs {
					if r := rows[tx.ID]; r.State == store.FeedPushed && tx.OtherID == "" && r.TransferID == "" && !a.deleted[tx.ID] {
						cands = append(cands, r)
					}
				}
				if len(cands) > 0 {
					r := cands[rng.IntN(len(cands))]
					if rng.IntN(4) == 0 {
						a.remove(r)
						a.deleted[r.TransactionID] = true
						delete(a.edits, r.TransactionID)
					} else {
						notes := fmt.Sprintf("the person's note %d", round)
						a.edit(r, "Eating out", notes)
						a.edits[r.TransactionID] = [2]string{"Eating out", notes}
					}
				}
			}
		}
	}

	// Without faults, a push and each app is exact but for the person's
	// deletions, with the person's edits kept.
	e.sync()
	for _, a := range list {
		if err := push(a); err != nil {
			t.Fatalf("last push %s: %v", a.name, err)
		}
		res, err := e.engine.Check(ctx, feedOf(a))
		if err != nil {
			t.Fatalf("check %s: %v", a.name, err)
		}
		for _, f := range res.Findings {
			if f.Kind != feeds.DeletedInApp || !a.deleted[f.TransactionID] {
				t.Errorf("%s: %s %s %s", a.name, f.Kind, f.TransactionID, f.Detail)
			}
		}
		t.Logf("%s: %d rows for %d fed transactions; the person deleted %d and edited %d", a.name, res.Rows, res.Fed,
			len(a.deleted), len(a.edits))
	}
	rows, err := e.st.FeedRows(ctx, "ynab", nil)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{} // app id -> bank id
	for id, r := range rows {
		byID[r.AppID] = id
	}
	for _, x := range e.ynab.Transactions(e.plan.ID) {
		bank := byID[x.ID]
		if x.Deleted || bank == "" {
			continue
		}
		if ynabApp.deleted[bank] {
			t.Errorf("ynab: the row the person deleted is back: %s", bank)
		}
		if want, ok := ynabApp.edits[bank]; ok && (x.Category != want[0] || x.Memo != want[1]) {
			t.Errorf("ynab: the person's edit of %s was not kept: %+v", bank, x)
		}
	}
	if srv != nil {
		a := list[1]
		for _, r := range srv.Rows(t, budget.SyncID) {
			if a.deleted[r.ImportID] {
				t.Errorf("actual: the row the person deleted is back: %s", r.ImportID)
			}
			if want, ok := a.edits[r.ImportID]; ok && (r.Category != want[0] || r.Notes != want[1]) {
				t.Errorf("actual: the person's edit of %s was not kept: %+v", r.ImportID, r)
			}
		}
	}
}

// feedAccounts is the [feed.accounts] table of the household's feeds.
func feedAccounts(e *householdEnv) string {
	saver := ""
	for _, k := range keysOf(e.ids) {
		if strings.HasPrefix(k, "alex/") && k != "alex/Spending" && saver == "" {
			saver = k
		}
	}
	return fmt.Sprintf(`[feed.accounts]
"alex/Spending" = "Alex Spending"
%q = "Alex Saver"
"sam/Spending" = "Sam Spending"
"2Up Spending" = "Joint"
`, saver)
}

func keysOf[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
