package rules_test

import (
	"context"
	"database/sql"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/writeback"
)

var frozen = time.Date(2024, 3, 3, 9, 30, 0, 0, time.UTC)

const fuelRules = `
[[rule]]
name = "fuel, not groceries"
when = 'description contains "Woolworths Petrol"'
category = "Fuel"
tags = ["car"]

[[rule]]
name = "servo note"
when = 'description contains "Petrol"'
note = "servo"
exclude_from_spending = true
`

type env struct {
	sim    *simulator.Bank
	client *bank.Client
	store  *store.Store
	engine *rules.Engine
	mirror *flakyMirror
}

// flakyMirror is the store, whose FinishRuleWriteBacks can be made to
// fail once: the process dying between a write-back and its record.
type flakyMirror struct {
	*store.Store
	failFinish bool
}

func (m *flakyMirror) FinishRuleWriteBacks(ctx context.Context, o []store.WriteBackOutcome) error {
	if m.failFinish {
		m.failFinish = false
		return errors.New("killed")
	}
	return m.Store.FinishRuleWriteBacks(ctx, o)
}

func newEnv(t *testing.T, ruleText string) *env {
	t.Helper()
	ctx := context.Background()
	sim := simulator.New(simulator.Options{Seed: 5, Transactions: 30, Token: "test-token",
		Now: func() time.Time { return frozen }, RateLimit: simulator.RateLimit{Limit: 1_000_000}})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	client := bank.New(srv.URL+"/api/v1", sim.Token(), bank.WithBackoff(time.Millisecond, 4*time.Millisecond))
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	set, err := rules.Parse("rules.toml", []byte(ruleText), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &flakyMirror{Store: st}
	e := rules.NewEngine(m, writeback.New(client, st, zerolog.Nop()), nil, time.UTC, zerolog.Nop())
	// The engine starts before the first sync, as serve's does.
	if _, err := e.Round(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := replica.New(client, st, zerolog.Nop(), replica.Options{}).Full(ctx); err != nil {
		t.Fatalf("full sync: %v", err)
	}
	tree, err := st.CategoryTree(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Resolve(func(v string) (string, string) { return writeback.ResolveCategory(tree, v) }); err != nil {
		t.Fatal(err)
	}
	e.SetRules(set)
	return &env{sim: sim, client: client, store: st, engine: e, mirror: m}
}

// arrive makes a purchase at the bank and brings it into the mirror as
// the worker would.
func (e *env) arrive(t *testing.T, nt simulator.NewTransaction) string {
	t.Helper()
	accounts := e.sim.Snapshot().Accounts
	nt.AccountID = accounts[0].ID
	id := e.sim.AddTransaction(nt)
	e.refetch(t, id)
	return id
}

func (e *env) refetch(t *testing.T, id string) {
	t.Helper()
	tx, err := e.client.Transaction(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.UpsertTransactions(context.Background(), []bank.Transaction{tx}); err != nil {
		t.Fatal(err)
	}
}

func (e *env) round(t *testing.T) {
	t.Helper()
	if _, err := e.engine.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (e *env) bankTx(t *testing.T, id string) simulator.Transaction {
	t.Helper()
	for _, tx := range e.sim.Snapshot().Transactions {
		if tx.ID == id {
			return tx
		}
	}
	t.Fatalf("no transaction %s at the bank", id)
	return simulator.Transaction{}
}

func (e *env) applications(t *testing.T, id string) []store.RuleApplication {
	t.Helper()
	all, err := e.store.RecentRuleApplications(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.RuleApplication
	for _, a := range all {
		if a.TransactionID == id {
			out = append(out, a)
		}
	}
	return out
}

func TestArrivalIsCategorisedAtTheBankAndInTheMirror(t *testing.T) {
	e := newEnv(t, fuelRules)
	id := e.arrive(t, simulator.NewTransaction{Description: "Woolworths Petrol Carlton", AmountBaseUnits: -5520, Held: true})
	e.round(t)

	if got := e.bankTx(t, id); got.CategoryID != "fuel" || !slices.Contains(got.Tags, "car") {
		t.Fatalf("bank has category %q tags %v, want fuel and car", got.CategoryID, got.Tags)
	}
	labels, err := e.store.TransactionLabels(context.Background(), []string{id})
	if err != nil {
		t.Fatal(err)
	}
	if l := labels[id]; l.CategoryID != "fuel" || !slices.Equal(l.Tags, []string{"car"}) {
		t.Fatalf("mirror has %+v", l)
	}
	apps := e.applications(t, id)
	if len(apps) != 4 {
		t.Fatalf("applications %+v, want category, tag, exclude, note", apps)
	}
	for _, a := range apps {
		if a.Source != store.RuleOnArrival {
			t.Fatalf("source %q", a.Source)
		}
		if (a.Action == store.RuleCategory || a.Action == store.RuleTag) && a.WrittenBackAt == "" {
			t.Fatalf("%s not written back: %+v", a.Action, a)
		}
	}
	var note string
	var excluded bool
	if err := e.store.Reader().QueryRow("SELECT note, exclude_from_spending FROM transaction_annotations WHERE transaction_id = ?", id).Scan(&note, &excluded); err != nil || note != "servo" || !excluded {
		t.Fatalf("annotation %q %v %v", note, excluded, err)
	}
}

// The first sync's transactions get the rules in the mirror's record but
// nothing is written back.
func TestFirstSyncWritesNothingBack(t *testing.T) {
	e := newEnv(t, fuelRules)
	before := e.sim.Requests()
	e.round(t)
	if n := e.sim.Requests() - before; n != 0 {
		t.Fatalf("%d requests after the first sync's round", n)
	}
	all, err := e.store.RecentRuleApplications(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range all {
		if a.Source != store.RuleFirstSync || a.WriteBack || a.WrittenBackAt != "" {
			t.Fatalf("first sync application %+v", a)
		}
	}
}

// A category the person sets in the app after the rule stands: the
// settlement does not bring the rule back.
func TestThePersonsChangeWins(t *testing.T) {
	e := newEnv(t, fuelRules)
	id := e.arrive(t, simulator.NewTransaction{Description: "Woolworths Petrol Carlton", AmountBaseUnits: -5520, Held: true})
	e.round(t)
	if err := e.sim.SetCategory(id, "groceries"); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.SetTags(id, nil); err != nil {
		t.Fatal(err)
	}
	e.refetch(t, id)
	if err := e.sim.Settle(id); err != nil {
		t.Fatal(err)
	}
	e.refetch(t, id)
	e.round(t)
	if got := e.bankTx(t, id); got.CategoryID != "groceries" || len(got.Tags) != 0 {
		t.Fatalf("bank has %q %v after the person's change and the settlement", got.CategoryID, got.Tags)
	}
}

// A change the person makes while the write-back waits is not overwritten.
func TestAPendingWriteBackYieldsToTheApp(t *testing.T) {
	e := newEnv(t, fuelRules)
	id := e.arrive(t, simulator.NewTransaction{Description: "Woolworths Petrol Carlton", AmountBaseUnits: -5520, Held: true})
	e.sim.SetFaults(simulator.Faults{Rate500: 1})
	e.round(t)
	e.sim.SetFaults(simulator.Faults{})
	if a := e.applications(t, id); len(a) == 0 || a[len(a)-1].Action != store.RuleCategory || a[len(a)-1].WrittenBackAt != "" || a[len(a)-1].Error == "" {
		t.Fatalf("after a failed write-back: %+v", a)
	}
	if err := e.sim.SetCategory(id, "groceries"); err != nil {
		t.Fatal(err)
	}
	e.refetch(t, id)
	// The retry falls due.
	db, err := sql.Open("sqlite3", e.store.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE rule_applications SET next_attempt_at = ''"); err != nil {
		t.Fatal(err)
	}
	e.round(t)
	if got := e.bankTx(t, id); got.CategoryID != "groceries" {
		t.Fatalf("bank has %q, want the person's groceries", got.CategoryID)
	}
	for _, a := range e.applications(t, id) {
		if a.Action == store.RuleCategory && !strings.Contains(a.Error, "that change stands") {
			t.Fatalf("category application %+v, want it given up for the person's change", a)
		}
	}
}

// Killed between the write-back and its record, the engine sends it again
// at the next round; the mirror already has it, so no request is made and
// the bank is changed once.
func TestKilledAfterWriteBackAppliesOnce(t *testing.T) {
	e := newEnv(t, fuelRules)
	e.mirror.failFinish = true
	id := e.arrive(t, simulator.NewTransaction{Description: "Woolworths Petrol Carlton", AmountBaseUnits: -5520})
	if _, err := e.engine.Round(context.Background()); err == nil {
		t.Fatal("round with a failing record: no error")
	}
	if got := e.bankTx(t, id); got.CategoryID != "fuel" {
		t.Fatalf("bank has %q", got.CategoryID)
	}
	before := e.sim.Requests()
	e.round(t)
	if n := e.sim.Requests() - before; n != 0 {
		t.Fatalf("%d requests to finish what was written back already", n)
	}
	for _, a := range e.applications(t, id) {
		if (a.Action == store.RuleCategory || a.Action == store.RuleTag) && a.WrittenBackAt == "" {
			t.Fatalf("%s not recorded as written back", a.Action)
		}
	}
	// The servo note rule left the settled purchase out of the spending.
	var excluded int
	var by, note, month string
	if err := e.store.Reader().QueryRow(`SELECT excluded_from_spending, excluded_by_rule, rule_note, created_month
		FROM v_transactions WHERE id = ?`, id).Scan(&excluded, &by, &note, &month); err != nil {
		t.Fatal(err)
	}
	if excluded != 1 || by != "servo note" || note != "servo" {
		t.Fatalf("v_transactions says %d %q %q", excluded, by, note)
	}
	var n int
	if err := e.store.Reader().QueryRow(`SELECT count(*) FROM v_monthly_spending WHERE month = ? AND category_id = 'fuel'`, month).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("the excluded fuel purchase is in v_monthly_spending (%d rows)", n)
	}
}

// rules apply over history: every matching transaction once, resumable,
// the write-backs queued and sent by the engine.
func TestApplyToHistory(t *testing.T) {
	e := newEnv(t, fuelRules)
	e.round(t) // the first sync's own applications, unwritten
	ids := []string{
		e.arrive(t, simulator.NewTransaction{Description: "Woolworths Petrol A", AmountBaseUnits: -1000}),
		e.arrive(t, simulator.NewTransaction{Description: "Woolworths Petrol B", AmountBaseUnits: -2000}),
	}
	e.round(t)
	ctx := context.Background()
	place := rules.StorePlace{Store: e.store}
	preview, err := e.engine.Scan(ctx, "", 0, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if preview.Changed != 0 {
		t.Fatalf("preview before any new rule: %+v", preview)
	}
	set, err := rules.Parse("rules.toml", []byte(`
[[rule]]
name = "petrol is car"
when = 'description startsWith "Woolworths Petrol "'
tags = ["petrol"]
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	e.engine.SetRules(set)
	preview, err = e.engine.Scan(ctx, "", 0, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if preview.Changed != 2 || preview.Requests != 2 || preview.Matches["petrol is car"] != 2 {
		t.Fatalf("preview %+v, want 2 changes costing 2", preview)
	}
	sum, err := e.engine.Apply(ctx, "", true, place, nil)
	if err != nil || sum.Changed != 2 {
		t.Fatalf("apply: %+v %v", sum, err)
	}
	e.round(t)
	for _, id := range ids {
		if got := e.bankTx(t, id); !slices.Contains(got.Tags, "petrol") {
			t.Fatalf("bank tags of %s: %v", id, got.Tags)
		}
	}
	again, err := e.engine.Apply(ctx, "", true, place, nil)
	if err != nil || again.Changed != 0 {
		t.Fatalf("second apply: %+v %v", again, err)
	}
}

// Without rules the engine records nothing and moves its cursor past the
// arrivals; rules given later start from there (history is for rules
// apply).
func TestNoRulesMoveTheCursorOnly(t *testing.T) {
	e := newEnv(t, fuelRules)
	e.engine.SetRules(&rules.Set{Channels: map[string]rules.Channel{}})
	e.round(t)
	id := e.arrive(t, simulator.NewTransaction{Description: "Woolworths Petrol Early", AmountBaseUnits: -1000})
	e.round(t)
	set, err := rules.Parse("rules.toml", []byte(fuelRules), nil)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := e.store.CategoryTree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Resolve(func(v string) (string, string) { return writeback.ResolveCategory(tree, v) }); err != nil {
		t.Fatal(err)
	}
	e.engine.SetRules(set)
	e.round(t)
	if apps := e.applications(t, id); len(apps) != 0 {
		t.Fatalf("an arrival before the rules got %d applications", len(apps))
	}
	later := e.arrive(t, simulator.NewTransaction{Description: "Woolworths Petrol Later", AmountBaseUnits: -1000})
	e.round(t)
	if got := e.bankTx(t, later); got.CategoryID != "fuel" {
		t.Fatalf("an arrival after the rules: category %q", got.CategoryID)
	}
}
