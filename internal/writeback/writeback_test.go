package writeback_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/writeback"
)

// frozen is the simulator's clock: its rate-limit bucket never rolls over
// during a test.
var frozen = time.Date(2024, 3, 3, 9, 30, 0, 0, time.UTC)

type env struct {
	sim     *simulator.Bank
	baseURL string
	client  *bank.Client
	store   *store.Store
	w       *writeback.Writer
}

// newEnv is a simulated bank of n transactions and a fully synced mirror.
func newEnv(t *testing.T, n int, opts ...bank.Option) *env {
	t.Helper()
	sim := simulator.New(simulator.Options{Seed: 11, Transactions: n, Token: "test-token",
		Now: func() time.Time { return frozen }, RateLimit: simulator.RateLimit{Limit: 1_000_000}})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	base := srv.URL + "/api/v1"
	opts = append([]bank.Option{bank.WithBackoff(time.Millisecond, 4*time.Millisecond),
		bank.WithRateLimitBackoff(time.Millisecond, 4*time.Millisecond)}, opts...)
	client := bank.New(base, sim.Token(), opts...)
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := replica.New(client, st, zerolog.Nop(), replica.Options{}).Full(context.Background()); err != nil {
		t.Fatalf("full sync: %v", err)
	}
	return &env{sim: sim, baseURL: base, client: client, store: st, w: writeback.New(client, st, zerolog.Nop())}
}

func (e *env) run(t *testing.T, op writeback.Op, rows ...writeback.Row) (writeback.Report, error) {
	t.Helper()
	return e.w.Run(context.Background(), op, rows, writeback.Options{})
}

// bankTx is the bank's own state of a transaction.
func (e *env) bankTx(t *testing.T, id string) simulator.Transaction {
	t.Helper()
	for _, tx := range e.sim.Snapshot().Transactions {
		if tx.ID == id {
			return tx
		}
	}
	t.Fatalf("transaction %s not at the bank", id)
	return simulator.Transaction{}
}

func (e *env) mirrorCategory(t *testing.T, id string) string {
	t.Helper()
	return strings.Join(mirrortest.Strings(t, e.store.Reader(), "SELECT coalesce(category_id, '') FROM transactions WHERE id = ?", id), "")
}

func (e *env) mirrorTags(t *testing.T, id string) []string {
	t.Helper()
	return mirrortest.Strings(t, e.store.Reader(), "SELECT tag_id FROM transaction_tags WHERE transaction_id = ? ORDER BY tag_id", id)
}

// history is the transaction's history: each change and the previous
// version's raw JSON.
func (e *env) history(t *testing.T, id string) (changes []string, raws []string) {
	t.Helper()
	rows, err := e.store.Reader().Query("SELECT change, coalesce(raw, '') FROM transaction_history WHERE transaction_id = ? ORDER BY seq", id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var c, r string
		if err := rows.Scan(&c, &r); err != nil {
			t.Fatal(err)
		}
		changes, raws = append(changes, c), append(raws, r)
	}
	return changes, raws
}

// state fingerprints the whole mirror's transactions and history, to
// prove that nothing changed.
func (e *env) state(t *testing.T) string {
	t.Helper()
	return strings.Join(mirrortest.Strings(t, e.store.Reader(), `SELECT count(*) || ':' || coalesce(max(seq), 0) FROM transaction_history
		UNION ALL SELECT group_concat(id || category_id, ',') FROM (SELECT id, coalesce(category_id, '') AS category_id FROM transactions ORDER BY id)
		UNION ALL SELECT group_concat(transaction_id || '/' || tag_id, ',') FROM (SELECT * FROM transaction_tags ORDER BY 1, 2)
		UNION ALL SELECT group_concat(updated_at, ',') FROM (SELECT updated_at FROM transactions ORDER BY id)`), "\n")
}

// pick returns the first transaction at the bank that ok accepts.
func (e *env) pick(t *testing.T, ok func(simulator.Transaction) bool) simulator.Transaction {
	t.Helper()
	for _, tx := range e.sim.Snapshot().Transactions {
		if ok(tx) {
			return tx
		}
	}
	t.Fatal("no such transaction in the simulated bank")
	return simulator.Transaction{}
}

func categorizable(tx simulator.Transaction) bool { return tx.IsCategorizable && tx.CategoryID != "" }

// otherChild is a child category other than c.
func (e *env) otherChild(t *testing.T, c string) string {
	t.Helper()
	for _, cat := range e.sim.Snapshot().Categories {
		if cat.ParentID != "" && cat.ID != c {
			return cat.ID
		}
	}
	t.Fatal("no child category")
	return ""
}

