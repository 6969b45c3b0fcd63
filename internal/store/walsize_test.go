package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// PrepareWAL lengthens the WAL file with zeros to what a checkpoint lets
// it reach, without touching what is committed: the events inserted
// before and after it are all there, in this process and in the next one
// (which recovers the WAL from the file, zeros included).
func TestPrepareWALKeepsEveryCommit(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := Open(ctx, path, withRestartFrames(300))
	if err != nil {
		t.Fatal(err)
	}
	insert := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			ev := InboxEvent{ID: fmt.Sprintf("ev-%d", i), EventType: "PING", WebhookID: "w", CreatedAt: "2026-11-27T19:24:54+11:00", Body: "{}"}
			if _, err := s.InsertEvents(ctx, []InboxEvent{ev}); err != nil {
				t.Fatal(err)
			}
		}
	}
	insert(0, 10)
	size, err := s.PrepareWAL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := queryInt(t, s, "PRAGMA page_size")
	if want := 32 + 300*(24+pageSize); size != want {
		t.Fatalf("PrepareWAL returned %d, want %d", size, want)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() != size {
		t.Fatalf("WAL file: %v, %v; want %d bytes", fi, err, size)
	}
	if fi, _ := os.Stat(path + "-wal"); fi.Mode().Perm() != 0o600 {
		t.Fatalf("WAL mode %v, want 0600", fi.Mode().Perm())
	}
	// Once long enough, it writes nothing more.
	if again, err := s.PrepareWAL(ctx); err != nil || again != size {
		t.Fatalf("second PrepareWAL: %d, %v; want %d", again, err, size)
	}
	insert(10, 20)
	if n := queryInt(t, s, "SELECT count(*) FROM webhook_events"); n != 20 {
		t.Fatalf("%d events, want 20", n)
	}
	// The commits since went into the zeros: the file is no longer.
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() != size {
		t.Fatalf("WAL file after 10 commits: %v, %v; want still %d bytes", fi, err, size)
	}
	// Another process recovers the WAL from the file: a copy of the
	// database and its WAL, opened afresh, holds every event. A read
	// transaction keeps the WAL from starting over during the copy.
	rtx, err := s.ro.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := rtx.QueryRowContext(ctx, "SELECT count(*) FROM webhook_events").Scan(&n); err != nil {
		t.Fatal(err)
	}
	copyDir := t.TempDir()
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(copyDir, "m.db"+suffix), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_ = rtx.Rollback()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := Open(ctx, filepath.Join(copyDir, "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n := queryInt(t, c, "SELECT count(*) FROM webhook_events"); n != 20 {
		t.Fatalf("the copy holds %d events, want 20", n)
	}
}
