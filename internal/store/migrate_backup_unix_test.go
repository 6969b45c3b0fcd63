//go:build unix

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The copy is made, and every step applied, under the migration lock (no
// other process copies or migrates meanwhile), and the copy inside the
// first step's write transaction (no writer adds what the copy would miss
// before that step).
func TestMigrationHoldsItsLocks(t *testing.T) {
	ctx := context.Background()
	path := LoadFixture(t, 1)
	other := &Store{path: path}
	probe, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	var stages []string
	hook := func(stage string) {
		stages = append(stages, stage)
		if unlock, err := other.tryLock("migrate", errLocked); !errors.Is(err, errLocked) {
			t.Errorf("%s: the migration lock is free (%v)", stage, err)
			if unlock != nil {
				unlock()
			}
		}
		if stage != "copied" {
			return
		}
		conn, err := probe.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err == nil || !strings.Contains(err.Error(), "locked") {
			t.Errorf("another writer could begin while the copy was made: %v", err)
			_, _ = conn.ExecContext(ctx, "ROLLBACK")
		}
		var v int
		if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil || v != 1 {
			t.Errorf("the mirror is version %d (%v) once copied, want 1", v, err)
		}
	}
	st, err := Open(ctx, path, func(s *Store) { s.migrateHook = hook })
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	want := []string{"copied"}
	for range SchemaVersion() - 1 {
		want = append(want, "step")
	}
	if !slices.Equal(stages, want) {
		t.Errorf("stages %v, want %v", stages, want)
	}
	unlock, err := other.tryLock("migrate", errLocked)
	if err != nil {
		t.Fatalf("the migration lock is still held after Open: %v", err)
	}
	unlock()
}

// fullDiskEnv names, in the environment of TestFullDiskChild, the mirror it
// opens and the size past which its writes fail.
const fullDiskEnv = "BANKMIRROR_TEST_FULL_DISK"

// A disk that fills while the copy is written: Open fails with a clear
// error (ErrMigrationBackup, naming the copy and the cause), the mirror is
// left as it was, not migrated, and nothing of the copy remains. The full
// disk is a file size limit (RLIMIT_FSIZE) in a child process: writes past
// it fail (EFBIG, which SQLite reports as an I/O error where a full disk's
// ENOSPC is "database or disk is full"), and the copy is written past it.
func TestMigrationBackupOnAFullDisk(t *testing.T) {
	v := SchemaVersion() - 1
	path := LoadFixture(t, v)
	before := dumpTables(t, path)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Past the pages Open writes before the copy (the header, on
	// switching to WAL), short of the copy's size.
	limit := fi.Size() / 3
	cmd := exec.Command(os.Args[0], "-test.run=^TestFullDiskChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d:%s", fullDiskEnv, limit, path))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "OPEN FAILED: backup: true: ") || !strings.Contains(string(out), "file too large") ||
		!strings.Contains(string(out), MigrationBackupPath(path, v)) {
		t.Fatalf("Open on a full disk did not fail with ErrMigrationBackup naming the copy and the failed write:\n%s", out)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var got int
	if err := db.QueryRow("PRAGMA user_version").Scan(&got); err != nil || got != v {
		t.Errorf("the mirror is version %d (%v), want %d: migrated without its copy", got, err, v)
	}
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check: %q, %v", ok, err)
	}
	if after := dumpTables(t, path); !slices.Equal(after, before) {
		t.Error("the mirror's rows changed")
	}
	left, err := filepath.Glob(path + ".pre-v*")
	if err != nil || len(left) > 0 {
		t.Errorf("left beside the mirror: %v, %v", left, err)
	}
}

// fullDiskNoBackupEnv, set in the environment of TestFullDiskChild, makes
// it open the mirror without the copy kept before migrating.
const fullDiskNoBackupEnv = "BANKMIRROR_TEST_FULL_DISK_NO_BACKUP"

// runFullDiskChild opens the mirror at path without the copy kept before
// migrating, in a child process whose writes fail past limit bytes in any
// file, and returns what it printed.
func runFullDiskChild(t *testing.T, path string, limit int64) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFullDiskChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d:%s", fullDiskEnv, limit, path), fullDiskNoBackupEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return string(out)
}

