package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// TestOpenReadOnlyDB: a mirror opens for reading beside its writer, refuses
// every write, and is never created, migrated or mistaken for another
// SQLite file.
func TestOpenReadOnlyDB(t *testing.T) {
	ctx := context.Background()
	s, _ := mustOpen(t)
	var txs []bank.Transaction
	for i := range 10 {
		txs = append(txs, tx(fmt.Sprintf("t%d", i), "SETTLED", -100))
	}
	if _, err := s.UpsertTransactions(ctx, txs); err != nil {
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
