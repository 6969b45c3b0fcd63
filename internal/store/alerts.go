package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Alert is one alert for one channel, in the outbox.
type Alert struct {
	ID        int64
	Key       string
	Channel   string
	Kind      string
	Title     string
	Message   string
	Payload   string // JSON
	CreatedAt string
	NotBefore string
	Attempts  int
	SentAt    string
	FailedAt  string
	Error     string
}

// EnqueueAlerts adds alerts to the outbox; one whose key is already there
// for its channel (sent or not) is left out. It returns how many were new.
func (s *Store) EnqueueAlerts(ctx context.Context, alerts []Alert) (added int, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		now := s.stamp()
		for _, a := range alerts {
			res, err := tx.ExecContext(ctx, `INSERT INTO alert_outbox (alert_key, channel, kind, title, message, payload, created_at, not_before)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (alert_key, channel) DO NOTHING`,
				a.Key, a.Channel, a.Kind, a.Title, a.Message, a.Payload, now, a.NotBefore)
			if err != nil {
				return fmt.Errorf("queue alert: %w", err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				added++
			}
		}
		return nil
	})
	return added, err
}

// AlertQueued reports whether an alert of that key is in the outbox for
// any channel.
func (s *Store) AlertQueued(ctx context.Context, key string) (bool, error) {
	var n int
	if err := s.ro.QueryRowContext(ctx, "SELECT count(*) FROM alert_outbox WHERE alert_key = ?", key).Scan(&n); err != nil {
		return false, fmt.Errorf("read alert outbox: %w", err)
	}
	return n > 0, nil
}

// DueAlerts returns the alerts not yet sent nor given up whose time has
// come, oldest first.
func (s *Store) DueAlerts(ctx context.Context, now time.Time, limit int) ([]Alert, error) {
	return s.alerts(ctx, `WHERE sent_at IS NULL AND failed_at IS NULL AND not_before <= ? ORDER BY id LIMIT ?`,
		now.UTC().Format(TimeLayout), limit)
}

// NextAlertDue is when the earliest waiting alert falls due; ok is false
// when none waits.
func (s *Store) NextAlertDue(ctx context.Context) (at string, ok bool, err error) {
	var v sql.NullString
	if err := s.ro.QueryRowContext(ctx, `SELECT min(not_before) FROM alert_outbox WHERE sent_at IS NULL AND failed_at IS NULL`).Scan(&v); err != nil {
		return "", false, fmt.Errorf("read alert outbox: %w", err)
	}
	return v.String, v.Valid, nil
}

// RecentAlerts returns the newest alerts, newest first.
func (s *Store) RecentAlerts(ctx context.Context, limit int) ([]Alert, error) {
	return s.alerts(ctx, "ORDER BY id DESC LIMIT ?", limit)
}

func (s *Store) alerts(ctx context.Context, where string, args ...any) ([]Alert, error) {
	const columns = `SELECT id, alert_key, channel, kind, title, message, payload, created_at, not_before,
		attempts, coalesce(sent_at, ''), coalesce(failed_at, ''), coalesce(error, '') FROM alert_outbox `
	q := columns + where //nolint:gosec // where is one of this file's constant clauses
	return queryAll(ctx, s.ro, "read alert outbox", func(r *sql.Rows, a *Alert) error {
		return r.Scan(&a.ID, &a.Key, &a.Channel, &a.Kind, &a.Title, &a.Message, &a.Payload, &a.CreatedAt,
			&a.NotBefore, &a.Attempts, &a.SentAt, &a.FailedAt, &a.Error)
	}, q, args...)
}

// AlertSent records that the channel has the alert.
func (s *Store) AlertSent(ctx context.Context, id int64) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE alert_outbox SET sent_at = ?, attempts = attempts + 1, error = NULL WHERE id = ?`,
			s.stamp(), id); err != nil {
			return fmt.Errorf("record alert: %w", err)
		}
		return nil
	})
}

// AlertFailed records a failed attempt: retried at retryAt, or given up
// when retryAt is zero.
func (s *Store) AlertFailed(ctx context.Context, id int64, cause string, retryAt time.Time) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		var err error
		if retryAt.IsZero() {
			_, err = tx.ExecContext(ctx, `UPDATE alert_outbox SET failed_at = ?, attempts = attempts + 1, error = ? WHERE id = ?`,
				s.stamp(), cause, id)
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE alert_outbox SET not_before = ?, attempts = attempts + 1, error = ? WHERE id = ?`,
				retryAt.UTC().Format(TimeLayout), cause, id)
		}
		if err != nil {
			return fmt.Errorf("record alert: %w", err)
		}
		return nil
	})
}

// DeferAlert moves an alert's time (quiet hours, a channel's rate limit)
// without counting an attempt.
func (s *Store) DeferAlert(ctx context.Context, id int64, until time.Time) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE alert_outbox SET not_before = ? WHERE id = ?`,
			until.UTC().Format(TimeLayout), id); err != nil {
			return fmt.Errorf("record alert: %w", err)
		}
		return nil
	})
}

// AlertCounts is the outbox per channel: sent, failed (given up) and
// pending.
type AlertCounts struct {
	Channel               string
	Sent, Failed, Pending int
}

// AlertCountsByChannel counts the outbox per channel.
func (s *Store) AlertCountsByChannel(ctx context.Context) ([]AlertCounts, error) {
	return queryAll(ctx, s.ro, "read alert outbox", func(r *sql.Rows, c *AlertCounts) error {
		return r.Scan(&c.Channel, &c.Sent, &c.Failed, &c.Pending)
	}, `SELECT channel, count(sent_at), count(failed_at),
		count(*) FILTER (WHERE sent_at IS NULL AND failed_at IS NULL) FROM alert_outbox GROUP BY channel ORDER BY channel`)
}
