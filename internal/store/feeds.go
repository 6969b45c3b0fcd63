package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// FeedTx is a mirrored transaction as a feed gives it to an app.
type FeedTx struct {
	ID, AccountID, Date, Status   string
	Amount                        int64
	Description, Message          string
	ForeignValue, ForeignCurrency string
	CategoryID                    string
	TransferAccountID             string // the bank's transferAccount: a move between the person's own accounts
	OtherID                       string // the other leg: of an own transfer, or of a household transfer
	HouseholdTransfer             bool
	CreatedEpoch                  float64
}

// feedTxSelect reads what a feed gives the app. The other leg of a
// transfer between the person's own accounts is the transaction of the
// opposite amount on the account it names that names this one back,
// nearest in time within 10 minutes; a household transfer's is
// household_transfer_id.
const feedTxSelect = `SELECT t.id, t.account_id, coalesce(t.created_date, ''), t.status, t.amount_base_units,
	t.description, coalesce(t.message, ''), coalesce(t.foreign_amount_value, ''), coalesce(t.foreign_amount_currency, ''),
	coalesce(t.category_id, ''), coalesce(t.transfer_account_id, ''),
	coalesce(t.household_transfer_id, (SELECT y.id FROM transactions y
		WHERE t.transfer_account_id IS NOT NULL AND y.account_id = t.transfer_account_id
			AND y.transfer_account_id = t.account_id AND y.amount_base_units = -t.amount_base_units
			AND y.created_epoch BETWEEN t.created_epoch - 600 AND t.created_epoch + 600
		ORDER BY abs(y.created_epoch - t.created_epoch), y.id LIMIT 1), ''),
	t.household_transfer_id IS NOT NULL, coalesce(t.created_epoch, 0)
	FROM transactions t`

func scanFeedTx(r *sql.Rows, t *FeedTx) error {
	return r.Scan(&t.ID, &t.AccountID, &t.Date, &t.Status, &t.Amount, &t.Description, &t.Message,
		&t.ForeignValue, &t.ForeignCurrency, &t.CategoryID, &t.TransferAccountID, &t.OtherID,
		&t.HouseholdTransfer, &t.CreatedEpoch)
}

// FeedTransactions reads the live transactions among ids (those deleted
// are absent).
func (s *Store) FeedTransactions(ctx context.Context, ids []string) ([]FeedTx, error) {
	arg, err := jsonArg(ids)
	if err != nil {
		return nil, err
	}
	return queryAll(ctx, s.ro, "read transactions for feed", scanFeedTx,
		feedTxSelect+` WHERE t.id IN (SELECT value FROM json_each(?))`, arg)
}

// FeedGone reads what the history kept of the transactions among ids
// the bank deleted: each one's id, account and date, as it was when
// deleted. Its date is the one its createdAt names, in the offset the
// bank wrote it with: within a day of the local date a feed gave the app.
func (s *Store) FeedGone(ctx context.Context, ids []string) ([]FeedTx, error) {
	arg, err := jsonArg(ids)
	if err != nil {
		return nil, err
	}
	return queryAll(ctx, s.ro, "read deleted transactions for feed", func(r *sql.Rows, t *FeedTx) error {
		return r.Scan(&t.ID, &t.AccountID, &t.Date)
	}, `SELECT transaction_id, coalesce(raw->>'$.relationships.account.data.id', ''),
			substr(raw->>'$.attributes.createdAt', 1, 10)
		FROM transaction_history
		WHERE transaction_id IN (SELECT value FROM json_each(?)) AND change = 'deleted'
			AND raw->>'$.attributes.createdAt' IS NOT NULL
		ORDER BY seq`, arg)
}

// FeedAccountTransactions reads every live transaction of the accounts
// created on or after the local date since ("" for all), for a check.
func (s *Store) FeedAccountTransactions(ctx context.Context, accounts []string, since string) ([]FeedTx, error) {
	arg, err := jsonArg(accounts)
	if err != nil {
		return nil, err
	}
	return queryAll(ctx, s.ro, "read transactions for feed", scanFeedTx,
		feedTxSelect+` WHERE t.account_id IN (SELECT value FROM json_each(?)) AND coalesce(t.created_date, '') >= ?
		ORDER BY t.created_epoch, t.id`, arg, since)
}

// FeedAccount is a bank account and the people who see it, for resolving
// a feeds file's account keys.
type FeedAccount struct {
	ID, Name, Ownership string
	People              []string
}

