package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Webhook is a registered webhook: a row of webhooks (a webhook registered
// by this mirror) and its secret, which authenticates its deliveries. The
// secret is kept in the secrets file beside the mirror (mode 0600), never
// in the mirror, whose secret_key column stays empty.
type Webhook struct {
	ID, URL     string
	Description *string
	SecretKey   string
	CreatedAt   string
	DeletedAt   *string
	// Person is whose token registered it ("" on a mirror of one person
	// from before the household, until its first start names the person).
	Person string
}

// SaveWebhook records a newly registered webhook, and its secret in the
// secrets file.
func (s *Store) SaveWebhook(ctx context.Context, w Webhook) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO webhooks (id, url, description, secret_key, created_at, person) VALUES (?, ?, ?, '', ?, nullif(?, ''))
			ON CONFLICT (id) DO UPDATE SET url = excluded.url, description = excluded.description,
			secret_key = '', created_at = excluded.created_at, deleted_at = NULL, person = excluded.person`,
			w.ID, w.URL, nullable(w.Description), w.CreatedAt, w.Person)
		if err != nil {
			return fmt.Errorf("save webhook: %w", err)
		}
		// Written before the row commits: a crash in between leaves a
		// secret without a row, erased after SecretGrace, never a row
		// without its secret.
		stamp := s.stamp()
		return s.updateSecrets(ctx, tx, func(doc *secretsDoc) {
			doc.Webhooks[w.ID] = storedSecret{SecretKey: w.SecretKey, StoredAt: stamp}
		})
	})
}

// MarkWebhookDeleted records that a webhook was deleted at the bank. Its
// row stays (without being used to verify deliveries) so that its events
// remain explainable; its secret is erased SecretGrace later.
func (s *Store) MarkWebhookDeleted(ctx context.Context, id string) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "UPDATE webhooks SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL", s.stamp(), id); err != nil {
			return fmt.Errorf("mark webhook deleted: %w", err)
		}
		return nil
	})
}

// ActiveWebhooks lists the registered webhooks not deleted, oldest first.
func (s *Store) ActiveWebhooks(ctx context.Context) ([]Webhook, error) {
	doc, err := readSecrets(s.secretsPath())
	if err != nil {
		return nil, err
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT id, url, description, created_at, deleted_at, coalesce(person, '')
		FROM webhooks WHERE deleted_at IS NULL ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	defer rows.Close()
	var out []Webhook
	for rows.Next() {
		var w Webhook
		if err := rows.Scan(&w.ID, &w.URL, &w.Description, &w.CreatedAt, &w.DeletedAt, &w.Person); err != nil {
			return nil, fmt.Errorf("list webhooks: %w", err)
		}
		w.SecretKey = doc.Webhooks[w.ID].SecretKey
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	return out, nil
}

// Webhook returns one registered webhook, deleted or not; SecretKey is
// empty once a deleted webhook's secret has been erased.
func (s *Store) Webhook(ctx context.Context, id string) (Webhook, error) {
	var w Webhook
	err := s.ro.QueryRowContext(ctx, `SELECT id, url, description, created_at, deleted_at, coalesce(person, '')
		FROM webhooks WHERE id = ?`, id).Scan(&w.ID, &w.URL, &w.Description, &w.CreatedAt, &w.DeletedAt, &w.Person)
	if errors.Is(err, sql.ErrNoRows) {
		return w, fmt.Errorf("webhook %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return w, fmt.Errorf("webhook %s: %w", id, err)
	}
	if w.SecretKey, err = s.secretOf(id); err != nil {
		return w, fmt.Errorf("webhook %s: %w", id, err)
	}
	return w, nil
}

// SecretGrace is how long a deleted webhook's secret still verifies
// deliveries: a delivery the bank sent just before the deletion (during a
// rotation) must not be rejected. The secret is erased after it.
const SecretGrace = time.Hour

// WebhookSecrets returns the secrets of every active webhook and of those
// deleted less than SecretGrace ago, read from the secrets file. It erases
// from the file the secrets past their grace.
func (s *Store) WebhookSecrets(ctx context.Context) ([][]byte, error) {
	rows, err := webhookDeletions(ctx, s.ro)
	if err != nil {
		return nil, fmt.Errorf("webhook secrets: %w", err)
	}
	doc, err := readSecrets(s.secretsPath())
	if err != nil {
		return nil, fmt.Errorf("webhook secrets: %w", err)
	}
	var out [][]byte
	for id, sec := range doc.Webhooks {
		row, ok := rows[id]
		if s.secretValid(sec, row, ok) {
			out = append(out, []byte(sec.SecretKey))
		}
	}
	// Erasing is retried at the next call if it fails (a full disk): the
	// secrets to verify with are right either way.
	_ = s.pruneSecrets(ctx, rows, doc)
	return out, nil
}

// pruneSecretsNow erases the secrets past their grace (at Open).
func (s *Store) pruneSecretsNow(ctx context.Context) error {
	rows, err := webhookDeletions(ctx, s.db)
	if err != nil {
		return err
	}
	doc, err := readSecrets(s.secretsPath())
	if err != nil {
		return err
	}
	if err := s.pruneSecrets(ctx, rows, doc); err != nil {
		return fmt.Errorf("erase expired webhook secrets: %w", err)
	}
	return nil
}

// DeliveryLog is a row of webhook_delivery_logs.
type DeliveryLog struct {
	ID, WebhookID, EventID, DeliveryStatus string
	StatusCode                             *int
	CreatedAt, RequestBody                 string
	ResponseBody                           *string
}

// SaveDeliveryLogs stores delivery log entries, ignoring ones already
// stored. It returns how many were new.
func (s *Store) SaveDeliveryLogs(ctx context.Context, logs []DeliveryLog) (n int, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		n = 0
		st, err := tx.PrepareContext(ctx, `INSERT INTO webhook_delivery_logs (id, webhook_id, event_id, delivery_status,
			status_code, created_at, request_body, response_body) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer st.Close()
		for _, l := range logs {
			var code any
			if l.StatusCode != nil {
				code = int64(*l.StatusCode)
			}
			r, err := st.ExecContext(ctx, l.ID, l.WebhookID, l.EventID, l.DeliveryStatus, code, l.CreatedAt, l.RequestBody, nullable(l.ResponseBody))
			if err != nil {
				return fmt.Errorf("save delivery log: %w", err)
			}
			if k, _ := r.RowsAffected(); k == 1 {
				n++
			}
		}
		return nil
	})
	return n, err
}

