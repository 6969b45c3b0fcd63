package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenReadOnlyDB: a mirror opens for reading beside its writer, refuses
// every write, and is never created, migrated or mistaken for another
// SQLite file.
func TestOpenReadOnlyDB(t *testing.T) {
	ctx := context.Background()
	s, _ := mustOpen(t)
	if err := s.FillSynthetic(ctx, 10, time.Now()); err != nil {
		t.Fatal(err)
	}
	db, err := OpenReadOnlyDB(ctx, s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM v_transactions").Scan(&n); err != nil || n != 10 {
		t.Errorf("count %d (%v), want 10", n, err)
	}
	if _, err := db.Exec("DELETE FROM transactions"); err == nil {
		t.Error("a read-only mirror accepted a DELETE")
	}

	dir := t.TempDir()
	missing := filepath.Join(dir, "none.db")
	if _, err := OpenReadOnlyDB(ctx, missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenReadOnly created %s", missing)
	}
	other := filepath.Join(dir, "other.db")
	odb, err := sql.Open("sqlite3", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := odb.Exec("CREATE TABLE x (a)"); err != nil {
		t.Fatal(err)
	}
	odb.Close()
	if _, err := OpenReadOnlyDB(ctx, other); !errors.Is(err, ErrNotMirror) {
		t.Errorf("another SQLite file: %v, want ErrNotMirror", err)
	}
	if _, err := s.db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReadOnlyDB(ctx, s.Path()); !errors.Is(err, ErrSchemaTooNew) {
		t.Errorf("newer schema: %v, want ErrSchemaTooNew", err)
	}
	if _, err := s.db.Exec("PRAGMA user_version = " + itoa(SchemaVersion())); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int) string { return fmt.Sprint(n) }

// TestFillSynthetic: the generated mirror has the rows it says, with the
// variety the benchmark relies on, readable through the views.
func TestFillSynthetic(t *testing.T) {
	s, _ := mustOpen(t)
	if err := s.FillSynthetic(context.Background(), 1000, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)); err != nil {
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
		if got := queryInt(t, s, q); got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
}
