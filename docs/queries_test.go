// Package docs_test runs the cookbook in queries.md against a mirror of the
// simulated bank, so that the cookbook cannot drift from the schema: every
// query must run and give exactly the result the page shows.
package docs_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

var (
	update = flag.Bool("update", false, "rewrite the results in queries.md from the test mirror")
	keep   = flag.String("keep", "", "also write the test mirror to this file, for exploring it with sqlite3")
)

const cookbook = "queries.md"

// The cookbook's mirror: the demo's bank (seed 1, 5,000 transactions)
// with its clock fixed at start, the payments friends sent categorised
// (categorisePaybacks), fully synced; eight days later some live
// activity (purchases, settlements, deleted holds, refunds) and an
// incremental sync. The queries' 'now' is two hours after that.
var (
	start    = time.Date(2026, 4, 19, 23, 0, 0, 0, time.UTC) // 20 April 2026, 09:00 in Melbourne
	later    = start.Add(8 * 24 * time.Hour)
	queryNow = later.Add(2 * time.Hour)
)

// A query is one fenced sql block and the table that follows it.
type query struct {
	heading          string
	sql              string
	table            []string // the table's lines as written
	tableAt, tableTo int      // its line range in the page
}

func TestCookbookQueriesGiveTheResultsShown(t *testing.T) {
	page, err := os.ReadFile(cookbook)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(page), "\n")
	queries, err := parse(lines)
	if err != nil {
		t.Fatal(err)
	}
	if len(queries) < 12 {
		t.Errorf("%s has %d queries, want at least 12", cookbook, len(queries))
	}
	db := cookbookMirror(t)
	for i := len(queries) - 1; i >= 0; i-- { // from the end, so that rewriting keeps earlier line numbers
		q := queries[i]
		got, err := run(db, q.sql)
		if err != nil {
			t.Errorf("%s: %v", q.heading, err)
			continue
		}
		if *update {
			lines = append(lines[:q.tableAt], append(got, lines[q.tableTo:]...)...)
			continue
		}
		if strings.Join(got, "\n") != strings.Join(q.table, "\n") {
			t.Errorf("%s: the query gives\n%s\nthe page shows\n%s", q.heading, strings.Join(got, "\n"), strings.Join(q.table, "\n"))
		}
	}
	if *update {
		if err := os.WriteFile(cookbook, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// parse finds each "```sql" block, the nearest heading above it and the
// markdown table after it (only prose may come between).
func parse(lines []string) ([]query, error) {
	var out []query
	heading := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "#") {
			heading = strings.TrimSpace(strings.TrimLeft(l, "#"))
			continue
		}
		if strings.TrimSpace(l) != "```sql" {
			continue
		}
		q := query{heading: heading}
		j := i + 1
		for ; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
		}
		if j == len(lines) {
			return nil, fmt.Errorf("%s: unterminated sql block", heading)
		}
		q.sql = strings.Join(lines[i+1:j], "\n")
		k := j + 1
		for ; k < len(lines) && !strings.HasPrefix(lines[k], "|"); k++ {
			if strings.HasPrefix(lines[k], "#") || strings.HasPrefix(lines[k], "```") {
				return nil, fmt.Errorf("%s: no result table after the query", heading)
			}
		}
		if k == len(lines) {
			return nil, fmt.Errorf("%s: no result table after the query", heading)
		}
		q.tableAt = k
		for ; k < len(lines) && strings.HasPrefix(lines[k], "|"); k++ {
		}
		q.tableTo = k
		q.table = lines[q.tableAt:q.tableTo]
		out = append(out, q)
		i = k - 1
	}
	return out, nil
}

