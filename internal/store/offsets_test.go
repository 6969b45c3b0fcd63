package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// An October of a customer who splits bills with friends: settled
// purchases of 23,050.40 and 334.00 paid back by friends over Osko,
// categorised by the customer (Restaurants & Cafes, Gifts & Charity,
// Rent), 22,716.40 net; beside them money in that must not net: a
// categorised transfer between own accounts, uncategorised salary and
// Osko, saver interest, a HELD categorised credit, a categorised credit
// on the home loan. In November a card refund and a payback for an
// October dinner.
func offsetsFixture(t *testing.T, path string) *Store {
	t.Helper()
	ctx := context.Background()
	s := openAt(t, path, WithClock((&clock{t: time.Date(2025, 11, 20, 0, 0, 0, 0, time.UTC)}).now))
	if _, err := s.UpsertAccounts(ctx, []bank.Account{
		account("spend", "Spending", "TRANSACTIONAL", 100000),
		account("joint", "2Up", "TRANSACTIONAL", 20000),
		account("saver", "Rainy Day", "SAVER", 500000),
		account("loan", "Home Loan", "HOME_LOAN", -50000000),
	}); err != nil {
		t.Fatal(err)
	}
	var cats []bank.Category
	for _, c := range [][3]string{
		{"good-life", "Good Life", ""}, {"restaurants-and-cafes", "Restaurants & Cafes", "good-life"},
		{"holidays-and-travel", "Holidays & Travel", "good-life"},
		{"home", "Home", ""}, {"groceries", "Groceries", "home"}, {"rent-and-mortgage", "Rent & Mortgage", "home"},
		{"personal", "Personal", ""}, {"gifts-and-charity", "Gifts & Charity", "personal"},
	} {
		cat := bank.Category{ID: c[0], Name: c[1], Raw: []byte(`{}`)}
		if c[2] != "" {
			cat.ParentID = ptr(c[2])
		}
		cats = append(cats, cat)
	}
	if err := s.ReplaceCategories(ctx, cats); err != nil {
		t.Fatal(err)
	}
	const (
		cafe, good     = "restaurants-and-cafes", "good-life"
		rent, groc     = "rent-and-mortgage", "groceries"
		home, travel   = "home", "holidays-and-travel"
		gifts, persnl  = "gifts-and-charity", "personal"
		osko, purchase = "Osko Payment Received", "Purchase"
	)
	oct := func(day, hour int) string {
		return time.Date(2025, 10, day, hour, 0, 0, 0, time.FixedZone("", 11*3600)).Format(time.RFC3339)
	}
	upsert(t, s,
		// Settled money out: 23,050.40.
		spec{id: "rent1", account: "spend", desc: "Ray White Rentals", cents: -260000, typ: "Direct Debit", category: rent, parent: home, created: oct(1, 9)},
		spec{id: "rent2", account: "spend", desc: "Ray White Rentals", cents: -260000, typ: "Direct Debit", category: rent, parent: home, created: oct(15, 9)},
		spec{id: "qantas", account: "spend", desc: "Qantas", cents: -1450000, typ: purchase, method: "ECOMMERCE", category: travel, parent: good, created: oct(3, 12)},
		spec{id: "chin", account: "spend", desc: "Chin Chin", cents: -18040, typ: purchase, method: "CARD_PIN", category: cafe, parent: good, created: oct(10, 20)},
		spec{id: "tipo", account: "spend", desc: "Tipo 00", cents: -9500, method: "CONTACTLESS", category: cafe, parent: good, created: oct(17, 20)},
		spec{id: "myer", account: "spend", desc: "Myer", cents: -15000, method: "CONTACTLESS", category: gifts, parent: persnl, created: oct(12, 14)},
		spec{id: "woolies1", account: "spend", desc: "Woolworths", cents: -90500, method: "CONTACTLESS", category: groc, parent: home, created: oct(4, 10)},
		spec{id: "woolies2", account: "spend", desc: "Woolworths", cents: -95000, method: "CONTACTLESS", category: groc, parent: home, created: oct(11, 10)},
		spec{id: "woolies3", account: "spend", desc: "Woolworths", cents: -95000, method: "CONTACTLESS", category: groc, parent: home, created: oct(18, 10)},
		spec{id: "joint-cafe", account: "joint", desc: "Seven Seeds", cents: -12000, method: "CONTACTLESS", category: cafe, parent: good, created: oct(19, 11)},
		// Paid back by friends, categorised: 334.00.
		spec{id: "jack", account: "spend", desc: "Jack Williams", cents: 20000, typ: osko, category: rent, parent: home, created: oct(16, 8)},
		spec{id: "mei", account: "spend", desc: "Mei Chen", cents: 6020, typ: osko, category: cafe, parent: good, created: oct(11, 9)},
		spec{id: "liam", account: "joint", desc: "Liam O'Connor", cents: 2380, typ: osko, category: cafe, parent: good, created: oct(20, 9)},
		// Into the joint account, where nothing was spent on gifts: a negative total.
		spec{id: "priya", account: "joint", desc: "Priya Sharma", cents: 5000, typ: osko, category: gifts, parent: persnl, created: oct(13, 9)},
		// Money in that does not net.
		spec{id: "tr-in", account: "spend", desc: "Transfer from Rainy Day", cents: 50000, typ: "Transfer", transfer: "saver", category: cafe, parent: good, created: oct(21, 9)},
		spec{id: "tr-out", account: "saver", desc: "Transfer to Spending", cents: -50000, typ: "Transfer", transfer: "spend", created: oct(21, 9)},
		spec{id: "salary", account: "spend", desc: "Acme Analytics Pty Ltd", cents: 420000, typ: "Salary", created: oct(14, 6)},
		spec{id: "footy", account: "spend", desc: "Zoë Martin", cents: 2000, typ: osko, created: oct(22, 9)},
		spec{id: "sav-int", account: "saver", desc: "Interest", cents: 1234, typ: "Interest", created: oct(31, 8)},
		spec{id: "held-in", account: "spend", desc: "David Taylor", cents: 4500, status: "HELD", hold: 4500, typ: osko, category: cafe, parent: good, created: oct(30, 21)},
		spec{id: "loan-in", account: "loan", desc: "Offset adjustment", cents: 100000, category: rent, parent: home, created: oct(25, 9)},
		// November: a card refund, and a payback for an October dinner,
		// which nets in its own month.
		spec{id: "nov-groc", account: "spend", desc: "Coles", cents: -10000, method: "CONTACTLESS", category: groc, parent: home, created: "2025-11-03T10:00:00+11:00"},
		spec{id: "nov-refund", account: "spend", desc: "Coles", cents: 3000, typ: "Refund", method: "CONTACTLESS", category: groc, parent: home, created: "2025-11-04T10:00:00+11:00"},
		spec{id: "ahmed", account: "spend", desc: "Ahmed Hassan", cents: 4000, typ: osko, category: cafe, parent: good, created: "2025-11-02T10:00:00+11:00"},
	)
	return s
}

