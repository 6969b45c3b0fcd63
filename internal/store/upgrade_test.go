package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

func userVersion(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// tableRows is every row of every table of db, by table, each row its
// columns' values as text (sorted): the columns are those of the table in
// want's database when want is set (a migration may add columns, never take
// one away), else all of them.
func tableRows(t *testing.T, db *sql.DB, columnsOf map[string][]string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, cols := range columnsOf {
		quoted := make([]string, len(cols))
		for i, c := range cols {
			quoted[i] = fmt.Sprintf("quote(%q)", c)
		}
		rows := mirrortest.Strings(t, db, fmt.Sprintf("SELECT %s FROM %q", strings.Join(quoted, " || '|' || "), table))
		slices.Sort(rows)
		out[table] = rows
	}
	return out
}

// columns is each table of db with its columns; a contentless index
// (fts5 with an empty content option) has no rows to read: its shadow tables do.
func columns(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range mirrortest.Strings(t, db, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"+store.NotContentless) {
		out[table] = mirrortest.Strings(t, db, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
	}
	return out
}

// backups lists the files beside the mirror at path whose names continue
// its own with ".pre-v".
func backups(t *testing.T, path string) []string {
	t.Helper()
	m, err := filepath.Glob(path + ".pre-v*")
	if err != nil {
		t.Fatal(err)
	}
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

// syncedLog is a zerolog writer that several goroutines may share.
type syncedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncedLog) lines(substr string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return out
}

const backupLogged = "copied the mirror before migrating its schema"

// A mirror written at each earlier schema version migrates to this one:
// every row of every table it had is still there, unchanged (a webhook's
// secret moved to the secrets file), every view answers, and a full sync
// then brings it to the bank's exact state. Before migrating, Open keeps
// <db>.pre-vN: mode 0600, at version N, holding the same rows; its one log
// line names it and its size.
func TestMigrateEveryEarlierVersion(t *testing.T) {
	for v := 1; v < store.SchemaVersion(); v++ {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			ctx := context.Background()
			path := store.LoadFixture(t, v)
			before := openRaw(t, path)
			cols := columns(t, before)
			want := tableRows(t, before, cols)
			var hookSecrets []string
			if slices.Contains(cols["webhooks"], "secret_key") {
				hookSecrets = mirrortest.Strings(t, before, "SELECT secret_key FROM webhooks WHERE secret_key != ''")
			}
			if len(want["transactions"]) < 20 || len(want["transaction_history"]) <= len(want["transactions"]) ||
				len(want["transaction_tags"]) == 0 || len(want["webhook_events"]) == 0 || len(want["accounts"]) == 0 {
				t.Fatalf("fixture too thin: %d transactions, %d history rows, %d tags, %d events, %d accounts",
					len(want["transactions"]), len(want["transaction_history"]), len(want["transaction_tags"]),
					len(want["webhook_events"]), len(want["accounts"]))
			}
			deletions := mirrortest.Int(t, before, "SELECT count(*) FROM transaction_history WHERE change = 'deleted'")
			// The search index of the transactions there are (an older
			// mirror may hold rows of deleted ones, which go).
			const searched = `SELECT s.rowid || '|' || quote(s.description) || '|' || quote(s.message) || '|' || quote(s.note)
				|| '|' || quote(s.raw_text) || '|' || quote(s.tags) FROM transactions_search s
				WHERE s.rowid IN (SELECT rowid FROM transactions) ORDER BY s.rowid`
			var searchWant []string
			if _, ok := cols["transactions_search"]; ok {
				searchWant = mirrortest.Strings(t, before, searched)
			}
			_ = before.Close()

			var log syncedLog
			st, err := store.Open(ctx, path, store.WithLogger(zerolog.New(&log)))
			if err != nil {
				t.Fatalf("open a version %d mirror: %v", v, err)
			}
			defer st.Close()
			db := st.Reader()
			if got := userVersion(t, db); got != store.SchemaVersion() {
				t.Fatalf("migrated to version %d, want %d", got, store.SchemaVersion())
			}
			if ok := mirrortest.Strings(t, db, "PRAGMA integrity_check"); !slices.Equal(ok, []string{"ok"}) {
				t.Fatalf("integrity_check: %v", ok)
			}
			if bad := mirrortest.Strings(t, db, "SELECT \"table\" FROM pragma_foreign_key_check"); len(bad) > 0 {
				t.Errorf("foreign key violations in %v", bad)
			}

			// Data survives.
			got := tableRows(t, db, cols)
			for table := range cols {
				if ftsTable(table) {
					continue // below
				}
				w, g := want[table], got[table]
				if table == "webhooks" && len(hookSecrets) > 0 {
					// The secrets left the mirror for the secrets file.
					w = slices.Clone(w)
					for i := range w {
						for _, s := range hookSecrets {
							w[i] = strings.Replace(w[i], "'"+s+"'", "''", 1)
						}
					}
					slices.Sort(w)
				}
				if !slices.Equal(g, w) {
					t.Errorf("table %s changed by the migration:\n got %d rows: %.400q\nwant %d rows: %.400q", table, len(g), g, len(w), w)
				}
			}
			if searchWant != nil {
				if got := mirrortest.Strings(t, db, searched); !slices.Equal(got, searchWant) {
					t.Errorf("the search index changed by the migration:\n got %d rows: %.400q\nwant %d rows: %.400q", len(got), got, len(searchWant), searchWant)
				}
				if n := mirrortest.Int(t, db, "SELECT count(*) FROM transactions_search WHERE rowid NOT IN (SELECT rowid FROM transactions)"); n != 0 {
					t.Errorf("the search index keeps %d rows of transactions the mirror does not have", n)
				}
			}
			if len(hookSecrets) > 0 {
				secrets, err := st.WebhookSecrets(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range hookSecrets {
					if !slices.ContainsFunc(secrets, func(b []byte) bool { return string(b) == s }) {
						t.Errorf("the webhook secret of version %d is not in the secrets file", v)
					}
				}
			}

			// Every view answers, and the transactions' views hold every
			// transaction with the columns later versions compute.
			for _, view := range mirrortest.Strings(t, db, "SELECT name FROM sqlite_schema WHERE type = 'view'") {
				rows, err := db.Query(fmt.Sprintf("SELECT * FROM %q", view))
				if err != nil {
					t.Errorf("view %s: %v", view, err)
					continue
				}
				for rows.Next() {
				}
				if err := rows.Err(); err != nil {
					t.Errorf("view %s: %v", view, err)
				}
				rows.Close()
			}
			n := len(want["transactions"])
			for _, q := range []string{
				"SELECT count(*) FROM v_transactions WHERE created_epoch IS NOT NULL AND created_local IS NOT NULL",
				"SELECT count(*) FROM v_ledger",
				"SELECT count(*) FROM transactions WHERE created_date IS NOT NULL",
			} {
				if got := mirrortest.Int(t, db, q); got != n {
					t.Errorf("%s = %d, want %d", q, got, n)
				}
			}
			if got := mirrortest.Int(t, db, "SELECT count(*) FROM v_transactions WHERE tags != ''"); got == 0 {
				t.Error("no transaction's tags in v_transactions")
			}
			if got := mirrortest.Int(t, db, "SELECT count(*) FROM v_history"); got != len(want["transaction_history"]) {
				t.Errorf("v_history has %d rows, want %d", got, len(want["transaction_history"]))
			}

			// The copy kept before migrating.
			backup := store.MigrationBackupPath(path, v)
			if got := backups(t, path); !slices.Equal(got, []string{filepath.Base(backup)}) {
				t.Fatalf("copies beside the mirror: %v, want only %s", got, filepath.Base(backup))
			}
			fi, err := os.Lstat(backup)
			if err != nil {
				t.Fatal(err)
			}
			if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s is %v, want a regular file, mode 0600", backup, fi.Mode())
			}
			old := openRaw(t, backup)
			if got := userVersion(t, old); got != v {
				t.Errorf("the copy is version %d, want %d", got, v)
			}
			if ok := mirrortest.Strings(t, old, "PRAGMA integrity_check"); !slices.Equal(ok, []string{"ok"}) {
				t.Errorf("the copy's integrity_check: %v", ok)
			}
			if got := tableRows(t, old, cols); !mapsEqual(got, want) {
				t.Error("the copy does not hold the same rows as the mirror before migrating")
			}
			if c := columns(t, old); !mapsEqual(c, cols) {
				t.Errorf("the copy's tables are %v, want %v", c, cols)
			}
			lines := log.lines(backupLogged)
			if len(lines) != 1 || !strings.Contains(lines[0], fmt.Sprintf("%q", backup)) ||
				!strings.Contains(lines[0], fmt.Sprintf(`"bytes":%d`, fi.Size())) {
				t.Errorf("log lines about the copy: %q, want one with its path and %d bytes", lines, fi.Size())
			}

			// The migrated mirror works: a full sync against the bank the
			// fixture came from (the same seed, without the webhook demo's
			// transactions, and with one new one) deletes, inserts and
			// records the history.
			sim := simulator.New(simulator.Options{Seed: 4, Transactions: 24, Token: "tok", RateLimit: simulator.RateLimit{Limit: 1_000_000}})
			added := sim.AddTransaction(simulator.NewTransaction{Description: "After the upgrade", AmountBaseUnits: -1234, CategoryID: "groceries", Tags: []string{"upgraded"}})
			srv := httptest.NewServer(sim.Handler())
			defer srv.Close()
			client := bank.New(srv.URL+"/api/v1", sim.Token(), bank.WithHourlyBudget(0))
			res, err := replica.New(client, st, zerolog.Nop(), replica.Options{}).Full(ctx)
			if err != nil {
				t.Fatalf("full sync of the migrated mirror: %v", err)
			}
			var bankIDs []string
			for _, tx := range sim.Snapshot().Transactions {
				bankIDs = append(bankIDs, tx.ID)
			}
			slices.Sort(bankIDs)
			if got := mirrortest.Strings(t, db, "SELECT id FROM transactions ORDER BY id"); !slices.Equal(got, bankIDs) || res.Deleted == 0 {
				t.Errorf("after a full sync (%d deleted) the mirror holds %d transactions, the bank %d", res.Deleted, len(got), len(bankIDs))
			}
			if got := mirrortest.Int(t, db, "SELECT count(*) FROM v_history WHERE change = 'deleted'"); int64(got-deletions) != res.Deleted {
				t.Errorf("%d deletions recorded, want %d", got-deletions, res.Deleted)
			}
			if got := mirrortest.Strings(t, db, "SELECT description || '|' || tags || '|' || created_date FROM v_transactions WHERE id = ?", added); len(got) != 1 || !strings.HasPrefix(got[0], "After the upgrade|upgraded|20") {
				t.Errorf("the new transaction in v_transactions: %q", got)
			}
		})
	}
}

