package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// The bulk load makes its indexes and triggers again from the embedded
// schema's own statements, one statement each.
func TestBulkDeferredStatementsComeFromTheSchema(t *testing.T) {
	if !strings.HasPrefix(historyIndexSQL, "CREATE INDEX IF NOT EXISTS transaction_history_tx ON transaction_history") {
		t.Fatalf("historyIndexSQL = %q", historyIndexSQL)
	}
	var triggers []string
	for _, o := range bulkDeferred {
		want := "CREATE " + strings.ToUpper(o.kind) + " IF NOT EXISTS " + o.name
		if rest, ok := strings.CutPrefix(o.sql, want); !ok || !strings.ContainsAny(rest[:1], " \n") {
			t.Errorf("%s: statement %q", o.name, o.sql)
		}
		if strings.Count(o.sql, "CREATE") != 1 || strings.HasSuffix(o.sql, ";") {
			t.Errorf("%s: not one statement: %q", o.name, o.sql)
		}
		if o.kind == "trigger" {
			triggers = append(triggers, o.name)
			if !strings.HasSuffix(o.sql, "\nEND") {
				t.Errorf("%s: body cut short: %q", o.name, o.sql)
			}
		} else if strings.Contains(o.sql, ";") {
			t.Errorf("%s: more than one statement: %q", o.name, o.sql)
		}
	}
	want := "transactions_search_insert transactions_search_update transactions_search_delete transactions_search_tag_insert transactions_search_tag_delete" +
		" household_transfer_insert household_transfer_delete household_transfer_update" +
		" monthly_totals_insert monthly_totals_delete monthly_totals_update_before monthly_totals_update_after" +
		" monthly_totals_exclude_insert monthly_totals_exclude_update monthly_totals_exclude_delete"
	if got := strings.Join(triggers, " "); got != want {
		t.Errorf("triggers %q, want %q", got, want)
	}
	if len(searchRebuild) != 2+len(searchKeysFill) || !slices.Equal(searchRebuild[2:], searchKeysFill) || len(searchKeysFill) != 6 ||
		searchRebuild[0] != "DELETE FROM transactions_search" ||
		!strings.HasPrefix(searchRebuild[1], "INSERT INTO transactions_search (rowid,") ||
		!strings.HasSuffix(searchRebuild[1], "ON g.transaction_id = t.id") {
		t.Errorf("searchRebuild = %q", searchRebuild)
	}
}

