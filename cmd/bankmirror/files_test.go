package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/demo"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/store"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	must(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// A mirror path with '#', '?', '%' and spaces works end to end: sync,
// webhook register (secrets beside it), status, backup with secrets; no
// other file is created.
func TestCLIOddDatabasePath(t *testing.T) {
	b := newTokenBank(t, 250, cliToken)
	dir := t.TempDir()
	const name = "my mirror #1 ?x=y %41 ü.db"
	db := filepath.Join(dir, name)
	env := cliEnv(b, db)

	r := runCLI(t, env, "sync", "--full")
	wantCode(t, r, 0)
	r = runCLI(t, env, "webhook", "register", "--url", webhookSink(t))
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, db+".secrets") {
		t.Errorf("register does not name the secrets file:\n%s", r)
	}
	r = runCLI(t, env, "status")
	wantCode(t, r, 1) // DEGRADED: no daemon runs
	if !strings.Contains(r.stdout, "250 transactions") {
		t.Errorf("status of the odd path:\n%s", r)
	}

	const backupName = "back up #2 ?%.db"
	backup := filepath.Join(dir, backupName)
	r = runCLI(t, env, "backup", "--with-secrets", backup)
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "backed up "+db+" to "+backup) || !strings.Contains(r.stdout, "webhook secrets copied to "+backup+".secrets") {
		t.Errorf("backup stdout:\n%s", r)
	}
	noLeak(t, r, cliToken, b.sim.Webhooks()[0].Secret)
	for _, n := range names(t, dir) {
		if !strings.HasPrefix(n, name) && !strings.HasPrefix(n, backupName) {
			t.Errorf("unexpected file %q", n)
		}
	}
	for _, f := range []string{db, db + ".secrets", db + ".sync-lock", backup, backup + ".secrets"} {
		fi, err := os.Stat(f)
		must(t, err)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is mode %04o", f, fi.Mode().Perm())
		}
	}
	st := openMirror(t, backup)
	mirrortest.AssertEqualsTruth(t, b.sim, st.Reader(), b.apiURL)
	hook := b.sim.Webhooks()[0]
	if w, err := st.Webhook(context.Background(), hook.ID); err != nil || w.SecretKey != hook.Secret {
		t.Errorf("the backup's webhook = %+v, %v; want the secret from its secrets file", w, err)
	}
	secretInMirror, err := os.ReadFile(db)
	must(t, err)
	if bytes.Contains(secretInMirror, []byte(hook.Secret)) {
		t.Error("the mirror file holds the webhook secret")
	}
}

func TestCLIBackupRefusals(t *testing.T) {
	b := newTokenBank(t, 20, cliToken)
	dir := t.TempDir()
	db := filepath.Join(dir, "mirror.db")
	env := cliEnv(b, db)

	// No mirror: nothing is created.
	r := runCLI(t, env, "backup", filepath.Join(dir, "b.db"))
	wantCode(t, r, 1)
	if !strings.Contains(r.stderr, "no mirror at "+db) {
		t.Errorf("backup without a mirror:\n%s", r)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("backup without a mirror created %q", got)
	}

	wantCode(t, runCLI(t, env, "sync", "--full"), 0)
	r = runCLI(t, env, "backup")
	wantCode(t, r, 2)
	if !strings.Contains(r.stderr, "backup takes one destination file") {
		t.Errorf("backup without FILE:\n%s", r)
	}
	dest := filepath.Join(dir, "b.db")
	must(t, os.WriteFile(dest, []byte("keep me"), 0o600))
	r = runCLI(t, env, "backup", dest)
	wantCode(t, r, 1)
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("backup over a file: want one line naming --force:\n%s", r)
	}
	if got, _ := os.ReadFile(dest); string(got) != "keep me" {
		t.Error("a refused backup changed the file")
	}
	r = runCLI(t, env, "backup", "--force", dest)
	wantCode(t, r, 0)
	st := openMirror(t, dest)
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transactions"); n != 20 {
		t.Errorf("forced backup holds %d transactions", n)
	}
	r = runCLI(t, env, "backup", "--with-secrets", filepath.Join(dir, "c.db"))
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "no webhook secrets to copy") {
		t.Errorf("--with-secrets without webhooks:\n%s", r)
	}
}

