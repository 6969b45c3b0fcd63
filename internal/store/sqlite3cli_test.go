package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// The mirror is read with the distribution's sqlite3 (Debian 12's is
// 3.40.1), older than the SQLite built into bankmirror: on a fresh mirror
// and on one upgraded from earlier schema versions, both filled by a sync
// of the simulated bank, that sqlite3 finds the file intact
// (integrity_check: every index on an expression computes as it was
// written), every view answers what the built-in SQLite answers, and its
// writes fire the triggers to the same tables as the built-in SQLite's.
func TestSystemSQLite3ReadsTheMirror(t *testing.T) {
	cli, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("no sqlite3 on PATH (CI has Debian 12's)")
	}
	t.Logf("%s", bytes.TrimSpace(runSQLite3(t, cli, "", "SELECT sqlite_version()")))
	for _, from := range []int{0, 17, 12} {
		name := "fresh"
		if from > 0 {
			name = fmt.Sprintf("upgraded from v%d", from)
		}
		t.Run(name, func(t *testing.T) {
			path := filledMirror(t, from)
			if got := strings.TrimSpace(string(runSQLite3(t, cli, path, "PRAGMA integrity_check"))); got != "ok" {
				t.Fatalf("sqlite3's integrity_check of the mirror: %s", got)
			}
			db := openRaw(t, path)
			views := mirrortest.Strings(t, db, "SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name")
			if !slices.Contains(views, "v_ledger") || !slices.Contains(views, "v_transactions") {
				t.Fatalf("views %v", views)
			}
			queries := []string{
				// What transactions_held_created answers: the oldest HELD first.
				"SELECT id, created_at FROM transactions WHERE status = 'HELD' ORDER BY julianday(created_at), id",
			}
			for _, v := range views {
				queries = append(queries, fmt.Sprintf("SELECT * FROM %q", v))
			}
			for _, q := range queries {
				cliRows, goRows := cliQuery(t, cli, path, q), goQuery(t, db, q)
				if !strings.Contains(q, "ORDER BY") {
					slices.Sort(cliRows)
					slices.Sort(goRows)
				}
				if !slices.Equal(cliRows, goRows) {
					t.Errorf("%s: sqlite3 and the built-in SQLite disagree:\nsqlite3:  %d rows %.600q\nbuilt-in: %d rows %.600q",
						q, len(cliRows), cliRows, len(goRows), goRows)
				}
			}

			// The same writes through sqlite3 and through the built-in
			// SQLite, each to its own copy, leave the same tables: the
			// triggers (the household pairs, the monthly totals, the search
			// index) compute alike.
			other := filepath.Join(t.TempDir(), "bankmirror.db")
			copyMirrorFile(t, path, other)
			writes := triggerWrites(t, db)
			runSQLite3(t, cli, path, writes)
			w, err := sql.Open("sqlite3", "file:"+other+"?_foreign_keys=on")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if _, err := w.Exec(writes); err != nil {
				t.Fatalf("the writes through the built-in SQLite: %v", err)
			}
			if got := strings.TrimSpace(string(runSQLite3(t, cli, path, "PRAGMA integrity_check"))); got != "ok" {
				t.Fatalf("sqlite3's integrity_check after its writes: %s", got)
			}
			if got := strings.TrimSpace(string(runSQLite3(t, cli, other, "PRAGMA integrity_check"))); got != "ok" {
				t.Fatalf("sqlite3's integrity_check after the built-in SQLite's writes: %s", got)
			}
			cols := columns(t, db)
			for table := range cols {
				if strings.HasPrefix(table, "transactions_search_") && table != "transactions_search_money" && table != "transactions_search_content" {
					delete(cols, table) // FTS5's own b-trees: their bytes depend on merges, their content is checked below
				}
			}
			got, want := tableRows(t, db, cols), tableRows(t, w, cols)
			for table := range cols {
				if !slices.Equal(got[table], want[table]) {
					t.Errorf("table %s after the writes: sqlite3's differs from the built-in SQLite's:\nsqlite3:  %.600q\nbuilt-in: %.600q", table, got[table], want[table])
				}
			}
			search := "SELECT rowid FROM transactions_search WHERE transactions_search MATCH 'sqlite3note OR clitag' ORDER BY rowid"
			if a, b := mirrortest.Strings(t, db, search), mirrortest.Strings(t, w, search); len(a) != 2 || !slices.Equal(a, b) {
				t.Errorf("the search index after the writes: sqlite3's finds %v, the built-in SQLite's %v (want the same 2)", a, b)
			}
		})
	}
}

