package store

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// The monthly views' sums, grouped as monthly_totals groups them: what
// v_monthly_spending and v_monthly_income count, without what a rule left
// out of the spending (transaction_annotations).
const (
	viewSpending = `SELECT coalesce(created_month, ''), account_id, coalesce(parent_category_id, ''), coalesce(category_id, ''),
		-sum(amount_base_units), sum(amount_base_units < 0), sum(amount_base_units > 0)
		FROM v_transactions
		WHERE status = 'SETTLED' AND NOT is_transfer AND NOT is_interest AND NOT household_transfer
			AND account_type IS NOT 'HOME_LOAN' AND (amount_base_units < 0 OR offsets_spending)
			AND id NOT IN (SELECT transaction_id FROM transaction_annotations WHERE exclude_from_spending)
		GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`
	viewIncome = `SELECT month, account_id, income_type, total_income_base_units, count FROM v_monthly_income ORDER BY 1, 2, 3`
	// v_monthly_spending itself.
	monthlySpending = `SELECT coalesce(month, ''), account_id, coalesce(parent_category_id, ''), coalesce(category_id, ''),
		total_spent_base_units, count, refund_count FROM v_monthly_spending ORDER BY 1, 2, 3, 4`
	tableSpending = `SELECT m.month, m.account_id, m.parent_category_id, m.category_id,
		-m.total_base_units, m.count_out, m.count - m.count_out
		FROM monthly_totals m LEFT JOIN accounts a ON a.id = m.account_id
		WHERE m.kind = 'spending' AND m.count > 0 AND a.account_type IS NOT 'HOME_LOAN' ORDER BY 1, 2, 3, 4`
	tableIncome = `SELECT m.month, m.account_id, m.category_id, m.total_base_units, m.count
		FROM monthly_totals m LEFT JOIN accounts a ON a.id = m.account_id
		WHERE m.kind = 'income' AND m.count > 0 AND a.account_type IS NOT 'HOME_LOAN' ORDER BY 1, 2, 3`
)