func categoryInRaw(t *testing.T, raw string) string {
	t.Helper()
	tx, err := bank.ParseTransaction([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if tx.CategoryID == nil {
		return ""
	}
	return *tx.CategoryID
}

func TestCategorizeSetsBankAndMirror(t *testing.T) {
	e := newEnv(t, 300)
	tx := e.pick(t, categorizable)
	want := e.otherChild(t, tx.CategoryID)

	before := e.sim.Requests()
	rep, err := e.run(t, writeback.Categorize, writeback.Row{TxID: tx.ID, Value: want})
	if err != nil || !rep.OK() || rep.Count(writeback.Applied) != 1 {
		t.Fatalf("run: %v %+v", err, rep)
	}
	if n := e.sim.Requests() - before; n != 2 {
		t.Errorf("%d requests, want 2 (PATCH and the refetch)", n)
	}
	if got := e.bankTx(t, tx.ID).CategoryID; got != want {
		t.Errorf("bank category = %q, want %q", got, want)
	}
	if got := e.mirrorCategory(t, tx.ID); got != want {
		t.Errorf("mirror category = %q, want %q", got, want)
	}
	changes, raws := e.history(t, tx.ID)
	if !slices.Equal(changes, []string{"created", "updated"}) {
		t.Fatalf("history = %v", changes)
	}
	if got := categoryInRaw(t, raws[1]); got != tx.CategoryID {
		t.Errorf("history keeps category %q as the previous version, want %q", got, tx.CategoryID)
	}
	mirrortest.AssertEqualsTruth(t, e.sim, e.store.Reader(), e.baseURL)

	// Again: already so, no request.
	before = e.sim.Requests()
	rep, err = e.run(t, writeback.Categorize, writeback.Row{TxID: tx.ID, Value: want})
	if err != nil || len(rep.Unchanged) != 1 || len(rep.Results) != 0 {
		t.Fatalf("rerun: %v %+v", err, rep)
	}
	if n := e.sim.Requests() - before; n != 0 {
		t.Errorf("rerun made %d requests", n)
	}

	// none (in any case) removes it.
	rep, err = e.run(t, writeback.Categorize, writeback.Row{TxID: tx.ID, Value: "None"})
	if err != nil || !rep.OK() || rep.Count(writeback.Applied) != 1 {
		t.Fatalf("none: %v %+v", err, rep)
	}
	if got := e.bankTx(t, tx.ID).CategoryID; got != "" {
		t.Errorf("bank category after none = %q", got)
	}
	if got := e.mirrorCategory(t, tx.ID); got != "" {
		t.Errorf("mirror category after none = %q", got)
	}
	changes, raws = e.history(t, tx.ID)
	if !slices.Equal(changes, []string{"created", "updated", "updated"}) || categoryInRaw(t, raws[2]) != want {
		t.Errorf("history after none = %v", changes)
	}
	mirrortest.AssertEqualsTruth(t, e.sim, e.store.Reader(), e.baseURL)
}

func TestTagAddRemoveBothSides(t *testing.T) {
	e := newEnv(t, 300)
	tx := e.pick(t, func(tx simulator.Transaction) bool { return len(tx.Tags) == 1 })
	old := tx.Tags[0]

	rows := []writeback.Row{{TxID: tx.ID, Value: "Holiday, 2025"}, {TxID: tx.ID, Value: "Ünïcode 🏖"}, {TxID: tx.ID, Value: old}}
	before := e.sim.Requests()
	rep, err := e.run(t, writeback.AddTags, rows...)
	if err != nil || !rep.OK() || len(rep.Results) != 1 {
		t.Fatalf("add: %v %+v", err, rep)
	}
	if got := rep.Results[0].Labels; !slices.Equal(got, []string{"Holiday, 2025", "Ünïcode 🏖"}) {
		t.Errorf("sent labels %q: a tag it already has need not be sent", got)
	}
	if n := e.sim.Requests() - before; n != 2 {
		t.Errorf("%d requests, want 2 (one POST, one refetch)", n)
	}
	want := slices.Sorted(slices.Values([]string{old, "Holiday, 2025", "Ünïcode 🏖"}))
	if got := slices.Sorted(slices.Values(e.bankTx(t, tx.ID).Tags)); !slices.Equal(got, want) {
		t.Errorf("bank tags = %q, want %q", got, want)
	}
	if got := e.mirrorTags(t, tx.ID); !slices.Equal(got, want) {
		t.Errorf("mirror tags = %q, want %q", got, want)
	}
	if n := mirrortest.Int(t, e.store.Reader(), "SELECT count(*) FROM tags WHERE id = 'Holiday, 2025'"); n != 1 {
		t.Error("new tag not in the tags table")
	}

	rep, err = e.run(t, writeback.RemoveTags, writeback.Row{TxID: tx.ID, Value: old}, writeback.Row{TxID: tx.ID, Value: "not there"})
	if err != nil || !rep.OK() || len(rep.Results) != 1 || !slices.Equal(rep.Results[0].Labels, []string{old}) {
		t.Fatalf("remove: %v %+v", err, rep)
	}
	want = []string{"Holiday, 2025", "Ünïcode 🏖"}
	if got := slices.Sorted(slices.Values(e.bankTx(t, tx.ID).Tags)); !slices.Equal(got, want) {
		t.Errorf("bank tags after remove = %q", got)
	}
	if got := e.mirrorTags(t, tx.ID); !slices.Equal(got, want) {
		t.Errorf("mirror tags after remove = %q", got)
	}
	changes, raws := e.history(t, tx.ID)
	if !slices.Equal(changes, []string{"created", "updated", "updated"}) {
		t.Fatalf("history = %v", changes)
	}
	prev, err := bank.ParseTransaction([]byte(raws[2]))
	if err != nil || !slices.Contains(prev.TagIDs, old) {
		t.Errorf("history's previous version should still carry %q: %v %v", old, prev.TagIDs, err)
	}

	// Removing what is not there: no request.
	before = e.sim.Requests()
	rep, err = e.run(t, writeback.RemoveTags, writeback.Row{TxID: tx.ID, Value: old})
	if err != nil || len(rep.Unchanged) != 1 || e.sim.Requests() != before {
		t.Errorf("remove again: %v %+v, %d requests", err, rep, e.sim.Requests()-before)
	}
	mirrortest.AssertEqualsTruth(t, e.sim, e.store.Reader(), e.baseURL)
}

// TestRemoveALongLabelTheBankHas: the label checks guard what is added; a
// label the transaction carries can always be removed.
func TestRemoveALongLabelTheBankHas(t *testing.T) {
	e := newEnv(t, 300)
	tx := e.pick(t, func(tx simulator.Transaction) bool { return len(tx.Tags) == 0 && tx.Status == "SETTLED" })
	long := strings.Repeat("x", writeback.MaxLabelLength+10) + " "
	if err := e.sim.SetTags(tx.ID, []string{long}); err != nil {
		t.Fatal(err)
	}
	if _, err := replica.New(e.client, e.store, zerolog.Nop(), replica.Options{}).Full(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(t, writeback.AddTags, writeback.Row{TxID: tx.ID, Value: long}); !errors.Is(err, writeback.ErrInvalid) {
		t.Errorf("adding a long label: %v", err)
	}
	rep, err := e.run(t, writeback.RemoveTags, writeback.Row{TxID: tx.ID, Value: long})
	if err != nil || !rep.OK() || rep.Count(writeback.Applied) != 1 {
		t.Fatalf("remove: %v %+v", err, rep)
	}
	if got := e.bankTx(t, tx.ID).Tags; len(got) != 0 {
		t.Errorf("bank tags = %q", got)
	}
	if got := e.mirrorTags(t, tx.ID); len(got) != 0 {
		t.Errorf("mirror tags = %q", got)
	}
}

// TestRefusalsSendNothing: what the mirror knows to be invalid is refused
// before any request and changes nothing.
func TestRefusalsSendNothing(t *testing.T) {
	e := newEnv(t, 300)
	tx := e.pick(t, categorizable)
	transfer := e.pick(t, func(tx simulator.Transaction) bool { return !tx.IsCategorizable })
	six := e.pick(t, func(tx simulator.Transaction) bool { return len(tx.Tags) == writeback.MaxTags })
	five := e.pick(t, func(tx simulator.Transaction) bool { return len(tx.Tags) == 0 })

	cases := []struct {
		name string
		op   writeback.Op
		rows []writeback.Row
		want string
	}{
		{"unknown transaction", writeback.Categorize, []writeback.Row{{TxID: "no-such-tx", Value: "groceries"}}, "not in the mirror"},
		{"unknown transaction tag", writeback.AddTags, []writeback.Row{{TxID: "no-such-tx", Value: "x"}}, "not in the mirror"},
		{"parent category", writeback.Categorize, []writeback.Row{{TxID: tx.ID, Value: "good-life"}}, "parent category"},
		{"unknown category", writeback.Categorize, []writeback.Row{{TxID: tx.ID, Value: "no-such-category"}}, "unknown category"},
		{"empty category", writeback.Categorize, []writeback.Row{{TxID: tx.ID, Value: ""}}, "empty category"},
		{"not categorizable", writeback.Categorize, []writeback.Row{{TxID: transfer.ID, Value: "groceries"}}, "not categorizable"},
		{"not categorizable none", writeback.Categorize, []writeback.Row{{TxID: transfer.ID, Value: "none"}}, "not categorizable"},
		{"seventh tag", writeback.AddTags, []writeback.Row{{TxID: six.ID, Value: "seventh"}}, "7th tag"},
		{"seventh tag in one go", writeback.AddTags, []writeback.Row{
			{TxID: five.ID, Value: "1"}, {TxID: five.ID, Value: "2"}, {TxID: five.ID, Value: "3"}, {TxID: five.ID, Value: "4"},
			{TxID: five.ID, Value: "5"}, {TxID: five.ID, Value: "6"}, {TxID: five.ID, Value: "7"}}, "7th tag"},
		{"empty label", writeback.AddTags, []writeback.Row{{TxID: tx.ID, Value: ""}}, "empty tag label"},
		{"long label", writeback.AddTags, []writeback.Row{{TxID: tx.ID, Value: strings.Repeat("é", writeback.MaxLabelLength+1)}}, "at most 64"},
		{"control character", writeback.AddTags, []writeback.Row{{TxID: tx.ID, Value: "a\nb"}}, "control character"},
		{"surrounding space", writeback.AddTags, []writeback.Row{{TxID: tx.ID, Value: " a"}}, "space"},
		{"empty label to remove", writeback.RemoveTags, []writeback.Row{{TxID: tx.ID, Value: ""}}, "empty tag label"},
		{"invalid utf-8", writeback.AddTags, []writeback.Row{{TxID: tx.ID, Value: "a\xffb"}}, "UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			state, reqs := e.state(t), e.sim.Requests()
			rep, err := e.run(t, c.op, c.rows...)
			if !errors.Is(err, writeback.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if len(rep.Invalid) != 1 || !strings.Contains(rep.Invalid[0].Reason, c.want) {
				t.Errorf("invalid = %+v, want one saying %q", rep.Invalid, c.want)
			}
			if n := e.sim.Requests() - reqs; n != 0 {
				t.Errorf("%d requests sent", n)
			}
			if e.state(t) != state {
				t.Error("the mirror changed")
			}
		})
	}
	if got := e.bankTx(t, six.ID).Tags; len(got) != writeback.MaxTags {
		t.Errorf("bank tags changed: %q", got)
	}
	mirrortest.AssertEqualsTruth(t, e.sim, e.store.Reader(), e.baseURL)
}

// TestBankRefusalChangesNothing: when the mirror is behind the bank and the
// bank refuses, its detail is reported and the mirror is left alone.
func TestBankRefusalChangesNothing(t *testing.T) {
	e := newEnv(t, 300)
	tx := e.pick(t, func(tx simulator.Transaction) bool { return len(tx.Tags) == 0 && tx.Status == "SETTLED" })
	// The bank gets six tags silently; the mirror still has none.
	if err := e.sim.SetTags(tx.ID, []string{"a", "b", "c", "d", "e", "f"}); err != nil {
		t.Fatal(err)
	}
	held := e.pick(t, func(tx simulator.Transaction) bool { return tx.Status == "HELD" && tx.IsCategorizable })
	if err := e.sim.DeleteWithoutEvent(held.ID); err != nil {
		t.Fatal(err)
	}

	state, reqs := e.state(t), e.sim.Requests()
	rep, err := e.run(t, writeback.AddTags, writeback.Row{TxID: tx.ID, Value: "g"})
	if err != nil || rep.Count(writeback.Refused) != 1 || rep.OK() {
		t.Fatalf("add a 7th tag the mirror does not know of: %v %+v", err, rep)
	}
	if d := writeback.BankDetail(rep.Results[0].Err); !strings.Contains(d, "422") || !strings.Contains(d, "at most 6 tags") {
		t.Errorf("bank detail = %q", d)
	}
	rep, err = e.run(t, writeback.Categorize, writeback.Row{TxID: held.ID, Value: e.otherChild(t, held.CategoryID)})
	if err != nil || rep.Count(writeback.Refused) != 1 {
		t.Fatalf("categorize a transaction the bank deleted: %v %+v", err, rep)
	}
	if d := writeback.BankDetail(rep.Results[0].Err); !strings.Contains(d, "404") {
		t.Errorf("bank detail = %q", d)
	}
	if n := e.sim.Requests() - reqs; n != 2 {
		t.Errorf("%d requests, want the 2 refused writes and no refetch", n)
	}
	if e.state(t) != state {
		t.Error("the mirror changed after refusals")
	}
}

// TestBatchRecategorises150 applies 150 changes in order, each mirrored at
// once, two requests each; a rerun sends nothing.
func TestBatchRecategorises150(t *testing.T) {
	e := newEnv(t, 600)
	var children []string
	for _, c := range e.sim.Snapshot().Categories {
		if c.ParentID != "" {
			children = append(children, c.ID)
		}
	}
	var rows []writeback.Row
	want := map[string]string{}
	for i, tx := range e.sim.Snapshot().Transactions {
		if !tx.IsCategorizable || len(rows) == 150 {
			continue
		}
		c := children[i%len(children)]
		if c == tx.CategoryID {
			c = children[(i+1)%len(children)]
		}
		rows = append(rows, writeback.Row{Line: len(rows) + 1, TxID: tx.ID, Value: c})
		want[tx.ID] = c
	}
	if len(rows) != 150 {
		t.Fatalf("only %d categorizable transactions", len(rows))
	}
	hist := mirrortest.Int(t, e.store.Reader(), "SELECT count(*) FROM transaction_history WHERE change = 'updated'")
	reqs := e.sim.Requests()
	var progress []int
	rep, err := e.w.Run(context.Background(), writeback.Categorize, rows, writeback.Options{
		Progress: func(done, total int, r writeback.Result) {
			if total != 150 || r.Status != writeback.Applied {
				t.Errorf("progress %d/%d: %v %v", done, total, r.Status, r.Err)
			}
			progress = append(progress, done)
		}})
	if err != nil || !rep.OK() || rep.Count(writeback.Applied) != 150 {
		t.Fatalf("batch: %v applied %d", err, rep.Count(writeback.Applied))
	}
	if len(progress) != 150 || progress[149] != 150 {
		t.Errorf("progress reported %d times", len(progress))
	}
	if n := e.sim.Requests() - reqs; n != 300 {
		t.Errorf("%d requests, want 300", n)
	}
	if n := mirrortest.Int(t, e.store.Reader(), "SELECT count(*) FROM transaction_history WHERE change = 'updated'") - hist; n != 150 {
		t.Errorf("%d updated history rows, want 150", n)
	}
	for _, tx := range e.sim.Snapshot().Transactions {
		if c, ok := want[tx.ID]; ok && tx.CategoryID != c {
			t.Errorf("bank: %s has %q, want %q", tx.ID, tx.CategoryID, c)
		}
	}
	mirrortest.AssertEqualsTruth(t, e.sim, e.store.Reader(), e.baseURL)

	reqs = e.sim.Requests()
	rep, err = e.w.Run(context.Background(), writeback.Categorize, rows, writeback.Options{})
	if err != nil || len(rep.Unchanged) != 150 || len(rep.Results) != 0 || e.sim.Requests() != reqs {
		t.Errorf("rerun: %v, %d unchanged, %d results, %d requests", err, len(rep.Unchanged), len(rep.Results), e.sim.Requests()-reqs)
	}
}

func TestBatchWithABadRowDoesNothing(t *testing.T) {
	e := newEnv(t, 300)
	a := e.pick(t, categorizable)
	b := e.pick(t, func(tx simulator.Transaction) bool { return categorizable(tx) && tx.ID != a.ID })
	rows := []writeback.Row{
		{Line: 2, TxID: a.ID, Value: e.otherChild(t, a.CategoryID)},
		{Line: 3, TxID: "no-such-tx", Value: "groceries"},
		{Line: 4, TxID: b.ID, Value: "good-life"},
	}
	state, reqs := e.state(t), e.sim.Requests()
	rep, err := e.run(t, writeback.Categorize, rows...)
	if !errors.Is(err, writeback.ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
	var lines []int
	for _, v := range rep.Invalid {
		lines = append(lines, v.Line)
	}
	if !slices.Equal(lines, []int{3, 4}) || !strings.HasPrefix(rep.Invalid[0].Error(), "line 3: ") {
		t.Errorf("invalid = %+v", rep.Invalid)
	}
	if e.sim.Requests() != reqs || e.state(t) != state || e.bankTx(t, a.ID).CategoryID != a.CategoryID {
		t.Error("a batch with bad rows changed something")
	}

	// --skip-invalid applies the good row only.
	rep, err = e.w.Run(context.Background(), writeback.Categorize, rows, writeback.Options{SkipInvalid: true})
	if err != nil || rep.Count(writeback.Applied) != 1 || len(rep.Invalid) != 2 || rep.OK() {
		t.Fatalf("skip invalid: %v %+v", err, rep)
	}
	if got := e.bankTx(t, a.ID).CategoryID; got != rows[0].Value {
		t.Errorf("bank category = %q", got)
	}
}

func TestBatchConflictingCategoriesRefused(t *testing.T) {
	e := newEnv(t, 300)
	a := e.pick(t, categorizable)
	c1 := e.otherChild(t, a.CategoryID)
	rows := []writeback.Row{{Line: 1, TxID: a.ID, Value: c1}, {Line: 2, TxID: a.ID, Value: c1}, {Line: 5, TxID: a.ID, Value: writeback.None}}
	rep, err := e.w.Run(context.Background(), writeback.Categorize, rows, writeback.Options{SkipInvalid: true})
	if err != nil || len(rep.Invalid) != 3 || len(rep.Results) != 0 {
		t.Fatalf("%v %+v", err, rep)
	}
	if !strings.Contains(rep.Invalid[0].Reason, "different categories") || !strings.Contains(rep.Invalid[0].Reason, "line 5") {
		t.Errorf("reason = %q", rep.Invalid[0].Reason)
	}
	// The same category twice is one change.
	rep, err = e.run(t, writeback.Categorize, rows[:2]...)
	if err != nil || len(rep.Results) != 1 || !slices.Equal(rep.Results[0].Lines, []int{1, 2}) {
		t.Fatalf("duplicate rows: %v %+v", err, rep)
	}
}

// TestTagBatchOneRequestPerTransaction: several rows of one transaction
// make one POST.
func TestTagBatchOneRequestPerTransaction(t *testing.T) {
	e := newEnv(t, 300)
	var rows []writeback.Row
	var ids []string
	for _, tx := range e.sim.Snapshot().Transactions {
		if len(tx.Tags) == 0 && len(ids) < 3 {
			ids = append(ids, tx.ID)
		}
	}
	for i, l := range []string{"trip", "work", "shared"} {
		for _, id := range ids {
			rows = append(rows, writeback.Row{Line: len(rows) + 1, TxID: id, Value: fmt.Sprint(l, i)})
		}
	}
	before := posts(e.sim)
	rep, err := e.run(t, writeback.AddTags, rows...)
	if err != nil || !rep.OK() || len(rep.Results) != 3 {
		t.Fatalf("%v %+v", err, rep)
	}
	if n := posts(e.sim) - before; n != 3 {
		t.Errorf("%d POSTs, want 3", n)
	}
	for _, id := range ids {
		if got := e.bankTx(t, id).Tags; len(got) != 3 {
			t.Errorf("%s: bank tags %q", id, got)
		}
	}
	mirrortest.AssertEqualsTruth(t, e.sim, e.store.Reader(), e.baseURL)
}

func posts(sim *simulator.Bank) int64 {
	var n int64
	for _, c := range sim.RequestCounts() {
		if c.Method == "POST" && strings.HasSuffix(c.Route, "/relationships/tags") {
			n += c.Count
		}
	}
	return n
}

// TestBankFailureStopsTheBatch: when the bank fails (not a refusal), the
// rest of the batch is not attempted.
func TestBankFailureStopsTheBatch(t *testing.T) {
	e := newEnv(t, 300, bank.WithMaxAttempts(1))
	var rows []writeback.Row
	for _, tx := range e.sim.Snapshot().Transactions {
		if categorizable(tx) && len(rows) < 3 {
			rows = append(rows, writeback.Row{Line: len(rows) + 1, TxID: tx.ID, Value: e.otherChild(t, tx.CategoryID)})
		}
	}
	state := e.state(t)
	e.sim.SetFaults(simulator.Faults{Rate503: 1})
	reqs := e.sim.Requests()
	rep, err := e.run(t, writeback.Categorize, rows...)
	if err != nil || rep.Count(writeback.Failed) != 1 || rep.Count(writeback.NotAttempted) != 2 || rep.OK() {
		t.Fatalf("%v %+v", err, rep)
	}
	if n := e.sim.Requests() - reqs; n != 1 {
		t.Errorf("%d requests after the bank failed", n)
	}
	if e.state(t) != state {
		t.Error("the mirror changed")
	}
}

// TestSingleChangeMayUseTheReserve: with the bank's budget down to the
// reserve, a single change (a person waiting) still goes through, while a
// batch waits for the next bucket rather than spend the webhook reserve.
func TestSingleChangeMayUseTheReserve(t *testing.T) {
	e := newEnv(t, 300)
	// Leave 40 requests in this bucket: below the reserve of 50.
	e.sim.SetRateLimit(simulator.RateLimit{Limit: int(e.sim.Requests()) + 40})
	waiting := make(chan bank.BudgetState, 1)
	// A fresh client, as a command has; it learns the budget from its
	// first answer. Probes of a spent budget wait an hour: none is sent
	// during the test.
	client := bank.New(e.baseURL, e.sim.Token(), bank.WithReserve(50), bank.WithRateLimitBackoff(time.Hour, time.Hour),
		bank.WithBudgetObserver(func(s bank.BudgetState) {
			if s.Waiting {
				select {
				case waiting <- s:
				default:
				}
			}
		}))
	w := writeback.New(client, e.store, zerolog.Nop())
	var rows []writeback.Row
	for _, tx := range e.sim.Snapshot().Transactions {
		if categorizable(tx) && len(rows) < 3 {
			rows = append(rows, writeback.Row{TxID: tx.ID, Value: e.otherChild(t, tx.CategoryID)})
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := w.Run(ctx, writeback.Categorize, rows[:1], writeback.Options{})
	if err != nil || !rep.OK() {
		t.Fatalf("single change at the reserve: %v %+v", err, rep)
	}
	if got := e.bankTx(t, rows[0].TxID).CategoryID; got != rows[0].Value {
		t.Errorf("bank category = %q", got)
	}

	// A batch keeps the reserve: it waits (and is cancelled here).
	bctx, bcancel := context.WithCancel(ctx)
	defer bcancel()
	done := make(chan writeback.Report, 1)
	go func() {
		rep, _ := w.Run(bctx, writeback.Categorize, rows[1:], writeback.Options{})
		done <- rep
	}()
	s := <-waiting
	if !strings.Contains(s.WaitReason, "reserve") {
		t.Errorf("batch waits because %q", s.WaitReason)
	}
	reqs := e.sim.Requests()
	bcancel()
	rep = <-done
	if rep.Count(writeback.Applied) != 0 || rep.Count(writeback.NotAttempted) != 1 || e.sim.Requests() != reqs {
		t.Errorf("batch at the reserve: %+v", rep)
	}
	for _, r := range rows[1:] {
		if e.bankTx(t, r.TxID).CategoryID == r.Value {
			t.Errorf("%s changed at the bank", r.TxID)
		}
	}
}

// A category may be named by its id or its name, ignoring case: the
// request sends the id, and a name already so costs no request.
func TestCategorizeByName(t *testing.T) {
	e := newEnv(t, 300)
	tx := e.pick(t, func(tx simulator.Transaction) bool { return categorizable(tx) && tx.CategoryID != "takeaway" })
	rep, err := e.run(t, writeback.Categorize, writeback.Row{TxID: tx.ID, Value: "takeAWAY"})
	if err != nil || !rep.OK() || rep.Count(writeback.Applied) != 1 || rep.Results[0].Category != "takeaway" {
		t.Fatalf("run: %v %+v", err, rep)
	}
	if got := e.bankTx(t, tx.ID).CategoryID; got != "takeaway" {
		t.Errorf("bank category = %q, want takeaway", got)
	}
	before := e.sim.Requests()
	for _, v := range []string{"Takeaway", "TAKEAWAY", "takeaway"} {
		rep, err = e.run(t, writeback.Categorize, writeback.Row{TxID: tx.ID, Value: v})
		if err != nil || len(rep.Unchanged) != 1 || len(rep.Results) != 0 {
			t.Errorf("%s again: %v %+v", v, err, rep)
		}
	}
	if n := e.sim.Requests() - before; n != 0 {
		t.Errorf("naming the category it has made %d requests", n)
	}
	// A name with "&" and spaces; a parent's name is still a parent.
	rep, err = e.run(t, writeback.Categorize, writeback.Row{TxID: tx.ID, Value: "restaurants & cafes"})
	if err != nil || rep.Count(writeback.Applied) != 1 || e.bankTx(t, tx.ID).CategoryID != "restaurants-and-cafes" {
		t.Errorf("by a name with &: %v %+v", err, rep)
	}
	state := e.state(t)
	before = e.sim.Requests()
	rep, err = e.run(t, writeback.Categorize, writeback.Row{TxID: tx.ID, Value: "good life"})
	if !errors.Is(err, writeback.ErrInvalid) || len(rep.Invalid) != 1 || !strings.Contains(rep.Invalid[0].Reason, "is a parent category") {
		t.Errorf("a parent's name: %v %+v", err, rep)
	}
	if n := e.sim.Requests() - before; n != 0 || e.state(t) != state {
		t.Errorf("a refused name sent %d requests or changed the mirror", n)
	}
}

func TestResolveCategory(t *testing.T) {
	tree := map[string]store.CategoryNode{
		"good-life":             {ID: "good-life", Name: "Good Life", Children: []string{"restaurants-and-cafes", "takeaway"}},
		"takeaway":              {ID: "takeaway", Name: "Takeaway", ParentID: "good-life"},
		"restaurants-and-cafes": {ID: "restaurants-and-cafes", Name: "Restaurants & Cafes", ParentID: "good-life"},
		"home":                  {ID: "home", Name: "Home", Children: []string{"home-office"}},
		// Two categories with one name (not the real bank's, but
		// possible): a name that names both is refused.
		"home-office": {ID: "home-office", Name: "Office", ParentID: "home"},
		"work-office": {ID: "work-office", Name: "office"},
	}
	for _, c := range []struct {
		v, id  string
		reason []string
	}{
		{"takeaway", "takeaway", nil},
		{"Takeaway", "takeaway", nil},
		{"TAKEAWAY", "takeaway", nil},
		{" takeaway ", "takeaway", nil},
		{"restaurants & CAFES", "restaurants-and-cafes", nil},
		{"Good Life", "good-life", nil},
		{"OFFICE", "", []string{`category "OFFICE" is ambiguous`, `home-office ("Office", in home)`, `work-office ("office")`, "give the id"}},
		{"cafe", "", []string{`unknown category "cafe"`, "bankmirror categories", `did you mean restaurants-and-cafes ("Restaurants & Cafes", in good-life)?`}},
		{"zzz", "", []string{`unknown category "zzz"`}},
	} {
		id, reason := writeback.ResolveCategory(tree, c.v)
		if id != c.id || (reason == "") != (c.reason == nil) {
			t.Errorf("%q: id %q, reason %q; want %q", c.v, id, reason, c.id)
		}
		for _, w := range c.reason {
			if !strings.Contains(reason, w) {
				t.Errorf("%q: reason %q lacks %q", c.v, reason, w)
			}
		}
		if strings.Contains(reason, "SELECT") {
			t.Errorf("%q: reason shows SQL: %q", c.v, reason)
		}
	}
	if _, reason := writeback.ResolveCategory(tree, "zzz"); strings.Contains(reason, "did you mean") {
		t.Errorf("zzz: %q suggests something", reason)
	}
	list := writeback.ListCategories(tree)
	var ids []string
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	want := []string{"good-life", "restaurants-and-cafes", "takeaway", "home", "home-office", "work-office"}
	if !slices.Equal(ids, want) {
		t.Errorf("ListCategories = %v, want %v", ids, want)
	}
}

// jointAccount is the simulated bank's 2Up account.
func (e *env) jointAccount(t *testing.T) string {
	t.Helper()
	for _, a := range e.sim.Snapshot().Accounts {
		if a.OwnershipType == writeback.OwnershipJoint {
			return a.ID
		}
	}
	t.Fatal("no joint account at the simulated bank")
	return ""
}

// A tag on a transaction of a 2Up joint account is refused before any
// request, in one line saying the bank does not allow it; its category
// can still be changed.
func TestTagOnJointRefused(t *testing.T) {
	e := newEnv(t, 300)
	joint := e.jointAccount(t)
	tx := e.pick(t, func(tx simulator.Transaction) bool { return tx.AccountID == joint && categorizable(tx) })
	state, reqs := e.state(t), e.sim.Requests()
	rep, err := e.run(t, writeback.AddTags, writeback.Row{TxID: tx.ID, Value: "holiday"})
	if !errors.Is(err, writeback.ErrInvalid) || len(rep.Invalid) != 1 {
		t.Fatalf("err = %v, invalid = %+v; want the row refused", err, rep.Invalid)
	}
	if msg := rep.Invalid[0].Error(); !strings.Contains(msg, "the bank does not allow tags on 2Up transactions") || strings.Contains(msg, "\n") {
		t.Errorf("refusal = %q, want one line saying the bank does not allow tags on 2Up transactions", msg)
	}
	if n := e.sim.Requests() - reqs; n != 0 {
		t.Errorf("%d requests sent", n)
	}
	if e.state(t) != state {
		t.Error("the mirror changed")
	}
	rep, err = e.run(t, writeback.Categorize, writeback.Row{TxID: tx.ID, Value: e.otherChild(t, tx.CategoryID)})
	if err != nil || rep.Count(writeback.Applied) != 1 {
		t.Errorf("categorize on the joint account: %v, %+v", err, rep)
	}
}

// seeAccount records, in the mirror file, that people see account id.
func (e *env) seeAccount(t *testing.T, id string, people ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+e.store.Path()+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, p := range people {
		if _, err := db.Exec("INSERT INTO account_people (account_id, person, seen_at) VALUES (?, ?, '2024-03-03T09:30:00Z')", id, p); err != nil {
			t.Fatal(err)
		}
	}
}

// In a household, a change goes through the token of a person who sees
// the account: not through a person who does not see it, nor through one
// whose token the bank rejected; an account no configured person sees is
// refused before any request.
func TestHouseholdWritesThroughATokenThatSees(t *testing.T) {
	e := newEnv(t, 300)
	// sam's token is rejected by the bank (revoked); alex's is good.
	sam := bank.New(e.baseURL, "revoked-token", bank.WithMaxAttempts(1))
	if _, err := sam.Ping(context.Background()); err == nil {
		t.Fatal("a wrong token was accepted")
	}
	if !sam.Token().Rejected {
		t.Fatal("the wrong token is not marked rejected")
	}
	joint := e.jointAccount(t)
	e.seeAccount(t, joint, "alex", "sam")
	txJoint := e.pick(t, func(tx simulator.Transaction) bool { return tx.AccountID == joint && categorizable(tx) })
	txOther := e.pick(t, func(tx simulator.Transaction) bool { return tx.AccountID != joint && categorizable(tx) })
	e.seeAccount(t, txOther.AccountID, "kim")
	w := writeback.NewHousehold([]writeback.Person{{Name: "sam", Bank: sam}, {Name: "alex", Bank: e.client}}, e.store, zerolog.Nop())

	want := e.otherChild(t, txJoint.CategoryID)
	rep, err := w.Run(context.Background(), writeback.Categorize, []writeback.Row{{TxID: txJoint.ID, Value: want}}, writeback.Options{})
	if err != nil || rep.Count(writeback.Applied) != 1 || rep.Results[0].Person != "alex" {
		t.Fatalf("categorize on the joint account: %v, %+v; want it applied through alex's token", err, rep)
	}
	if got := e.bankTx(t, txJoint.ID).CategoryID; got != want {
		t.Errorf("bank category = %s, want %s", got, want)
	}
	reqs := e.sim.Requests()
	rep, err = w.Run(context.Background(), writeback.Categorize, []writeback.Row{{TxID: txOther.ID, Value: e.otherChild(t, txOther.CategoryID)}}, writeback.Options{})
	if !errors.Is(err, writeback.ErrInvalid) || len(rep.Invalid) != 1 || !strings.Contains(rep.Invalid[0].Reason, "no configured person's token sees account") {
		t.Errorf("an account only kim sees: %v, %+v", err, rep.Invalid)
	}
	if n := e.sim.Requests() - reqs; n != 0 {
		t.Errorf("%d requests sent for an account no configured person sees", n)
	}
}