// run runs q with 'now' as the cookbook's fixed clock and renders the
// result as a markdown table.
func run(db *sql.DB, q string) ([]string, error) {
	q = strings.ReplaceAll(q, "'now'", "'"+queryNow.Format(time.RFC3339)+"'")
	rows, err := db.Query(q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	out := []string{row(cols), "|" + strings.Repeat("---|", len(cols))}
	for rows.Next() {
		vals := make([]any, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = cell(v)
		}
		out = append(out, row(cells))
	}
	if len(out) == 2 {
		return nil, fmt.Errorf("no rows: a cookbook query should show a result")
	}
	return out, rows.Err()
}

func row(cells []string) string {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return "| " + strings.Join(esc, " | ") + " |"
}

func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// cookbookMirror builds the cookbook's mirror and returns a read-only
// connection to it.
func cookbookMirror(t *testing.T) *sql.DB {
	t.Helper()
	ctx := context.Background()
	sim := simulator.New(simulator.Options{Seed: 1, Transactions: 5000, Token: "cookbook",
		Now: func() time.Time { return start }, RateLimit: simulator.RateLimit{Limit: 1_000_000}})
	t.Cleanup(sim.Close)
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	client := bank.New(srv.URL+"/api/v1", sim.Token(), bank.WithHourlyBudget(0))

	path := filepath.Join(t.TempDir(), "cookbook.db")
	if *keep != "" {
		path = *keep
		for _, suffix := range []string{"", "-wal", "-shm"} {
			_ = os.Remove(path + suffix)
		}
	}
	var clock atomic.Pointer[time.Time]
	at := func(t time.Time) { clock.Store(&t) }
	at(start.Add(time.Minute))
	melbourne, err := time.LoadLocation("Australia/Melbourne")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, path, store.WithClock(func() time.Time { return *clock.Load() }), store.WithTimeZone(melbourne))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	categorisePaybacks(ctx, t, client)
	syncer := replica.New(client, st, zerolog.Nop(), replica.Options{Overlap: 3 * time.Hour})
	if _, err := syncer.Full(ctx); err != nil {
		t.Fatal(err)
	}

	// Eight days later: thirty changes a few minutes apart, then an
	// incremental sync.
	for i := range 30 {
		sim.SetClock(later.Add(time.Duration(i)*7*time.Minute), true)
		sim.LiveStep()
	}
	at(later.Add(time.Hour))
	if _, err := syncer.Incremental(ctx); err != nil {
		t.Fatal(err)
	}
	makeHousehold(ctx, t, st)
	return st.Reader()
}

// The household of the cookbook's mirror: bobby, the demo bank's
// customer, whose mirror it was, and alex, who shares the 2Up account and
// adds their own spending account: what alex's token lists, written as a
// sync of it would. alex and bobby pay each other by Up to Up (both sides
// are written: bobby's as bobby's token would list it).
const alexSpending = "a1e55a1e-0000-4000-8000-00000000a1e5"

// alexTx is a transaction of the cookbook's household, as the bank would
// send it: on account, at a Melbourne wall time in 2026, of cents
// (negative: money out), made by performer.
type alexTx struct {
	id, account, at, desc, typ, category, parent, performer string
	cents                                                   int64
}

func makeHousehold(ctx context.Context, t *testing.T, st *store.Store) {
	t.Helper()
	var bobbySpending, joint string
	if err := st.Reader().QueryRowContext(ctx, `SELECT (SELECT id FROM accounts WHERE display_name = 'Spending'),
		(SELECT id FROM accounts WHERE ownership_type = 'JOINT')`).Scan(&bobbySpending, &joint); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"bobby", "alex"} {
		if err := st.UpsertPerson(ctx, store.PersonUpdate{Name: p, TokenState: store.TokenOK}); err != nil {
			t.Fatal(err)
		}
	}
	if claimed, err := st.ClaimSingleTokenMirror(ctx, "bobby"); err != nil || !claimed {
		t.Fatalf("claim the mirror for bobby: %v, %v", claimed, err)
	}
	raw := []byte(`{"type":"accounts","id":"` + alexSpending + `"}`)
	if _, err := st.UpsertAccounts(ctx, []bank.Account{{ID: alexSpending, DisplayName: "Alex's Spending", AccountType: "TRANSACTIONAL",
		OwnershipType: "INDIVIDUAL", Balance: bank.Money{CurrencyCode: "AUD", Value: "2418.35", ValueInBaseUnits: 241835},
		CreatedAt: "2024-06-01T09:00:00+10:00", Raw: raw}}); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordPersonAccounts(ctx, "alex", []string{alexSpending, joint}); err != nil {
		t.Fatal(err)
	}
	rows := []alexTx{
		{"a1e5-0001", alexSpending, "2026-03-01 09:00:00", "Bobby", "Pay Anyone", "", "", "Alex", -65000},
		{"b0bb-0001", bobbySpending, "2026-03-01 09:00:06", "Alex", "Osko Payment Received", "", "", "", 65000},
		{"a1e5-0002", alexSpending, "2026-03-04 18:12:00", "Coles", "Purchase", "groceries", "home", "Alex", -14260},
		{"a1e5-0003", alexSpending, "2026-03-09 12:40:00", "Origin Energy", "Direct Debit", "utilities", "home", "Alex", -21890},
		{"a1e5-0004", alexSpending, "2026-03-13 09:00:00", "Globex Corporation", "Salary", "", "", "", 412000},
		{"a1e5-0005", alexSpending, "2026-03-18 19:05:00", "Aldi", "Purchase", "groceries", "home", "Alex", -9375},
		{"a1e5-0006", alexSpending, "2026-03-21 13:30:00", "Uber", "Purchase", "taxis-and-share-cars", "transport", "Alex", -2310},
		{"a1e5-0007", alexSpending, "2026-03-27 20:15:00", "Readings", "Purchase", "books-and-magazines", "good-life", "Alex", -4499},
		{"b0bb-0002", bobbySpending, "2026-04-05 19:30:00", "Alex", "Pay Anyone", "", "", "Bobby", -4550},
		{"a1e5-0008", alexSpending, "2026-04-05 19:30:04", "Bobby", "Osko Payment Received", "", "", "", 4550},
		{"a1e5-0009", alexSpending, "2026-04-08 17:45:00", "Woolworths", "Purchase", "groceries", "home", "Alex", -11820},
		{"a1e5-0010", alexSpending, "2026-04-13 09:00:00", "Globex Corporation", "Salary", "", "", "", 412000},
		{"a1e5-0011", alexSpending, "2026-04-19 11:10:00", "Bunnings", "Purchase", "homeware-and-appliances", "home", "Alex", -6790},
	}
	txs := make([]bank.Transaction, len(rows))
	for i, r := range rows {
		txs[i] = r.resource(t)
	}
	if _, err := st.UpsertTransactions(ctx, txs); err != nil {
		t.Fatal(err)
	}
	if _, err := st.LearnDisplayNames(ctx); err != nil {
		t.Fatal(err)
	}
}

