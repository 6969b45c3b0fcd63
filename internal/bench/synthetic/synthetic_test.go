package synthetic

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
)

// TestFill: the generated mirror has the rows it says, with the variety
// the benchmark relies on, readable through the views.
func TestFill(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := Fill(ctx, s, 1000, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int64{
		"SELECT count(*) FROM v_transactions":                                                                  1000,
		"SELECT count(*) FROM transactions WHERE status = 'HELD'":                                              20,
		"SELECT count(*) FROM transactions WHERE amount_base_units > 0":                                        58,
		"SELECT count(*) FROM transactions WHERE foreign_amount_value IS NOT NULL":                             111,
		"SELECT count(*) FROM transaction_tags":                                                                200,
		"SELECT count(*) FROM v_transactions WHERE account_name IS NULL":                                       0,
		"SELECT count(*) FROM v_transactions WHERE amount_base_units < 0 AND category_name IS NULL":            0,
		"SELECT count(*) FROM transactions WHERE round(CAST(amount_value AS REAL) * 100) != amount_base_units": 0,
		"SELECT count(DISTINCT substr(created_at, 1, 7)) FROM transactions":                                    2, // 12.5 hours back from 10:00 on 1 March
		// local times filled as a sync fills them, in Melbourne (+11:00 until April)
		"SELECT count(*) FROM transactions WHERE created_epoch IS NOT unixepoch(created_at)":                             0,
		"SELECT count(*) FROM transactions WHERE created_local IS NOT datetime(created_epoch, 'unixepoch', '+11 hours')": 0,
		"SELECT count(*) FROM transactions WHERE created_month IS NOT substr(created_local, 1, 7)":                       0,
		"SELECT count(*) FROM transactions WHERE settled_epoch IS NOT unixepoch(settled_at)":                             0,
	} {
		var got int64
		if err := s.Reader().QueryRowContext(ctx, q).Scan(&got); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
}

// A negative count is refused and writes nothing.
func TestFillRefusesNegative(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := Fill(ctx, s, -1, time.Now()); err == nil {
		t.Fatal("Fill(-1) succeeded")
	}
	var n int
	if err := s.Reader().QueryRowContext(ctx, "SELECT (SELECT count(*) FROM accounts) + (SELECT count(*) FROM transactions)").Scan(&n); err != nil || n != 0 {
		t.Errorf("rows after the refusal: %d (%v), want 0", n, err)
	}
}
