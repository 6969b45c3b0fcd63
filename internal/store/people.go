package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// repairHouseholdTransfers re-pairs every household transfer: the
// statement of 0012_household_views.sql that does it for the migration.
var repairHouseholdTransfers = sqlStatement(householdViews, "UPDATE transactions SET household_transfer_id ")

// The states of a person's token (people.token_state).
const (
	TokenOK      = "ok"
	TokenRevoked = "revoked"
	TokenUnknown = "unknown"
)

// personName is what a person's name may be: the name of their token file.
var personName = regexp.MustCompile(`^[a-z0-9_-]{1,32}$`)

// ErrPersonName is returned for a person's name that is not 1 to 32 of
// a-z, 0-9, '_' and '-'.
var ErrPersonName = errors.New("a person's name is 1 to 32 of a-z, 0-9, '_' and '-'")

// Person is a row of people: someone of the household, with their own
// token. Timestamps are the store's (TimeLayout); "" for NULL.
type Person struct {
	Name        string
	CustomerID  string // /util/ping's customer id, once known
	DisplayName string // performingCustomer on their own transactions, once learned
	TokenState  string // TokenOK, TokenRevoked or TokenUnknown
	TokenError  string // the bank's last refusal of the token
	AddedAt     string
	RemovedAt   string // no longer configured
	LastSyncAt  string // their last successful listing
}

// PersonUpdate is what UpsertPerson writes of a person. Empty fields keep
// what the row holds (a new row gets TokenUnknown).
type PersonUpdate struct {
	Name        string
	CustomerID  string
	DisplayName string
	// TokenState, when set, is written with TokenError ("" clears it).
	TokenState string
	TokenError string
	// Removed marks the person no longer configured (their history
	// stays); false marks them configured again.
	Removed bool
}

