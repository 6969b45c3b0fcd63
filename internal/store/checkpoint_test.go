package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// walCheckpointSeq is the checkpoint sequence number in the WAL file's
// header: it grows each time the WAL starts over from its beginning.
func walCheckpointSeq(t *testing.T, path string) uint32 {
	t.Helper()
	f, err := os.Open(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var hdr [16]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		t.Fatal(err)
	}
	return binary.BigEndian.Uint32(hdr[12:])
}

// A writer that never pauses (a full sync) keeps a passive checkpoint from
// ever catching up, so the WAL would only grow; the checkpointer restarts
// it between two of the writer's transactions.
func TestWALRestartsUnderAWriterThatNeverPauses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := Open(ctx, path, withRestartFrames(64))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw := `{"padding":"` + strings.Repeat("x", 2000) + `"}`
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			batch := make([]bank.Transaction, 20)
			for j := range batch {
				batch[j] = tx(fmt.Sprintf("t%d-%d", i, j), "SETTLED", -1)
				batch[j].Raw = []byte(raw)
			}
			if _, err := s.UpsertTransactions(ctx, batch); err != nil {
				done <- err
				return
			}
		}
	}()
	first := walCheckpointSeq(t, path)
	restarted := false
	for range 200 {
		s.checkpoint(false)
		if walCheckpointSeq(t, path) != first {
			restarted = true
			break
		}
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !restarted {
		t.Fatal("the WAL never started over while the writer kept writing")
	}
}

// walBackfill reads the WAL index (the -shm file): the frames in the WAL
// (mxFrame) and those a checkpoint copied into the database (nBackfill).
func walBackfill(t *testing.T, path string) (frames, backfilled uint32) {
	t.Helper()
	b, err := os.ReadFile(path + "-shm")
	if err != nil {
		t.Fatal(err)
	}
	return binary.LittleEndian.Uint32(b[16:]), binary.LittleEndian.Uint32(b[96:])
}

// syncClock is a settable clock safe for the checkpointer's goroutine.
type syncClock struct{ ns atomic.Int64 }

func (c *syncClock) now() time.Time       { return time.Unix(0, c.ns.Load()).UTC() }
func (c *syncClock) add(d time.Duration)  { c.ns.Add(int64(d)) }
func newSyncClock(t time.Time) *syncClock { c := &syncClock{}; c.ns.Store(t.UnixNano()); return c }

// A checkpoint waits while the inbox commits, until the inserts pause for
// checkpointQuiet (or checkpointMaxDefer passes): its writes and fsync
// would queue ahead of the acknowledgements' fsyncs.
func TestCheckpointWaitsWhileTheInboxCommits(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	c := newSyncClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	s, err := Open(ctx, path, WithClock(c.now))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	insert := func(id string) {
		t.Helper()
		if _, err := s.InsertEvents(ctx, []InboxEvent{{ID: id, EventType: "PING", WebhookID: "w", CreatedAt: "x", Body: "{}"}}); err != nil {
			t.Fatal(err)
		}
	}
	// From the first insert on, the checkpointer's own rounds wait too
	// (the clock stands still but for the test's steps).
	insert("e0")
	insert("e1")
	c.add(checkpointQuiet / 2)
	s.checkpoint(false)
	if frames, done := walBackfill(t, path); done >= frames {
		t.Fatalf("a checkpoint %v after an insert copied the WAL (%d of %d frames)", checkpointQuiet/2, done, frames)
	}
	c.add(checkpointQuiet / 2)
	s.checkpoint(false)
	if frames, done := walBackfill(t, path); done < frames {
		t.Fatalf("a checkpoint %v after the last insert left %d of %d frames", checkpointQuiet, frames-done, frames)
	}

	// Inserts that never pause hold it back checkpointMaxDefer at most.
	for i := 0; time.Duration(i)*checkpointQuiet/2 < checkpointMaxDefer; i++ {
		insert(fmt.Sprintf("burst-%d", i))
		c.add(checkpointQuiet / 2)
	}
	s.checkpoint(false)
	if frames, done := walBackfill(t, path); done < frames {
		t.Fatalf("inserts without a pause held a checkpoint back for over %v (%d of %d frames left)", checkpointMaxDefer, frames-done, frames)
	}
}