// demo --db refuses a file that is not a demo mirror and leaves it as it
// was; it replaces a mirror a demo wrote.
func TestCLIDemoReplacesOnlyItsOwnMirrors(t *testing.T) {
	b := newTokenBank(t, 30, cliToken)
	dir := t.TempDir()
	real := filepath.Join(dir, "real.db")
	wantCode(t, runCLI(t, cliEnv(b, real), "sync", "--full"), 0)
	other := filepath.Join(dir, "notes.txt")
	must(t, os.WriteFile(other, []byte("not a database"), 0o600))

	for _, path := range []string{real, other} {
		before, err := os.ReadFile(path)
		must(t, err)
		files := names(t, dir)
		r := runCLI(t, map[string]string{"BANKMIRROR_LOG_FORMAT": "json"}, "demo", "--db", path, "--transactions", "10", "--live=false")
		wantCode(t, r, 1)
		if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.Contains(r.stderr, "is not a mirror written by the demo") {
			t.Errorf("demo over %s: want one line saying it is not a demo mirror:\n%s", path, r)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Errorf("demo changed %s", path)
		}
		if got := names(t, dir); !slices.Equal(got, files) {
			t.Errorf("files after the refusal = %q, want %q", got, files)
		}
	}

	// A demo mirror is replaced.
	demoDB := filepath.Join(dir, "demo.db")
	st, err := store.Open(context.Background(), demoDB)
	must(t, err)
	must(t, demo.Mark(context.Background(), st))
	must(t, st.PutState(context.Background(), "leftover", "from the last demo"))
	must(t, st.Close())
	r := runCLI(t, map[string]string{"BANKMIRROR_LOG_FORMAT": "json"}, "demo", "--db", demoDB, "--transactions", "10", "--live=false")
	wantCode(t, r, 0)
	st = openMirror(t, demoDB)
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM daemon_state WHERE key = 'leftover'"); n != 0 {
		t.Error("the old demo mirror was mirrored into, not replaced")
	}
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transactions"); n < 10 {
		t.Errorf("new demo mirror has %d transactions", n)
	}
	// ... and is marked, so the next demo may replace it too.
	must(t, demo.CheckReplaceable(context.Background(), demoDB))
}

// Run as root against a mirror owned by another user, a command refuses
// with one line and creates no file (a root-owned lock file would break
// the owner's next sync).
func TestCLIRefusesAnotherUsersMirror(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to chown")
	}
	b := newTokenBank(t, 20, cliToken)
	dir := t.TempDir()
	db := filepath.Join(dir, "mirror.db")
	env := cliEnv(b, db)
	wantCode(t, runCLI(t, env, "sync", "--full"), 0)
	for _, n := range names(t, dir) {
		must(t, os.Chown(filepath.Join(dir, n), 54321, 54321))
	}
	files := names(t, dir)
	for _, args := range [][]string{{"sync"}, {"status"}, {"backup", filepath.Join(dir, "b.db")}, {"webhook", "list"}} {
		r := runCLI(t, env, args...)
		out := r.stderr
		if args[0] == "status" {
			// status answers on stdout: FAILING, exit 2, and why.
			wantCode(t, r, 2)
			out = r.stdout
		} else {
			wantCode(t, r, 1)
		}
		if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.Contains(out, "sudo -u '#54321'") {
			t.Errorf("%v as root: want one line with the sudo -u hint:\n%s", args, r)
		}
		if got := names(t, dir); !slices.Equal(got, files) {
			t.Errorf("%v as root left files %q, want %q", args, got, files)
		}
	}
}

// Another user able to write the mirror's directory plants a link in
// place of a lock file: `status` refuses it by name instead of making
// what it points at mode 0600, `sync` refuses a dangling one instead of
// creating its target, and `backup` refuses a link as its destination.
func TestCLIRefusesSymlinkedFiles(t *testing.T) {
	b := newTokenBank(t, 20, cliToken)
	dir := t.TempDir()
	db := filepath.Join(dir, "mirror.db")
	env := cliEnv(b, db)
	wantCode(t, runCLI(t, env, "sync", "--full"), 0)

	elsewhere := t.TempDir()
	conf := filepath.Join(elsewhere, "some.conf")
	must(t, os.WriteFile(conf, []byte("x = 1\n"), 0o644))
	must(t, os.Chmod(conf, 0o644))
	lock := db + ".sync-lock"
	must(t, os.Remove(lock))
	must(t, os.Symlink(conf, lock))
	oneLine := func(args []string, out, link string) {
		t.Helper()
		if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.Contains(out, link+" is a symbolic link") {
			t.Errorf("%v: want one line naming the link %s:\n%s", args, link, out)
		}
	}

	r := runCLI(t, env, "status")
	wantCode(t, r, 2)
	oneLine([]string{"status"}, r.stdout, lock)
	fi, err := os.Stat(conf)
	must(t, err)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("status made the link's target mode %04o", fi.Mode().Perm())
	}

	must(t, os.Remove(lock))
	missing := filepath.Join(elsewhere, "created")
	must(t, os.Symlink(missing, lock))
	r = runCLI(t, env, "sync")
	wantCode(t, r, 1)
	oneLine([]string{"sync"}, r.stderr, lock)
	if _, err := os.Lstat(missing); err == nil {
		t.Error("sync created the dangling link's target")
	}

	must(t, os.Remove(lock))
	dest := filepath.Join(dir, "b.db")
	must(t, os.Symlink(missing, dest))
	r = runCLI(t, env, "backup", "--force", dest)
	wantCode(t, r, 1)
	oneLine([]string{"backup"}, r.stderr, dest)
	if _, err := os.Lstat(missing); err == nil {
		t.Error("backup wrote through the link")
	}
}