const spendingQuery = `SELECT month, account_name, parent_category, category, total_spent, total_spent_base_units,
	count, spent, refunded, refund_count FROM v_monthly_spending ORDER BY month, account_name, parent_category, category`

func TestCategorisedMoneyInOffsetsSpending(t *testing.T) {
	s := offsetsFixture(t, filepath.Join(t.TempDir(), "m.db"))
	db := s.Reader()
	octRows := [][]string{
		{"2025-10", "2Up", "Good Life", "Restaurants & Cafes", "96.2", "9620", "1", "120", "23.8", "1"},
		{"2025-10", "2Up", "Personal", "Gifts & Charity", "-50", "-5000", "0", "0", "50", "1"},
		{"2025-10", "Spending", "Good Life", "Holidays & Travel", "14500", "1450000", "1", "14500", "0", "0"},
		{"2025-10", "Spending", "Good Life", "Restaurants & Cafes", "215.2", "21520", "2", "275.4", "60.2", "1"},
		{"2025-10", "Spending", "Home", "Groceries", "2805", "280500", "3", "2805", "0", "0"},
		{"2025-10", "Spending", "Home", "Rent & Mortgage", "5000", "500000", "2", "5200", "200", "1"},
		{"2025-10", "Spending", "Personal", "Gifts & Charity", "150", "15000", "1", "150", "0", "0"},
	}
	novRows := [][]string{
		{"2025-11", "Spending", "Good Life", "Restaurants & Cafes", "-40", "-4000", "0", "0", "40", "1"},
		{"2025-11", "Spending", "Home", "Groceries", "70", "7000", "1", "100", "30", "1"},
	}
	wantRows(t, db, append(append([][]string{}, octRows...), novRows...), spendingQuery)
	// The month as a whole: settled debits minus categorised money in.
	wantRows(t, db, [][]string{{"2305040", "33400", "2271640", "22716.4"}},
		`SELECT CAST(round(sum(spent) * 100) AS INTEGER), CAST(round(sum(refunded) * 100) AS INTEGER),
			sum(total_spent_base_units), round(sum(total_spent), 2)
		FROM v_monthly_spending WHERE month = '2025-10'`)

	// Salary, interest and uncategorised money in stay income; what nets
	// (the paybacks, the card refund) and transfers do not.
	wantRows(t, db, [][]string{
		{"2025-10", "Rainy Day", "Interest", "12.34", "1234", "1"},
		{"2025-10", "Spending", "Osko Payment Received", "20", "2000", "1"},
		{"2025-10", "Spending", "Salary", "4200", "420000", "1"},
	}, `SELECT month, account_name, income_type, total_income, total_income_base_units, count
		FROM v_monthly_income ORDER BY month, account_name, income_type`)

	// The flag is set exactly on what nets; is_refund keeps its meaning
	// (a refund of a purchase), so the paybacks are not refunds.
	wantRows(t, db, [][]string{{"ahmed"}, {"jack"}, {"liam"}, {"mei"}, {"nov-refund"}, {"priya"}},
		"SELECT id FROM v_transactions WHERE offsets_spending ORDER BY id")
	wantRows(t, db, [][]string{{"nov-refund"}}, "SELECT id FROM v_transactions WHERE is_refund ORDER BY id")
	wantRows(t, db, [][]string{{"0"}},
		"SELECT count(*) FROM v_transactions WHERE offsets_spending IS NOT 0 AND offsets_spending IS NOT 1")
	// What v_monthly_spending adds up is money out plus what is flagged.
	wantRows(t, db, [][]string{{"1"}}, `SELECT (SELECT sum(total_spent_base_units) FROM v_monthly_spending) =
		(SELECT -sum(amount_base_units) FROM v_transactions WHERE offsets_spending OR (status = 'SETTLED'
			AND amount_base_units < 0 AND NOT is_transfer AND NOT is_interest AND account_type != 'HOME_LOAN'))`)
	// v_ledger carries the flag as its last column, row for row.
	wantRows(t, db, [][]string{{"0"}},
		"SELECT count(*) FROM v_ledger l JOIN v_transactions t USING (id) WHERE l.offsets_spending IS NOT t.offsets_spending")
	cols := columns(t, db, "v_ledger")
	if i := slices.Index(cols, "created_epoch"); i < 0 || i+1 >= len(cols) || cols[i+1] != "offsets_spending" {
		t.Errorf("v_ledger columns %q, want offsets_spending after created_epoch", cols)
	}

	// Once the held credit settles it nets, in its month.
	upsert(t, s, spec{id: "held-in", account: "spend", desc: "David Taylor", cents: 4500, hold: 4500, typ: "Osko Payment Received",
		category: "restaurants-and-cafes", parent: "good-life", created: "2025-10-30T21:00:00+11:00", settled: "2025-11-01T09:00:00+11:00"})
	wantRows(t, db, [][]string{{"170.2", "2", "105.2", "1"}},
		`SELECT m.total_spent, m.refund_count, m.refunded, t.offsets_spending FROM v_monthly_spending m, v_transactions t
		WHERE m.month = '2025-10' AND m.account_id = 'spend' AND m.category_id = 'restaurants-and-cafes' AND t.id = 'held-in'`)
}

