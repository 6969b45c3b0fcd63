package store_test

import (
	"context"
	"database/sql"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

func ids(t *testing.T, db *sql.DB) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, id := range mirrortest.Strings(t, db, "SELECT id FROM transactions") {
		out[id] = true
	}
	return out
}

// A backup taken while a full sync writes is a consistent SQLite file
// (integrity_check ok) holding every transaction committed before it
// began, and only transactions the sync really wrote.
func TestBackupDuringFullSync(t *testing.T) {
	const n = 3000 // 30 pages of 100
	sim := simulator.New(simulator.Options{Seed: 11, Transactions: n, Token: "tok", RateLimit: simulator.RateLimit{Limit: 1_000_000}})
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	client := bank.New(srv.URL+"/api/v1", sim.Token(), bank.WithHourlyBudget(0))
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	// The sync says when it has stored 3 pages, and waits at its 6th until
	// the backup is done: the backup runs while the listing is incomplete,
	// with the sync writing pages 4 and 5 meanwhile.
	reached := make(chan struct{})
	backedUp := make(chan struct{})
	var once sync.Once
	syncer := replica.New(client, st, zerolog.Nop(), replica.Options{OnProgress: func(p replica.Progress) {
		if p.Pages >= 3 {
			once.Do(func() { close(reached) })
		}
		if p.Pages >= 6 {
			<-backedUp
		}
	}})
	syncDone := make(chan error, 1)
	go func() {
		_, err := syncer.Full(context.Background())
		syncDone <- err
	}()

	select {
	case <-reached:
	case err := <-syncDone:
		t.Fatalf("the sync ended before its third page: %v", err)
	}
	committed := ids(t, st.Reader())
	dest := filepath.Join(dir, "backup.db")
	res, err := st.Backup(context.Background(), dest, store.BackupOptions{})
	close(backedUp)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-syncDone; err != nil {
		t.Fatalf("full sync: %v", err)
	}

	fi, err := os.Stat(dest)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || fi.Size() != res.Bytes {
		t.Errorf("backup is mode %04o, %d bytes; want 0600, %d bytes", fi.Mode().Perm(), fi.Size(), res.Bytes)
	}
	b, err := sql.Open("sqlite3", "file:"+dest+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if ok := mirrortest.Strings(t, b, "PRAGMA integrity_check"); len(ok) != 1 || ok[0] != "ok" {
		t.Fatalf("integrity_check = %q", ok)
	}
	backup := ids(t, b)
	final := ids(t, st.Reader())
	for id := range committed {
		if !backup[id] {
			t.Fatalf("transaction %s was committed before the backup began but is not in it", id)
		}
	}
	for id := range backup {
		if !final[id] {
			t.Fatalf("the backup holds transaction %s that the mirror does not", id)
		}
	}
	if len(backup) >= len(final) || len(final) != n {
		t.Errorf("backup has %d transactions, the finished mirror %d (of %d): the backup was not taken mid-sync", len(backup), len(final), n)
	}
	t.Logf("committed before the backup: %d; in the backup: %d; after the sync: %d", len(committed), len(backup), len(final))
	// The copy is a mirror the store opens like any other.
	restored, err := store.Open(context.Background(), dest)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if n := mirrortest.Int(t, restored.Reader(), "SELECT count(*) FROM transactions"); n != len(backup) {
		t.Errorf("restored mirror has %d transactions, want %d", n, len(backup))
	}
}

// A backup never replaces a file unless forced, never the mirror itself,
// and copies the secrets file when asked.
func TestBackupRefusalsAndSecrets(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	path := filepath.Join(dir, "mirror.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SaveWebhook(ctx, store.Webhook{ID: "w1", URL: "https://x", SecretKey: "BACKED-SECRET", CreatedAt: time.Now().UTC().Format(time.RFC3339)}); err != nil {
		t.Fatal(err)
	}

	dest := filepath.Join(dir, "b #1?.db")
	if err := os.WriteFile(dest, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = st.Backup(ctx, dest, store.BackupOptions{})
	if !errors.Is(err, store.ErrBackupExists) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("backup over an existing file: err = %v", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != "precious" {
		t.Error("the refused backup changed the existing file")
	}
	for _, own := range []string{path, path + ".secrets"} {
		if _, err := st.Backup(ctx, own, store.BackupOptions{Force: true}); err == nil || !strings.Contains(err.Error(), "the mirror's own") {
			t.Errorf("backup over %s: err = %v", own, err)
		}
	}

	res, err := st.Backup(ctx, dest, store.BackupOptions{Force: true, WithSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.SecretsPath != dest+".secrets" {
		t.Errorf("secrets copied to %q", res.SecretsPath)
	}
	for _, f := range []string{dest, dest + ".secrets"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is mode %04o, want 0600", f, fi.Mode().Perm())
		}
	}
	// The copy and its secrets file make a mirror with the webhook's secret.
	restored, err := store.Open(ctx, dest)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if w, err := restored.Webhook(ctx, "w1"); err != nil || w.SecretKey != "BACKED-SECRET" {
		t.Errorf("restored webhook = %+v, %v", w, err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*")); len(tmps) != 0 {
		t.Errorf("temporary files left: %q", tmps)
	}
}
