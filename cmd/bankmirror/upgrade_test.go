package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/store"
)

// olderMirror writes the store's fixture of the schema version before this
// one (a mirror that version's bankmirror wrote:
// internal/store/testdata/README.md) to bankmirror.db in a new directory.
func olderMirror(t *testing.T) (path string, v int) {
	t.Helper()
	v = store.SchemaVersion() - 1
	script, err := os.ReadFile(fmt.Sprintf("../../internal/store/testdata/schema-v%d.sql", v))
	must(t, err)
	path = filepath.Join(t.TempDir(), "bankmirror.db")
	db, err := sql.Open("sqlite3", path)
	must(t, err)
	defer db.Close()
	_, err = db.Exec(string(script))
	must(t, err)
	must(t, os.Chmod(path, 0o600))
	return path, v
}

func schemaVersion(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	must(t, err)
	defer db.Close()
	var v int
	must(t, db.QueryRow("PRAGMA user_version").Scan(&v))
	return v
}

// copyLogged counts the log lines (JSON) that report the copy at path with
// its size.
func copyLogged(t *testing.T, logs, path string) int {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	n := 0
	for _, l := range strings.Split(logs, "\n") {
		var rec struct {
			Message string `json:"message"`
			Path    string `json:"path"`
			Bytes   int64  `json:"bytes"`
		}
		if json.Unmarshal([]byte(l), &rec) == nil && rec.Message == "copied the mirror before migrating its schema" &&
			rec.Path == path && rec.Bytes == fi.Size() {
			n++
		}
	}
	return n
}

// serve keeps a copy of a mirror of the previous schema version before
// migrating it, mode 0600, and logs one line naming it with its size.
func TestServeCopiesBeforeMigrating(t *testing.T) {
	cfg := testConfig(t, newBank(t, 20))
	var v int
	cfg.DB, v = olderMirror(t)
	logs := &cliBuffer{}
	m := daemon.New(cfg, zerolog.New(logs))
	if err := m.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	<-m.InitialSyncDone
	backup := store.MigrationBackupPath(cfg.DB, v)
	fi, err := os.Stat(backup)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the copy: %v, %v", fi, err)
	}
	if got := schemaVersion(t, backup); got != v {
		t.Errorf("the copy is version %d, want %d", got, v)
	}
	if n := copyLogged(t, logs.String(), backup); n != 1 {
		t.Errorf("%d log lines name the copy and its size, want 1:\n%s", n, logs)
	}
}

// A command that migrates keeps the copy too, unless
// BANKMIRROR_MIGRATION_BACKUP=off; a copy that cannot be made stops it with
// one line saying the mirror is unchanged and what to do.
func TestCommandsCopyBeforeMigrating(t *testing.T) {
	t.Run("on", func(t *testing.T) {
		db, v := olderMirror(t)
		r := runCLI(t, map[string]string{"BANKMIRROR_DB": db, "BANKMIRROR_LOG_FORMAT": "json"}, "events", "stuck")
		wantCode(t, r, 0)
		if n := copyLogged(t, r.stderr, store.MigrationBackupPath(db, v)); n != 1 {
			t.Errorf("%d log lines name the copy and its size, want 1:\n%s", n, r)
		}
		if got := schemaVersion(t, db); got != store.SchemaVersion() {
			t.Errorf("the mirror is version %d, want %d", got, store.SchemaVersion())
		}
	})
	t.Run("off", func(t *testing.T) {
		db, _ := olderMirror(t)
		r := runCLI(t, map[string]string{"BANKMIRROR_DB": db, "BANKMIRROR_MIGRATION_BACKUP": "off"}, "events", "stuck")
		wantCode(t, r, 0)
		if got, _ := filepath.Glob(db + ".pre-v*"); len(got) > 0 {
			t.Errorf("copies with BANKMIRROR_MIGRATION_BACKUP=off: %v", got)
		}
		if got := schemaVersion(t, db); got != store.SchemaVersion() {
			t.Errorf("the mirror is version %d, want %d", got, store.SchemaVersion())
		}
	})
	t.Run("refused", func(t *testing.T) {
		db, v := olderMirror(t)
		must(t, os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), store.MigrationBackupPath(db, v)))
		r := runCLI(t, map[string]string{"BANKMIRROR_DB": db}, "events", "stuck")
		wantCode(t, r, 1)
		if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 ||
			!strings.Contains(r.stderr, "symbolic link") || !strings.Contains(r.stderr, "the mirror is unchanged") ||
			!strings.Contains(r.stderr, "BANKMIRROR_MIGRATION_BACKUP=off") {
			t.Errorf("stderr is not one line saying what failed and what to do:\n%s", r)
		}
		if got := schemaVersion(t, db); got != v {
			t.Errorf("the mirror is version %d after a refused copy, want %d", got, v)
		}
	})
}
