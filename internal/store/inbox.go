package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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

// InsertEvents stores events in one transaction. An event id already in the
// inbox is left as it is, so a redelivered event is stored once. It returns
// the ids that were new. When it returns nil the commit is durable
// (synchronous=FULL).
func (s *Store) InsertEvents(ctx context.Context, evs []InboxEvent) (inserted []string, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		inserted = inserted[:0]
		st, err := tx.PrepareContext(ctx, `INSERT INTO webhook_events (id, event_type, webhook_id, transaction_id,
			created_at, received_at, source, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
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
			r, err := st.ExecContext(ctx, e.ID, e.EventType, e.WebhookID, txID, e.CreatedAt, received, source, e.Body)
			if err != nil {
				return fmt.Errorf("store event %s: %w", e.ID, err)
			}
			if n, _ := r.RowsAffected(); n == 1 {
				inserted = append(inserted, e.ID)
			}
		}
		return nil
	})
	return inserted, err
}

// ClaimEvent takes the oldest unprocessed event that is due, counts the
// attempt, and hides it from other claims for lease. It returns
// ErrNotFound when nothing is due. Events that reached maxAttempts stay in
// the inbox (with last_error) but are no longer claimed.
func (s *Store) ClaimEvent(ctx context.Context, lease time.Duration, maxAttempts int) (InboxEvent, error) {
	var e InboxEvent
	var txID sql.NullString
	now := s.now().UTC()
	err := s.InTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `UPDATE webhook_events SET attempts = attempts + 1, next_attempt_at = ?
			WHERE id = (SELECT id FROM webhook_events WHERE processed_at IS NULL AND next_attempt_at <= ? AND attempts < ?
				ORDER BY next_attempt_at, received_at LIMIT 1)
			RETURNING id, event_type, webhook_id, transaction_id, created_at, received_at, source, body, attempts, last_error`,
			now.Add(lease).Format(TimeLayout), now.Format(TimeLayout), maxAttempts).
			Scan(&e.ID, &e.EventType, &e.WebhookID, &txID, &e.CreatedAt, &e.ReceivedAt, &e.Source, &e.Body, &e.Attempts, &e.LastError)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return e, ErrNotFound
	}
	if err != nil {
		return e, fmt.Errorf("claim event: %w", err)
	}
	e.TransactionID = txID.String
	return e, nil
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

// ApplyEvent applies an event's effect and marks it processed, in one
// transaction: upsert is the transaction as fetched now (nil for none), and
// deleteID a transaction to remove ("" for none). It returns what changed.
func (s *Store) ApplyEvent(ctx context.Context, eventID string, upsert *bank.Transaction, deleteID string) (change Change, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		change = ""
		w, err := s.newTxWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer w.close()
		if upsert != nil {
			changes, err := w.upsert(ctx, []bank.Transaction{*upsert})
			if err != nil {
				return err
			}
			change = changes[0]
		}
		if deleteID != "" {
			gone, err := w.delete(ctx, deleteID)
			if err != nil {
				return err
			}
			if gone {
				change = Deleted
			}
		}
		_, err = tx.ExecContext(ctx, "UPDATE webhook_events SET processed_at = ?, last_error = NULL WHERE id = ?", w.now, eventID)
		if err != nil {
			return fmt.Errorf("mark event %s processed: %w", eventID, err)
		}
		return nil
	})
	return change, err
}

// FailEvent records a failed attempt; the event is due again at retryAt.
func (s *Store) FailEvent(ctx context.Context, eventID string, cause error, retryAt time.Time) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE webhook_events SET last_error = ?, next_attempt_at = ? WHERE id = ?",
			cause.Error(), retryAt.UTC().Format(TimeLayout), eventID)
		if err != nil {
			return fmt.Errorf("record event failure: %w", err)
		}
		return nil
	})
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

// ReleaseLeases makes every unprocessed event due now. Called when the
// worker starts: leases held by a process that died would otherwise delay
// its events until they expire.
func (s *Store) ReleaseLeases(ctx context.Context) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE webhook_events SET next_attempt_at = ? WHERE processed_at IS NULL AND next_attempt_at > ?",
			s.stamp(), s.stamp())
		if err != nil {
			return fmt.Errorf("release leases: %w", err)
		}
		return nil
	})
}

// StuckEvents lists up to n events that ran out of attempts, oldest first.
func (s *Store) StuckEvents(ctx context.Context, maxAttempts, n int) ([]InboxEvent, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT id, event_type, webhook_id, coalesce(transaction_id, ''), created_at,
		received_at, source, attempts, last_error FROM webhook_events
		WHERE processed_at IS NULL AND attempts >= ? ORDER BY received_at LIMIT ?`, maxAttempts, n)
	if err != nil {
		return nil, fmt.Errorf("stuck events: %w", err)
	}
	defer rows.Close()
	var out []InboxEvent
	for rows.Next() {
		var e InboxEvent
		if err := rows.Scan(&e.ID, &e.EventType, &e.WebhookID, &e.TransactionID, &e.CreatedAt, &e.ReceivedAt,
			&e.Source, &e.Attempts, &e.LastError); err != nil {
			return nil, fmt.Errorf("stuck events: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("stuck events: %w", err)
	}
	return out, nil
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
