// Package docs_test runs the cookbook in queries.md against a mirror of the
// simulated bank, so that the cookbook cannot drift from the schema: every
// query must run and give exactly the result the page shows.
package docs_test

import (
	"context"
	"database/sql"
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
	return st.Reader()
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
