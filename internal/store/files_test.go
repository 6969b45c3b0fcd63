package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// Any legal file name names that file: the path is escaped in the SQLite
// URI, so '#', '?' and '%' are no fragment, query or escape, and no other
// file is created.
func TestOpenOddPaths(t *testing.T) {
	for _, name := range []string{
		"my #1 mirror?.db",
		"100% sure.db",
		"%41.db", // would be A.db if decoded
		"x?mode=ro&_txlock=deferred.db",
		"a#b",
		"ünïcödé 🏦.db",
		"  leading and trailing spaces  ",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			ctx := context.Background()
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.PutState(ctx, "probe", name); err != nil {
				t.Fatal(err)
			}
			unlock, err := s.LockSync()
			if err != nil {
				t.Fatal(err)
			}
			unlock()
			for _, n := range dirNames(t, dir) {
				if !strings.HasPrefix(n, name) {
					t.Errorf("open created %q beside %q", n, name)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, err = Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var got string
			if _, ok, err := s.GetState(ctx, "probe", &got); err != nil || !ok || got != name {
				t.Errorf("reopened: probe = %q, %v, %v", got, ok, err)
			}
			want := []string{name, name + ".sync-lock"}
			if got := dirNames(t, dir); !slices.Equal(got, want) && !slices.Equal(got, append(want[:1:1], name+"-shm", name+"-wal", want[1])) {
				t.Errorf("files = %q, want %q (and the WAL's)", got, want)
			}
			// The bytes of the file are the mirror's.
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, []byte("SQLite format 3\x00")) {
				t.Errorf("%q is not the database", name)
			}
		})
	}
}

// An existing database, WAL, shared memory, secrets or lock file with a
// looser mode is made 0600 at open; new ones are created 0600.
func TestOpenTightensModes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutState(ctx, "k", 1); err != nil {
		t.Fatal(err)
	}
	unlock, err := s.LockSync()
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if err := s.SaveWebhook(ctx, Webhook{ID: "w1", URL: "https://x", SecretKey: "sec", CreatedAt: "2026-01-01T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal", path + "-shm", path + ".sync-lock", path + ".secrets"} {
		if m := mode(t, f); m != 0o600 {
			t.Errorf("new %s is %04o, want 0600", filepath.Base(f), m)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	files := append([]string{path}, companions(path)...)
	for _, f := range files {
		if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
			if err := os.WriteFile(f, nil, 0o644); err != nil { // an empty WAL or lock file is valid
				t.Fatal(err)
			}
		}
		if err := os.Chmod(f, 0o664); err != nil {
			t.Fatal(err)
		}
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, f := range files {
		if m := mode(t, f); m != 0o600 {
			t.Errorf("existing %s is %04o after open, want 0600", filepath.Base(f), m)
		}
	}
	if sec, err := s.WebhookSecrets(ctx); err != nil || len(sec) != 1 || string(sec[0]) != "sec" {
		t.Errorf("secrets after reopening = %q, %v", sec, err)
	}
}

// A command run as another user than the mirror's owner refuses with one
// line, before creating anything.
func TestOpenRefusesAnotherUsersMirror(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before := dirNames(t, dir)
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other := os.Getuid() + 4242

	_, err = Open(ctx, path, WithUID(other))
	if !errors.Is(err, ErrNotOwner) {
		t.Fatalf("open as another user: err = %v, want ErrNotOwner", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, path) || !strings.Contains(msg, "sudo -u ") {
		t.Errorf("message is not one line naming the file and sudo -u: %q", msg)
	}
	if got := dirNames(t, dir); !slices.Equal(got, before) {
		t.Errorf("files after the refusal = %q, want %q", got, before)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, content) {
		t.Error("the refused open changed the database")
	}

	// A lock file left by another user (a sync once run as root) is named,
	// with how to give it back.
	lock := path + ".sync-lock"
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, path, WithUID(other))
	if !errors.Is(err, ErrNotOwner) || !strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), "chown") {
		t.Fatalf("open beside another user's lock file: err = %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused open created the database: %v", err)
	}
}

// Run as root, against a mirror that belongs to someone else: refused, with
// the sudo -u hint, and nothing created (the files would be root's).
func TestOpenAsRootRefusesAnotherOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to chown")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	const owner = 54321 // no user has it: the hint names it '#54321'
	if err := os.Chown(path, owner, owner); err != nil {
		t.Fatal(err)
	}
	before := dirNames(t, dir)
	_, err = Open(context.Background(), path)
	if !errors.Is(err, ErrNotOwner) || !strings.Contains(err.Error(), "sudo -u '#54321'") || !strings.Contains(err.Error(), "runs as user root (uid 0)") {
		t.Fatalf("err = %v", err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, before) {
		t.Errorf("files after the refusal = %q, want %q", got, before)
	}
}

