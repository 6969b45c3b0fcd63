package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"
)

// What the daemon's health checks and `bankmirror status` read. Each query
// is cheap on a mirror of any age: it reads the newest rows, or the few
// unprocessed events through their partial index.

// ProbeKey is the daemon_state row that ProbeWrite rewrites.
const ProbeKey = "probe"

// ProbeWrite proves that the mirror takes writes now: the file is still
// there and writable by this process's user (so a restart would open it),
// and the writer takes the write lock (BEGIN IMMEDIATE) and commits one
// small row, which appends to the WAL and syncs it. A full disk, an I/O
// error, a file made read-only or removed, or a write lock held elsewhere
// past the busy timeout fail it. Bound it with ctx.
func (s *Store) ProbeWrite(ctx context.Context) error {
	fi, err := os.Lstat(s.path)
	if err == nil {
		err = checkFile(s.path, fi)
	}
	if err != nil {
		return fmt.Errorf("probe database file: %w", err)
	}
	if err := writable(s.path); err != nil {
		return fmt.Errorf("database file %s is not writable: %w", s.path, err)
	}
	if err := s.PutState(ctx, ProbeKey, struct{}{}); err != nil {
		return fmt.Errorf("write probe: %w", err)
	}
	return nil
}

// LastSuccessfulRuns returns when the newest successful sync run of each
// kind (sync_runs.kind) finished. It reads runs newest first and stops once
// it has seen every kind in kinds.
func (s *Store) LastSuccessfulRuns(ctx context.Context, kinds ...string) (map[string]time.Time, error) {
	rows, err := s.ro.QueryContext(ctx, "SELECT kind, finished_at FROM sync_runs WHERE status = ? AND finished_at IS NOT NULL ORDER BY id DESC", RunOK)
	if err != nil {
		return nil, fmt.Errorf("last successful runs: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() && len(out) < len(kinds) {
		var kind, at string
		if err := rows.Scan(&kind, &at); err != nil {
			return nil, fmt.Errorf("last successful runs: %w", err)
		}
		t, err := time.Parse(TimeLayout, at)
		if _, seen := out[kind]; err != nil || seen || !slices.Contains(kinds, kind) {
			continue
		}
		out[kind] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("last successful runs: %w", err)
	}
	return out, nil
}

// HealState is when the delivery logs of the registered webhooks were last
// read completely.
type HealState struct {
	Webhooks int // active registered webhooks
	// Oldest is the least recent completed heal among them: every
	// webhook's logs were read since. Zero when one was never healed.
	Oldest time.Time
}

// HealState reads the heal checkpoints of the active webhooks.
func (s *Store) HealState(ctx context.Context) (HealState, error) {
	var h HealState
	var never int
	var oldest sql.NullString
	err := s.ro.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE st.last_success_at IS NULL), min(st.last_success_at)
		FROM webhooks w LEFT JOIN sync_state st ON st.name = 'heal:' || w.id WHERE w.deleted_at IS NULL`).Scan(&h.Webhooks, &never, &oldest)
	if err != nil {
		return h, fmt.Errorf("heal state: %w", err)
	}
	if never == 0 && oldest.Valid {
		if t, err := time.Parse(TimeLayout, oldest.String); err == nil {
			h.Oldest = t
		}
	}
	return h, nil
}

// InboxHealth is what health checks need of the inbox.
type InboxHealth struct {
	Pending, Stuck int64
	// OldestPending is when the oldest pending event was received (zero
	// when none is pending).
	OldestPending time.Time
}

// InboxHealth counts unprocessed events: pending (attempts left) and stuck
// (out of attempts), and the oldest pending one's arrival. Only
// unprocessed rows are read (the inbox's partial index).
func (s *Store) InboxHealth(ctx context.Context, maxAttempts int) (InboxHealth, error) {
	var h InboxHealth
	var oldest sql.NullString
	err := s.ro.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE attempts < ?), count(*) FILTER (WHERE attempts >= ?),
		min(received_at) FILTER (WHERE attempts < ?)
		FROM webhook_events INDEXED BY webhook_events_pending WHERE processed_at IS NULL`, maxAttempts, maxAttempts, maxAttempts).
		Scan(&h.Pending, &h.Stuck, &oldest)
	if err != nil {
		return h, fmt.Errorf("inbox health: %w", err)
	}
	if oldest.Valid {
		if t, err := time.Parse(TimeLayout, oldest.String); err == nil {
			h.OldestPending = t
		}
	}
	return h, nil
}

