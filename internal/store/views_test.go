package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// spec describes a transaction for the view tests; resource renders it as
// the bank would and parses it as the daemon does.
type spec struct {
	id, account, status, desc, created, settled string
	cents                                       int64
	typ, category, parent, transfer, method     string
	performer                                   string // performingCustomer's displayName
	foreign                                     *bank.Money
	hold                                        int64 // the amount while held (cents); 0 = never held
	roundUp, boost, cashback                    int64
	tags                                        []string
}

func cents(units int64, currency string) map[string]any {
	sign, abs := "", units
	if units < 0 {
		sign, abs = "-", -units
	}
	return map[string]any{"currencyCode": currency, "value": fmt.Sprintf("%s%d.%02d", sign, abs/100, abs%100), "valueInBaseUnits": units}
}

func ident(typ, id string) map[string]any {
	if id == "" {
		return map[string]any{"data": nil}
	}
	return map[string]any{"data": map[string]any{"type": typ, "id": id}}
}

func orNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (sp spec) resource(t testing.TB) bank.Transaction {
	t.Helper()
	status := sp.status
	if status == "" {
		status = "SETTLED"
	}
	settled := sp.settled
	if settled == "" && status == "SETTLED" {
		settled = sp.created
	}
	attrs := map[string]any{
		"status": status, "rawText": nil, "description": sp.desc, "message": nil, "isCategorizable": sp.transfer == "",
		"holdInfo": nil, "roundUp": nil, "cashback": nil, "amount": cents(sp.cents, "AUD"), "foreignAmount": nil,
		"cardPurchaseMethod": nil, "settledAt": orNil(settled), "createdAt": sp.created,
		"transactionType": orNil(sp.typ), "note": nil, "performingCustomer": nil, "deepLinkURL": "up://transaction/" + sp.id,
	}
	if sp.performer != "" {
		attrs["performingCustomer"] = map[string]any{"displayName": sp.performer}
	}
	if sp.foreign != nil {
		attrs["foreignAmount"] = sp.foreign
	}
	if sp.hold != 0 {
		attrs["holdInfo"] = map[string]any{"amount": cents(sp.hold, "AUD"), "foreignAmount": sp.foreign}
	}
	if sp.roundUp != 0 {
		ru := map[string]any{"amount": cents(sp.roundUp, "AUD"), "boostPortion": nil}
		if sp.boost != 0 {
			ru["boostPortion"] = cents(sp.boost, "AUD")
		}
		attrs["roundUp"] = ru
	}
	if sp.cashback != 0 {
		attrs["cashback"] = map[string]any{"description": "Instant cashback", "amount": cents(sp.cashback, "AUD")}
	}
	if sp.method != "" {
		attrs["cardPurchaseMethod"] = map[string]any{"method": sp.method, "cardNumberSuffix": "4821"}
	}
	tags := []any{}
	for _, tag := range sp.tags {
		tags = append(tags, map[string]any{"type": "tags", "id": tag})
	}
	res := map[string]any{
		"type": "transactions", "id": sp.id, "attributes": attrs,
		"relationships": map[string]any{
			"account":         ident("accounts", sp.account),
			"transferAccount": ident("accounts", sp.transfer),
			"category":        ident("categories", sp.category),
			"parentCategory":  ident("categories", sp.parent),
			"tags":            map[string]any{"data": tags},
			"attachment":      ident("attachments", ""),
		},
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := bank.ParseTransaction(raw)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func upsert(t testing.TB, s *Store, specs ...spec) {
	t.Helper()
	txs := make([]bank.Transaction, len(specs))
	for i, sp := range specs {
		txs[i] = sp.resource(t)
	}
	if _, err := s.UpsertTransactions(context.Background(), txs); err != nil {
		t.Fatal(err)
	}
}

func account(id, name, typ string, balance int64) bank.Account {
	return bank.Account{ID: id, DisplayName: name, AccountType: typ, OwnershipType: "INDIVIDUAL",
		Balance:   bank.Money{CurrencyCode: "AUD", Value: cents(balance, "AUD")["value"].(string), ValueInBaseUnits: balance},
		CreatedAt: "2025-01-01T09:00:00+11:00", Raw: []byte(`{}`)}
}

// rows runs q and returns every row as strings ("NULL" for NULL), so that
// a whole result compares with one reflect.DeepEqual.
func rows(t testing.TB, db *sql.DB, q string, args ...any) [][]string {
	t.Helper()
	r, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer r.Close()
	cols, err := r.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for r.Next() {
		vals := make([]any, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := r.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				row[i] = "NULL"
			case []byte:
				row[i] = string(x)
			default:
				row[i] = fmt.Sprint(x)
			}
		}
		out = append(out, row)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func wantRows(t *testing.T, db *sql.DB, want [][]string, q string, args ...any) {
	t.Helper()
	got := rows(t, db, q, args...)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s\n got: %q\nwant: %q", q, got, want)
	}
}

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func openAt(t testing.TB, path string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func unix(y int, m time.Month, d, h, min, sec int) string {
	return fmt.Sprint(time.Date(y, m, d, h, min, sec, 0, time.UTC).Unix())
}

// Bank timestamps carry +10:00 or +11:00 (or Z); the local columns are the
// customer's wall clock around both DST changes, and the epoch orders them
// as instants where their text does not.
func TestLocalTimeColumnsAcrossDST(t *testing.T) {
	s, _ := mustOpen(t)
	upsert(t, s,
		// DST ends 2026-04-05 03:00 AEDT (16:00Z): 02:00-03:00 happens twice.
		spec{id: "a", account: "acc", desc: "a", cents: -100, created: "2026-04-05T02:30:00+11:00"},
		spec{id: "b", account: "acc", desc: "b", cents: -100, created: "2026-04-05T02:30:00+10:00"},
		spec{id: "c", account: "acc", desc: "c", cents: -100, created: "2026-04-05T02:10:00+10:00"},
		// Sent in UTC: already 1 April in Melbourne.
		spec{id: "d", account: "acc", desc: "d", cents: -100, created: "2026-03-31T13:30:00Z", settled: "2026-04-01T09:00:00+11:00"},
		// DST starts 2025-10-05 02:00 AEST (16:00Z on the 4th).
		spec{id: "e", account: "acc", desc: "e", cents: -100, created: "2025-10-04T23:59:59+10:00"},
		spec{id: "f", account: "acc", desc: "f", cents: -100, created: "2025-10-05T03:00:00+11:00"},
		spec{id: "h", account: "acc", desc: "h", cents: -100, status: "HELD", hold: -100, created: "2026-04-06T12:00:00.5+10:00"},
	)
	// Settled ones without a settledAt of their own settled when created.
	wantRows(t, s.Reader(), [][]string{
		{"a", unix(2026, 4, 4, 15, 30, 0), "2026-04-05 02:30:00", "2026-04-05", "2026-04", "2026-04-05 02:30:00"},
		{"b", unix(2026, 4, 4, 16, 30, 0), "2026-04-05 02:30:00", "2026-04-05", "2026-04", "2026-04-05 02:30:00"},
		{"c", unix(2026, 4, 4, 16, 10, 0), "2026-04-05 02:10:00", "2026-04-05", "2026-04", "2026-04-05 02:10:00"},
		{"d", unix(2026, 3, 31, 13, 30, 0), "2026-04-01 00:30:00", "2026-04-01", "2026-04", "2026-04-01 09:00:00"},
		{"e", unix(2025, 10, 4, 13, 59, 59), "2025-10-04 23:59:59", "2025-10-04", "2025-10", "2025-10-04 23:59:59"},
		{"f", unix(2025, 10, 4, 16, 0, 0), "2025-10-05 03:00:00", "2025-10-05", "2025-10", "2025-10-05 03:00:00"},
		{"h", unix(2026, 4, 6, 2, 0, 0), "2026-04-06 12:00:00", "2026-04-06", "2026-04", "NULL"},
	}, `SELECT id, created_epoch, created_local, created_date, created_month, coalesce(settled_local, 'NULL')
		FROM v_transactions WHERE id != 'd' OR settled_date = '2026-04-01' AND settled_month = '2026-04'
		AND settled_epoch = unixepoch('2026-03-31T22:00:00Z') ORDER BY id`)
	// As instants a (15:30Z) < c (16:10Z) < b (16:30Z); as text c < b < a.
	wantRows(t, s.Reader(), [][]string{{"a"}, {"c"}, {"b"}},
		"SELECT id FROM v_transactions WHERE created_date = '2026-04-05' ORDER BY created_epoch")
	wantRows(t, s.Reader(), [][]string{{"c"}, {"b"}, {"a"}},
		"SELECT id FROM v_transactions WHERE created_date = '2026-04-05' ORDER BY created_at")
	// The HELD one has no settlement.
	wantRows(t, s.Reader(), [][]string{{"1"}},
		"SELECT count(*) FROM transactions WHERE settled_epoch IS NULL AND settled_local IS NULL AND settled_date IS NULL AND settled_month IS NULL AND id = 'h'")
}

// Comparing the bank's or the mirror's timestamp text with datetime()
// gives wrong counts (the 5,008 rows where the answer was 0); the
// epoch columns give the right ones.
func TestEpochColumnsCompareAsInstants(t *testing.T) {
	s, c := mustOpen(t)
	ref := time.Date(2026, 4, 6, 0, 0, 0, 0, time.UTC)
	refText := ref.Format(time.DateTime)
	// Three history rows, 120 s, 30 s and 10 s before ref.
	for i, ago := range []time.Duration{120 * time.Second, 30 * time.Second, 10 * time.Second} {
		c.t = ref.Add(-ago)
		upsert(t, s, spec{id: fmt.Sprint("x", i), account: "acc", desc: "x", cents: -100,
			// 25 h, 23 h and 2 h before ref, written in +10:00.
			created: ref.Add(-[]time.Duration{25 * time.Hour, 23 * time.Hour, 2 * time.Hour}[i]).In(time.FixedZone("", 10*3600)).Format(time.RFC3339)})
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transaction_history WHERE observed_at >= datetime(?, '-1 minute')", refText); n != 3 {
		t.Errorf("text comparison of observed_at: %d rows (the trap this guards against gives 3)", n)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transaction_history WHERE observed_epoch >= unixepoch(?, '-1 minute')", refText); n != 2 {
		t.Errorf("observed_epoch in the last minute: %d rows, want 2", n)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM v_history WHERE observed_epoch >= unixepoch(?, '-1 minute')", refText); n != 2 {
		t.Errorf("v_history.observed_epoch in the last minute: %d rows, want 2", n)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transactions WHERE created_at >= datetime(?, '-1 day')", refText); n != 3 {
		t.Errorf("text comparison of created_at: %d rows (the trap gives 3)", n)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM v_transactions WHERE created_epoch >= unixepoch(?, '-1 day')", refText); n != 2 {
		t.Errorf("created_epoch in the last day: %d rows, want 2", n)
	}
}

// moneyFixture is a month of a customer's money: purchases and refunds,
// a held purchase, transfers between own accounts, home-loan interest and
// a repayment, saver interest, salary, a payment received.
func moneyFixture(t *testing.T) *Store {
	t.Helper()
	s, _ := mustOpen(t)
	ctx := context.Background()
	if _, err := s.UpsertAccounts(ctx, []bank.Account{
		account("spend", "Spending", "TRANSACTIONAL", 100000),
		account("saver", "Rainy Day", "SAVER", 500000),
		account("loan", "Home Loan", "HOME_LOAN", -50000000),
		account("joint", "2Up", "TRANSACTIONAL", 20000),
	}); err != nil {
		t.Fatal(err)
	}
	cats := []bank.Category{
		{ID: "good-life", Name: "Good Life", Raw: []byte(`{}`)},
		{ID: "restaurants-and-cafes", Name: "Restaurants & Cafes", ParentID: ptr("good-life"), Raw: []byte(`{}`)},
		{ID: "games-and-software", Name: "Apps, Games & Software", ParentID: ptr("good-life"), Raw: []byte(`{}`)},
		{ID: "home", Name: "Home", Raw: []byte(`{}`)},
		{ID: "groceries", Name: "Groceries", ParentID: ptr("home"), Raw: []byte(`{}`)},
	}
	if err := s.ReplaceCategories(ctx, cats); err != nil {
		t.Fatal(err)
	}
	const cafe, good, groc, home = "restaurants-and-cafes", "good-life", "groceries", "home"
	upsert(t, s,
		spec{id: "p1", account: "spend", desc: "Woolworths", cents: -10000, typ: "Purchase", method: "CONTACTLESS", category: groc, parent: home, created: "2026-03-10T10:00:00+11:00", settled: "2026-03-11T10:00:00+11:00"},
		spec{id: "r1", account: "spend", desc: "Woolworths", cents: 3000, typ: "Refund", category: groc, parent: home, created: "2026-03-12T10:00:00+11:00"},
		spec{id: "h1", account: "spend", desc: "Coles", cents: -5000, status: "HELD", hold: -5000, method: "CONTACTLESS", category: groc, parent: home, created: "2026-03-20T10:00:00+11:00"},
		spec{id: "tr-out", account: "spend", desc: "Transfer to Rainy Day", cents: -20000, typ: "Transfer", transfer: "saver", created: "2026-03-13T10:00:00+11:00"},
		spec{id: "tr-in", account: "saver", desc: "Transfer from Spending", cents: 20000, typ: "Transfer", transfer: "spend", created: "2026-03-13T10:00:00+11:00"},
		spec{id: "loan-int", account: "loan", desc: "Interest", cents: -123456, typ: "Interest Charged", created: "2026-03-15T10:00:00+11:00"},
		spec{id: "rep-out", account: "spend", desc: "Home Loan Repayment", cents: -200000, typ: "Transfer", transfer: "loan", created: "2026-03-16T10:00:00+11:00"},
		spec{id: "rep-in", account: "loan", desc: "Repayment from Spending", cents: 200000, typ: "Transfer", transfer: "spend", created: "2026-03-16T10:00:00+11:00"},
		spec{id: "sav-int", account: "saver", desc: "Interest", cents: 1234, typ: "Interest", created: "2026-03-31T10:00:00+11:00"},
		spec{id: "salary", account: "spend", desc: "Acme Analytics Pty Ltd", cents: 300000, typ: "Salary", created: "2026-03-14T10:00:00+11:00"},
		spec{id: "osko", account: "spend", desc: "Mei Chen", cents: 2500, typ: "Osko Payment Received", created: "2026-03-17T10:00:00+11:00"},
		spec{id: "u1", account: "spend", desc: "Mystery shop", cents: -2000, method: "CONTACTLESS", created: "2026-03-18T10:00:00+11:00"},
		spec{id: "c1", account: "joint", desc: "Chin Chin", cents: -8000, typ: "Purchase", method: "CARD_PIN", category: cafe, parent: good, cashback: 200, tags: []string{"a, b", "Date night"}, created: "2026-03-19T20:00:00+11:00"},
		spec{id: "c2", account: "spend", desc: "Seven Seeds", cents: -450, method: "CONTACTLESS", category: cafe, parent: good, roundUp: -150, boost: -100, created: "2026-03-31T23:30:00+11:00"},
		spec{id: "c3", account: "spend", desc: "Seven Seeds", cents: -550, method: "CONTACTLESS", category: cafe, parent: good, created: "2026-03-31T13:30:00Z"},
		spec{id: "grill", account: "spend", desc: "Grill'd", cents: 300, method: "CONTACTLESS", category: cafe, parent: good, created: "2026-03-21T10:00:00+11:00"},
		spec{id: "f1", account: "spend", desc: "Steam", cents: -1500, typ: "Purchase", method: "ECOMMERCE", category: "games-and-software", parent: good,
			foreign: &bank.Money{CurrencyCode: "USD", Value: "-9.90", ValueInBaseUnits: -990}, hold: -1480,
			created: "2026-03-22T10:00:00+11:00", settled: "2026-03-24T10:00:00+11:00"},
	)
	return s
}

func TestMonthlySpendingNetsRefundsAndExcludesTransfersInterestAndHolds(t *testing.T) {
	s := moneyFixture(t)
	wantRows(t, s.Reader(), [][]string{
		{"2026-03", "2Up", "TRANSACTIONAL", "Good Life", "Restaurants & Cafes", "80", "1", "8000", "80", "0", "0"},
		{"2026-03", "Spending", "TRANSACTIONAL", "Good Life", "Apps, Games & Software", "15", "1", "1500", "15", "0", "0"},
		{"2026-03", "Spending", "TRANSACTIONAL", "Good Life", "Restaurants & Cafes", "1.5", "1", "150", "4.5", "3", "1"},
		{"2026-03", "Spending", "TRANSACTIONAL", "Home", "Groceries", "70", "1", "7000", "100", "30", "1"},
		{"2026-03", "Spending", "TRANSACTIONAL", "Uncategorised", "Uncategorised", "20", "1", "2000", "20", "0", "0"},
		{"2026-04", "Spending", "TRANSACTIONAL", "Good Life", "Restaurants & Cafes", "5.5", "1", "550", "5.5", "0", "0"},
	}, `SELECT month, account_name, account_type, parent_category, category, total_spent, count, total_spent_base_units,
		spent, refunded, refund_count FROM v_monthly_spending ORDER BY month, account_name, parent_category, category`)

	wantRows(t, s.Reader(), [][]string{
		{"2026-03", "Rainy Day", "SAVER", "Interest", "12.34", "1234", "1"},
		{"2026-03", "Spending", "TRANSACTIONAL", "Osko Payment Received", "25", "2500", "1"},
		{"2026-03", "Spending", "TRANSACTIONAL", "Salary", "3000", "300000", "1"},
	}, `SELECT month, account_name, account_type, income_type, total_income, total_income_base_units, count
		FROM v_monthly_income ORDER BY month, account_name, income_type`)
}

func TestTransactionsViewColumns(t *testing.T) {
	s := moneyFixture(t)
	db := s.Reader()
	wantRows(t, db, [][]string{
		{"c1", "2Up", "TRANSACTIONAL", "Good Life / Restaurants & Cafes", `["Date night","a, b"]`, "Date night,a, b", "-80", "-8000", "200", "2", "0", "0", "0"},
		{"c2", "Spending", "TRANSACTIONAL", "Good Life / Restaurants & Cafes", "[]", "NULL", "-4.5", "-450", "NULL", "NULL", "0", "0", "0"},
		{"grill", "Spending", "TRANSACTIONAL", "Good Life / Restaurants & Cafes", "[]", "NULL", "3", "300", "NULL", "NULL", "0", "1", "0"},
		{"loan-int", "Home Loan", "HOME_LOAN", "NULL", "[]", "NULL", "-1234.56", "-123456", "NULL", "NULL", "0", "0", "1"},
		{"osko", "Spending", "TRANSACTIONAL", "NULL", "[]", "NULL", "25", "2500", "NULL", "NULL", "0", "0", "0"},
		{"r1", "Spending", "TRANSACTIONAL", "Home / Groceries", "[]", "NULL", "30", "3000", "NULL", "NULL", "0", "1", "0"},
		{"rep-out", "Spending", "TRANSACTIONAL", "NULL", "[]", "NULL", "-2000", "-200000", "NULL", "NULL", "1", "0", "0"},
		{"salary", "Spending", "TRANSACTIONAL", "NULL", "[]", "NULL", "3000", "300000", "NULL", "NULL", "0", "0", "0"},
		{"sav-int", "Rainy Day", "SAVER", "NULL", "[]", "NULL", "12.34", "1234", "NULL", "NULL", "0", "0", "1"},
		{"tr-in", "Rainy Day", "SAVER", "NULL", "[]", "NULL", "200", "20000", "NULL", "NULL", "1", "0", "0"},
		{"u1", "Spending", "TRANSACTIONAL", "NULL", "[]", "NULL", "-20", "-2000", "NULL", "NULL", "0", "0", "0"},
	}, `SELECT id, account_name, account_type, category_path, tags_json, tags, amount, amount_base_units,
		cashback_amount_base_units, cashback_amount, is_transfer, is_refund, is_interest
		FROM v_transactions WHERE id NOT IN ('p1', 'h1', 'tr-out', 'rep-in', 'c3', 'f1') ORDER BY id`)
	// A label with a comma stays one label in tags_json.
	wantRows(t, db, [][]string{{"Date night"}, {"a, b"}},
		"SELECT j.value FROM v_transactions v, json_each(v.tags_json) j WHERE v.id = 'c1' ORDER BY j.value")
	wantRows(t, db, [][]string{
		{"rep-in", "Home Loan", "HOME_LOAN", "Spending", "1"},
		{"rep-out", "Spending", "TRANSACTIONAL", "Home Loan", "1"},
		{"tr-out", "Spending", "TRANSACTIONAL", "Rainy Day", "1"},
	}, "SELECT id, account_name, account_type, transfer_account_name, is_transfer FROM v_transactions WHERE is_transfer AND id != 'tr-in' ORDER BY id")
	wantRows(t, db, [][]string{
		{"f1", "-9.9", "-990", "USD", "-14.8", "-1480", "-990", "USD", "-15", "2026-03-24", "SETTLED"},
		{"h1", "NULL", "NULL", "NULL", "-50", "-5000", "NULL", "NULL", "-50", "NULL", "HELD"},
	}, `SELECT id, foreign_amount, foreign_amount_base_units, foreign_amount_currency, hold_amount, hold_amount_base_units,
		hold_foreign_amount_base_units, hold_foreign_amount_currency, amount, settled_date, status
		FROM v_transactions WHERE hold_amount_base_units IS NOT NULL ORDER BY id`)
	wantRows(t, db, [][]string{{"c2", "-1.5", "-150", "-100"}},
		"SELECT id, round_up_amount, round_up_amount_base_units, round_up_boost_base_units FROM v_transactions WHERE round_up_amount_base_units IS NOT NULL")
}

// v_daily_balances: the last balance of each local day, days without an
// observation carrying the previous one.
func TestDailyBalances(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	observe := func(at time.Time, accs ...bank.Account) {
		t.Helper()
		c.t = at
		if _, err := s.UpsertAccounts(ctx, accs); err != nil {
			t.Fatal(err)
		}
	}
	spend := func(units int64) bank.Account { return account("spend", "Spending", "TRANSACTIONAL", units) }
	saver := account("saver", "Rainy Day", "SAVER", 50000)
	observe(time.Date(2026, 4, 3, 10, 0, 0, 0, time.UTC), spend(10000))        // 3 Apr 21:00 AEDT
	observe(time.Date(2026, 4, 3, 12, 30, 0, 0, time.UTC), spend(9000))        // 3 Apr 23:30 AEDT
	observe(time.Date(2026, 4, 3, 13, 30, 0, 0, time.UTC), spend(8000))        // 4 Apr 00:30 AEDT
	observe(time.Date(2026, 4, 4, 3, 0, 0, 0, time.UTC), spend(8000), saver)   // 4 Apr 14:00 AEDT
	observe(time.Date(2026, 4, 6, 1, 0, 0, 0, time.UTC), spend(7000), saver)   // 6 Apr 11:00 AEST
	observe(time.Date(2026, 4, 6, 13, 59, 0, 0, time.UTC), spend(7000), saver) // 6 Apr 23:59 AEST, no change
	wantRows(t, s.Reader(), [][]string{
		{"2026-04-03", "Spending", "TRANSACTIONAL", "90", "9000", "AUD", "1"},
		{"2026-04-04", "Spending", "TRANSACTIONAL", "80", "8000", "AUD", "1"},
		{"2026-04-05", "Spending", "TRANSACTIONAL", "80", "8000", "AUD", "0"},
		{"2026-04-06", "Spending", "TRANSACTIONAL", "70", "7000", "AUD", "1"},
		{"2026-04-04", "Rainy Day", "SAVER", "500", "50000", "AUD", "1"},
		{"2026-04-05", "Rainy Day", "SAVER", "500", "50000", "AUD", "0"},
		{"2026-04-06", "Rainy Day", "SAVER", "500", "50000", "AUD", "0"},
	}, `SELECT date, account_name, account_type, balance, balance_base_units, currency, is_observed
		FROM v_daily_balances ORDER BY account_name DESC, date`)
	if n := queryInt(t, s, "SELECT count(*) FROM account_balances WHERE observed_date = '2026-04-04' AND substr(observed_at, 1, 10) = '2026-04-03'"); n != 1 {
		t.Errorf("rows observed on 4 April local but 3 April UTC: %d, want 1", n)
	}
}

// v_history describes every change, deleted transactions included, where
// the README's old join with transactions left deleted ones blank.
func TestHistoryViewDescribesDeletedTransactions(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	if _, err := s.UpsertAccounts(ctx, []bank.Account{account("spend", "Spending", "TRANSACTIONAL", 100)}); err != nil {
		t.Fatal(err)
	}
	upsert(t, s,
		spec{id: "h1", account: "spend", desc: "Coles", cents: -5000, status: "HELD", hold: -5000, created: "2026-04-01T10:00:00+11:00"},
		spec{id: "d1", account: "spend", desc: "Hotel deposit", cents: -20000, status: "HELD", hold: -20000, created: "2026-04-01T11:00:00+11:00"})
	c.advance()
	upsert(t, s, spec{id: "h1", account: "spend", desc: "Coles Richmond", cents: -5200, hold: -5000,
		created: "2026-04-01T10:00:00+11:00", settled: "2026-04-02T10:00:00+11:00"})
	c.advance()
	if ok, err := s.DeleteTransaction(ctx, "d1"); err != nil || !ok {
		t.Fatalf("delete: %v %v", ok, err)
	}
	wantRows(t, s.Reader(), [][]string{
		{"h1", "created", "Coles", "Spending", "HELD", "-50", "-5000", "NULL", "1"},
		{"d1", "created", "Hotel deposit", "Spending", "HELD", "-200", "-20000", "NULL", "0"},
		{"h1", "settled", "Coles Richmond", "Spending", "SETTLED", "-52", "-5200", "HELD", "1"},
		{"d1", "deleted", "Hotel deposit", "Spending", "HELD", "-200", "-20000", "HELD", "0"},
	}, `SELECT transaction_id, change, description, account_name, status, amount, amount_base_units,
		coalesce(previous_status, 'NULL'), is_live FROM v_history ORDER BY seq`)
	wantRows(t, s.Reader(), [][]string{
		{"2026-01-02 14:04:05", "2026-01-02", "2026-01", unix(2026, 1, 2, 3, 4, 5)},
		{"2026-01-02 14:04:05", "2026-01-02", "2026-01", unix(2026, 1, 2, 3, 4, 5)},
		{"2026-01-02 14:04:06", "2026-01-02", "2026-01", unix(2026, 1, 2, 3, 4, 6)},
		{"2026-01-02 14:04:07", "2026-01-02", "2026-01", unix(2026, 1, 2, 3, 4, 7)},
	}, "SELECT observed_local, observed_date, observed_month, observed_epoch FROM v_history ORDER BY seq")
	// The query the README used to show: deleted rows have no description.
	if n := queryInt(t, s, `SELECT count(*) FROM transaction_history h LEFT JOIN transactions t ON t.id = h.transaction_id
		WHERE t.description IS NULL`); n != 2 {
		t.Errorf("the old README query leaves %d rows blank, want 2 (the deleted transaction's)", n)
	}
}

// A mirror opened in another zone has every local column recomputed, in
// every table, and the zone recorded; a writer that opened the mirror
// earlier with the old zone writes in the recorded one.
func TestZoneChangeRecomputesEveryRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 3, 31, 13, 30, 0, 0, time.UTC)} // 1 April 00:30 in Melbourne, 31 March 21:30 in Perth
	mel := openAt(t, path, WithClock(clk.now))
	if _, err := mel.UpsertAccounts(ctx, []bank.Account{account("spend", "Spending", "TRANSACTIONAL", 100)}); err != nil {
		t.Fatal(err)
	}
	upsert(t, mel, spec{id: "d", account: "spend", desc: "d", cents: -100, created: "2026-03-31T13:30:00Z", settled: "2026-04-01T00:30:00+11:00"})
	const q = `SELECT (SELECT value FROM mirror_settings WHERE key = 'timezone'),
		(SELECT created_local || ' ' || created_month || ' ' || settled_date || ' ' || created_epoch FROM transactions),
		(SELECT group_concat(observed_local || ' ' || observed_month, ',') FROM transaction_history),
		(SELECT group_concat(observed_date, ',') FROM account_balances)`
	epoch := unix(2026, 3, 31, 13, 30, 0)
	wantRows(t, mel.Reader(), [][]string{{"Australia/Melbourne", "2026-04-01 00:30:00 2026-04 2026-04-01 " + epoch, "2026-04-01 00:30:00 2026-04", "2026-04-01"}}, q)

	perth := openAt(t, path, WithClock(clk.now), WithTimeZone(mustZone(t, "Australia/Perth")))
	wantRows(t, perth.Reader(), [][]string{{"Australia/Perth", "2026-03-31 21:30:00 2026-03 2026-03-31 " + epoch, "2026-03-31 21:30:00 2026-03", "2026-03-31"}}, q)

	// The first store still thinks in Melbourne time; it writes in Perth's,
	// the mirror's.
	upsert(t, mel, spec{id: "e", account: "spend", desc: "e", cents: -100, created: "2026-03-31T13:30:00Z"})
	wantRows(t, mel.Reader(), [][]string{{"2026-03-31", "2026-03-31"}},
		"SELECT created_date, (SELECT max(observed_date) FROM transaction_history) FROM transactions WHERE id = 'e'")

	// Columns left NULL (a mirror from before them) are filled at Open.
	if _, err := perth.db.Exec(`UPDATE transactions SET created_epoch = NULL, created_local = NULL, created_date = NULL, created_month = NULL;
		UPDATE transaction_history SET observed_epoch = NULL, observed_local = NULL, observed_date = NULL, observed_month = NULL;
		DELETE FROM mirror_settings`); err != nil {
		t.Fatal(err)
	}
	perth.Close()
	mel.Close()
	again := openAt(t, path, WithClock(clk.now), WithTimeZone(mustZone(t, "UTC")))
	wantRows(t, again.Reader(), [][]string{{"UTC", "2026-03-31 13:30:00 2026-03 2026-03-31 " + epoch, "2026-03-31 13:30:00 2026-03,2026-03-31 13:30:00 2026-03", "2026-03-31"}}, q)
	if n := queryInt(t, again, "SELECT count(*) FROM transactions WHERE created_epoch IS NULL OR created_month IS NULL"); n != 0 {
		t.Errorf("%d transactions without local columns after Open", n)
	}
}

