package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// InboxEvent is a row of webhook_events: an authentic event, stored before
// it is acknowledged and applied later by the worker.
type InboxEvent struct {
	ID            string
	EventType     string
	WebhookID     string
	TransactionID string // "" for PING
	CreatedAt     string // the event's createdAt, as sent
	ReceivedAt    string // set by InsertEvents when empty
	Source        string // "webhook" (delivered) or "delivery_log" (recovered); "" means webhook
	Body          string // the raw callback body
	Attempts      int
	LastError     *string
}

// Event sources, as written to webhook_events.source.
const (
	SourceWebhook     = "webhook"
	SourceDeliveryLog = "delivery_log"
)

// NewInboxEvent is the inbox row of e, a webhook event parsed from body,
// which came from source (SourceWebhook: delivered to the receiver;
// SourceDeliveryLog: recovered from the bank's delivery logs).
func NewInboxEvent(e bank.WebhookEvent, source, body string) InboxEvent {
	return InboxEvent{
		ID:            e.ID,
		EventType:     e.EventType,
		WebhookID:     e.WebhookID,
		TransactionID: e.TransactionID,
		CreatedAt:     e.CreatedAt,
		Source:        source,
		Body:          body,
	}
}

// InsertEvents stores events in one transaction. An event id already in the
// inbox is left as it is, so a redelivered event is stored once. It returns
// the ids that were new. When it returns nil the commit is durable
// (synchronous=FULL).
func (s *Store) InsertEvents(ctx context.Context, evs []InboxEvent) (inserted []string, err error) {
	s.inbox.enter() // ahead of the worker's transactions (writeorder.go)
	defer s.inbox.leave()
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		inserted = inserted[:0]
		st, err := s.txStmt(ctx, tx, insertEventSQL)
		if err != nil {
			return err
		}
		defer st.Close()
		now := s.stamp()
		for _, e := range evs {
			received, source := e.ReceivedAt, e.Source
			if received == "" {
				received = now
			}
			if source == "" {
				source = SourceWebhook
			}
			var txID any
			if e.TransactionID != "" {
				txID = e.TransactionID
			}
			r, err := execRow(ctx, st, e.ID, e.EventType, e.WebhookID, txID, e.CreatedAt, received, source, e.Body)
			if err != nil {
				return fmt.Errorf("store event %s: %w", e.ID, err)
			}
			if n, _ := r.RowsAffected(); n == 1 {
				inserted = append(inserted, e.ID)
			}
		}
		return nil
	})
	if err == nil {
		s.lastInsert.Store(s.now().UnixNano()) // checkpoints wait for a pause (checkpoint.go)
	}
	return inserted, err
}

// PendingEvents lists up to limit unprocessed events that are due now and
// have attempts left, oldest first. Reading claims nothing: the daemon's
// single worker owns the inbox and keeps its leases in memory.
func (s *Store) PendingEvents(ctx context.Context, limit, maxAttempts int) ([]InboxEvent, error) {
	return s.events(ctx, "pending events", `WHERE processed_at IS NULL AND next_attempt_at <= ? AND attempts < ?
		ORDER BY received_at LIMIT ?`, s.stamp(), maxAttempts, limit)
}