// queryPlan is EXPLAIN QUERY PLAN of q, its details joined.
func queryPlan(t *testing.T, s *Store, q string) string {
	t.Helper()
	rows, err := s.Reader().Query("EXPLAIN QUERY PLAN " + q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}

// deferredPresent counts the objects of bulkDeferred in s's schema.
func deferredPresent(t *testing.T, s *Store) int {
	t.Helper()
	n := 0
	for _, o := range bulkDeferred {
		n += int(queryInt(t, s, "SELECT count(*) FROM sqlite_schema WHERE type = ? AND name = ?", o.kind, o.name))
	}
	return n
}

// searchRestored fails t unless every trigger and index a bulk load drops
// is back, the planner reads v_monthly_spending through
// transactions_month_money, and transactions_search finds each of the
// transactions written by bulkLoadWithEvents as it is now.
func searchRestored(t *testing.T, s *Store) {
	t.Helper()
	if n := deferredPresent(t, s); n != len(bulkDeferred) {
		t.Fatalf("%d of the %d dropped objects are back", n, len(bulkDeferred))
	}
	if plan := queryPlan(t, s, "SELECT * FROM v_monthly_spending WHERE month = '2026-01'"); !strings.Contains(plan, monthIndex) {
		t.Errorf("v_monthly_spending's plan does not use %s: %s", monthIndex, plan)
	}
	for words, want := range map[string][]string{
		"coffee":         {"t3", "t4"}, // t1's description changed, t2 deleted, by events
		"bakery":         {"t1"},       // changed by an event during the load
		"holiday":        {"t3"},       // tagged on the listing's page
		"t2":             nil,          // deleted by an event during the load
		"t4":             {"t4"},       // listed after the events
		"bakery holiday": nil,
	} {
		if got := searchIDs(t, s, words); !slices.Equal(got, want) {
			t.Errorf("search %q: %v, want %v", words, got, want)
		}
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transactions_search"); n != queryInt(t, s, "SELECT count(*) FROM transactions") {
		t.Errorf("transactions_search holds %d rows", n)
	}
}

// TestBulkLoadDefersSearch: a bulk load runs without the search triggers
// and the monthly views' index, and has them back, with every transaction
// indexed as it is, whether the listing finishes, fails, or is cut short
// and the mirror opened again. Events applied during the load count.
func TestBulkLoadDefersSearch(t *testing.T) {
	ctx := context.Background()
	// bulkLoad opens an empty mirror, starts its first listing, saves a
	// page, and applies events meanwhile: t1 changed, t2 deleted.
	bulkLoad := func(t *testing.T, path string) (*Store, Listing) {
		t.Helper()
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if n := deferredPresent(t, s); n != len(bulkDeferred) {
			t.Fatalf("a new mirror has %d of %d objects", n, len(bulkDeferred))
		}
		l, err := s.BeginListing(ctx, "transactions", "http://x/p1", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if n := deferredPresent(t, s); n != 0 {
			t.Fatalf("%d objects kept during a bulk load", n)
		}
		page := []bank.Transaction{tx("t1", "SETTLED", -1), tx("t2", "HELD", -2), tx("t3", "SETTLED", -3, "Holiday")}
		if _, err := s.SaveListingPage(ctx, &l, page, "http://x/p2"); err != nil {
			t.Fatal(err)
		}
		changed := tx("t1", "SETTLED", -1)
		changed.Description = "Bakery"
		if _, err := s.ApplyEvents(ctx, EventBatch{Upserts: []bank.Transaction{changed}, Deletes: []string{"t2"}}); err != nil {
			t.Fatal(err)
		}
		if got := searchIDs(t, s, "coffee"); got != nil {
			t.Errorf("search during the bulk load found %v", got)
		}
		if _, err := s.SaveListingPage(ctx, &l, []bank.Transaction{tx("t4", "SETTLED", -4)}, ""); err != nil {
			t.Fatal(err)
		}
		return s, l
	}

	t.Run("finished", func(t *testing.T) {
		s, l := bulkLoad(t, filepath.Join(t.TempDir(), "m.db"))
		defer s.Close()
		if _, err := s.FinishListing(ctx, &l); err != nil {
			t.Fatal(err)
		}
		searchRestored(t, s)
		// The end's settings do not outlive it on the writer.
		var threads, cache int
		if err := s.db.QueryRowContext(ctx, "PRAGMA threads").Scan(&threads); err != nil {
			t.Fatal(err)
		}
		if err := s.db.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
			t.Fatal(err)
		}
		if threads != 0 || cache != -writerCacheKiB {
			t.Errorf("writer after the load: threads %d, cache_size %d; want 0 and %d", threads, cache, -writerCacheKiB)
		}
		// Later writes reach the index through the triggers.
		if _, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("t5", "SETTLED", -5, "Holiday")}); err != nil {
			t.Fatal(err)
		}
		if got := searchIDs(t, s, "holiday"); !slices.Equal(got, []string{"t3", "t5"}) {
			t.Errorf("search after the load: %v", got)
		}
		// The next listing is not a bulk load: it drops nothing.
		if _, err := s.BeginListing(ctx, "transactions", "http://x/p1", time.Time{}); err != nil {
			t.Fatal(err)
		}
		if n := deferredPresent(t, s); n != len(bulkDeferred) {
			t.Fatalf("a listing into a non-empty mirror dropped %d objects", len(bulkDeferred)-n)
		}
	})
	t.Run("failed", func(t *testing.T) {
		s, _ := bulkLoad(t, filepath.Join(t.TempDir(), "m.db"))
		defer s.Close()
		if err := s.ListingFailed(ctx, "transactions"); err != nil {
			t.Fatal(err)
		}
		searchRestored(t, s)
	})
	t.Run("crashed", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "m.db")
		s, _ := bulkLoad(t, path)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		searchRestored(t, s)
	})
	t.Run("one missing", func(t *testing.T) {
		// Open makes again whichever of them is missing, on its own.
		path := filepath.Join(t.TempDir(), "m.db")
		s, l := bulkLoad(t, path)
		if _, err := s.FinishListing(ctx, &l); err != nil {
			t.Fatal(err)
		}
		if err := s.InTx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, "DROP TRIGGER transactions_search_tag_insert; DELETE FROM transactions_search")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		searchRestored(t, s)
	})
}