// writeV2Mirror writes a mirror at schema version 2 (secrets in the
// webhooks table) holding the given secrets, with old copies left in free
// space: the first secret of w1 was replaced by a longer one (so the old
// cell stays whole in free space), w2 was deleted.
func writeV2Mirror(t *testing.T, path string, secrets map[string]string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{migrations[0].sql, migrations[1].sql, "PRAGMA user_version = 2"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	ins := `INSERT INTO webhooks (id, url, secret_key, created_at) VALUES (?, 'https://x/hook', ?, '2026-01-01T00:00:00.000000Z')
		ON CONFLICT (id) DO UPDATE SET secret_key = excluded.secret_key`
	// Cells fill a page from its end: w1's first cell stays apart from w2's.
	for _, kv := range [][2]string{{"w1", secrets["old"]}, {"w0", secrets["w0"]}, {"w2", secrets["w2"]}, {"w1", secrets["w1"]}} {
		if _, err := db.Exec(ins, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec("UPDATE webhooks SET deleted_at = '2026-01-02T00:00:00.000000Z' WHERE id = 'w2'"); err != nil {
		t.Fatal(err)
	}
}

// mirrorBytes is the database file and its WAL, if any.
func mirrorBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if wal, err := os.ReadFile(path + "-wal"); err == nil {
		b = append(b, wal...)
	}
	return b
}

// Migration 3 moves the secrets to the secrets file and leaves no copy of
// any in the mirror's bytes: not in a row, a free page or the WAL.
func TestMigrationMovesSecretsOut(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	secrets := map[string]string{"old": "OLD-SECRET-0f9e", "w0": "W0-SECRET-9c8b7a6f",
		"w1": "W1-SECRET-1a2b3c4d-longer-than-its-predecessor", "w2": "W2-SECRET-5e6f7a8b"}
	writeV2Mirror(t, path, secrets)
	before := mirrorBytes(t, path)
	for k, sec := range secrets {
		if !bytes.Contains(before, []byte(sec)) {
			t.Fatalf("the version 2 mirror lacks secret %s: the test proves nothing", k)
		}
	}

	c := &clock{t: time.Date(2026, 1, 2, 0, 30, 0, 0, time.UTC)} // w2 deleted 30 minutes ago
	ctx := context.Background()
	s, err := Open(ctx, path, WithClock(c.now))
	if err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM webhooks WHERE secret_key != ''"); n != 0 {
		t.Errorf("%d rows keep their secret_key", n)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM webhooks"); n != 3 {
		t.Errorf("%d webhook rows, want 3", n)
	}
	w1, err := s.Webhook(ctx, "w1")
	if err != nil || w1.SecretKey != secrets["w1"] {
		t.Errorf("w1 = %+v, %v; want its secret from the secrets file", w1, err)
	}
	got, err := s.WebhookSecrets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var gotS []string
	for _, g := range got {
		gotS = append(gotS, string(g))
	}
	slices.Sort(gotS)
	if want := []string{secrets["w0"], secrets["w1"], secrets["w2"]}; !slices.Equal(gotS, want) {
		t.Errorf("secrets = %q, want %q (w2 is in its grace hour)", gotS, want)
	}
	if m := mode(t, path+".secrets"); m != 0o600 {
		t.Errorf("secrets file is %04o", m)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	after := mirrorBytes(t, path)
	for k, sec := range secrets {
		if bytes.Contains(after, []byte(sec)) {
			t.Errorf("the mirror still holds secret %s after the migration", k)
		}
	}
	for _, n := range dirNames(t, dir) {
		if strings.Contains(n, ".tmp-") {
			t.Errorf("temporary file %s left", n)
		}
	}
	// Reopening migrates nothing more and scrubs nothing more.
	s, err = Open(ctx, path, WithClock(c.now))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := queryInt(t, s, "SELECT count(*) FROM sync_state WHERE name = ?", scrubStateName); n != 0 {
		t.Errorf("scrub still pending")
	}
}

// A deleted webhook's secret verifies deliveries for SecretGrace, then is
// erased from the secrets file; the others stay.
func TestDeletedSecretErasedAfterGrace(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	for _, w := range []Webhook{
		{ID: "w1", URL: "https://x/1", SecretKey: "GONE-SECRET-aaaa", CreatedAt: "2026-01-01T00:00:00Z"},
		{ID: "w2", URL: "https://x/2", SecretKey: "KEPT-SECRET-bbbb", CreatedAt: "2026-01-01T00:00:00Z"},
	} {
		if err := s.SaveWebhook(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.MarkWebhookDeleted(ctx, "w1"); err != nil {
		t.Fatal(err)
	}
	file := func() string {
		b, err := os.ReadFile(s.secretsPath())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	c.t = c.t.Add(SecretGrace - time.Second)
	if sec, err := s.WebhookSecrets(ctx); err != nil || len(sec) != 2 {
		t.Fatalf("secrets within the grace = %q, %v", sec, err)
	}
	if !strings.Contains(file(), "GONE-SECRET-aaaa") {
		t.Fatal("secret erased within its grace")
	}
	c.t = c.t.Add(2 * time.Second)
	sec, err := s.WebhookSecrets(ctx)
	if err != nil || len(sec) != 1 || string(sec[0]) != "KEPT-SECRET-bbbb" {
		t.Fatalf("secrets after the grace = %q, %v", sec, err)
	}
	if f := file(); strings.Contains(f, "GONE-SECRET-aaaa") || !strings.Contains(f, "KEPT-SECRET-bbbb") {
		t.Errorf("secrets file after the grace:\n%s", f)
	}
	if w, err := s.Webhook(ctx, "w1"); err != nil || w.SecretKey != "" || w.DeletedAt == nil {
		t.Errorf("w1 after the grace = %+v, %v; want its row, deleted, without secret", w, err)
	}
	if m := mode(t, s.secretsPath()); m != 0o600 {
		t.Errorf("secrets file is %04o", m)
	}
}

// A process that opens the mirror erases expired secrets too (the daemon
// may not be running), and a secret whose row never committed is erased a
// grace after it was stored.
func TestOpenErasesExpiredSecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	ctx := context.Background()
	s, err := Open(ctx, path, WithClock(c.now))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveWebhook(ctx, Webhook{ID: "w1", URL: "https://x/1", SecretKey: "GONE-SECRET-cccc", CreatedAt: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkWebhookDeleted(ctx, "w1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A registration that stored its secret but whose row never committed.
	doc, err := readSecrets(SecretsPath(path))
	if err != nil {
		t.Fatal(err)
	}
	doc.Webhooks["orphan"] = storedSecret{SecretKey: "ORPHAN-SECRET-dddd", StoredAt: c.t.UTC().Format(TimeLayout)}
	if err := writeSecrets(SecretsPath(path), doc); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path, WithClock(c.now))
	if err != nil {
		t.Fatal(err)
	}
	if sec, err := s.WebhookSecrets(ctx); err != nil || len(sec) != 2 {
		t.Errorf("secrets within the grace = %q, %v; want the deleted one's and the orphan's", sec, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(SecretGrace + time.Second)
	s, err = Open(ctx, path, WithClock(c.now))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := os.ReadFile(SecretsPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "SECRET") {
		t.Errorf("secrets file after the grace, opened again:\n%s", b)
	}
}

// A crash while the secrets file was being replaced leaves the old file
// whole and a temporary file, which the next write removes.
func TestSecretsFileSurvivesACrashMidWrite(t *testing.T) {
	s, _ := mustOpen(t)
	ctx := context.Background()
	if err := s.SaveWebhook(ctx, Webhook{ID: "w1", URL: "https://x/1", SecretKey: "FIRST-SECRET", CreatedAt: "x"}); err != nil {
		t.Fatal(err)
	}
	// What a crash half-way through the next write leaves.
	partial := s.secretsPath() + ".tmp-123456"
	if err := os.WriteFile(partial, []byte(`{"version":1,"webhooks":{"w1":{"secr`), 0o600); err != nil {
		t.Fatal(err)
	}
	if sec, err := s.WebhookSecrets(ctx); err != nil || len(sec) != 1 || string(sec[0]) != "FIRST-SECRET" {
		t.Fatalf("secrets beside a partial write = %q, %v", sec, err)
	}
	if err := s.SaveWebhook(ctx, Webhook{ID: "w2", URL: "https://x/2", SecretKey: "SECOND-SECRET", CreatedAt: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(partial); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the partial temporary file is still there: %v", err)
	}
	if sec, err := s.WebhookSecrets(ctx); err != nil || len(sec) != 2 {
		t.Errorf("secrets = %q, %v", sec, err)
	}
	// A damaged secrets file is an error naming it, not an empty set.
	if err := os.WriteFile(s.secretsPath(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WebhookSecrets(ctx); err == nil || !strings.Contains(err.Error(), s.secretsPath()) {
		t.Errorf("damaged secrets file: err = %v", err)
	}
}

// The mirror never holds a secret saved after the migration either.
func TestSavedSecretNotInMirror(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveWebhook(ctx, Webhook{ID: "w1", URL: "https://x/1", SecretKey: "NEW-SECRET-eeee", CreatedAt: "x"}); err != nil {
		t.Fatal(err)
	}
	if b := mirrorBytes(t, path); bytes.Contains(b, []byte("NEW-SECRET-eeee")) {
		t.Error("the mirror (or its WAL) holds the secret")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if b := mirrorBytes(t, path); bytes.Contains(b, []byte("NEW-SECRET-eeee")) {
		t.Error("the mirror holds the secret")
	}
}

func TestFileURIEscapes(t *testing.T) {
	u, err := fileURI("/tmp/a #?%b ü")
	if err != nil {
		t.Fatal(err)
	}
	if want := sqliteURI("file:/tmp/a%20%23%3F%25b%20%C3%BC"); u != want {
		t.Errorf("fileURI = %q, want %q", u, want)
	}
}