// totalsAgree fails t unless monthly_totals holds what the views sum, and
// the dashboard's reads of it say what the views say.
func totalsAgree(t *testing.T, s *Store, step string) {
	t.Helper()
	db := s.Reader()
	want, got := rows(t, db, viewSpending), rows(t, db, tableSpending)
	if len(want) == 0 {
		t.Fatalf("%s: no spending to compare", step)
	}
	if !slices.EqualFunc(want, got, slices.Equal) {
		t.Errorf("%s: spending\n got %v\nwant %v", step, got, want)
	}
	if view := rows(t, db, monthlySpending); !slices.EqualFunc(view, got, slices.Equal) {
		t.Errorf("%s: spending\n got %v\nv_monthly_spending %v", step, got, view)
	}
	if want, got := rows(t, db, viewIncome), rows(t, db, tableIncome); !slices.EqualFunc(want, got, slices.Equal) {
		t.Errorf("%s: income\n got %v\nwant %v", step, got, want)
	}

	ctx := context.Background()
	spending, err := s.SpendingByCategory(ctx, "0000-00", "9999-99")
	if err != nil {
		t.Fatal(err)
	}
	var wantCats []CategorySpending
	if wantCats, err = queryAll(ctx, db, "spending", func(r *sql.Rows, c *CategorySpending) error {
		return r.Scan(&c.Month, &c.ParentCategory, &c.Category, &c.ParentCategoryID, &c.CategoryID, &c.Cents, &c.Count)
	}, `SELECT month, parent_category, category, coalesce(parent_category_id, ''), coalesce(category_id, ''),
		-sum(amount_base_units), sum(amount_base_units < 0)
		FROM (SELECT v.created_month AS month, coalesce(v.parent_category_name, 'Uncategorised') AS parent_category,
			coalesce(v.category_name, 'Uncategorised') AS category, v.* FROM v_transactions v
			WHERE status = 'SETTLED' AND NOT is_transfer AND NOT is_interest AND NOT household_transfer
			AND account_type IS NOT 'HOME_LOAN' AND (amount_base_units < 0 OR offsets_spending)
			AND id NOT IN (SELECT transaction_id FROM transaction_annotations WHERE exclude_from_spending))
		GROUP BY month, parent_category_id, category_id ORDER BY month, parent_category_id, category_id`); err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(spending, func(a, b CategorySpending) int {
		if a.Month != b.Month {
			return compare(a.Month, b.Month)
		}
		if a.ParentCategoryID != b.ParentCategoryID {
			return compare(a.ParentCategoryID, b.ParentCategoryID)
		}
		return compare(a.CategoryID, b.CategoryID)
	})
	if !slices.Equal(spending, wantCats) {
		t.Errorf("%s: SpendingByCategory\n got %+v\nwant %+v", step, spending, wantCats)
	}
	income, err := s.IncomeByMonth(ctx, "0000-00", "9999-99")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows(t, db, "SELECT month, sum(total_income_base_units) FROM v_monthly_income GROUP BY month") {
		if got := income[r[0]]; r[1] != strconv.FormatInt(got, 10) {
			t.Errorf("%s: IncomeByMonth[%s] = %d, want %s", step, r[0], got, r[1])
		}
		delete(income, r[0])
	}
	if len(income) != 0 {
		t.Errorf("%s: IncomeByMonth has months the view has not: %v", step, income)
	}
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestMonthlyTotalsFollowEveryWrite: monthly_totals says what the monthly
// views say after every kind of write: new transactions, changes of
// status, amount, category, account and month, deletions, household
// transfers paired and unpaired, a rule's exclusion set, changed and
// cleared, and after the migration fills it for an existing mirror.
func TestMonthlyTotalsFollowEveryWrite(t *testing.T) {
	ctx := context.Background()
	s := offsetsFixture(t, t.TempDir()+"/m.db")
	totalsAgree(t, s, "fixture")

	// Changes of what the views read.
	oct := "2025-10-05T10:00:00+11:00"
	upsert(t, s,
		spec{id: "chin", account: "spend", desc: "Chin Chin", cents: -20000, typ: "Purchase", method: "CARD_PIN", category: "groceries", parent: "home", created: oct},
		spec{id: "held-in", account: "spend", desc: "David Taylor", cents: 4500, typ: "Osko Payment Received", category: "restaurants-and-cafes", parent: "good-life", created: oct},
		spec{id: "salary", account: "joint", desc: "Acme Analytics Pty Ltd", cents: 430000, typ: "Salary", created: "2025-09-30T10:00:00+10:00"},
		spec{id: "footy", account: "spend", desc: "Zoë Martin", cents: 2000, typ: "Refund", created: oct},
		spec{id: "tr-out", account: "saver", desc: "Transfer to Spending", cents: -50000, typ: "Transfer", created: oct},
		spec{id: "new-held", account: "spend", desc: "Coles", cents: -999, status: "HELD", hold: -999, method: "CONTACTLESS", created: oct},
		spec{id: "int", account: "spend", desc: "Interest", cents: 12, created: oct},
	)
	totalsAgree(t, s, "changed")
	for _, id := range []string{"rent1", "liam", "int"} {
		if _, err := s.DeleteTransaction(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.ApplyEvents(ctx, EventBatch{Deletes: []string{"woolies2"}}); err != nil {
		t.Fatal(err)
	}
	totalsAgree(t, s, "deleted")

	// A rule's exclusion, as the rules write it (an upsert).
	exclude := func(id string, on any) {
		t.Helper()
		if _, err := s.db.ExecContext(ctx, `INSERT INTO transaction_annotations (transaction_id, exclude_from_spending, exclude_rule)
			VALUES (?, ?, 'r') ON CONFLICT (transaction_id) DO UPDATE SET exclude_from_spending = excluded.exclude_from_spending`, id, on); err != nil {
			t.Fatal(err)
		}
	}
	exclude("qantas", 1)
	exclude("mei", 1)
	exclude("salary", 1) // income: a rule leaves spending out, not income
	if n := queryInt(t, s, "SELECT count(*) FROM monthly_totals WHERE category_id = 'holidays-and-travel' AND count > 0"); n != 0 {
		t.Errorf("the excluded Qantas purchase is still counted (%d rows)", n)
	}
	totalsAgree(t, s, "excluded")
	exclude("mei", 0)
	exclude("qantas", nil)
	if _, err := s.db.ExecContext(ctx, `INSERT INTO transaction_annotations (transaction_id, note) VALUES ('woolies1', 'x')
		ON CONFLICT (transaction_id) DO UPDATE SET note = excluded.note`); err != nil {
		t.Fatal(err)
	}
	totalsAgree(t, s, "exclusions cleared")
	exclude("woolies1", 1)
	upsert(t, s, spec{id: "woolies1", account: "spend", desc: "Woolworths", cents: -1000, method: "CONTACTLESS", category: "groceries", parent: "home", created: oct})
	totalsAgree(t, s, "an excluded transaction changed")
	if _, err := s.db.ExecContext(ctx, "DELETE FROM transaction_annotations WHERE transaction_id = 'woolies1'"); err != nil {
		t.Fatal(err)
	}
	totalsAgree(t, s, "an exclusion deleted")

	// The migration's own statements fill it for an existing mirror.
	exclude("chin", 1)
	if _, err := s.db.ExecContext(ctx, "UPDATE monthly_totals SET total_base_units = 0; "+monthlyTotals); err != nil {
		t.Fatal(err)
	}
	totalsAgree(t, s, "migrated")
}

// TestMonthlyTotalsFollowHouseholdTransfers: a payment between two people
// of the household leaves the household's totals when it is paired, and
// comes back when its other side goes.
func TestMonthlyTotalsFollowHouseholdTransfers(t *testing.T) {
	s := household(t)
	upsert(t, s, householdRows()...)
	if len(pairs(t, s)) != 2 {
		t.Fatalf("pairs %v", pairs(t, s))
	}
	totalsAgree(t, s, "paired")
	if _, err := s.DeleteTransaction(context.Background(), "pay-in"); err != nil {
		t.Fatal(err)
	}
	totalsAgree(t, s, "unpaired")
}

// TestBulkLoadFillsMonthlyTotals: a first sync into an empty mirror runs
// without the totals' triggers and fills the table when it ends; it
// leaves transactions_search_money complete too, and later writes keep
// both so.
func TestBulkLoadFillsMonthlyTotals(t *testing.T) {
	ctx := context.Background()
	s := household(t)
	l, err := s.BeginListing(ctx, "transactions", "http://x/p1", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var page []bank.Transaction
	for _, sp := range householdRows() {
		page = append(page, sp.resource(t))
	}
	if _, err := s.SaveListingPage(ctx, &l, page, ""); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM monthly_totals"); n != 0 {
		t.Fatalf("monthly_totals filled during the load: %d rows", n)
	}
	if _, err := s.FinishListing(ctx, &l); err != nil {
		t.Fatal(err)
	}
	totalsAgree(t, s, "after the load")
	searchAgrees(t, s, "after the load", 2, "a", "e", "cafe", "transfer")
	upsert(t, s, spec{id: "later", account: "alex-spend", desc: "Cafe", cents: -300, created: mar2, category: "restaurants-and-cafes", parent: "good-life"})
	totalsAgree(t, s, "a write after the load")
	searchAgrees(t, s, "a write after the load", 2, "a", "e", "cafe", "transfer")
}

// TestSearchCountsSumsAndPages: a search's count and sum are those of
// every match, and its pages, newest first, list each match once, as the
// plain SQL of the same filter says; with a month, a category and the
// spending filter too.
func TestSearchCountsSumsAndPages(t *testing.T) {
	ctx := context.Background()
	s := offsetsFixture(t, t.TempDir()+"/m.db")
	for _, f := range []TxFilter{
		{Search: "woolworths"},
		{Search: "ray"},
		{Search: "o"}, // a prefix of many
		{Search: "w", Month: "2025-10", Category: "home"},
		{Search: "chin", Spending: true},
		{Search: "o", Month: "2025-10", Category: "home"}, // fewer than "o" alone
		{Search: "o", Spending: true},
		{Search: "nothing-matches"},
	} {
		cond := "id IN (SELECT id FROM transactions WHERE rowid IN (SELECT rowid FROM transactions_search WHERE transactions_search MATCH ?))"
		args := []any{SearchQuery(f.Search)}
		if f.Month != "" {
			cond += " AND created_month = ? AND (category_id = ? OR parent_category_id = ?)"
			args = append(args, f.Month, f.Category, f.Category)
		}
		if f.Spending {
			cond += ` AND status = 'SETTLED' AND NOT is_transfer AND NOT is_interest
				AND NOT household_transfer AND account_type IS NOT 'HOME_LOAN' AND (amount_base_units < 0 OR offsets_spending)`
		}
		var want []string
		var wantSum int64
		for _, r := range rows(t, s.Reader(), "SELECT id, amount_base_units FROM v_transactions WHERE "+cond+" ORDER BY created_epoch DESC, id DESC", args...) {
			want = append(want, r[0])
			n, _ := strconv.ParseInt(r[1], 10, 64)
			wantSum += n
		}
		var got []string
		f.Limit = 2
		for page := 0; page < 20; page++ {
			list, err := s.ListTransactions(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if list.Count != int64(len(want)) || list.Sum != wantSum {
				t.Errorf("%+v: count %d sum %d, want %d and %d", f, list.Count, list.Sum, len(want), wantSum)
			}
			for _, r := range list.Rows {
				got = append(got, r.ID)
			}
			if len(list.Rows) < f.Limit {
				break
			}
			last := list.Rows[len(list.Rows)-1]
			f.BeforeEpoch, f.BeforeID = last.Epoch, last.ID
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v: pages %v, want %v", f, got, want)
		}
	}
}

// The dashboard's and status's oldest HELD transactions are read from
// transactions_held_created, not sorted from every HELD row.
func TestOldestHeldReadFromTheirIndex(t *testing.T) {
	s, _ := mustOpen(t)
	for _, q := range []string{
		"SELECT id FROM transactions WHERE status = 'HELD' ORDER BY " + heldOrder + " LIMIT 20",
		"SELECT id, description, created_at FROM transactions WHERE status = 'HELD' ORDER BY " + heldOrder + " LIMIT 1",
	} {
		if plan := queryPlan(t, s, q); !strings.Contains(plan, "transactions_held_created") || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%s: %s", q, plan)
		}
	}
}
