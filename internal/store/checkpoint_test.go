package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		s.checkpoint()
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