// resource renders r as the bank's JSON and parses it as the daemon does.
func (r alexTx) resource(t *testing.T) bank.Transaction {
	t.Helper()
	melbourne, err := time.LoadLocation("Australia/Melbourne")
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.ParseInLocation(time.DateTime, r.at, melbourne)
	if err != nil {
		t.Fatal(err)
	}
	sign, abs := "", r.cents
	if abs < 0 {
		sign, abs = "-", -abs
	}
	ident := func(typ, id string) any {
		if id == "" {
			return map[string]any{"data": nil}
		}
		return map[string]any{"data": map[string]any{"type": typ, "id": id}}
	}
	var performer any
	if r.performer != "" {
		performer = map[string]any{"displayName": r.performer}
	}
	res := map[string]any{"type": "transactions", "id": r.id,
		"attributes": map[string]any{
			"status": "SETTLED", "rawText": nil, "description": r.desc, "message": nil, "isCategorizable": true,
			"holdInfo": nil, "roundUp": nil, "cashback": nil, "foreignAmount": nil, "cardPurchaseMethod": nil,
			"amount":    map[string]any{"currencyCode": "AUD", "value": fmt.Sprintf("%s%d.%02d", sign, abs/100, abs%100), "valueInBaseUnits": r.cents},
			"settledAt": at.Format(time.RFC3339), "createdAt": at.Format(time.RFC3339), "transactionType": r.typ,
			"note": nil, "performingCustomer": performer, "deepLinkURL": "up://transaction/" + r.id,
		},
		"relationships": map[string]any{
			"account": ident("accounts", r.account), "transferAccount": ident("accounts", ""),
			"category": ident("categories", r.category), "parentCategory": ident("categories", r.parent),
			"tags": map[string]any{"data": []any{}}, "attachment": ident("attachments", ""),
		},
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := bank.ParseTransaction(data)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// paybackCategories: the category the cookbook's customer gives a payment
// received, by its message. Footy tipping stays uncategorised: income.
var paybackCategories = map[string]string{
	"Money for the pizzas last night.": "takeaway",
	"Rent split":                       "rent-and-mortgage",
	"Thanks for dinner 🙏":              "restaurants-and-cafes",
	"Concert tickets":                  "events-and-gigs",
	"Bills – March":                    "utilities",
	"Birthday present for Mum":         "gifts-and-charity",
}

// categorisePaybacks categorises, through the bank's API as the customer
// would, every payment received whose message says what it paid back, so
// that the cookbook shows money in offsetting spending.
func categorisePaybacks(ctx context.Context, t *testing.T, client *bank.Client) {
	t.Helper()
	type payback struct{ id, category string }
	var todo []payback
	for tx, err := range client.Transactions(ctx, bank.TransactionFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		if tx.TransactionType == nil || *tx.TransactionType != "Osko Payment Received" || tx.Message == nil {
			continue
		}
		if c, ok := paybackCategories[*tx.Message]; ok {
			todo = append(todo, payback{tx.ID, c})
		}
	}
	if len(todo) == 0 {
		t.Fatal("the bank has no payment received to categorise")
	}
	for _, p := range todo {
		if err := client.SetCategory(ctx, p.id, &p.category); err != nil {
			t.Fatalf("categorise %s: %v", p.id, err)
		}
	}
}
