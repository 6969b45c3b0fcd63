package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// RuleTransaction is a mirrored transaction as the rules see it.
type RuleTransaction struct {
	ID, AccountID, AccountName, AccountType, Ownership, Person  string
	Status, Description, RawText, Message, Currency             string
	AmountValue                                                 string
	AmountBaseUnits                                             int64
	ForeignCurrency, CategoryID, ParentCategoryID, CardPurchase string
	CreatedLocal                                                string // 'YYYY-MM-DD HH:MM:SS' in the customer's zone
	CreatedAt                                                   string
	IsCategorizable                                             bool
	Tags                                                        []string // sorted
	// PerformingCustomer is the bank's performingCustomer (a display
	// name) and TransactionType its transactionType ("Purchase", "Pay
	// Anyone", ...), "" when it sends none.
	PerformingCustomer, TransactionType string
	// AccountPeople are the people who see the account (account_people),
	// sorted.
	AccountPeople []string
	// TransferAccountID and TransferAccountName are the other account of
	// a transfer between the customer's own accounts (the bank's
	// transferAccount; the name "" when the mirror lacks it), both "" for
	// any other transaction.
	TransferAccountID, TransferAccountName string
	// HouseholdTransferID is the other side of a household transfer
	// (transactions.household_transfer_id): a payment between two
	// people of the household. HouseholdTransferPerson is whose account
	// that side is on ("" when not one person's).
	HouseholdTransferID, HouseholdTransferPerson string
}

// RuleQuery selects the transactions RuleTransactions reads: by id, or
// every one created on or after a local date (YYYY-MM-DD), in rowid order
// after AfterRowID, at most Limit.
type RuleQuery struct {
	IDs        []string
	SinceDate  string
	AfterRowID int64
	Limit      int
}

// ruleTransactionSelect reads what a rule sees. person is
// v_transactions.person: on an individual account one person sees, that
// person; else the one person who sees the account and whose display name
// the transaction's performing customer is.
const ruleTransactionSelect = `SELECT t.rowid, t.id, t.account_id, coalesce(a.display_name, ''), coalesce(a.account_type, ''),
	coalesce(a.ownership_type, ''),
	coalesce(
		CASE WHEN a.ownership_type IS NOT 'JOINT' THEN
			(SELECT CASE WHEN count(*) = 1 THEN min(ap.person) END FROM account_people ap WHERE ap.account_id = t.account_id) END,
		(SELECT CASE WHEN count(*) = 1 THEN min(p.name) END FROM account_people ap JOIN people p ON p.name = ap.person
		 WHERE ap.account_id = t.account_id AND p.display_name = t.performing_customer), ''),
	t.status, t.description, coalesce(t.raw_text, ''), coalesce(t.message, ''), t.amount_currency, t.amount_value,
	t.amount_base_units, coalesce(t.foreign_amount_currency, ''), coalesce(t.category_id, ''),
	coalesce(t.parent_category_id, ''), coalesce(t.card_purchase_method, ''), coalesce(t.created_local, ''),
	t.created_at, t.is_categorizable,
	coalesce((SELECT group_concat(tag_id, char(31)) FROM (SELECT tag_id FROM transaction_tags g WHERE g.transaction_id = t.id ORDER BY tag_id)), ''),
	coalesce(t.performing_customer, ''), coalesce(t.transaction_type, ''),
	coalesce((SELECT group_concat(person, char(31)) FROM (SELECT person FROM account_people ap WHERE ap.account_id = t.account_id ORDER BY person)), ''),
	coalesce(t.transfer_account_id, ''),
	coalesce((SELECT ta.display_name FROM accounts ta WHERE ta.id = t.transfer_account_id), ''),
	coalesce(t.household_transfer_id, ''),
	coalesce((SELECT CASE WHEN count(*) = 1 THEN min(ap.person) END FROM transactions o JOIN account_people ap ON ap.account_id = o.account_id
		WHERE o.id = t.household_transfer_id), '')
	FROM transactions t LEFT JOIN accounts a ON a.id = t.account_id`