// events lists the inbox rows a WHERE (and ORDER/LIMIT) clause selects,
// without their bodies.
func (s *Store) events(ctx context.Context, what, where string, args ...any) ([]InboxEvent, error) {
	const columns = `SELECT id, event_type, webhook_id, coalesce(transaction_id, ''), created_at,
		received_at, source, attempts, last_error FROM webhook_events `
	q := columns + where //nolint:gosec // where is one of this file's constant clauses
	rows, err := s.ro.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []InboxEvent
	for rows.Next() {
		var e InboxEvent
		if err := rows.Scan(&e.ID, &e.EventType, &e.WebhookID, &e.TransactionID, &e.CreatedAt, &e.ReceivedAt,
			&e.Source, &e.Attempts, &e.LastError); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// NextEventDue is when the earliest unprocessed, claimable event becomes
// due, or the zero time when there is none.
func (s *Store) NextEventDue(ctx context.Context, maxAttempts int) (time.Time, error) {
	var v sql.NullString
	err := s.ro.QueryRowContext(ctx, `SELECT min(next_attempt_at) FROM webhook_events
		WHERE processed_at IS NULL AND attempts < ?`, maxAttempts).Scan(&v)
	if err != nil {
		return time.Time{}, fmt.Errorf("next event: %w", err)
	}
	if !v.Valid {
		return time.Time{}, nil
	}
	if v.String == "" {
		return s.now(), nil
	}
	t, err := time.Parse(TimeLayout, v.String)
	if err != nil {
		return time.Time{}, fmt.Errorf("next event: %w", err)
	}
	return t, nil
}

// EventBatch is the effect of a round of events, applied in one commit:
// the transactions as the bank has them now, those the bank confirmed
// gone, and the events this completes.
type EventBatch struct {
	Upserts []bank.Transaction
	Deletes []string
	Events  []string // ids of the events to mark processed
}

// BatchResult says what applying a batch changed.
type BatchResult struct {
	Changes  map[string]Change // per transaction id; absent or "" when unchanged
	Accounts []string          // accounts whose transactions changed (balances to refresh)
	// Held is how long the transaction held the write lock before its
	// commit: the time another writer (the webhook's receiver) may have
	// waited for it, the commit's fsync aside.
	Held time.Duration
}

// ApplyEvents applies b in one transaction: upserts (newest copy wins),
// deletions (with tombstones), and the events marked processed. Inbox
// inserts waiting for the writer go first (writeorder.go).
func (s *Store) ApplyEvents(ctx context.Context, b EventBatch) (res BatchResult, err error) {
	err = s.inTxAfterInbox(ctx, func(tx *sql.Tx) error {
		start := time.Now()
		res = BatchResult{Changes: map[string]Change{}}
		defer func() { res.Held = time.Since(start) }()
		w, err := s.newTxWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer w.close()
		accounts := map[string]bool{}
		if len(b.Upserts) > 0 {
			txs := lastOfEach(b.Upserts)
			changes, err := w.upsert(ctx, txs)
			if err != nil {
				return err
			}
			for i, c := range changes {
				if c == "" {
					continue
				}
				res.Changes[txs[i].ID] = c
				accounts[txs[i].AccountID] = true
				if a := txs[i].TransferAccountID; a != nil {
					accounts[*a] = true
				}
			}
		}
		for _, id := range b.Deletes {
			account, err := w.delete(ctx, id)
			if err != nil {
				return err
			}
			if account != "" {
				res.Changes[id] = Deleted
				accounts[account] = true
			}
		}
		if len(b.Events) > 0 {
			arg, err := jsonArg(b.Events)
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `UPDATE webhook_events SET processed_at = ?, last_error = NULL
				WHERE id IN (SELECT value FROM json_each(?)) AND processed_at IS NULL`, w.now, arg)
			if err != nil {
				return fmt.Errorf("mark events processed: %w", err)
			}
		}
		for a := range accounts {
			res.Accounts = append(res.Accounts, a)
		}
		slices.Sort(res.Accounts)
		return nil
	})
	return res, err
}

// FailEvents records a failed attempt of each event (one that is the
// event's own, not the bank's or the network's); they are due again at
// retryAt.
func (s *Store) FailEvents(ctx context.Context, ids []string, cause error, retryAt time.Time) error {
	arg, err := jsonArg(ids)
	if err != nil {
		return err
	}
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE webhook_events SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?
			WHERE id IN (SELECT value FROM json_each(?)) AND processed_at IS NULL`,
			cause.Error(), retryAt.UTC().Format(TimeLayout), arg)
		if err != nil {
			return fmt.Errorf("record event failure: %w", err)
		}
		return nil
	})
}

// RetryEvents makes stuck events (out of attempts) due again with fresh
// attempts: the given ids, or every stuck event when ids is empty. It
// returns how many were requeued.
func (s *Store) RetryEvents(ctx context.Context, maxAttempts int, ids []string) (n int64, err error) {
	if ids == nil {
		ids = []string{}
	}
	arg, err := jsonArg(ids)
	if err != nil {
		return 0, err
	}
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE webhook_events SET attempts = 0, next_attempt_at = ?
			WHERE processed_at IS NULL AND attempts >= ? AND (json_array_length(?) = 0 OR id IN (SELECT value FROM json_each(?)))`,
			s.stamp(), maxAttempts, arg, arg)
		if err != nil {
			return fmt.Errorf("retry events: %w", err)
		}
		n, _ = r.RowsAffected()
		return nil
	})
	return n, err
}

// InboxStats counts the inbox for status.
type InboxStats struct {
	Total, Pending, Stuck, Recovered int64
}

// InboxStats counts events: all, pending, stuck (out of attempts) and
// recovered from delivery logs.
func (s *Store) InboxStats(ctx context.Context, maxAttempts int) (InboxStats, error) {
	var st InboxStats
	err := s.ro.QueryRowContext(ctx, `SELECT count(*),
		count(*) FILTER (WHERE processed_at IS NULL AND attempts < ?),
		count(*) FILTER (WHERE processed_at IS NULL AND attempts >= ?),
		count(*) FILTER (WHERE source = ?) FROM webhook_events`, maxAttempts, maxAttempts, SourceDeliveryLog).
		Scan(&st.Total, &st.Pending, &st.Stuck, &st.Recovered)
	if err != nil {
		return st, fmt.Errorf("inbox stats: %w", err)
	}
	return st, nil
}

