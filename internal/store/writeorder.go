package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// The inbox's commits go before the event worker's. A webhook's
// acknowledgement waits for its insert's commit (InsertEvents), which
// shares the one writer connection with the worker's (ApplyEvents), and
// database/sql hands a released connection to any one of those waiting
// for it. So the worker's transaction, once it holds the connection, gives
// it back unbegun while an insert is queued or running, and waits for the
// inbox to be idle, for at most inboxFirstMax at a time: a receiver that
// never pauses delays the worker, it does not stop it.
//
// The worker's commit does not wait for the disk (notWaitingForDisk): an
// event whose apply a power cut loses is still unprocessed in the inbox,
// and is applied again. Its frames are made durable by the next insert's
// fsync, which writes a few more pages but syncs the disk once for both:
// with the worker's own fsync, the two commits' syncs queued behind each
// other.
const inboxFirstMax = 50 * time.Millisecond

// inboxGate counts the inbox commits queued or running.
type inboxGate struct {
	mu   sync.Mutex
	busy int
	idle chan struct{} // closed when busy drops to 0; nil while it is 0
}

// enter counts an inbox commit until leave.
func (g *inboxGate) enter() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.busy++
	if g.idle == nil {
		g.idle = make(chan struct{})
	}
}

func (g *inboxGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.busy--
	if g.busy == 0 {
		close(g.idle)
		g.idle = nil
	}
}

// waiting returns a channel closed when no inbox commit is queued or
// running, or nil if none is now.
func (g *inboxGate) waiting() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.idle
}

// inTxAfterInbox is InTx for the worker's transactions: it lets queued
// inbox commits go first (see above).
func (s *Store) inTxAfterInbox(ctx context.Context, fn func(tx *sql.Tx) error) error {
	deadline := time.Now().Add(inboxFirstMax)
	for {
		conn, err := s.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		idle := s.inbox.waiting()
		if idle == nil || !time.Now().Before(deadline) {
			return inConnTx(ctx, conn, fn)
		}
		// Give the connection back to the insert waiting for it.
		if err := conn.Close(); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-idle:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("begin: %w", ctx.Err())
		}
		t.Stop()
	}
}

// inConnTx runs fn in a write transaction on conn that does not wait for
// the disk, then closes conn (gives it back to the pool).
func inConnTx(ctx context.Context, conn *sql.Conn, fn func(tx *sql.Tx) error) (err error) {
	defer func() {
		if cerr := conn.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("release writer: %w", cerr)
		}
	}()
	return notWaitingForDisk(ctx, conn, fn)
}