// ftsTable reports whether table is the search index (FTS5) or one of
// its own tables, whose bytes change with the rows the index keeps.
func ftsTable(table string) bool {
	switch table {
	case "transactions_search", "transactions_search_data", "transactions_search_idx", "transactions_search_content",
		"transactions_search_docsize", "transactions_search_config":
		return true
	}
	return false
}

func mapsEqual(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !slices.Equal(v, w) {
			return false
		}
	}
	return true
}

// Only the newest copy is kept: copies of older versions, and the temporary
// directory (or, from older versions, file and journal) of one a crash
// left, are removed (a link among them as a link, its target untouched); a
// stale copy of the same version is replaced; files that only look alike
// stay.
func TestMigrationBackupKeepsOnlyTheNewest(t *testing.T) {
	v := store.SchemaVersion() - 1
	path := store.LoadFixture(t, v)
	dir := filepath.Dir(path)
	outside := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(outside, []byte("not a mirror"), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("bankmirror.db.pre-v1", "an older copy")
	write("bankmirror.db.pre-v2.tmp-12345", "a crashed copy")
	write("bankmirror.db.pre-v2.tmp-12345-journal", "its journal")
	crashed := filepath.Join(dir, "bankmirror.db.pre-v2.tmp-67890")
	if err := os.Mkdir(crashed, 0o700); err != nil {
		t.Fatal(err)
	}
	write("bankmirror.db.pre-v2.tmp-67890/bankmirror.db.pre-v2", "a crashed copy")
	write("bankmirror.db.pre-v2.tmp-67890/bankmirror.db.pre-v2-journal", "its journal")
	outsideDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(outsideDir, "precious"), []byte("not a mirror"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outsideDir, filepath.Join(dir, "bankmirror.db.pre-v4.tmp-222")); err != nil {
		t.Fatal(err)
	}
	write(fmt.Sprintf("bankmirror.db.pre-v%d", v), "a stale copy of this version")
	if err := os.Symlink(outside, filepath.Join(dir, "bankmirror.db.pre-v3")); err != nil {
		t.Fatal(err)
	}
	keep := []string{"bankmirror.db.pre-vacation", "bankmirror.db.pre-v1.keep", "other.db.pre-v1"}
	for _, name := range keep {
		write(name, "someone else's")
	}

	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	backup := store.MigrationBackupPath(path, v)
	got := backups(t, path)
	want := []string{filepath.Base(backup), "bankmirror.db.pre-v1.keep", "bankmirror.db.pre-vacation"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("files beside the mirror: %v, want %v", got, want)
	}
	if got := userVersion(t, openRaw(t, backup)); got != v {
		t.Errorf("the copy is version %d, want %d", got, v)
	}
	for _, f := range []string{outside, filepath.Join(outsideDir, "precious")} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "not a mirror" {
			t.Errorf("a removed link's target %s: %q, %v", f, b, err)
		}
	}
	for _, name := range keep {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// With the copy turned off, a mirror of an earlier version is migrated and
// nothing is written beside it.
func TestMigrationBackupOff(t *testing.T) {
	v := store.SchemaVersion() - 1
	path := store.LoadFixture(t, v)
	var log syncedLog
	st, err := store.Open(context.Background(), path, store.WithMigrationBackup(false), store.WithLogger(zerolog.New(&log)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := userVersion(t, st.Reader()); got != store.SchemaVersion() {
		t.Errorf("version %d, want %d", got, store.SchemaVersion())
	}
	if got := backups(t, path); len(got) > 0 {
		t.Errorf("copies written with the copy off: %v", got)
	}
	if got := log.lines(backupLogged); len(got) > 0 {
		t.Errorf("logged %q", got)
	}
}

// A new mirror and one already at this version are not copied.
func TestNoMigrationBackupWithoutAMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bankmirror.db")
	for range 2 { // created, then opened at this version
		st, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if got := backups(t, path); len(got) > 0 {
			t.Fatalf("copies of a mirror with nothing to migrate: %v", got)
		}
	}
}

// A symbolic link where the copy goes is refused, not followed: Open fails
// naming it, the link's target is untouched and the mirror not migrated.
func TestMigrationBackupRefusesALink(t *testing.T) {
	v := store.SchemaVersion() - 1
	path := store.LoadFixture(t, v)
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := store.MigrationBackupPath(path, v)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	_, err := store.Open(context.Background(), path)
	if !errors.Is(err, store.ErrSymlink) || !errors.Is(err, store.ErrMigrationBackup) || !strings.Contains(err.Error(), link) {
		t.Fatalf("err = %v, want ErrMigrationBackup and ErrSymlink naming %s", err, link)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "keep me" {
		t.Errorf("the link's target: %q, %v", b, err)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the link's target's mode: %v, %v", fi, err)
	}
	if got := userVersion(t, openRaw(t, path)); got != v {
		t.Errorf("the mirror is version %d after a refused copy, want %d", got, v)
	}
}

// Several processes opening a mirror of an earlier version at once: one
// copies and migrates, the others wait for it and find nothing left to do
// (none copies a half-migrated mirror, or removes the first copy). All
// open it.
func TestConcurrentOpensCopyOnce(t *testing.T) {
	v := 1 // every step to go: room for another process between two
	path := store.LoadFixture(t, v)
	var log syncedLog
	const n = 4
	errs := make(chan error, n)
	var start sync.WaitGroup
	start.Add(1)
	for range n {
		go func() {
			start.Wait()
			st, err := store.Open(context.Background(), path, store.WithLogger(zerolog.New(&log)))
			if err == nil {
				err = st.Close()
			}
			errs <- err
		}()
	}
	start.Done()
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := log.lines(backupLogged); len(got) != 1 {
		t.Errorf("%d copies logged, want 1: %q", len(got), got)
	}
	backup := store.MigrationBackupPath(path, v)
	if got := backups(t, path); !slices.Equal(got, []string{filepath.Base(backup)}) {
		t.Errorf("copies: %v", got)
	}
	if got := userVersion(t, openRaw(t, backup)); got != v {
		t.Errorf("the copy is version %d, want %d", got, v)
	}
	if got := userVersion(t, openRaw(t, path)); got != store.SchemaVersion() {
		t.Errorf("the mirror is version %d, want %d", got, store.SchemaVersion())
	}
}