// TestBulkLoadPairsHouseholdTransfersAtTheEnd: a household's first listing
// runs without the pairing triggers, and the transfers it wrote are paired
// when it ends, as the triggers pair them row by row.
func TestBulkLoadPairsHouseholdTransfersAtTheEnd(t *testing.T) {
	ctx := context.Background()
	rowByRow := household(t)
	upsert(t, rowByRow, householdRows()...)
	want := pairs(t, rowByRow)
	if len(want) != 2 {
		t.Fatalf("row by row, pairs %v", want)
	}

	s := household(t)
	l, err := s.BeginListing(ctx, "transactions", "http://x/p1", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if n := deferredPresent(t, s); n != 0 {
		t.Fatalf("%d objects kept during a bulk load", n)
	}
	var page []bank.Transaction
	for _, sp := range householdRows() {
		page = append(page, sp.resource(t))
	}
	if _, err := s.SaveListingPage(ctx, &l, page, ""); err != nil {
		t.Fatal(err)
	}
	if got := pairs(t, s); got != nil {
		t.Fatalf("paired during the load: %v", got)
	}
	if _, err := s.FinishListing(ctx, &l); err != nil {
		t.Fatal(err)
	}
	if got := pairs(t, s); !slices.Equal(got, want) {
		t.Errorf("after the load, pairs %v, want %v", got, want)
	}
	// The triggers are back: a deletion unpairs the other side.
	if _, err := s.ApplyEvents(ctx, EventBatch{Deletes: []string{"pay-in"}}); err != nil {
		t.Fatal(err)
	}
	if got := pairs(t, s); got != nil {
		t.Errorf("after deleting a side, pairs %v", got)
	}
}

// The bulk load fills monthly_totals with the migration's own three
// statements, the sum read from the month index alone.
func TestMonthlyTotalsRebuildStatements(t *testing.T) {
	if len(monthlyTotalsRebuild) != 3 || monthlyTotalsRebuild[0] != "DELETE FROM monthly_totals" ||
		!strings.Contains(monthlyTotalsRebuild[1], "FROM monthly_totals_base\nGROUP BY") ||
		!strings.Contains(monthlyTotalsRebuild[2], "FROM transaction_annotations an CROSS JOIN") {
		t.Fatalf("monthlyTotalsRebuild = %q", monthlyTotalsRebuild)
	}
	s, _ := mustOpen(t)
	sum := "SELECT" + after(monthlyTotalsRebuild[1], "SELECT")
	if plan := queryPlan(t, s, sum); !strings.Contains(plan, "COVERING INDEX "+monthIndex) {
		t.Errorf("the sum does not read %s alone: %s", monthIndex, plan)
	}
	// What the rules left out is read from the annotations, each
	// transaction looked up by id, not from a scan of every transaction.
	excluded, _, _ := strings.Cut("SELECT"+after(monthlyTotalsRebuild[2], "SELECT"), "\nON CONFLICT")
	if plan := queryPlan(t, s, excluded); !strings.HasPrefix(plan, "SCAN an; SEARCH t USING INDEX sqlite_autoindex_transactions_1 (id=?)") {
		t.Errorf("the rules' exclusions are not read from the annotations: %s", plan)
	}
}

// The deletion pass at the end of a listing reads the table's index on id
// and the history's, not every transaction's wide row.
func TestUnseenReadsNoTransactionRow(t *testing.T) {
	s, _ := mustOpen(t)
	plan := queryPlan(t, s, strings.ReplaceAll(fmt.Sprintf(unseenSQL, ""), "?", "5"))
	if !strings.HasPrefix(plan, "MATERIALIZE unseen; SCAN t USING COVERING INDEX sqlite_autoindex_transactions_1;") {
		t.Errorf("the deletion pass reads the transactions' rows: %s", plan)
	}
}
