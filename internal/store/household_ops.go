package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// What the per-person commands and the webhook side of a household read:
// whose webhook verifies a delivery, which token may write to a
// transaction's account, and what `bankmirror people` shows.

// WebhookKey is the secret of a registered webhook, with whose token
// registered it.
type WebhookKey struct {
	WebhookID string
	// Person is "" for a webhook from before the household (or a secret
	// whose row never committed).
	Person string
	Secret []byte
}

// webhookKeyRow is what a webhook's key needs of its row.
type webhookKeyRow struct {
	webhookRow
	person  string
	removed bool // its person is no longer configured
}

// WebhookKeys returns the secrets that verify deliveries, each with its
// webhook and person: those of every active webhook and of those deleted
// less than SecretGrace ago, as WebhookSecrets, except the webhooks of a
// person removed from the household (people.removed_at set), whose
// deliveries are no longer accepted. It erases from the file the secrets
// past their grace.
func (s *Store) WebhookKeys(ctx context.Context) ([]WebhookKey, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT w.id, w.deleted_at, coalesce(w.person, ''), p.removed_at IS NOT NULL
		FROM webhooks AS w LEFT JOIN people AS p ON p.name = w.person`)
	if err != nil {
		return nil, fmt.Errorf("webhook keys: %w", err)
	}
	defer rows.Close()
	byID := map[string]webhookKeyRow{}
	deletions := map[string]webhookRow{}
	for rows.Next() {
		var id string
		var r webhookKeyRow
		if err := rows.Scan(&id, &r.deletedAt, &r.person, &r.removed); err != nil {
			return nil, fmt.Errorf("webhook keys: %w", err)
		}
		byID[id], deletions[id] = r, r.webhookRow
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("webhook keys: %w", err)
	}
	doc, err := readSecrets(s.secretsPath())
	if err != nil {
		return nil, fmt.Errorf("webhook keys: %w", err)
	}
	var out []WebhookKey
	for id, sec := range doc.Webhooks {
		row, ok := byID[id]
		if !s.secretValid(sec, row.webhookRow, ok) || row.removed {
			continue
		}
		out = append(out, WebhookKey{WebhookID: id, Person: row.person, Secret: []byte(sec.SecretKey)})
	}
	_ = s.pruneSecrets(ctx, deletions, doc)
	return out, nil
}

// TxAccount is what write-back needs of a transaction's account.
type TxAccount struct {
	AccountID string
	Ownership string // INDIVIDUAL or JOINT
	// People are the people whose token lists the account, by name (none
	// on a mirror whose household has not been recorded yet).
	People []string
}

// TransactionAccounts returns the account of each mirrored transaction
// among ids; ids not mirrored are absent from the map.
func (s *Store) TransactionAccounts(ctx context.Context, ids []string) (map[string]TxAccount, error) {
	out := map[string]TxAccount{}
	if len(ids) == 0 {
		return out, nil
	}
	arg, err := jsonArg(ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT t.id, t.account_id, coalesce(a.ownership_type, ''),
		coalesce((SELECT group_concat(person, ',') FROM (SELECT ap.person FROM account_people AS ap
			LEFT JOIN people AS p ON p.name = ap.person
			WHERE ap.account_id = t.account_id AND p.removed_at IS NULL ORDER BY ap.person)), '')
		FROM transactions AS t LEFT JOIN accounts AS a ON a.id = t.account_id
		WHERE t.id IN (SELECT value FROM json_each(?))`, arg)
	if err != nil {
		return nil, fmt.Errorf("read transaction accounts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, people string
		var a TxAccount
		if err := rows.Scan(&id, &a.AccountID, &a.Ownership, &people); err != nil {
			return nil, fmt.Errorf("read transaction accounts: %w", err)
		}
		if people != "" {
			a.People = strings.Split(people, ",")
		}
		out[id] = a
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read transaction accounts: %w", err)
	}
	return out, nil
}

// PersonSummary is a person of the household as `bankmirror people` and
// `status` show them.
type PersonSummary struct {
	Name        string
	CustomerID  string // "" until /util/ping told it
	DisplayName string
	TokenState  string // ok, revoked or unknown
	TokenError  string
	Removed     bool
	LastSyncAt  string // "" when never
	// Accounts are the display names of the accounts their token lists
	// (not gone), by name.
	Accounts []string
	// Webhooks are the ids of their active registered webhooks.
	Webhooks []string
}

// PeopleSummaries returns every person recorded in the mirror, by name,
// removed ones included (marked), and the people of registered webhooks
// not recorded yet (a household whose first sync has not run).
func (s *Store) PeopleSummaries(ctx context.Context) ([]PersonSummary, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT p.name, coalesce(p.customer_id, ''), coalesce(p.display_name, ''), p.token_state,
		coalesce(p.token_error, ''), p.removed_at IS NOT NULL, coalesce(p.last_sync_at, ''),
		coalesce((SELECT group_concat(display_name, char(31)) FROM (SELECT a.display_name FROM account_people AS ap
			JOIN accounts AS a ON a.id = ap.account_id WHERE ap.person = p.name AND a.gone_at IS NULL ORDER BY a.display_name, a.id)), ''),
		coalesce((SELECT group_concat(id, ',') FROM (SELECT id FROM webhooks
			WHERE person = p.name AND deleted_at IS NULL ORDER BY created_at, id)), '')
		FROM (SELECT name, customer_id, display_name, token_state, token_error, removed_at, last_sync_at FROM people
			UNION ALL SELECT DISTINCT person, NULL, NULL, 'unknown', NULL, NULL, NULL FROM webhooks
			WHERE person IS NOT NULL AND deleted_at IS NULL AND person NOT IN (SELECT name FROM people)) AS p ORDER BY p.name`)
	if err != nil {
		return nil, fmt.Errorf("read people: %w", err)
	}
	defer rows.Close()
	var out []PersonSummary
	for rows.Next() {
		var p PersonSummary
		var accounts, hooks string
		if err := rows.Scan(&p.Name, &p.CustomerID, &p.DisplayName, &p.TokenState, &p.TokenError, &p.Removed,
			&p.LastSyncAt, &accounts, &hooks); err != nil {
			return nil, fmt.Errorf("read people: %w", err)
		}
		if accounts != "" {
			p.Accounts = strings.Split(accounts, "\x1f")
		}
		if hooks != "" {
			p.Webhooks = strings.Split(hooks, ",")
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read people: %w", err)
	}
	return out, nil
}

// NamePerson records name as a person of the household (a new row, or a
// removed one configured again) and gives them the webhooks registered
// before the household, whose person is unknown, when they are the only
// person: a mirror of one token becomes a household of one.
func (s *Store) NamePerson(ctx context.Context, name string, only bool) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO people (name, added_at) VALUES (?, ?)
			ON CONFLICT (name) DO UPDATE SET removed_at = NULL`, name, s.stamp())
		if err != nil {
			return fmt.Errorf("record person %s: %w", name, err)
		}
		if !only {
			return nil
		}
		if _, err := tx.ExecContext(ctx, "UPDATE webhooks SET person = ? WHERE person IS NULL", name); err != nil {
			return fmt.Errorf("name the webhooks' person: %w", err)
		}
		return nil
	})
}