// FeedAccounts lists the mirror's accounts (those still listed) with who
// sees each.
func (s *Store) FeedAccounts(ctx context.Context) ([]FeedAccount, error) {
	rows, err := queryAll(ctx, s.ro, "read accounts for feeds", func(r *sql.Rows, a *struct {
		FeedAccount
		people string
	}) error {
		return r.Scan(&a.ID, &a.Name, &a.Ownership, &a.people)
	}, `SELECT a.id, a.display_name, a.ownership_type,
		coalesce((SELECT group_concat(person, ',') FROM (SELECT person FROM account_people ap WHERE ap.account_id = a.id ORDER BY person)), '')
		FROM accounts a WHERE a.gone_at IS NULL ORDER BY a.display_name, a.id`)
	if err != nil {
		return nil, err
	}
	out := make([]FeedAccount, len(rows))
	for i, r := range rows {
		out[i] = r.FeedAccount
		if r.people != "" {
			out[i].People = strings.Split(r.people, ",")
		}
	}
	return out, nil
}

// FeedChange is one row of transaction_history a feed follows.
type FeedChange struct {
	Seq           int64
	TransactionID string
}

// FeedChanges reads the history after seq after, oldest first, at most
// limit rows.
func (s *Store) FeedChanges(ctx context.Context, after int64, limit int) ([]FeedChange, error) {
	return queryAll(ctx, s.ro, "read history for feed", func(r *sql.Rows, c *FeedChange) error {
		return r.Scan(&c.Seq, &c.TransactionID)
	}, `SELECT seq, transaction_id FROM transaction_history WHERE seq > ? ORDER BY seq LIMIT ?`, after, limit)
}

// FeedRow is what a feed put into its app for one bank transaction.
type FeedRow struct {
	TransactionID, AppID, AppAccount, Date string
	Amount                                 int64
	Cleared                                bool
	TransferID                             string
	State                                  string // "pushed", "deleted_in_app" or "reconciled"
	PushedAt                               string
}

// Feed row states.
const (
	FeedPushed       = "pushed"
	FeedDeletedInApp = "deleted_in_app"
	FeedReconciled   = "reconciled"
)

const feedRowSelect = `SELECT transaction_id, app_id, app_account, date, amount, cleared, coalesce(transfer_id, ''), state, pushed_at
	FROM feed_rows`

func scanFeedRow(r *sql.Rows, f *FeedRow) error {
	return r.Scan(&f.TransactionID, &f.AppID, &f.AppAccount, &f.Date, &f.Amount, &f.Cleared, &f.TransferID, &f.State, &f.PushedAt)
}

// FeedRows reads the feed's rows of the bank transactions ids (nil: all).
func (s *Store) FeedRows(ctx context.Context, feed string, ids []string) (map[string]FeedRow, error) {
	var rows []FeedRow
	var err error
	if ids == nil {
		rows, err = queryAll(ctx, s.ro, "read feed rows", scanFeedRow, feedRowSelect+` WHERE feed = ?`, feed)
	} else {
		var arg string
		if arg, err = jsonArg(ids); err != nil {
			return nil, err
		}
		rows, err = queryAll(ctx, s.ro, "read feed rows", scanFeedRow,
			feedRowSelect+` WHERE feed = ? AND transaction_id IN (SELECT value FROM json_each(?))`, feed, arg)
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]FeedRow, len(rows))
	for _, r := range rows {
		out[r.TransactionID] = r
	}
	return out, nil
}

// FeedPending reads the bank transactions the feed looks at again, each
// with why.
func (s *Store) FeedPending(ctx context.Context, feed string) (map[string]string, error) {
	type p struct{ id, reason string }
	rows, err := queryAll(ctx, s.ro, "read feed pending", func(r *sql.Rows, v *p) error {
		return r.Scan(&v.id, &v.reason)
	}, `SELECT transaction_id, reason FROM feed_pending WHERE feed = ?`, feed)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.id] = r.reason
	}
	return out, nil
}

// FeedPendingLegGone is the reason a feed's row is pending when another
// feed of the file deleted the app row it holds, the other leg of a
// transfer whose own leg that feed removed (the app deletes a transfer's
// legs together).
const FeedPendingLegGone = "deleted in the app with its transfer's other leg, which another feed removed"

