package store

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

var update = flag.Bool("update", false, "rewrite the repository's schema.sql from the migrations")

// schemaFile is the repository's schema.sql, from this package's directory.
var schemaFile = filepath.Join("..", "..", "schema.sql")

// schemaObject is one row of sqlite_schema.
type schemaObject struct {
	kind, name, table, sql string
}

// schemaObjects is every table, index, view and trigger of db that a CREATE statement made, in the order they were made:
// SQLite's own (sqlite_sequence, automatic indexes) and the tables FTS5
// keeps for a full-text index left out.
func schemaObjects(t *testing.T, db *sql.DB) []schemaObject {
	t.Helper()
	rows, err := db.Query(`SELECT type, name, tbl_name, sql FROM sqlite_schema
		WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
		AND name NOT IN (SELECT name FROM pragma_table_list WHERE type = 'shadow')
		ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []schemaObject
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.kind, &o.name, &o.table, &o.sql); err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

const schemaHeader = `-- bankmirror's SQLite schema at version %d (PRAGMA user_version): every
-- table, index, view and trigger of a new mirror once every migration of
-- internal/store/migrations has run. Tables come in the order they were
-- made, each with its indexes and triggers, then the views.
--
-- Generated from the migrations by ` + "`go generate ./internal/store`" + `
-- (TestSchemaFile, which fails while this file is stale): do not edit it;
-- a change is a new migration. bankmirror never runs this file: it creates
-- and upgrades a mirror with the migrations, one step at a time.
--
-- This file is a public interface: users write SQL against these tables and
-- views, and a column is never renamed (docs/mirror.md says what they hold).
-- A MoneyObject field X becomes X_currency (TEXT), X_value (TEXT, as sent) and
-- X_base_units (INTEGER), all NULL when the object is null. Timestamps are the
-- RFC 3339 text the bank sent. ` + "`raw`" + ` columns hold the JSON resource as
-- received; transactions.raw is a generated column that rebuilds it from the
-- row, raw_base and raw_patch (or is raw_full). The tables SQLite's full-text search keeps for
-- transactions_search (transactions_search_data, ...) are not listed.
`

// generateSchema is schema.sql: the header, then the schema of a new
// mirror.
func generateSchema(t *testing.T) string {
	t.Helper()
	s, _ := mustOpen(t)
	objs := schemaObjects(t, s.db)
	var b strings.Builder
	fmt.Fprintf(&b, schemaHeader, SchemaVersion())
	written := map[string]bool{}
	write := func(o schemaObject) {
		b.WriteString("\n" + o.sql + ";\n")
		written[o.kind+" "+o.name] = true
	}
	// Each table or view, then what belongs to it (its indexes, its
	// triggers): a trigger's body and a view's query may name objects
	// made after them, which SQLite resolves when they run.
	for _, kind := range []string{"table", "view"} {
		for _, o := range objs {
			if o.kind != kind {
				continue
			}
			write(o)
			for _, d := range objs {
				if d.table == o.name && (d.kind == "index" || d.kind == "trigger") {
					write(d)
				}
			}
		}
	}
	for _, o := range objs {
		if !written[o.kind+" "+o.name] {
			t.Fatalf("%s %s (on %s) belongs to no table or view", o.kind, o.name, o.table)
		}
	}
	return b.String()
}

// The repository's schema.sql is the schema a new mirror has after every
// migration: "go generate ./internal/store" (this test with -update)
// rewrites it.
func TestSchemaFile(t *testing.T) {
	want := generateSchema(t)
	got, err := os.ReadFile(schemaFile)
	if err != nil && !*update {
		t.Fatal(err)
	}
	if string(got) == want {
		return
	}
	if *update {
		if err := os.WriteFile(schemaFile, []byte(want), 0o644); err != nil { //nolint:gosec // a file of the repository
			t.Fatal(err)
		}
		t.Logf("rewrote %s", schemaFile)
		return
	}
	t.Errorf("%s is not the schema the migrations make: run go generate ./internal/store\n%s", schemaFile, firstDifference(string(got), want))
}

// schema.sql, run in a new database, makes exactly the objects of a new
// mirror, each with the same statement.
func TestSchemaFileMakesTheSchema(t *testing.T) {
	script, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "schema.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), string(script)); err != nil {
		t.Fatalf("run schema.sql: %v", err)
	}
	s, _ := mustOpen(t)
	want := schemaObjects(t, s.db)
	got := schemaObjects(t, db)
	sortObjects := func(o []schemaObject) {
		slices.SortFunc(o, func(a, b schemaObject) int { return strings.Compare(a.kind+" "+a.name, b.kind+" "+b.name) })
	}
	sortObjects(want)
	sortObjects(got)
	if len(want) < 50 {
		t.Fatalf("a new mirror has only %d objects", len(want))
	}
	if !slices.Equal(got, want) {
		for i := range max(len(got), len(want)) {
			var g, w schemaObject
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Fatalf("schema.sql makes %d objects, a new mirror has %d; first difference:\n got %s %s: %.300q\nwant %s %s: %.300q",
					len(got), len(want), g.kind, g.name, g.sql, w.kind, w.name, w.sql)
			}
		}
	}
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n  have: " + gl + "\n  want: " + wl
		}
	}
	return ""
}

// The embedded migrations are numbered from 1 without a gap, one step a
// number, the Go steps among them; a folder that is not is refused.
func TestLoadMigrations(t *testing.T) {
	if len(migrations) != 22 || migrations[0].name != "0001_init.sql" || migrations[19].name != "0020_compact_raw.sql" || migrations[19].run == nil ||
		migrations[20].name != "0021_search_keys.sql" || migrations[21].name != "0022_feed_spans.sql" {
		t.Errorf("migrations: %d steps, first %q, last %q", len(migrations), migrations[0].name, migrations[len(migrations)-1].name)
	}
	for i, m := range migrations {
		if m.sql == "" && m.run == nil {
			t.Errorf("step %d does nothing", i+1)
		}
		if m.name != "" && !strings.HasPrefix(m.name, fmt.Sprintf("%04d_", i+1)) {
			t.Errorf("step %d is %s", i+1, m.name)
		}
	}
	if migrations[5].name != "" || migrations[5].run == nil {
		t.Errorf("step 6 is %q, want the Go step alone", migrations[5].name)
	}

	file := &fstest.MapFile{Data: []byte("SELECT 1;")}
	noop := func(*Store, context.Context, *sql.Tx) error { return nil }
	for _, c := range []struct {
		name  string
		files []string
		goAt  int
		want  string // in the error; "" for none
	}{
		{"in order", []string{"0001_a.sql", "0002_b.sql", "0004_d.sql"}, 3, ""},
		{"gap", []string{"0001_a.sql", "0003_c.sql"}, 0, "migration 0002 missing"},
		{"gap after a Go step", []string{"0001_a.sql"}, 3, "migration 0002 missing"},
		{"number twice", []string{"0001_a.sql", "0002_b.sql", "0002_c.sql"}, 0, "number 2 already taken by 0002_b.sql"},
		{"zero", []string{"0000_a.sql", "0001_b.sql"}, 0, "numbers start at 0001"},
		{"unnumbered", []string{"0001_a.sql", "feeds.sql"}, 0, "not named NNNN_what.sql"},
		{"three digits", []string{"001_a.sql"}, 0, "not named NNNN_what.sql"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, f := range c.files {
				fsys["migrations/"+f] = file
			}
			steps := map[int]goStep{}
			if c.goAt > 0 {
				steps[c.goAt] = noop
			}
			got, err := loadMigrations(fsys, steps)
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want == "":
				if len(got) != 4 || got[2].run == nil || got[2].sql != "" || got[3].name != "0004_d.sql" || got[3].sql != "SELECT 1;" {
					t.Errorf("loaded %+v", got)
				}
			case err == nil || !strings.Contains(err.Error(), c.want):
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}
