package store

import (
	"context"
	"database/sql"
	"fmt"
)

// What a household's syncs and polls read besides people.go's: the
// per-account facts a listing or a poll starts from, and whose webhook
// delivered an event.

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
	return s.stringMap(ctx, "held transactions", "SELECT id, account_id FROM transactions WHERE status = 'HELD'")
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
		(SELECT created_at FROM transactions WHERE account_id = ?1 AND status = 'HELD' ORDER BY `+heldOrder+` LIMIT 1)`,
		account).Scan(&newest, &held)
	if err != nil {
		return e, fmt.Errorf("newest transaction of account %s: %w", account, err)
	}
	return AccountEdges{Newest: newest.String, OldestHeld: held.String}, nil
}

// BalanceOlder reports whether a transaction of account was written after
// the account's balance was (accounts.synced_at): a sync that listed the
// accounts before it brought the transaction left a balance older than
// it.
func (s *Store) BalanceOlder(ctx context.Context, account string) (bool, error) {
	var older bool
	err := s.ro.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM accounts AS a JOIN transactions AS t ON t.account_id = a.id
		WHERE a.id = ? AND t.updated_at > a.synced_at)`, account).Scan(&older)
	if err != nil {
		return false, fmt.Errorf("balance of account %s: %w", account, err)
	}
	return older, nil
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
	return s.stringMap(ctx, "webhook people", "SELECT id, person FROM webhooks WHERE person IS NOT NULL")
}