// RuleTransactions reads the transactions q selects, with the rowid of
// the last one (to page on with AfterRowID).
func (s *Store) RuleTransactions(ctx context.Context, q RuleQuery) (txs []RuleTransaction, lastRowID int64, err error) {
	var where []string
	var args []any
	if q.IDs != nil {
		arg, err := jsonArg(q.IDs)
		if err != nil {
			return nil, 0, err
		}
		where, args = append(where, "t.id IN (SELECT value FROM json_each(?))"), append(args, arg)
	}
	if q.SinceDate != "" {
		where, args = append(where, "t.created_date >= ?"), append(args, q.SinceDate)
	}
	where, args = append(where, "t.rowid > ?"), append(args, q.AfterRowID)
	query := ruleTransactionSelect + " WHERE " + strings.Join(where, " AND ") + " ORDER BY t.rowid" //nolint:gosec // this function's constant conditions; values are arguments
	if q.Limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	rows, err := s.ro.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("read transactions for rules: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t RuleTransaction
		var tags, people string
		if err := rows.Scan(&lastRowID, &t.ID, &t.AccountID, &t.AccountName, &t.AccountType, &t.Ownership, &t.Person,
			&t.Status, &t.Description, &t.RawText, &t.Message, &t.Currency, &t.AmountValue, &t.AmountBaseUnits,
			&t.ForeignCurrency, &t.CategoryID, &t.ParentCategoryID, &t.CardPurchase, &t.CreatedLocal, &t.CreatedAt,
			&t.IsCategorizable, &tags, &t.PerformingCustomer, &t.TransactionType, &people, &t.TransferAccountID, &t.TransferAccountName,
			&t.HouseholdTransferID, &t.HouseholdTransferPerson); err != nil {
			return nil, 0, fmt.Errorf("read transactions for rules: %w", err)
		}
		if tags != "" {
			t.Tags = strings.Split(tags, "\x1f")
		}
		if people != "" {
			t.AccountPeople = strings.Split(people, "\x1f")
		}
		txs = append(txs, t)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("read transactions for rules: %w", err)
	}
	return txs, lastRowID, nil
}

// Arrival is a transaction that was created or settled in the mirror: one
// row of transaction_history, by its seq.
type Arrival struct {
	Seq           int64
	TransactionID string
	Change        string // "created" or "settled"
	ObservedAt    string
}

// Arrivals returns the transactions created or settled after history seq
// after, oldest first, at most limit.
func (s *Store) Arrivals(ctx context.Context, after int64, limit int) ([]Arrival, error) {
	return queryAll(ctx, s.ro, "read arrivals", func(r *sql.Rows, a *Arrival) error {
		return r.Scan(&a.Seq, &a.TransactionID, &a.Change, &a.ObservedAt)
	}, `SELECT seq, transaction_id, change, observed_at FROM transaction_history
		WHERE seq > ? AND change IN ('created', 'settled') ORDER BY seq LIMIT ?`, after, limit)
}

// LastHistorySeq is the seq of the newest history row (0 when none).
func (s *Store) LastHistorySeq(ctx context.Context) (int64, error) {
	var seq int64
	if err := s.ro.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) FROM transaction_history").Scan(&seq); err != nil {
		return 0, fmt.Errorf("read history seq: %w", err)
	}
	return seq, nil
}

// Rule application sources.
const (
	RuleOnArrival  = "arrival"    // a transaction came in (webhook, poll, sync)
	RuleFirstSync  = "first_sync" // the mirror's first sync brought it
	RuleApplyRun   = "apply"      // bankmirror rules apply
	RuleCategory   = "category"
	RuleTag        = "tag"
	RuleExclude    = "exclude_from_spending"
	RuleNote       = "note"
	notWrittenBack = "not written back: "
	// KeptLocally starts the error of an action the bank cannot take (a
	// tag on a 2Up transaction, a 7th tag): it stays in the mirror, as
	// expected, and is no failure.
	KeptLocally = "kept in the mirror only: "
)

// RuleApplication is one action a rule took on a transaction.
type RuleApplication struct {
	ID            int64
	TransactionID string
	Rule, Action  string
	Value         string
	Previous      string
	AppliedAt     string
	Source        string
	WriteBack     bool
	WrittenBackAt string
	Attempts      int
	Error         string
}

