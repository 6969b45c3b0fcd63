package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
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
// The worker's transaction also commits without an fsync of its own
// (synchronous=NORMAL for that transaction, FULL again after it): what it
// writes is the bank's state of transactions and the events it marks
// processed, all of which a power loss may take back without harm (the
// events are then pending again, and applying them again fetches the same
// state). WAL keeps the commit atomic, and the next durable commit (an
// insert's) or checkpoint syncs its frames with its own. An insert, which
// an acknowledgement promises is on disk, stays synchronous=FULL.
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
// inbox commits go first (see above), and commits without an fsync.
func (s *Store) inTxAfterInbox(ctx context.Context, fn func(tx *sql.Tx) error) error {
	deadline := time.Now().Add(inboxFirstMax)
	for {
		conn, err := s.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		idle := s.inbox.waiting()
		if idle == nil || !time.Now().Before(deadline) {
			return s.inTxNoSync(ctx, conn, fn)
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

// inTxNoSync runs fn in a write transaction on conn, the writer
// connection, committed with synchronous=NORMAL, and closes conn. If the
// connection cannot be set back to FULL it is discarded, so that no later
// insert commits on it without an fsync.
func (s *Store) inTxNoSync(ctx context.Context, conn *sql.Conn, fn func(tx *sql.Tx) error) (err error) {
	if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = NORMAL"); err != nil {
		return errors.Join(fmt.Errorf("begin: %w", err), s.releaseWriter(ctx, conn))
	}
	defer func() { err = errors.Join(err, s.releaseWriter(ctx, conn)) }()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	return runTx(tx, fn)
}

// releaseWriter sets conn back to synchronous=FULL and closes it (returns
// it to the pool); if that fails, conn is discarded instead.
func (s *Store) releaseWriter(ctx context.Context, conn *sql.Conn) error {
	_, err := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous = FULL")
	if err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		return fmt.Errorf("restore synchronous: %w", err)
	}
	if err := conn.Close(); err != nil {
		return fmt.Errorf("release writer: %w", err)
	}
	return nil
}
