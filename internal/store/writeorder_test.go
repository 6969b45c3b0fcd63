package store

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"testing"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// waitForWriterWaiters returns once n more requests than before have
// waited for the writer connection.
func waitForWriterWaiters(s *Store, before int64, n int64) {
	for s.db.Stats().WaitCount < before+n {
		runtime.Gosched()
	}
}

// TestInboxCommitGoesBeforeTheWorkers holds the writer while the worker's
// commit (ApplyEvents) and then an inbox insert queue for it. Whichever of
// them database/sql hands the writer to first, the insert commits first:
// the worker's commit, which marks the event processed, finds it.
func TestInboxCommitGoesBeforeTheWorkers(t *testing.T) {
	s, _ := mustOpen(t)
	ctx := context.Background()
	// database/sql picks a waiter at random: without the order, a round
	// passes half the time.
	for i := range 16 {
		id := fmt.Sprintf("ev-%d", i)
		held, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		waits := s.db.Stats().WaitCount
		applied := make(chan error, 1)
		go func() {
			_, err := s.ApplyEvents(ctx, EventBatch{Events: []string{id}})
			applied <- err
		}()
		waitForWriterWaiters(s, waits, 1)
		inserted := make(chan error, 1)
		go func() {
			_, err := s.InsertEvents(ctx, []InboxEvent{{ID: id, EventType: "PING", WebhookID: "w", CreatedAt: "x", Body: "{}"}})
			inserted <- err
		}()
		waitForWriterWaiters(s, waits, 2)
		if err := held.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-inserted; err != nil {
			t.Fatal(err)
		}
		if err := <-applied; err != nil {
			t.Fatal(err)
		}
		var processed sql.NullString
		if err := s.ro.QueryRowContext(ctx, "SELECT processed_at FROM webhook_events WHERE id = ?", id).Scan(&processed); err != nil {
			t.Fatal(err)
		}
		if !processed.Valid {
			t.Fatalf("round %d: the worker's commit went before the insert queued beside it (event left unprocessed)", i)
		}
	}
}

// TestWorkerCommitsWhileTheInboxNeverPauses: inserts that never stop
// delay the worker's commit, they do not stop it.
func TestWorkerCommitsWhileTheInboxNeverPauses(t *testing.T) {
	s, _ := mustOpen(t)
	ctx := context.Background()
	if _, err := s.InsertEvents(ctx, []InboxEvent{{ID: "e1", EventType: "PING", WebhookID: "w", CreatedAt: "x", Body: "{}"}}); err != nil {
		t.Fatal(err)
	}
	s.inbox.enter() // an insert queued for ever
	defer s.inbox.leave()
	if _, err := s.ApplyEvents(ctx, EventBatch{Events: []string{"e1"}}); err != nil {
		t.Fatal(err)
	}
	var processed sql.NullString
	if err := s.ro.QueryRowContext(ctx, "SELECT processed_at FROM webhook_events WHERE id = 'e1'").Scan(&processed); err != nil {
		t.Fatal(err)
	}
	if !processed.Valid {
		t.Fatal("the worker's commit did not mark the event processed")
	}
}

// The worker's commit does not wait for the disk, and leaves the writer
// waiting for it again: the next inbox insert, which an acknowledgement
// waits for, is durable (FULL).
func TestApplyEventsLeavesTheWriterSynchronous(t *testing.T) {
	s, _ := mustOpen(t)
	ctx := context.Background()
	var during int64
	if err := s.inTxAfterInbox(ctx, func(tx *sql.Tx) error {
		return tx.QueryRow("PRAGMA synchronous").Scan(&during)
	}); err != nil || during != 1 {
		t.Fatalf("synchronous in the worker's transaction = %d, %v; want 1 (NORMAL)", during, err)
	}
	if _, err := s.InsertEvents(ctx, []InboxEvent{{ID: "e1", EventType: "PING", WebhookID: "w", CreatedAt: "x", Body: "{}"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyEvents(ctx, EventBatch{Upserts: []bank.Transaction{tx("t1", "SETTLED", -1)}, Events: []string{"e1"}}); err != nil {
		t.Fatal(err)
	}
	var after int64
	if err := s.db.QueryRow("PRAGMA synchronous").Scan(&after); err != nil || after != 2 {
		t.Errorf("synchronous after the worker's commit = %d, %v; want 2 (FULL)", after, err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM webhook_events WHERE id = 'e1' AND processed_at IS NOT NULL"); n != 1 {
		t.Errorf("e1 processed: %d rows, want 1", n)
	}
}