// PriorRuleActions returns, per transaction among ids, the actions rules
// already took on it ("rule\x00action\x00value" and "\x00action" for any rule),
// so that a rule never acts twice and a category is set by rules once.
func (s *Store) PriorRuleActions(ctx context.Context, ids []string) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	arg, err := jsonArg(ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.ro.QueryContext(ctx, `SELECT transaction_id, rule, action, value FROM rule_applications
		WHERE transaction_id IN (SELECT value FROM json_each(?))`, arg)
	if err != nil {
		return nil, fmt.Errorf("read rule applications: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, rule, action, value string
		if err := rows.Scan(&id, &rule, &action, &value); err != nil {
			return nil, fmt.Errorf("read rule applications: %w", err)
		}
		m := out[id]
		if m == nil {
			m = map[string]bool{}
			out[id] = m
		}
		m[PriorKey(rule, action, value)] = true
		m[PriorKey("", action, "")] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read rule applications: %w", err)
	}
	return out, nil
}

// PriorKey is a key of PriorRuleActions' sets.
func PriorKey(rule, action, value string) string { return rule + "\x00" + action + "\x00" + value }

// RuleCursor is where the rules stand in transaction_history, recorded in
// daemon_state under Key together with the applications it covers.
type RuleCursor struct {
	Key string
	Seq int64
}

// RecordRuleApplications records apps (an action already recorded is left
// as it is) and their mirror-only settings, and moves the cursor, in one
// transaction: a crash records all or nothing, and a restart resumes after
// the last recorded arrival.
func (s *Store) RecordRuleApplications(ctx context.Context, apps []RuleApplication, cursor *RuleCursor) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		now := s.stamp()
		for _, a := range apps {
			applied := a.AppliedAt
			if applied == "" {
				applied = now
			}
			var errText any
			if a.Error != "" {
				errText = a.Error
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO rule_applications
				(transaction_id, rule, action, value, previous, applied_at, source, write_back, error)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				a.TransactionID, a.Rule, a.Action, a.Value, a.Previous, applied, a.Source, a.WriteBack, errText); err != nil {
				return fmt.Errorf("record rule application: %w", err)
			}
			if err := annotate(ctx, tx, a); err != nil {
				return err
			}
		}
		if cursor != nil {
			return s.putState(ctx, tx, cursor.Key, cursor.Seq)
		}
		return nil
	})
}

func annotate(ctx context.Context, tx *sql.Tx, a RuleApplication) error {
	var q string
	switch a.Action {
	case RuleExclude:
		q = `INSERT INTO transaction_annotations (transaction_id, exclude_from_spending, exclude_rule) VALUES (?, ?, ?)
			ON CONFLICT (transaction_id) DO UPDATE SET exclude_from_spending = excluded.exclude_from_spending, exclude_rule = excluded.exclude_rule`
	case RuleNote:
		q = `INSERT INTO transaction_annotations (transaction_id, note, note_rule) VALUES (?, ?, ?)
			ON CONFLICT (transaction_id) DO UPDATE SET note = excluded.note, note_rule = excluded.note_rule`
	default:
		return nil
	}
	var v any = a.Value
	if a.Action == RuleExclude {
		v = a.Value == "1"
	}
	if _, err := tx.ExecContext(ctx, q, a.TransactionID, v, a.Rule); err != nil {
		return fmt.Errorf("record rule annotation: %w", err)
	}
	return nil
}

// RuleCursorSeq reads the cursor recorded under key; ok is false when
// none is.
func (s *Store) RuleCursorSeq(ctx context.Context, key string) (seq int64, ok bool, err error) {
	_, ok, err = s.GetState(ctx, key, &seq)
	return seq, ok, err
}

// PendingRuleWriteBacks returns the applications the bank has yet to
// carry out whose retry is due at now, oldest first.
func (s *Store) PendingRuleWriteBacks(ctx context.Context, now time.Time, limit int) ([]RuleApplication, error) {
	return s.ruleApplications(ctx, `WHERE write_back = 1 AND written_back_at IS NULL AND next_attempt_at <= ?
		ORDER BY id LIMIT ?`, now.UTC().Format(TimeLayout), limit)
}

// RecentRuleApplications returns the newest applications, newest first.
func (s *Store) RecentRuleApplications(ctx context.Context, limit int) ([]RuleApplication, error) {
	return s.ruleApplications(ctx, "ORDER BY id DESC LIMIT ?", limit)
}

func (s *Store) ruleApplications(ctx context.Context, where string, args ...any) ([]RuleApplication, error) {
	const columns = `SELECT id, transaction_id, rule, action, value, coalesce(previous, ''), applied_at,
		source, write_back, coalesce(written_back_at, ''), attempts, coalesce(error, '') FROM rule_applications `
	q := columns + where //nolint:gosec // where is one of this file's constant clauses
	return queryAll(ctx, s.ro, "read rule applications", func(r *sql.Rows, a *RuleApplication) error {
		return r.Scan(&a.ID, &a.TransactionID, &a.Rule, &a.Action, &a.Value, &a.Previous, &a.AppliedAt,
			&a.Source, &a.WriteBack, &a.WrittenBackAt, &a.Attempts, &a.Error)
	}, q, args...)
}

// WriteBackOutcome is what became of one pending write-back.
type WriteBackOutcome struct {
	ID int64
	// Done: the bank has it (or needs nothing). Otherwise Err says why and
	// RetryAt when to try again; a zero RetryAt gives up (Final).
	Done    bool
	Err     string
	RetryAt time.Time
}