// UpsertPerson adds a person or updates one. Removing a person marks gone
// the accounts only they listed.
func (s *Store) UpsertPerson(ctx context.Context, p PersonUpdate) error {
	if !personName.MatchString(p.Name) {
		return fmt.Errorf("person %q: %w", p.Name, ErrPersonName)
	}
	switch p.TokenState {
	case "", TokenOK, TokenRevoked, TokenUnknown:
	default:
		return fmt.Errorf("person %s: token state %q is none of ok, revoked, unknown", p.Name, p.TokenState)
	}
	return s.InTx(ctx, func(tx *sql.Tx) error {
		now := s.stamp()
		removed := any(nil)
		if p.Removed {
			removed = now
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO people (name, customer_id, display_name, token_state, token_error, added_at, removed_at)
			VALUES (?1, nullif(?2, ''), nullif(?3, ''), coalesce(nullif(?4, ''), 'unknown'), nullif(?5, ''), ?6, ?7)
			ON CONFLICT (name) DO UPDATE SET
				customer_id = coalesce(excluded.customer_id, customer_id),
				display_name = coalesce(excluded.display_name, display_name),
				token_state = CASE WHEN ?4 = '' THEN token_state ELSE excluded.token_state END,
				token_error = CASE WHEN ?4 = '' THEN token_error ELSE excluded.token_error END,
				removed_at = CASE WHEN ?7 IS NULL THEN NULL ELSE coalesce(removed_at, ?7) END`,
			p.Name, p.CustomerID, p.DisplayName, p.TokenState, p.TokenError, now, removed)
		if err != nil {
			return fmt.Errorf("save person %s: %w", p.Name, err)
		}
		return markGoneAccounts(ctx, tx, now)
	})
}

// PersonSynced records a successful listing of the person's accounts and
// transactions (people.last_sync_at).
func (s *Store) PersonSynced(ctx context.Context, name string) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE people SET last_sync_at = ? WHERE name = ?", s.stamp(), name)
		if err != nil {
			return fmt.Errorf("record sync of %s: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("record sync of %s: %w", name, ErrNotFound)
		}
		return nil
	})
}

// People lists everyone of the household, removed people included, by
// name.
func (s *Store) People(ctx context.Context) ([]Person, error) {
	return queryAll(ctx, s.ro, "list people", func(r *sql.Rows, p *Person) error {
		return r.Scan(&p.Name, &p.CustomerID, &p.DisplayName, &p.TokenState, &p.TokenError, &p.AddedAt, &p.RemovedAt, &p.LastSyncAt)
	}, `SELECT name, coalesce(customer_id, ''), coalesce(display_name, ''), token_state, coalesce(token_error, ''),
		added_at, coalesce(removed_at, ''), coalesce(last_sync_at, '') FROM people ORDER BY name`)
}

// RecordPersonAccounts records that the person's listing of accounts had
// exactly accountIDs (account_people, seen_at now), in one transaction. An
// account the listing no longer has loses the person's row if another
// person's token lists it; otherwise the row stays as history and the
// account is marked gone (accounts.gone_at), until a listing has it
// again. When who sees which account changed, household transfers are
// paired again.
func (s *Store) RecordPersonAccounts(ctx context.Context, person string, accountIDs []string) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		now := s.stamp()
		var known bool
		if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM people WHERE name = ?)", person).Scan(&known); err != nil {
			return fmt.Errorf("record accounts of %s: %w", person, err)
		}
		if !known {
			return fmt.Errorf("record accounts of %s: no such person: %w", person, ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, "CREATE TEMP TABLE IF NOT EXISTS listed (id TEXT PRIMARY KEY); DELETE FROM temp.listed"); err != nil {
			return fmt.Errorf("record accounts of %s: %w", person, err)
		}
		changed := false
		for _, id := range accountIDs {
			if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO temp.listed (id) VALUES (?)", id); err != nil {
				return fmt.Errorf("record accounts of %s: %w", person, err)
			}
			var had bool
			if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM account_people WHERE account_id = ? AND person = ?)",
				id, person).Scan(&had); err != nil {
				return fmt.Errorf("record account %s of %s: %w", id, person, err)
			}
			changed = changed || !had
			if _, err := tx.ExecContext(ctx, `INSERT INTO account_people (account_id, person, seen_at, listed) VALUES (?, ?, ?, 1)
				ON CONFLICT DO UPDATE SET seen_at = excluded.seen_at, listed = 1`, id, person, now); err != nil {
				return fmt.Errorf("record account %s of %s: %w", id, person, err)
			}
		}
		// Not listed any more: gone from the person's view if another
		// person's token lists the account, history otherwise.
		res, err := tx.ExecContext(ctx, `DELETE FROM account_people WHERE person = ?1 AND account_id NOT IN (SELECT id FROM temp.listed)
			AND EXISTS (SELECT 1 FROM account_people o JOIN people p ON p.name = o.person
				WHERE o.account_id = account_people.account_id AND o.person <> ?1 AND o.listed AND p.removed_at IS NULL)`, person)
		if err != nil {
			return fmt.Errorf("record accounts of %s: %w", person, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			changed = true
		}
		if _, err := tx.ExecContext(ctx, `UPDATE account_people SET listed = 0
			WHERE person = ? AND listed AND account_id NOT IN (SELECT id FROM temp.listed)`, person); err != nil {
			return fmt.Errorf("record accounts of %s: %w", person, err)
		}
		if err := markGoneAccounts(ctx, tx, now); err != nil {
			return err
		}
		if changed {
			if _, err := tx.ExecContext(ctx, repairHouseholdTransfers); err != nil {
				return fmt.Errorf("pair household transfers: %w", err)
			}
		}
		return nil
	})
}

// markGoneAccounts sets accounts.gone_at for the accounts no configured
// person's token lists any more, and clears it for those one does.
func markGoneAccounts(ctx context.Context, tx *sql.Tx, now string) error {
	const listedNow = `EXISTS (SELECT 1 FROM account_people ap JOIN people p ON p.name = ap.person
		WHERE ap.account_id = accounts.id AND ap.listed AND p.removed_at IS NULL)`
	if _, err := tx.ExecContext(ctx, "UPDATE accounts SET gone_at = NULL WHERE gone_at IS NOT NULL AND "+listedNow); err != nil {
		return fmt.Errorf("mark accounts listed: %w", err)
	}
	// An account nobody's listing was recorded for (a mirror not yet a
	// household) is not gone.
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET gone_at = ? WHERE gone_at IS NULL AND NOT `+listedNow+`
		AND EXISTS (SELECT 1 FROM account_people ap WHERE ap.account_id = accounts.id)`, now); err != nil {
		return fmt.Errorf("mark accounts gone: %w", err)
	}
	return nil
}

// MarkGoneAccounts sets accounts.gone_at for the accounts no configured
// person's token lists any more, and clears it for those one does again.
// RecordPersonAccounts and UpsertPerson do it too.
func (s *Store) MarkGoneAccounts(ctx context.Context) error {
	return s.InTx(ctx, func(tx *sql.Tx) error { return markGoneAccounts(ctx, tx, s.stamp()) })
}

// AccountPeople is an account and who sees it (v_account_people).
type AccountPeople struct {
	AccountID, Name, AccountType, OwnershipType string
	// ListedBy is the configured people whose token listed the account
	// last time, sorted: the tokens to list it through.
	ListedBy []string
	// People is everyone recorded as seeing it, history included, sorted.
	People []string
	GoneAt string // "" while a token lists it
}

// AccountsWithPeople lists every account with who sees it, by name.
func (s *Store) AccountsWithPeople(ctx context.Context) ([]AccountPeople, error) {
	return queryAll(ctx, s.ro, "list accounts with people", func(r *sql.Rows, a *AccountPeople) error {
		var listed, people string
		if err := r.Scan(&a.AccountID, &a.Name, &a.AccountType, &a.OwnershipType, &listed, &people, &a.GoneAt); err != nil {
			return err
		}
		a.ListedBy, a.People = splitNames(listed), splitNames(people)
		return nil
	}, `SELECT account_id, account_name, account_type, ownership_type, coalesce(listed_by, ''), coalesce(people, ''),
		coalesce(gone_at, '') FROM v_account_people ORDER BY account_name, account_id`)
}

// splitNames splits a comma-separated list of names; nil for "".
func splitNames(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// ClaimSingleTokenMirror makes a mirror of one person, from before
// households, that person's: when no account_people row exists yet, every
// account becomes the person's (listed) and every webhook without a
// person theirs. Nothing is fetched again. It reports whether it did
// anything; the person must have been added (UpsertPerson).
func (s *Store) ClaimSingleTokenMirror(ctx context.Context, person string) (bool, error) {
	claimed := false
	err := s.InTx(ctx, func(tx *sql.Tx) error {
		var known, empty bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM people WHERE name = ?),
			NOT EXISTS (SELECT 1 FROM account_people)`, person).Scan(&known, &empty); err != nil {
			return fmt.Errorf("claim mirror for %s: %w", person, err)
		}
		if !known {
			return fmt.Errorf("claim mirror for %s: no such person: %w", person, ErrNotFound)
		}
		if !empty {
			return nil
		}
		now := s.stamp()
		res, err := tx.ExecContext(ctx, `INSERT INTO account_people (account_id, person, seen_at, listed)
			SELECT id, ?, ?, 1 FROM accounts`, person, now)
		if err != nil {
			return fmt.Errorf("claim accounts for %s: %w", person, err)
		}
		n, _ := res.RowsAffected()
		res, err = tx.ExecContext(ctx, "UPDATE webhooks SET person = ? WHERE person IS NULL", person)
		if err != nil {
			return fmt.Errorf("claim webhooks for %s: %w", person, err)
		}
		w, _ := res.RowsAffected()
		claimed = n+w > 0
		return nil
	})
	return claimed, err
}

// LearnDisplayNames sets each person's display_name to the
// performingCustomer most frequent on the transactions of their own
// accounts (INDIVIDUAL accounts no other person sees; the smaller name on
// a tie), which is how v_transactions tells who made a transaction on a
// joint account. It returns the names of the people whose display name
// changed. A person without such transactions keeps what they had.
func (s *Store) LearnDisplayNames(ctx context.Context) ([]string, error) {
	var changed []string
	err := s.InTx(ctx, func(tx *sql.Tx) error {
		changed = changed[:0]
		rows, err := tx.QueryContext(ctx, `WITH own AS (
				SELECT ap.account_id, min(ap.person) AS person FROM account_people ap
				JOIN accounts a ON a.id = ap.account_id AND a.ownership_type IS NOT 'JOINT'
				GROUP BY ap.account_id HAVING count(*) = 1
			), seen AS (
				SELECT own.person, t.performing_customer AS name, count(*) AS n
				FROM own JOIN transactions t ON t.account_id = own.account_id
				WHERE t.performing_customer IS NOT NULL AND t.performing_customer <> ''
				GROUP BY own.person, t.performing_customer
			), best AS (
				SELECT person, name, row_number() OVER (PARTITION BY person ORDER BY n DESC, name) AS r FROM seen
			)
			UPDATE people SET display_name = best.name FROM best
			WHERE best.r = 1 AND best.person = people.name AND people.display_name IS NOT best.name
			RETURNING people.name`)
		if err != nil {
			return fmt.Errorf("learn display names: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				return fmt.Errorf("learn display names: %w", err)
			}
			changed = append(changed, name)
		}
		return rows.Err()
	})
	return changed, err
}