func TestTimeZoneMustBeNamed(t *testing.T) {
	_, err := Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), WithTimeZone(time.Local))
	if err == nil || !strings.Contains(err.Error(), "IANA") {
		t.Fatalf("Open with time.Local: %v, want an error naming IANA zone names", err)
	}
}

// The recomputation after a zone change is one transaction: when it
// fails part way, Open fails and the mirror keeps every row and the
// recorded zone as they were.
func TestZoneRecomputationIsAllOrNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 3, 31, 13, 30, 0, 0, time.UTC)}
	s := openAt(t, path, WithClock(clk.now))
	if _, err := s.UpsertAccounts(ctx, []bank.Account{account("spend", "Spending", "TRANSACTIONAL", 100)}); err != nil {
		t.Fatal(err)
	}
	upsert(t, s, spec{id: "d", account: "spend", desc: "d", cents: -100, created: "2026-03-31T13:30:00Z"})
	// account_balances is recomputed last: fail there.
	if _, err := s.db.Exec("CREATE TRIGGER fail_recompute BEFORE UPDATE ON account_balances BEGIN SELECT RAISE(ABORT, 'injected failure'); END"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	const q = `SELECT (SELECT value FROM mirror_settings WHERE key = 'timezone'), (SELECT created_local FROM transactions),
		(SELECT observed_local FROM transaction_history), (SELECT observed_local FROM account_balances)`
	before := [][]string{{"Australia/Melbourne", "2026-04-01 00:30:00", "2026-04-01 00:30:00", "2026-04-01 00:30:00"}}

	_, err := Open(ctx, path, WithTimeZone(mustZone(t, "Australia/Perth")))
	if err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("Open with a failing recomputation: %v", err)
	}
	s = openAt(t, path) // Melbourne again: nothing to recompute
	wantRows(t, s.Reader(), before, q)
	if _, err := s.db.Exec("DROP TRIGGER fail_recompute"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	perth := openAt(t, path, WithTimeZone(mustZone(t, "Australia/Perth")))
	wantRows(t, perth.Reader(), [][]string{{"Australia/Perth", "2026-03-31 21:30:00", "2026-03-31 21:30:00", "2026-03-31 21:30:00"}}, q)
}