// FinishRuleWriteBacks records what became of pending write-backs.
func (s *Store) FinishRuleWriteBacks(ctx context.Context, outcomes []WriteBackOutcome) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		now := s.stamp()
		for _, o := range outcomes {
			var err error
			switch {
			case o.Done:
				_, err = tx.ExecContext(ctx, `UPDATE rule_applications SET written_back_at = ?, attempts = attempts + 1,
					error = NULL WHERE id = ?`, now, o.ID)
			case o.RetryAt.IsZero():
				_, err = tx.ExecContext(ctx, `UPDATE rule_applications SET write_back = 0, attempts = attempts + 1,
					error = ? WHERE id = ?`, notWrittenBack+o.Err, o.ID)
			default:
				_, err = tx.ExecContext(ctx, `UPDATE rule_applications SET attempts = attempts + 1, error = ?,
					next_attempt_at = ? WHERE id = ?`, o.Err, o.RetryAt.UTC().Format(TimeLayout), o.ID)
			}
			if err != nil {
				return fmt.Errorf("record write-back: %w", err)
			}
		}
		return nil
	})
}

// QueueRuleWriteBacks marks recorded applications that were not written
// back (a first sync's, or a preview's) to be written back.
func (s *Store) QueueRuleWriteBacks(ctx context.Context, ids []int64) error {
	arg, err := jsonArg(ids)
	if err != nil {
		return err
	}
	return s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE rule_applications SET write_back = 1, next_attempt_at = '', error = NULL
			WHERE id IN (SELECT value FROM json_each(?)) AND written_back_at IS NULL AND action IN ('category', 'tag')`, arg); err != nil {
			return fmt.Errorf("queue write-backs: %w", err)
		}
		return nil
	})
}

// RuleSummary is what the mirror knows of one rule's work.
type RuleSummary struct {
	Rule          string
	Applications  int
	Last30Days    int
	LastAppliedAt string
	Pending       int
	// Errors are the write-backs that failed (waiting for a retry or
	// given up), LastError the newest one's error.
	Errors    int
	LastError string
	// Local are the actions kept in the mirror only because the bank
	// cannot take them (KeptLocally), LastLocal the newest one's reason.
	Local     int
	LastLocal string
}

// RuleSummaries sums rule_applications per rule; since is the start of
// the last 30 days (TimeLayout).
func (s *Store) RuleSummaries(ctx context.Context, since string) (map[string]RuleSummary, error) {
	rows, err := queryAll(ctx, s.ro, "read rule summaries", func(r *sql.Rows, x *RuleSummary) error {
		return r.Scan(&x.Rule, &x.Applications, &x.Last30Days, &x.LastAppliedAt, &x.Pending, &x.Errors, &x.LastError,
			&x.Local, &x.LastLocal)
	}, `SELECT rule, count(*), count(*) FILTER (WHERE applied_at >= ?), max(applied_at),
		count(*) FILTER (WHERE write_back = 1 AND written_back_at IS NULL),
		count(*) FILTER (WHERE error IS NOT NULL AND written_back_at IS NULL AND NOT error GLOB ?2),
		coalesce((SELECT error FROM rule_applications r2 WHERE r2.rule = r.rule AND r2.error IS NOT NULL
			AND r2.written_back_at IS NULL AND NOT r2.error GLOB ?2 ORDER BY id DESC LIMIT 1), ''),
		count(*) FILTER (WHERE error GLOB ?2),
		coalesce((SELECT error FROM rule_applications r2 WHERE r2.rule = r.rule AND r2.error GLOB ?2 ORDER BY id DESC LIMIT 1), '')
		FROM rule_applications r GROUP BY rule`, since, KeptLocally+"*")
	if err != nil {
		return nil, err
	}
	out := make(map[string]RuleSummary, len(rows))
	for _, x := range rows {
		out[x.Rule] = x
	}
	return out, nil
}

// FirstFullSyncEnd is when the mirror's first successful full sync
// finished (TimeLayout); ok is false while none has. What the history
// observed before then came with that sync.
func (s *Store) FirstFullSyncEnd(ctx context.Context) (end string, ok bool, err error) {
	var v sql.NullString
	if err := s.ro.QueryRowContext(ctx, `SELECT min(finished_at) FROM sync_runs WHERE kind = 'full' AND status = ?`,
		RunOK).Scan(&v); err != nil {
		return "", false, fmt.Errorf("read sync runs: %w", err)
	}
	return v.String, v.Valid, nil
}