// RecordFeedLegsGone records, before a push deletes rows, the app rows
// appIDs the app deletes with them (the other legs of transfers): each
// row of a feed holding one of them as it pushed it is pending for that
// feed with FeedPendingLegGone, so that its next push puts it back rather
// than take it for one the person deleted. The pushing feed's own rows
// too: a push cut off after the app deleted them, before its round was
// recorded, leaves them to the next push, which finds its own row gone
// and would take the transfer for one the person deleted.
func (s *Store) RecordFeedLegsGone(ctx context.Context, appIDs []string) error {
	arg, err := jsonArg(appIDs)
	if err != nil {
		return err
	}
	now := s.stamp()
	return s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO feed_pending (feed, transaction_id, reason, since)
			SELECT feed, transaction_id, ?, ? FROM feed_rows
			WHERE state = 'pushed' AND app_id IN (SELECT value FROM json_each(?))
			ON CONFLICT (feed, transaction_id) DO UPDATE SET reason = excluded.reason`,
			FeedPendingLegGone, now, arg); err != nil {
			return fmt.Errorf("record feed legs gone: %w", err)
		}
		return nil
	})
}

// FeedRound is what a round of a feed did, recorded in one commit once
// the app has it.
type FeedRound struct {
	Feed    string
	Cursor  int64             // the history seq now handled (0: unchanged)
	Put     []FeedRow         // rows written or changed
	Drop    []string          // bank ids whose rows are gone from the app
	Pending map[string]string // bank id -> reason, to look at again
	Done    []string          // bank ids no longer pending
}

// RecordFeedRound records a round: the map (rows dropped, then rows put,
// so that a row dropped and made again stays), what is pending, the
// cursor, and a success in the feed's state.
func (s *Store) RecordFeedRound(ctx context.Context, r FeedRound) error {
	now := s.stamp()
	return s.InTx(ctx, func(tx *sql.Tx) error {
		for _, id := range r.Drop {
			if _, err := tx.ExecContext(ctx, `DELETE FROM feed_rows WHERE feed = ? AND transaction_id = ?`, r.Feed, id); err != nil {
				return fmt.Errorf("record feed row: %w", err)
			}
		}
		for _, f := range r.Put {
			pushed := f.PushedAt
			if pushed == "" {
				pushed = now
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO feed_rows (feed, transaction_id, app_id, app_account, date, amount, cleared, transfer_id, state, pushed_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, nullif(?, ''), ?, ?)
				ON CONFLICT (feed, transaction_id) DO UPDATE SET app_id = excluded.app_id, app_account = excluded.app_account,
					date = excluded.date, amount = excluded.amount, cleared = excluded.cleared, transfer_id = excluded.transfer_id,
					state = excluded.state, pushed_at = excluded.pushed_at`,
				r.Feed, f.TransactionID, f.AppID, f.AppAccount, f.Date, f.Amount, f.Cleared, f.TransferID, f.State, pushed); err != nil {
				return fmt.Errorf("record feed row: %w", err)
			}
		}
		for _, id := range r.Done {
			if _, err := tx.ExecContext(ctx, `DELETE FROM feed_pending WHERE feed = ? AND transaction_id = ?`, r.Feed, id); err != nil {
				return fmt.Errorf("record feed pending: %w", err)
			}
		}
		for id, reason := range r.Pending {
			if _, err := tx.ExecContext(ctx, `INSERT INTO feed_pending (feed, transaction_id, reason, since) VALUES (?, ?, ?, ?)
				ON CONFLICT (feed, transaction_id) DO UPDATE SET reason = excluded.reason`, r.Feed, id, reason, now); err != nil {
				return fmt.Errorf("record feed pending: %w", err)
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO feed_state (feed, cursor, last_push_at, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (feed) DO UPDATE SET cursor = max(cursor, excluded.cursor), last_push_at = excluded.last_push_at,
				last_error = NULL, failing_since = NULL, next_attempt_at = NULL, updated_at = excluded.updated_at`,
			r.Feed, r.Cursor, now, now)
		if err != nil {
			return fmt.Errorf("record feed state: %w", err)
		}
		return nil
	})
}

// RecordFeedFailure records a round's failure and when the next may run.
func (s *Store) RecordFeedFailure(ctx context.Context, feed string, failure error, next time.Time) error {
	now := s.stamp()
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO feed_state (feed, last_error, failing_since, next_attempt_at, updated_at)
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (feed) DO UPDATE SET last_error = excluded.last_error,
				failing_since = coalesce(failing_since, excluded.failing_since),
				next_attempt_at = excluded.next_attempt_at, updated_at = excluded.updated_at`,
			feed, failure.Error(), now, next.UTC().Format(TimeLayout), now)
		if err != nil {
			return fmt.Errorf("record feed failure: %w", err)
		}
		return nil
	})
}

