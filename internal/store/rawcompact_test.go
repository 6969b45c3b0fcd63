package store

import (
	"database/sql"
	"testing"
)

// undoCompactRaw brings a mirror's transactions.raw back to the stored
// column it was before migration 20, for tests that take a mirror back
// to an earlier version to run migrations again.
func undoCompactRaw(t *testing.T, db *sql.DB) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	rows, err := tx.Query(`SELECT type, name, sql FROM sqlite_schema WHERE type IN ('view', 'trigger') AND sql IS NOT NULL ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	type object struct{ typ, name, sql string }
	var readers []object
	for rows.Next() {
		var o object
		if err := rows.Scan(&o.typ, &o.name, &o.sql); err != nil {
			t.Fatal(err)
		}
		if mentionsRaw.MatchString(o.sql) {
			readers = append(readers, o)
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	stmts := []string{"CREATE TEMP TABLE kept_raw AS SELECT rowid AS r, raw FROM transactions"}
	for _, o := range readers {
		stmts = append(stmts, "DROP "+o.typ+" "+o.name)
	}
	stmts = append(stmts, "ALTER TABLE transactions DROP COLUMN raw",
		"ALTER TABLE transactions DROP COLUMN raw_base", "ALTER TABLE transactions DROP COLUMN raw_patch",
		"ALTER TABLE transactions DROP COLUMN raw_full", "ALTER TABLE transactions ADD COLUMN raw TEXT NOT NULL DEFAULT ''",
		"UPDATE transactions SET raw = (SELECT k.raw FROM kept_raw k WHERE k.r = transactions.rowid)", "DROP TABLE kept_raw")
	for _, o := range readers {
		stmts = append(stmts, o.sql)
	}
	for _, q := range stmts {
		if _, err := tx.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
