package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// householdAccounts are the accounts of the benchmarks' household: alex's,
// sam's and their joint one.
var householdAccounts = []string{"alex-spend", "sam-spend", "joint", "alex-saver"}

// householdPage makes page p of 100 transactions of a household, one a
// minute back from 2026-01-01, spread over its accounts, with varied
// amounts; every 500th transaction and the next are a payment from alex
// to sam (a household transfer).
func householdPage(p int) []bank.Transaction {
	txs := make([]bank.Transaction, 100)
	for i := range txs {
		n := p*100 + i
		id := fmt.Sprintf("%08x-%04x-4aaa-8bbb-%012x", n*2654435761%(1<<32), n%65536, n)
		units := -int64(100 + n*7919%20000)
		if n%17 == 0 {
			units = -units
		}
		t := tx(id, "SETTLED", units)
		if units > 0 { // income, not a payback
			t.CategoryID, t.ParentCategoryID = nil, nil
		}
		raw := make([]byte, 1800)
		copy(raw, t.Raw)
		t.Raw = raw
		t.AccountID = householdAccounts[n%len(householdAccounts)]
		switch n % 500 {
		case 0:
			t.AccountID, t.Amount.ValueInBaseUnits = "alex-spend", -5000
		case 1:
			t.AccountID, t.Amount.ValueInBaseUnits = "sam-spend", 5000
			t.CategoryID, t.ParentCategoryID = nil, nil
		}
		t.CreatedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(n/2*2) * time.Minute).Format(time.RFC3339)
		who := []string{"Alex", "Sam"}[n%2]
		t.PerformingCustomer = &who
		txs[i] = t
	}
	return txs
}

// householdMirror opens a mirror whose household is the people named
// (none: a mirror of one token from before households), and whose
// household triggers are dropped when !triggers (the baseline).
func householdMirror(b *testing.B, people []string, triggers bool) *Store {
	b.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "m.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	var accounts []bank.Account
	for _, id := range householdAccounts {
		a := account(id, id, "TRANSACTIONAL", 0)
		if id == "joint" {
			a.OwnershipType = "JOINT"
		}
		accounts = append(accounts, a)
	}
	if _, err := s.UpsertAccounts(ctx, accounts); err != nil {
		b.Fatal(err)
	}
	sees := map[string][]string{"alex": {"alex-spend", "alex-saver", "joint"}, "sam": {"sam-spend", "joint"}, "me": householdAccounts}
	for _, p := range people {
		if err := s.UpsertPerson(ctx, PersonUpdate{Name: p}); err != nil {
			b.Fatal(err)
		}
		if err := s.RecordPersonAccounts(ctx, p, sees[p]); err != nil {
			b.Fatal(err)
		}
	}
	if !triggers {
		if err := s.InTx(ctx, func(tx *sql.Tx) error {
			_, err := tx.Exec(`DROP TRIGGER household_transfer_insert; DROP TRIGGER household_transfer_update;
				DROP TRIGGER household_transfer_delete`)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// fillHousehold writes pages [from, to) of householdPage through
// UpsertTransactions, ten pages a transaction.
func fillHousehold(b *testing.B, s *Store, from, to int) {
	b.Helper()
	for p := from; p < to; p += 10 {
		var txs []bank.Transaction
		for q := p; q < min(p+10, to); q++ {
			txs = append(txs, householdPage(q)...)
		}
		if _, err := s.UpsertTransactions(context.Background(), txs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHouseholdWrite measures the write path with the household
// triggers: pages of 100 new transactions, each page a transaction, into
// a mirror of 10,000, for a household of two, of one, and without the
// triggers (the baseline).
func BenchmarkHouseholdWrite(b *testing.B) {
	for _, c := range []struct {
		name     string
		people   []string
		triggers bool
	}{{"two", []string{"alex", "sam"}, true}, {"one", []string{"me"}, true}, {"baseline", []string{"alex", "sam"}, false}} {
		b.Run(c.name, func(b *testing.B) {
			s := householdMirror(b, c.people, c.triggers)
			fillHousehold(b, s, 0, 100)
			pages := make([][]bank.Transaction, b.N)
			for i := range pages {
				pages[i] = householdPage(100 + i)
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := s.UpsertTransactions(context.Background(), pages[i]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "tx/s")
		})
	}
}

// BenchmarkHouseholdRepair measures pairing every transaction of a
// 100,000-transaction household again, as a change of who sees which
// account does.
func BenchmarkHouseholdRepair(b *testing.B) {
	s := householdMirror(b, []string{"alex", "sam"}, true)
	fillHousehold(b, s, 0, 1000)
	var pairs int
	if err := s.Reader().QueryRow("SELECT count(*) FROM transactions WHERE household_transfer_id IS NOT NULL").Scan(&pairs); err != nil || pairs != 400 {
		b.Fatalf("%d sides paired (%v), want 400", pairs, err)
	}
	if _, err := s.db.Exec("ANALYZE"); err != nil {
		b.Fatal(err)
	}
	for _, r := range rows(b, s.Reader(), "EXPLAIN QUERY PLAN "+repairHouseholdTransfers) {
		b.Log(r[3])
	}
	b.ResetTimer()
	for range b.N {
		if err := s.InTx(context.Background(), func(tx *sql.Tx) error {
			_, err := tx.Exec(repairHouseholdTransfers)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMonthlyViews measures twelve months of each monthly view of a
// 100,000-transaction household, as the dashboard's overview reads them.
func BenchmarkMonthlyViews(b *testing.B) {
	s := householdMirror(b, []string{"alex", "sam"}, true)
	fillHousehold(b, s, 0, 1000)
	if _, err := s.LearnDisplayNames(context.Background()); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		"SELECT month, category_id, sum(total_spent_base_units), sum(count) FROM v_monthly_spending WHERE month BETWEEN ? AND ? GROUP BY 1, 2",
		"SELECT month, sum(total_income_base_units) FROM v_monthly_income WHERE month BETWEEN ? AND ? GROUP BY 1",
		"SELECT month, person, sum(total_spent_base_units) FROM v_monthly_spending_by_person WHERE month BETWEEN ? AND ? GROUP BY 1, 2",
		"SELECT month, person, sum(total_income_base_units) FROM v_monthly_income_by_person WHERE month BETWEEN ? AND ? GROUP BY 1, 2",
	} {
		b.Run(strings.Fields(q[strings.Index(q, "FROM ")+5:])[0], func(b *testing.B) {
			for range b.N {
				r := rows(b, s.Reader(), q, "2025-01", "2025-12")
				if len(r) == 0 {
					b.Fatal("no rows")
				}
			}
		})
	}
}