// CountTransactions counts the mirrored transactions.
func (s *Store) CountTransactions(ctx context.Context) (int64, error) {
	var n int64
	if err := s.ro.QueryRowContext(ctx, "SELECT count(*) FROM transactions").Scan(&n); err != nil {
		return 0, fmt.Errorf("count transactions: %w", err)
	}
	return n, nil
}

// HeldTransaction is a transaction the bank still holds.
type HeldTransaction struct {
	ID, Description string
	CreatedAt       time.Time
}

// OldestHeld returns the oldest HELD transaction, or nil when none is.
func (s *Store) OldestHeld(ctx context.Context) (*HeldTransaction, error) {
	var h HeldTransaction
	var created string
	err := s.ro.QueryRowContext(ctx, `SELECT id, description, created_at FROM transactions WHERE status = 'HELD'
		ORDER BY `+heldOrder+` LIMIT 1`).Scan(&h.ID, &h.Description, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("oldest held: %w", err)
	}
	if h.CreatedAt, err = time.Parse(time.RFC3339, created); err != nil {
		return nil, fmt.Errorf("oldest held %s: created_at %q: %w", h.ID, created, err)
	}
	return &h, nil
}

// Undelivered summarises webhook events the bank tried to deliver and
// never did, according to the delivery logs stored by heals.
type Undelivered struct {
	Events int64     // events whose every logged attempt failed
	Last   time.Time // the newest such attempt
	// LastStatus is that attempt's deliveryStatus (UNDELIVERABLE,
	// BAD_RESPONSE_CODE) and LastCode its HTTP status, if any.
	LastStatus string
	LastCode   *int64
}

// UndeliveredSince counts the events with a delivery attempt logged since
// since and no successful one.
func (s *Store) UndeliveredSince(ctx context.Context, since time.Time) (Undelivered, error) {
	var u Undelivered
	var last sql.NullFloat64
	var status sql.NullString
	err := s.ro.QueryRowContext(ctx, `WITH failed AS (
			SELECT event_id, max(unixepoch(created_at, 'subsec')) AS at FROM webhook_delivery_logs
			GROUP BY event_id HAVING count(*) FILTER (WHERE delivery_status = 'DELIVERED') = 0 AND at >= ?)
		SELECT (SELECT count(*) FROM failed), (SELECT max(at) FROM failed),
			(SELECT l.delivery_status FROM webhook_delivery_logs l JOIN failed f ON f.event_id = l.event_id
				ORDER BY unixepoch(l.created_at, 'subsec') DESC LIMIT 1),
			(SELECT l.status_code FROM webhook_delivery_logs l JOIN failed f ON f.event_id = l.event_id
				ORDER BY unixepoch(l.created_at, 'subsec') DESC LIMIT 1)`, float64(since.UnixMilli())/1000).
		Scan(&u.Events, &last, &status, &u.LastCode)
	if err != nil {
		return u, fmt.Errorf("undelivered webhook events: %w", err)
	}
	if last.Valid {
		u.Last = time.UnixMilli(int64(last.Float64 * 1000))
	}
	u.LastStatus = status.String
	return u, nil
}

// ReleaseMemory frees the page caches of the writer (PRAGMA shrink_memory)
// and of the idle readers (closed): after a sync they hold megabytes that
// an idle daemon has no use for. The next query reads from the file (and
// the OS's cache) again. What SQLite frees stays in the C heap until
// malloc.Trim returns it to the OS.
func (s *Store) ReleaseMemory(ctx context.Context) error {
	var errs []error
	if _, err := s.db.ExecContext(ctx, "PRAGMA shrink_memory"); err != nil {
		errs = append(errs, err)
	}
	// Idle reader connections are closed, with their caches.
	s.ro.SetMaxIdleConns(0)
	s.ro.SetMaxIdleConns(2)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("release memory: %w", err)
	}
	return nil
}