// Rows written without local times (by SQL outside this package) are
// filled at the next Open, in the recorded zone.
func TestOpenFillsRowsWithoutLocalTimes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	clk := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s := openAt(t, path, WithClock(clk.now))
	upsert(t, s, spec{id: "d", account: "spend", desc: "d", cents: -100, created: "2026-03-31T13:30:00Z"})
	if _, err := s.db.Exec(`INSERT INTO transaction_history (transaction_id, change, observed_at) VALUES ('d', 'updated', '2026-03-31T13:30:00.000000Z');
		UPDATE transactions SET created_epoch = NULL, created_local = NULL, created_date = NULL, created_month = NULL`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openAt(t, path)
	epoch := unix(2026, 3, 31, 13, 30, 0)
	wantRows(t, s.Reader(), [][]string{
		{"created", epoch, "2026-01-02 14:04:05", "2026-01"},
		{"updated", epoch, "2026-04-01 00:30:00", "2026-04"},
	}, "SELECT change, (SELECT created_epoch FROM transactions), observed_local, observed_month FROM transaction_history ORDER BY seq")
}

// CountCreatedSince compares instants, not the bank's text: as text,
// 09:00+10:00 sorts before 10:30+11:00 and after 23:15Z of the day
// before, but it is the earliest of the three.
func TestCountCreatedSinceComparesInstants(t *testing.T) {
	s := openAt(t, filepath.Join(t.TempDir(), "m.db"))
	upsert(t, s,
		spec{id: "a", account: "spend", desc: "a", cents: -100, created: "2026-03-01T10:30:00+11:00"}, // 23:30Z on 28 Feb
		spec{id: "b", account: "spend", desc: "b", cents: -100, created: "2026-03-01T09:00:00+10:00"}, // 23:00Z on 28 Feb
		spec{id: "c", account: "spend", desc: "c", cents: -100, created: "2026-02-28T23:15:00Z"})
	for _, c := range []struct {
		since string
		want  int
	}{
		{"2026-02-28T23:00:00Z", 3},
		{"2026-02-28T23:00:01Z", 2},
		{"2026-02-28T23:15:00Z", 2},
		{"2026-02-28T23:30:00Z", 1},
		{"2026-02-28T23:30:01Z", 0},
	} {
		since, _ := time.Parse(time.RFC3339, c.since)
		n, err := s.CountCreatedSince(context.Background(), since)
		if err != nil {
			t.Fatal(err)
		}
		if n != c.want {
			t.Errorf("since %s: %d, want %d", c.since, n, c.want)
		}
	}
}
