package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// maxTransactionRules bounds the rule actions TransactionRules reads of
// one transaction (a rule acts on a transaction once per action and value,
// so a transaction has a few).
const maxTransactionRules = 200

// TxRules is what the rules file did to one transaction: the rule that set
// the category it has now (v_transactions.category_rule, "" when the bank
// or the person set it) and every action recorded, oldest first.
type TxRules struct {
	CategoryRule string
	Applications []RuleApplication
}

// TransactionRules reads what the rules did to the transaction id, for
// the dashboard's transaction page.
func (s *Store) TransactionRules(ctx context.Context, id string) (TxRules, error) {
	var out TxRules
	var rule sql.NullString
	err := s.ro.QueryRowContext(ctx, "SELECT category_rule FROM v_transactions WHERE id = ?", id).Scan(&rule)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return out, fmt.Errorf("transaction %s rules: %w", id, err)
	}
	out.CategoryRule = rule.String
	out.Applications, err = s.ruleApplications(ctx, "WHERE transaction_id = ? ORDER BY id LIMIT ?", id, maxTransactionRules)
	return out, err
}

// NewestTransactionIDs lists the ids of at most limit transactions created
// at or after the Unix time since, newest first: read through the
// created_epoch index, so its cost follows limit, not the mirror's size.
func (s *Store) NewestTransactionIDs(ctx context.Context, since int64, limit int) ([]string, error) {
	return queryAll(ctx, s.ro, "newest transactions", func(r *sql.Rows, id *string) error { return r.Scan(id) },
		"SELECT id FROM transactions WHERE created_epoch >= ? ORDER BY created_epoch DESC LIMIT ?", since, limit)
}

// RuleAlerts is what one rule's notify sent: its alerts (one per
// transaction, whatever the number of channels), those created since the
// window's start, those delivered to at least one channel, and when the
// newest was created (TimeLayout).
type RuleAlerts struct {
	Rule          string
	Alerts        int
	Recent        int
	Sent          int
	LastCreatedAt string
}

// RuleAlertCounts counts, per rule, the alerts its notify queued
// (alert_outbox rows of kind 'rule'); since is the window's start
// (TimeLayout).
func (s *Store) RuleAlertCounts(ctx context.Context, since string) (map[string]RuleAlerts, error) {
	rows, err := queryAll(ctx, s.ro, "read rule alerts", func(r *sql.Rows, x *RuleAlerts) error {
		return r.Scan(&x.Rule, &x.Alerts, &x.Recent, &x.Sent, &x.LastCreatedAt)
	}, `SELECT rule, count(*), count(*) FILTER (WHERE created >= ?), count(*) FILTER (WHERE sent), max(created)
		FROM (SELECT coalesce(json_extract(payload, '$.rule'), '') AS rule, alert_key, min(created_at) AS created,
			max(sent_at IS NOT NULL) AS sent
			FROM alert_outbox WHERE kind = 'rule' AND json_valid(payload) GROUP BY rule, alert_key)
		WHERE rule <> '' GROUP BY rule`, since)
	if err != nil {
		return nil, err
	}
	out := make(map[string]RuleAlerts, len(rows))
	for _, x := range rows {
		out[x.Rule] = x
	}
	return out, nil
}