// columns lists a view's columns in order.
func columns(t *testing.T, db *sql.DB, view string) []string {
	t.Helper()
	r, err := db.Query("SELECT * FROM " + view + " LIMIT 0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cols, err := r.Columns()
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

// A mirror of schema version 8 gets the new views from the migration: its
// data stays, and its October, which summed to the debits alone, now nets
// the money in.
func TestMigrationNetsCategorisedMoneyInOnExistingMirror(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	s := offsetsFixture(t, path)
	// Back to version 8: the views of migrations 5 and 7
	// (0005_money_views.sql without its column additions, which are in
	// place, and 0007_ledger_view.sql).
	var v5 []string
	for _, l := range strings.Split(migrationSQL("0005_money_views.sql"), "\n") {
		if !strings.HasPrefix(l, "ALTER TABLE") {
			v5 = append(v5, l)
		}
	}
	// Version 13's, 12's and 11's tables, views and columns go too, so that
	// they can run again.
	undo12 := `DROP TRIGGER household_transfer_insert; DROP TRIGGER household_transfer_delete; DROP TRIGGER household_transfer_update;
		DROP VIEW v_monthly_spending_by_person; DROP VIEW v_monthly_income_by_person; DROP VIEW household_transfer_pairs;
		DROP VIEW household_transfer_candidates; DROP VIEW v_account_people;
		DROP INDEX transactions_household_paired;
		DROP INDEX transactions_month_money; DROP VIEW v_monthly_spending; DROP VIEW v_transactions;
		ALTER TABLE transactions DROP COLUMN household_transfer_id`
	var undo13 []string
	for _, o := range triggersOf(monthlyTotals, "monthly_totals_") {
		undo13 = append(undo13, "DROP TRIGGER "+o.name)
	}
	undo12 = strings.Join(append(undo13, "DROP VIEW monthly_totals_rows", "DROP VIEW monthly_totals_base", undo12), "; ")
	undo11 := "DROP TABLE people; DROP TABLE account_people; ALTER TABLE accounts DROP COLUMN gone_at; ALTER TABLE webhooks DROP COLUMN person"
	undoCompactRaw(t, s.db)
	for _, q := range []string{"DROP VIEW v_ledger; DROP VIEW v_monthly_income", undo12, strings.Join(v5, "\n"), migrationSQL("0007_ledger_view.sql"), undo11, "ALTER TABLE sync_state DROP COLUMN start_rowid", "PRAGMA user_version = 8"} {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	const october = "SELECT round(sum(total_spent), 2) FROM v_monthly_spending WHERE month = '2025-10'"
	wantRows(t, s.Reader(), [][]string{{"23050.4"}}, october)
	if cols := columns(t, s.Reader(), "v_transactions"); cols[len(cols)-1] != "is_interest" {
		t.Fatalf("version 8 v_transactions ends with %q, want is_interest", cols[len(cols)-1])
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openAt(t, path)
	if v := queryInt(t, s, "PRAGMA user_version"); v != int64(SchemaVersion()) {
		t.Fatalf("user_version %d after Open, want %d", v, SchemaVersion())
	}
	wantRows(t, s.Reader(), [][]string{{"22716.4"}}, october)
	wantRows(t, s.Reader(), [][]string{{"24", "6"}},
		"SELECT (SELECT count(*) FROM transactions), (SELECT count(*) FROM v_ledger WHERE offsets_spending)")
}