// RecordFeedCheck records what a check of the feed found (JSON).
func (s *Store) RecordFeedCheck(ctx context.Context, feed, found string) error {
	now := s.stamp()
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO feed_state (feed, last_check_at, last_check, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (feed) DO UPDATE SET last_check_at = excluded.last_check_at, last_check = excluded.last_check,
				updated_at = excluded.updated_at`, feed, now, found, now)
		if err != nil {
			return fmt.Errorf("record feed check: %w", err)
		}
		return nil
	})
}

// FeedStatus is where a feed stands.
type FeedStatus struct {
	Feed                           string
	Cursor                         int64
	LastPushAt, LastError          string
	FailingSince, NextAttemptAt    string
	LastCheckAt, LastCheck         string
	Rows, DeletedInApp, Reconciled int64
	Pending                        int64 // history rows after the cursor, and transactions waiting
}

// FeedStatuses reads where each feed named stands (a feed that never ran
// has zeros).
func (s *Store) FeedStatuses(ctx context.Context, feeds []string) ([]FeedStatus, error) {
	out := make([]FeedStatus, 0, len(feeds))
	for _, f := range feeds {
		st := FeedStatus{Feed: f}
		var last, errText, failing, next, checkAt, check sql.NullString
		err := s.ro.QueryRowContext(ctx, `SELECT cursor, last_push_at, last_error, failing_since, next_attempt_at, last_check_at, last_check
			FROM feed_state WHERE feed = ?`, f).Scan(&st.Cursor, &last, &errText, &failing, &next, &checkAt, &check)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("read feed state: %w", err)
		}
		st.LastPushAt, st.LastError, st.FailingSince = last.String, errText.String, failing.String
		st.NextAttemptAt, st.LastCheckAt, st.LastCheck = next.String, checkAt.String, check.String
		if err := s.ro.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(state = 'deleted_in_app'), 0), coalesce(sum(state = 'reconciled'), 0)
			FROM feed_rows WHERE feed = ?`, f).Scan(&st.Rows, &st.DeletedInApp, &st.Reconciled); err != nil {
			return nil, fmt.Errorf("read feed rows: %w", err)
		}
		if err := s.ro.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM transaction_history WHERE seq > ?)
			+ (SELECT count(*) FROM feed_pending WHERE feed = ?)`, st.Cursor, f).Scan(&st.Pending); err != nil {
			return nil, fmt.Errorf("read feed pending: %w", err)
		}
		out = append(out, st)
	}
	return out, nil
}

// FailingFeed is a feed whose last round failed.
type FailingFeed struct {
	Feed, Error string
	Since       time.Time
}

// FailingFeeds lists the feeds whose last round failed, with the first
// failure since their last success.
func (s *Store) FailingFeeds(ctx context.Context) ([]FailingFeed, error) {
	type row struct{ feed, errText, since string }
	rows, err := queryAll(ctx, s.ro, "read failing feeds", func(r *sql.Rows, v *row) error {
		return r.Scan(&v.feed, &v.errText, &v.since)
	}, `SELECT feed, last_error, failing_since FROM feed_state WHERE last_error IS NOT NULL AND failing_since IS NOT NULL ORDER BY feed`)
	if err != nil {
		return nil, err
	}
	out := make([]FailingFeed, 0, len(rows))
	for _, r := range rows {
		since, err := time.Parse(TimeLayout, r.since)
		if err != nil {
			return nil, fmt.Errorf("read failing feeds: %w", err)
		}
		out = append(out, FailingFeed{Feed: r.feed, Error: r.errText, Since: since})
	}
	return out, nil
}

// ForgetFeeds removes the state of the feeds not in keep (gone from the
// feeds file), so that no check reports them; their rows stay, should
// they come back.
func (s *Store) ForgetFeeds(ctx context.Context, keep []string) error {
	arg, err := jsonArg(keep)
	if err != nil {
		return err
	}
	return s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM feed_state WHERE feed NOT IN (SELECT value FROM json_each(?))`, arg); err != nil {
			return fmt.Errorf("forget feeds: %w", err)
		}
		return nil
	})
}

// FeedSpan is a bank account a feed fed into one app account, and the
// earliest date of a row it put there (as recorded; the engine's span of
// what a feed feeds now starts at its since, "" for all).
type FeedSpan struct {
	BankAccount, AppAccount, Since string
}

