// Package mirrortest holds test helpers shared by the packages that check a
// mirror against the simulated bank. Only tests import it.
package mirrortest

import (
	"database/sql"
	"slices"
	"testing"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// AssertEqualsTruth checks that the mirror read through db holds exactly the
// simulator's live transactions, each byte for byte as the bank renders it
// at baseURL, with its status, category and tags, and the same accounts and
// categories.
func AssertEqualsTruth(t testing.TB, sim *simulator.Bank, db *sql.DB, baseURL string) {
	t.Helper()
	snap := sim.Snapshot()
	rows, err := db.Query("SELECT id, raw, status, coalesce(category_id, '') FROM transactions")
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ raw, status, category string }
	mirror := map[string]row{}
	for rows.Next() {
		var id string
		var r row
		if err := rows.Scan(&id, &r.raw, &r.status, &r.category); err != nil {
			t.Fatal(err)
		}
		mirror[id] = r
	}
	rows.Close()
	if len(mirror) != len(snap.Transactions) {
		t.Errorf("mirror has %d transactions, bank has %d", len(mirror), len(snap.Transactions))
	}
	bad := 0
	for _, tx := range snap.Transactions {
		want, err := sim.RenderTransaction(baseURL, tx.ID)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := mirror[tx.ID]
		if !ok || got.raw != string(want) {
			if bad++; bad <= 3 {
				t.Errorf("transaction %s: mirror raw differs from bank\n got: %.300s\nwant: %.300s", tx.ID, got.raw, want)
			}
			continue
		}
		parsed, err := bank.ParseTransaction(want)
		if err != nil {
			t.Fatal(err)
		}
		if got.status != parsed.Status || got.category != deref(parsed.CategoryID) {
			t.Errorf("transaction %s: columns status=%s category=%s, bank %s %s", tx.ID, got.status, got.category, parsed.Status, deref(parsed.CategoryID))
		}
		tags := Strings(t, db, "SELECT tag_id FROM transaction_tags WHERE transaction_id = ? ORDER BY tag_id", tx.ID)
		wantTags := slices.Sorted(slices.Values(parsed.TagIDs))
		if !slices.Equal(tags, wantTags) {
			t.Errorf("transaction %s: tags %v, bank %v", tx.ID, tags, wantTags)
		}
		delete(mirror, tx.ID)
	}
	for id := range mirror {
		t.Errorf("transaction %s is in the mirror but not at the bank", id)
	}
	if n := Int(t, db, "SELECT count(*) FROM accounts"); n != len(snap.Accounts) {
		t.Errorf("accounts = %d, bank has %d", n, len(snap.Accounts))
	}
	if n := Int(t, db, "SELECT count(*) FROM categories"); n != len(snap.Categories) {
		t.Errorf("categories = %d, bank has %d", n, len(snap.Categories))
	}
}

// Strings runs a query whose rows are one string each.
func Strings(t testing.TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Int runs a query returning one integer.
func Int(t testing.TB, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
