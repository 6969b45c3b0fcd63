package store

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// LoadFixture writes testdata/schema-vN.sql (a mirror that bankmirror at
// schema version v wrote: testdata/README.md) into a new SQLite file,
// bankmirror.db in a new directory, and returns its path.
func LoadFixture(t *testing.T, v int) string {
	t.Helper()
	script, err := os.ReadFile(fmt.Sprintf("testdata/schema-v%d.sql", v))
	if err != nil {
		t.Fatalf("no fixture for schema version %d (add it to testdata/make-fixtures.sh): %v", v, err)
	}
	path := filepath.Join(t.TempDir(), "bankmirror.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatalf("load schema-v%d.sql: %v", v, err)
	}
	var got int
	if err := db.QueryRow("PRAGMA user_version").Scan(&got); err != nil || got != v {
		t.Fatalf("schema-v%d.sql is version %d (%v)", v, got, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// NotContentless is a condition on sqlite_schema leaving out the
// contentless indexes (fts5 with an empty content option), which hold no
// rows to read (SELECT of their columns fails): their shadow tables hold
// what they do.
const NotContentless = ` AND NOT (sql LIKE 'CREATE VIRTUAL TABLE%' AND replace(sql, ' ', '') LIKE '%content=''''%')`