// A disk that fills while migration 20 compacts the transactions (its WAL
// written past the limit): Open fails with the write's error, the mirror is
// left as it was, at version 19, and the next Open with room migrates it.
// One that fills while the mirror is then rebuilt: Open fails saying so, the
// mirror is migrated, every row's JSON intact, and the next Open with room
// rebuilds it.
func TestCompactRawOnAFullDisk(t *testing.T) {
	path := LoadFixture(t, 19)
	before := dumpTables(t, path)
	// Past the WAL index (32 KiB), short of the compaction's WAL.
	out := runFullDiskChild(t, path, 64<<10)
	if !strings.Contains(out, "OPEN FAILED: ") || !strings.Contains(out, "migrate to version 20") {
		t.Fatalf("Open on a full disk did not fail migrating to version 20:\n%s", out)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != 19 {
		t.Errorf("the mirror is version %d (%v), want 19", v, err)
	}
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check: %q, %v", ok, err)
	}
	if after := dumpTables(t, path); !slices.Equal(after, before) {
		t.Error("the mirror's rows changed")
	}
	raw, err := queryStrings(db, "SELECT id || ' ' || raw FROM transactions ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Close()

	// Room for the WAL of the migrations (20's compaction and 21's search
	// indexes: a third of the file is too little), not for the rebuilt
	// file, which VACUUM writes whole into the WAL (the file's size is
	// enough for it).
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	out = runFullDiskChild(t, path, fi.Size()*2/3)
	if !strings.Contains(out, "OPEN FAILED: ") || !strings.Contains(out, "rebuild the mirror") {
		t.Fatalf("Open on a full disk did not fail rebuilding the mirror:\n%s", out)
	}
	st, err := Open(context.Background(), path, WithMigrationBackup(false))
	if err != nil {
		t.Fatalf("Open with room: %v", err)
	}
	defer st.Close()
	if n := queryInt(t, st, "PRAGMA user_version"); n != int64(SchemaVersion()) {
		t.Errorf("version %d after Open with room, want %d", n, SchemaVersion())
	}
	if n := queryInt(t, st, "PRAGMA freelist_count"); n != 0 {
		t.Errorf("%d free pages: not rebuilt", n)
	}
	got, err := queryStrings(st.Reader(), "SELECT id || ' ' || raw FROM transactions ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(raw) {
		t.Fatalf("%d transactions, want %d", len(got), len(raw))
	}
	for i := range got {
		a, b, _ := strings.Cut(got[i], " ")
		c, d, _ := strings.Cut(raw[i], " ")
		if a != c || !sameJSON([]byte(b), []byte(d)) {
			t.Errorf("raw of %s:\n got %.400s\nwant %.400s", c, b, d)
		}
	}
}

// TestFullDiskChild is TestMigrationBackupOnAFullDisk's child process.
func TestFullDiskChild(t *testing.T) {
	arg := os.Getenv(fullDiskEnv)
	if arg == "" {
		t.Skip("run by TestMigrationBackupOnAFullDisk")
	}
	limitText, path, _ := strings.Cut(arg, ":")
	limit, err := strconv.ParseUint(limitText, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	signal.Ignore(syscall.SIGXFSZ) // a write at the limit fails with EFBIG instead
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &rl); err != nil {
		t.Fatal(err)
	}
	rl.Cur = limit
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &rl); err != nil {
		t.Fatal(err)
	}
	var opts []Option
	if os.Getenv(fullDiskNoBackupEnv) != "" {
		opts = append(opts, WithMigrationBackup(false))
	}
	st, err := Open(context.Background(), path, opts...)
	if err == nil {
		_ = st.Close()
		fmt.Println("OPEN SUCCEEDED")
		return
	}
	fmt.Printf("OPEN FAILED: backup: %v: %v\n", errors.Is(err, ErrMigrationBackup), err)
}

// dumpTables is every row of every table of the mirror at path, as text.
func dumpTables(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables, err := queryStrings(db, "SELECT name FROM sqlite_schema WHERE type = 'table'"+NotContentless+" ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, table := range tables {
		cols, err := queryStrings(db, "SELECT 'quote(\"' || name || '\")' FROM pragma_table_info(?) ORDER BY cid", table)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := queryStrings(db, fmt.Sprintf("SELECT %s FROM %q ORDER BY 1", strings.Join(cols, " || '|' || "), table))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			out = append(out, table+": "+r)
		}
	}
	return out
}

func queryStrings(db *sql.DB, q string, args ...any) ([]string, error) {
	rows, err := db.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