// MakeStaleWaitsDue makes due now the unprocessed events whose wait is
// stale, and returns how many: those waiting with no failure of their own
// recorded (an earlier worker claimed them, counting an attempt, and died
// before trying), and those due more than maxWait from now (the clock
// stepped back since their failure was recorded; no backoff is longer).
// The worker calls it when it starts. An event that failed on its own
// keeps its backoff and its attempts: restarting the daemon, even in a
// crash loop, does not retry it sooner (`bankmirror events retry` does,
// once it is stuck).
func (s *Store) MakeStaleWaitsDue(ctx context.Context, maxWait time.Duration) (n int64, err error) {
	now := s.now()
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE webhook_events SET next_attempt_at = ?
			WHERE processed_at IS NULL AND next_attempt_at > ? AND (last_error IS NULL OR next_attempt_at > ?)`,
			now.UTC().Format(TimeLayout), now.UTC().Format(TimeLayout), now.Add(maxWait).UTC().Format(TimeLayout))
		if err != nil {
			return fmt.Errorf("make stale waits due: %w", err)
		}
		n, _ = r.RowsAffected()
		return nil
	})
	return n, err
}

// StuckEvents lists up to n events that ran out of attempts, oldest first.
func (s *Store) StuckEvents(ctx context.Context, maxAttempts, n int) ([]InboxEvent, error) {
	return s.events(ctx, "stuck events", "WHERE processed_at IS NULL AND attempts >= ? ORDER BY received_at LIMIT ?", maxAttempts, n)
}

// PruneInbox deletes processed webhook events, and delivery log entries,
// created before cutoff. Unprocessed events are kept whatever their age.
func (s *Store) PruneInbox(ctx context.Context, cutoff time.Time) (events, logs int64, err error) {
	stamp := cutoff.UTC().Format(TimeLayout)
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, "DELETE FROM webhook_events WHERE processed_at IS NOT NULL AND received_at < ?", stamp)
		if err != nil {
			return fmt.Errorf("prune webhook events: %w", err)
		}
		events, _ = r.RowsAffected()
		// Log entries carry the bank's RFC 3339 time with an offset.
		r, err = tx.ExecContext(ctx, "DELETE FROM webhook_delivery_logs WHERE unixepoch(created_at) < unixepoch(?)", stamp)
		if err != nil {
			return fmt.Errorf("prune delivery logs: %w", err)
		}
		logs, _ = r.RowsAffected()
		return nil
	})
	return events, logs, err
}

// KnownTransaction is what the worker needs to know of a mirrored row to
// tell whether a listing covered it.
type KnownTransaction struct {
	CreatedAt string // as sent by the bank
	// FetchedAt is when the request that brought the mirrored copy was
	// sent (TimeLayout; "" when unknown): the copy holds every change the
	// bank made before then.
	FetchedAt string
}

// Covers reports whether the mirrored copy k already holds the change an
// event received at receivedAt (TimeLayout, the inbox's received_at)
// announces: the bank made the change before the event reached the
// daemon, and the copy was asked for after that. Applying the event would
// fetch what the mirror has.
func (k KnownTransaction) Covers(receivedAt string) bool {
	return k.FetchedAt != "" && receivedAt != "" && receivedAt <= k.FetchedAt
}

// KnownTransactions returns the mirrored rows among ids.
func (s *Store) KnownTransactions(ctx context.Context, ids []string) (map[string]KnownTransaction, error) {
	arg, err := jsonArg(ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT id, created_at, fetched_at FROM transactions
		WHERE id IN (SELECT value FROM json_each(?))`, arg)
	if err != nil {
		return nil, fmt.Errorf("known transactions: %w", err)
	}
	defer rows.Close()
	out := map[string]KnownTransaction{}
	for rows.Next() {
		var id string
		var k KnownTransaction
		if err := rows.Scan(&id, &k.CreatedAt, &k.FetchedAt); err != nil {
			return nil, fmt.Errorf("known transactions: %w", err)
		}
		out[id] = k
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("known transactions: %w", err)
	}
	return out, nil
}

// DeletedTransactions returns those of ids that the bank confirmed
// deleted (a tombstone): a deletion is final, so no event about them can
// change the mirror.
func (s *Store) DeletedTransactions(ctx context.Context, ids []string) (map[string]bool, error) {
	arg, err := jsonArg(ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT id FROM transaction_tombstones
		WHERE id IN (SELECT value FROM json_each(?))`, arg)
	if err != nil {
		return nil, fmt.Errorf("deleted transactions: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("deleted transactions: %w", err)
		}
		out[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("deleted transactions: %w", err)
	}
	return out, nil
}

// CountCreatedSince counts the live transactions created at or after
// since (to the second): what a listing back to since would return, an
// estimate of its cost.
func (s *Store) CountCreatedSince(ctx context.Context, since time.Time) (int, error) {
	var n int
	err := s.ro.QueryRowContext(ctx, "SELECT count(*) FROM transactions WHERE created_epoch >= ?",
		since.Unix()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count transactions: %w", err)
	}
	return n, nil
}
