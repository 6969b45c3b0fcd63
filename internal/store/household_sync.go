package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// What a household's syncs and polls read and write: which person's token
// lists which account (account_people), accounts no token lists any more
// (accounts.gone_at), each token's state, and the per-account facts a
// listing or a poll starts from.

// FinishListingOf ends a complete listing of accounts' transactions (a
// household lists each account through /accounts/{id}/transactions): as
// FinishListing, but only transactions of accounts may be deleted; the
// webhook events pending at its start are marked processed only when
// complete (no account of the household was left out).
func (s *Store) FinishListingOf(ctx context.Context, l *Listing, accounts []string, complete bool) ([]string, error) {
	if accounts == nil {
		accounts = []string{}
	}
	return s.finishListing(ctx, l, accounts, complete)
}

// HeldTransactionAccounts returns the account of every locally HELD
// transaction, by transaction id.
func (s *Store) HeldTransactionAccounts(ctx context.Context) (map[string]string, error) {
	rows, err := s.ro.QueryContext(ctx, "SELECT id, account_id FROM transactions WHERE status = 'HELD'")
	if err != nil {
		return nil, fmt.Errorf("held transactions: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, account string
		if err := rows.Scan(&id, &account); err != nil {
			return nil, fmt.Errorf("held transactions: %w", err)
		}
		out[id] = account
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("held transactions: %w", err)
	}
	return out, nil
}

// AccountEdges is what a poll of one account starts from: the createdAt
// of its newest live transaction and of its oldest HELD one, as sent by
// the bank ("" when there is none).
type AccountEdges struct {
	Newest     string
	OldestHeld string
}

// AccountEdgesOf returns the AccountEdges of account.
func (s *Store) AccountEdgesOf(ctx context.Context, account string) (AccountEdges, error) {
	var e AccountEdges
	var newest, held sql.NullString
	err := s.ro.QueryRowContext(ctx, `SELECT
		(SELECT created_at FROM transactions WHERE account_id = ?1 ORDER BY unixepoch(created_at, 'subsec') DESC LIMIT 1),
		(SELECT created_at FROM transactions WHERE account_id = ?1 AND status = 'HELD' ORDER BY unixepoch(created_at, 'subsec') LIMIT 1)`,
		account).Scan(&newest, &held)
	if err != nil {
		return e, fmt.Errorf("newest transaction of account %s: %w", account, err)
	}
	return AccountEdges{Newest: newest.String, OldestHeld: held.String}, nil
}

// HouseholdAccount is an account of the mirror as a household sees it.
type HouseholdAccount struct {
	ID        string
	Ownership string // INDIVIDUAL or JOINT
	Gone      bool
	People    []string // whose tokens listed it last, by name
}

// HouseholdAccounts returns every mirrored account with whose tokens list
// it, by id.
func (s *Store) HouseholdAccounts(ctx context.Context) ([]HouseholdAccount, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT a.id, a.ownership_type, a.gone_at IS NOT NULL, p.person
		FROM accounts AS a LEFT JOIN account_people AS p ON p.account_id = a.id ORDER BY a.id, p.person`)
	if err != nil {
		return nil, fmt.Errorf("household accounts: %w", err)
	}
	defer rows.Close()
	var out []HouseholdAccount
	for rows.Next() {
		var a HouseholdAccount
		var person sql.NullString
		if err := rows.Scan(&a.ID, &a.Ownership, &a.Gone, &person); err != nil {
			return nil, fmt.Errorf("household accounts: %w", err)
		}
		if n := len(out); n == 0 || out[n-1].ID != a.ID {
			out = append(out, a)
		}
		if person.Valid {
			last := &out[len(out)-1]
			last.People = append(last.People, person.String)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("household accounts: %w", err)
	}
	return out, nil
}

// RecordAccountListings records what the people's listings of their
// accounts said: listed holds the accounts each person's token listed,
// unanswered the people whose token did not answer (their rows stay as
// they were). A person stops seeing an account their token no longer
// lists, unless no token lists it any more: then the account keeps its
// rows and its history and is marked gone. An account listed again is
// not gone. It returns the accounts newly marked gone.
func (s *Store) RecordAccountListings(ctx context.Context, listed map[string][]string, unanswered []string) (gone []string, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		gone = gone[:0]
		now := s.stamp()
		seenBy := map[string]bool{} // accounts some answering token listed
		for person, ids := range listed {
			for _, id := range ids {
				seenBy[id] = true
				if _, err := tx.ExecContext(ctx, `INSERT INTO account_people (account_id, person, seen_at) VALUES (?, ?, ?)
					ON CONFLICT (account_id, person) DO UPDATE SET seen_at = excluded.seen_at`, id, person, now); err != nil {
					return fmt.Errorf("record account of %s: %w", person, err)
				}
				if _, err := tx.ExecContext(ctx, "UPDATE accounts SET gone_at = NULL WHERE id = ? AND gone_at IS NOT NULL", id); err != nil {
					return fmt.Errorf("record account of %s: %w", person, err)
				}
			}
		}
		rows, err := tx.QueryContext(ctx, `SELECT a.id, a.gone_at IS NOT NULL, p.person FROM accounts AS a
			LEFT JOIN account_people AS p ON p.account_id = a.id ORDER BY a.id`)
		if err != nil {
			return fmt.Errorf("read account people: %w", err)
		}
		type edge struct {
			account, person string
			gone            bool
		}
		var edges []edge
		for rows.Next() {
			var e edge
			var person sql.NullString
			if err := rows.Scan(&e.account, &e.gone, &person); err != nil {
				rows.Close() //nolint:sqlclosecheck // every path closes it, before the next statement on this connection
				return fmt.Errorf("read account people: %w", err)
			}
			e.person = person.String
			edges = append(edges, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read account people: %w", err)
		}
		// An account is unknown while a token that saw it did not answer.
		unknown := map[string]bool{}
		for _, e := range edges {
			if slices.Contains(unanswered, e.person) {
				unknown[e.account] = true
			}
		}
		marked := map[string]bool{}
		for _, e := range edges {
			if seenBy[e.account] {
				if e.person != "" && !slices.Contains(listed[e.person], e.account) && !slices.Contains(unanswered, e.person) {
					if _, err := tx.ExecContext(ctx, "DELETE FROM account_people WHERE account_id = ? AND person = ?", e.account, e.person); err != nil {
						return fmt.Errorf("forget account of %s: %w", e.person, err)
					}
				}
				continue
			}
			if unknown[e.account] || e.gone || marked[e.account] {
				continue
			}
			marked[e.account] = true
			if _, err := tx.ExecContext(ctx, "UPDATE accounts SET gone_at = ? WHERE id = ?", now, e.account); err != nil {
				return fmt.Errorf("mark account gone: %w", err)
			}
			gone = append(gone, e.account)
		}
		return nil
	})
	return gone, err
}

// Token states of people.token_state.
const (
	TokenOK      = "ok"
	TokenRevoked = "revoked"
)

// SetTokenState records whether the bank accepts person's token (state
// TokenOK or TokenRevoked) and, for a refusal, the bank's words; an
// accepted token also stamps the person's last successful sync when
// synced is set. A person not recorded is left alone.
func (s *Store) SetTokenState(ctx context.Context, person, state, refusal string, synced bool) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		var ref any
		if refusal != "" {
			ref = refusal
		}
		_, err := tx.ExecContext(ctx, `UPDATE people SET token_state = ?, token_error = ?,
			last_sync_at = CASE WHEN ? THEN ? ELSE last_sync_at END WHERE name = ?`,
			state, ref, synced, s.stamp(), person)
		if err != nil {
			return fmt.Errorf("record token state of %s: %w", person, err)
		}
		return nil
	})
}

// OtherPeopleSeen reports whether account_people names anyone but
// person: then the mirror is, or was, a household of several people.
func (s *Store) OtherPeopleSeen(ctx context.Context, person string) (bool, error) {
	var n int
	if err := s.ro.QueryRowContext(ctx, "SELECT count(*) FROM account_people WHERE person <> ?", person).Scan(&n); err != nil {
		return false, fmt.Errorf("read account people: %w", err)
	}
	return n > 0, nil
}

// WebhookPeople returns whose token registered each webhook, by webhook
// id, for the webhooks whose person is known.
func (s *Store) WebhookPeople(ctx context.Context) (map[string]string, error) {
	rows, err := s.ro.QueryContext(ctx, "SELECT id, person FROM webhooks WHERE person IS NOT NULL")
	if err != nil {
		return nil, fmt.Errorf("webhook people: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, person string
		if err := rows.Scan(&id, &person); err != nil {
			return nil, fmt.Errorf("webhook people: %w", err)
		}
		out[id] = person
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("webhook people: %w", err)
	}
	return out, nil
}

// RemovePeopleExcept marks removed every recorded person not in names
// (their history stays, their webhooks' deliveries are refused).
func (s *Store) RemovePeopleExcept(ctx context.Context, names []string) error {
	arg, err := jsonArg(names)
	if err != nil {
		return err
	}
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE people SET removed_at = ?
			WHERE removed_at IS NULL AND name NOT IN (SELECT value FROM json_each(?))`, s.stamp(), arg)
		if err != nil {
			return fmt.Errorf("mark people removed: %w", err)
		}
		return nil
	})
}