// filledMirror is a mirror of the simulated bank, a household of two with
// HELD transactions: a new one (from 0), or the fixture of schema version
// from, migrated. The store is closed: the file stands alone, its WAL
// checkpointed.
func filledMirror(t *testing.T, from int) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bankmirror.db")
	if from > 0 {
		path = store.LoadFixture(t, from)
	}
	st, err := store.Open(ctx, path, store.WithMigrationBackup(false))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sim := simulator.New(simulator.Options{Seed: 4, Transactions: 24, Token: "tok", RateLimit: simulator.RateLimit{Limit: 1_000_000}})
	// The fixtures' demo added (and deleted) transactions after the first
	// 24 of the seed: ids the simulator gives again to the next ones it
	// adds, which the mirror, knowing them deleted, would not take again.
	for i := range 30 {
		sim.AddTransaction(simulator.NewTransaction{Description: fmt.Sprintf("Settled %d", i), AmountBaseUnits: -int64(200 + i)})
	}
	at := sim.Now().Add(-time.Hour).Truncate(time.Second)
	for i := range 3 {
		sim.AddTransaction(simulator.NewTransaction{Description: fmt.Sprintf("Held %d", i), AmountBaseUnits: -int64(100 + i),
			Held: true, CreatedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	client := bank.New(srv.URL+"/api/v1", sim.Token(), bank.WithHourlyBudget(0))
	if _, err := replica.New(client, st, zerolog.Nop(), replica.Options{}).Full(ctx); err != nil {
		t.Fatalf("full sync: %v", err)
	}
	accts, err := st.AccountBalances(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string][]string{}
	for _, a := range accts {
		switch a.Type {
		case "TRANSACTIONAL":
			seen["alex"] = append(seen["alex"], a.ID)
		default:
			seen["sam"] = append(seen["sam"], a.ID)
		}
	}
	for _, p := range []string{"alex", "sam"} {
		if err := st.UpsertPerson(ctx, store.PersonUpdate{Name: p}); err != nil {
			t.Fatal(err)
		}
		if err := st.RecordPersonAccounts(ctx, p, seen[p]); err != nil {
			t.Fatal(err)
		}
	}
	db := st.Reader()
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM transactions WHERE status = 'HELD'"); n < 3 {
		t.Fatalf("%d HELD transactions: the index on their time goes untested", n)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// triggerWrites are statements a person might run with sqlite3 on the
// mirror's rows (db's): a new HELD transaction, an amount changed, a note
// and a tag, a rule's exclusion, a deletion.
func triggerWrites(t *testing.T, db *sql.DB) string {
	t.Helper()
	spent := mirrortest.Strings(t, db, `SELECT id FROM transactions WHERE status = 'SETTLED' AND amount_base_units < 0
		AND transfer_account_id IS NULL ORDER BY id LIMIT 3`)
	held := mirrortest.Strings(t, db, "SELECT id FROM transactions WHERE status = 'HELD' ORDER BY id LIMIT 1")
	if len(spent) < 3 || len(held) < 1 {
		t.Fatalf("too few transactions to write: %v %v", spent, held)
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	return fmt.Sprintf(`BEGIN;
CREATE TEMP TABLE copy AS SELECT * FROM transactions WHERE id = %[1]s;
UPDATE copy SET id = 'cli-held', status = 'HELD', settled_at = NULL, household_transfer_id = NULL, created_at = '2026-01-02T03:04:05.678+11:00';
ALTER TABLE copy DROP COLUMN raw;
INSERT INTO transactions SELECT * FROM copy;
UPDATE transactions SET amount_base_units = amount_base_units - 250 WHERE id = %[2]s;
UPDATE transactions SET note = 'sqlite3note' WHERE id = %[3]s;
INSERT INTO transaction_tags (transaction_id, tag_id) VALUES (%[1]s, 'clitag');
INSERT INTO transaction_annotations (transaction_id, exclude_from_spending, exclude_rule) VALUES (%[2]s, 1, 'by hand');
DELETE FROM transactions WHERE id = %[4]s;
COMMIT;
`, q(spent[0]), q(spent[1]), q(spent[2]), q(held[0]))
}

// runSQLite3 runs sqlite3 on the mirror at path (none: "") with sql on its
// standard input, failing the test on an error.
func runSQLite3(t *testing.T, cli, path, sql string, args ...string) []byte {
	t.Helper()
	args = append([]string{"-batch", "-bail"}, args...)
	if path != "" {
		args = append(args, path)
	}
	cmd := exec.Command(cli, args...)
	cmd.Stdin = strings.NewReader(sql)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("sqlite3 %s: %v: %s", sql, err, stderr.String())
	}
	return out
}

// cliQuery is q's rows as sqlite3 answers them, each row rendered by
// renderRow.
func cliQuery(t *testing.T, cli, path, q string) []string {
	t.Helper()
	out := runSQLite3(t, cli, path, q, "-json", "-readonly")
	if len(bytes.TrimSpace(out)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var rows []json.RawMessage
	if err := dec.Decode(&rows); err != nil {
		t.Fatalf("sqlite3's JSON for %s: %v", q, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("sqlite3's JSON for %s: more than one array", q)
	}
	// Keys in the order of the columns: decode each object as a list of
	// its members.
	var got []string
	for _, raw := range rows {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if _, err := d.Token(); err != nil { // {
			t.Fatal(err)
		}
		var vals []any
		for d.More() {
			if _, err := d.Token(); err != nil { // the key
				t.Fatal(err)
			}
			var v any
			if err := d.Decode(&v); err != nil {
				t.Fatal(err)
			}
			vals = append(vals, v)
		}
		got = append(got, renderRow(vals))
	}
	return got
}

// goQuery is q's rows as the built-in SQLite answers them, rendered by
// renderRow.
func goQuery(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, renderRow(vals))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// renderRow writes values the same whichever side read them: NULL, text,
// integers exactly, and real numbers to 12 significant digits (sqlite3
// prints 15, or 17 from 3.43 on).
func renderRow(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case nil:
			parts[i] = "NULL"
		case json.Number:
			if n, err := v.Int64(); err == nil && !strings.ContainsAny(v.String(), ".eE") {
				parts[i] = fmt.Sprint(n)
			} else {
				f, _ := v.Float64()
				parts[i] = realText(f)
			}
		case int64:
			parts[i] = fmt.Sprint(v)
		case float64:
			parts[i] = realText(v)
		case []byte:
			parts[i] = fmt.Sprintf("%q", v)
		case string:
			parts[i] = fmt.Sprintf("%q", v)
		default:
			parts[i] = fmt.Sprintf("%T %v", v, v)
		}
	}
	return strings.Join(parts, "|")
}

func realText(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%.1f", f)
	}
	return fmt.Sprintf("%.12g", f)
}

// copyMirrorFile copies the mirror at from, which no connection has open, to
// to.
func copyMirrorFile(t *testing.T, from, to string) {
	t.Helper()
	if fi, err := os.Stat(from + "-wal"); err == nil && fi.Size() > 0 {
		t.Fatalf("%s has a WAL of %d bytes: the copy would lack it", from, fi.Size())
	}
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