// registrationWindow bounds how long a registration counts as in progress,
// should the registering process die before finishing it.
const registrationWindow = 2 * time.Minute

// BeginWebhookRegistration records that a webhook is being created at the
// bank and its secret is not stored yet.
func (s *Store) BeginWebhookRegistration(ctx context.Context) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sync_state (name, started_at) VALUES ('webhook_registration', ?)
			ON CONFLICT (name) DO UPDATE SET started_at = excluded.started_at`, s.stamp())
		if err != nil {
			return fmt.Errorf("begin webhook registration: %w", err)
		}
		return nil
	})
}

// EndWebhookRegistration clears the mark set by BeginWebhookRegistration.
func (s *Store) EndWebhookRegistration(ctx context.Context) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "DELETE FROM sync_state WHERE name = 'webhook_registration'"); err != nil {
			return fmt.Errorf("end webhook registration: %w", err)
		}
		return nil
	})
}

// WebhookRegistering reports whether a webhook registration began less than
// two minutes ago and has not ended.
func (s *Store) WebhookRegistering(ctx context.Context) bool {
	var n int
	err := s.ro.QueryRowContext(ctx, "SELECT count(*) FROM sync_state WHERE name = 'webhook_registration' AND started_at > ?",
		s.now().Add(-registrationWindow).UTC().Format(TimeLayout)).Scan(&n)
	return err == nil && n > 0
}