// FeedSpans reads the feed's spans: every app account it fed each bank
// account into, as its pushes recorded them before writing to the app.
func (s *Store) FeedSpans(ctx context.Context, feed string) ([]FeedSpan, error) {
	return queryAll(ctx, s.ro, "read feed spans", func(r *sql.Rows, f *FeedSpan) error {
		return r.Scan(&f.BankAccount, &f.AppAccount, &f.Since)
	}, `SELECT bank_account, app_account, since FROM feed_spans WHERE feed = ? ORDER BY bank_account, app_account`, feed)
}

// RecordFeedSpans records the spans a push of the feed is about to write
// within, keeping for each the earliest date, in one commit.
func (s *Store) RecordFeedSpans(ctx context.Context, feed string, spans []FeedSpan) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		for _, f := range spans {
			if _, err := tx.ExecContext(ctx, `INSERT INTO feed_spans (feed, bank_account, app_account, since) VALUES (?, ?, ?, ?)
				ON CONFLICT (feed, bank_account, app_account) DO UPDATE SET since = min(since, excluded.since)`,
				feed, f.BankAccount, f.AppAccount, f.Since); err != nil {
				return fmt.Errorf("record feed span: %w", err)
			}
		}
		return nil
	})
}

// FeedLeft is what a feed leaves in its app of a bank account it no
// longer feeds: the rows it recorded in one app account that the app
// still has as far as it knows (not deleted there by the person; 0: it
// only has a span there, or only such rows).
type FeedLeft struct {
	BankAccount, AppAccount string
	Rows                    int
}

// feedRowBank is the bank account of a feed's row r (joined with its
// live transaction t): the live transaction's, else the one the history
// last saw (a transaction the bank deleted).
const feedRowBank = `coalesce(t.account_id,
		(SELECT h.raw->>'$.relationships.account.data.id' FROM transaction_history h
			WHERE h.transaction_id = r.transaction_id AND h.raw->>'$.relationships.account.data.id' IS NOT NULL
			ORDER BY h.seq DESC LIMIT 1))`

// feedUnfedRows are a feed's rows of the bank accounts not in a JSON
// array (arguments: feed, array): table unfed, of transaction_id,
// bank_account, app_account and state. A row whose bank account is not
// known (feedRowBank) is not among them.
const feedUnfedRows = `WITH unfed AS (
	SELECT * FROM (
		SELECT r.transaction_id, r.app_account, r.state, ` + feedRowBank + ` AS bank_account
		FROM feed_rows r LEFT JOIN transactions t ON t.id = r.transaction_id
		WHERE r.feed = ?)
	WHERE bank_account IS NOT NULL AND bank_account NOT IN (SELECT value FROM json_each(?)))`

// feedUnfed counts a feed's rows and spans of the bank accounts not in a
// JSON array, by bank account and app account (arguments: feed, array,
// feed, array).
const feedUnfed = feedUnfedRows + `
SELECT bank_account, app_account, sum(n) FROM (
	SELECT bank_account, app_account, state <> 'deleted_in_app' AS n FROM unfed
	UNION ALL
	SELECT bank_account, app_account, 0 FROM feed_spans
	WHERE feed = ? AND bank_account NOT IN (SELECT value FROM json_each(?)))
GROUP BY bank_account, app_account ORDER BY bank_account, app_account`

func scanFeedLeft(r *sql.Rows, f *FeedLeft) error {
	return r.Scan(&f.BankAccount, &f.AppAccount, &f.Rows)
}

// FeedUnfed reads what the feed recorded of bank accounts not among fed:
// its rows, by bank account and app account, and its spans.
func (s *Store) FeedUnfed(ctx context.Context, feed string, fed []string) ([]FeedLeft, error) {
	arg, err := jsonArg(fed)
	if err != nil {
		return nil, err
	}
	return queryAll(ctx, s.ro, "read unfed feed rows", scanFeedLeft, feedUnfed, feed, arg, feed, arg)
}

// FeedUnfedRows reads the bank ids of the feed's rows of bank accounts
// not among fed: all of them when ids is nil, else those among ids.
func (s *Store) FeedUnfedRows(ctx context.Context, feed string, fed, ids []string) ([]string, error) {
	arg, err := jsonArg(fed)
	if err != nil {
		return nil, err
	}
	q, args := feedUnfedRows+` SELECT transaction_id FROM unfed`, []any{feed, arg}
	if ids != nil {
		idArg, err := jsonArg(ids)
		if err != nil {
			return nil, err
		}
		q += ` WHERE transaction_id IN (SELECT value FROM json_each(?))`
		args = append(args, idArg)
	}
	return queryAll(ctx, s.ro, "read unfed feed rows", func(r *sql.Rows, id *string) error { return r.Scan(id) },
		q+` ORDER BY transaction_id`, args...)
}
