// Package synthetic fills a mirror with generated transactions, for
// benchmarks and tests of reading a large mirror (`bankmirror bench
// export`): a million rows take seconds instead of the hours a sync of the
// simulated bank would. The daemon never calls it.
package synthetic

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
)

// descriptions and categories are what the generated transactions cycle
// through (category id, parent id).
const (
	descriptions = `["Coles Supermarket","Woolworths Metro","Uber *Trip","Netflix.com","Transport for NSW","Bunnings Warehouse",` +
		`"Cafe \"Le Petit\", Fitzroy","Salary ACME Pty Ltd","JB Hi-Fi","Chemist Warehouse","Qantas Airways","Spotify P1234"]`
	categories = `[["groceries","home"],["takeaway","good-life"],["restaurants-and-cafes","good-life"],` +
		`["public-transport","transport"],["tv-and-music","good-life"],["home-maintenance-and-improvements","home"],` +
		`["fuel","transport"],["technology","personal"]]`
)

// Fill adds n generated transactions (ids "synth-…"), three
// accounts, their categories and tags to an empty mirror with one INSERT …
// SELECT over a recursive counter, inside SQLite: a million rows take
// seconds instead of the hours a sync of the simulated bank would. Every
// column the views read is filled with varied values: one in 50 HELD, one
// in 17 a credit, one in 9 with a foreign amount, one in 5 tagged (one tag
// label contains a comma), created 45 s apart back from now in +10:00,
// with their local times (created_epoch, created_local, ...) in the
// mirror's zone.
// raw is a placeholder ('{}'): these rows are for reading, not syncing.
func Fill(ctx context.Context, st *store.Store, n int, now time.Time) error {
	if n < 0 {
		return fmt.Errorf("synthetic mirror: n must not be negative")
	}
	stamp := now.UTC().Format(store.TimeLayout)
	return st.InTx(ctx, func(tx *sql.Tx) error {
		for i, name := range []string{"Spending", "Bills", "Savings"} {
			kind := "TRANSACTIONAL"
			if i == 2 {
				kind = "SAVER"
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO accounts (id, display_name, account_type, ownership_type,
				balance_currency, balance_value, balance_base_units, created_at, raw, synced_at)
				VALUES (?, ?, ?, 'INDIVIDUAL', 'AUD', '1000.00', 100000, '2020-01-01T09:00:00+11:00', '{}', ?)`,
				fmt.Sprintf("synth-account-%d", i), name, kind, stamp); err != nil {
				return fmt.Errorf("synthetic accounts: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO categories (id, name, parent_id, raw)
			SELECT DISTINCT json_extract(value, '$[1]'), json_extract(value, '$[1]'), NULL, '{}' FROM json_each(?1)
			UNION ALL
			SELECT json_extract(value, '$[0]'), json_extract(value, '$[0]'), json_extract(value, '$[1]'), '{}' FROM json_each(?1)`,
			categories); err != nil {
			return fmt.Errorf("synthetic categories: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tags (id) VALUES ('Holiday'), ('Work'), ('Groceries, weekly')`); err != nil {
			return fmt.Errorf("synthetic tags: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `
WITH RECURSIVE n(i) AS (SELECT 1 WHERE ?1 > 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1),
g AS (
	SELECT i,
		CASE WHEN i % 17 = 0 THEN 150000 + (i % 7) * 1000 ELSE -(100 + (i * 7919) % 25000) END AS units,
		?2 - i * 45 AS epoch,
		i % 8 AS cat
	FROM n)
INSERT INTO transactions (id, account_id, status, raw_text, description, message, is_categorizable,
	amount_currency, amount_value, amount_base_units,
	foreign_amount_currency, foreign_amount_value, foreign_amount_base_units,
	card_purchase_method, card_number_suffix, settled_at, created_at, transaction_type, deep_link_url,
	category_id, parent_category_id, raw_full, content_hash, fetched_at, first_seen_at, updated_at)
SELECT printf('synth-%08d-0000-4000-8000-%012d', i, i),
	'synth-account-' || (i % 3),
	CASE WHEN i % 50 = 0 THEN 'HELD' ELSE 'SETTLED' END,
	CASE WHEN i % 4 = 0 THEN NULL ELSE 'RAW ' || i END,
	json_extract(?3, '$[' || (i % 12) || ']'),
	CASE WHEN i % 6 = 0 THEN 'Thanks for ' || i ELSE NULL END,
	CASE WHEN units < 0 THEN 1 ELSE 0 END,
	'AUD', printf('%s%d.%02d', CASE WHEN units < 0 THEN '-' ELSE '' END, abs(units) / 100, abs(units) % 100), units,
	CASE WHEN i % 9 = 0 THEN 'USD' END,
	CASE WHEN i % 9 = 0 THEN printf('%s%d.%02d', CASE WHEN units < 0 THEN '-' ELSE '' END, abs(units * 2 / 3) / 100, abs(units * 2 / 3) % 100) END,
	CASE WHEN i % 9 = 0 THEN units * 2 / 3 END,
	CASE WHEN units < 0 THEN 'CARD_PIN' END,
	CASE WHEN units < 0 THEN printf('%04d', i % 10000) END,
	CASE WHEN i % 50 = 0 THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%S', epoch + 36000 + 86400, 'unixepoch') || '+10:00' END,
	strftime('%Y-%m-%dT%H:%M:%S', epoch + 36000, 'unixepoch') || '+10:00',
	CASE WHEN units < 0 THEN 'Purchase' ELSE 'Salary' END,
	'up://transaction/synth-' || i,
	CASE WHEN units < 0 THEN json_extract(?4, '$[' || cat || '][0]') END,
	CASE WHEN units < 0 THEN json_extract(?4, '$[' || cat || '][1]') END,
	'{}', zeroblob(32), ?5, ?5, ?5
FROM g`, n, now.Unix(), descriptions, categories, stamp); err != nil {
			return fmt.Errorf("synthetic transactions: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO transaction_tags (transaction_id, tag_id)
			SELECT id, CASE rowid % 3 WHEN 0 THEN 'Holiday' WHEN 1 THEN 'Work' ELSE 'Groceries, weekly' END
			FROM transactions WHERE id LIKE 'synth-%' AND rowid % 5 = 0`); err != nil {
			return fmt.Errorf("synthetic tags: %w", err)
		}
		// The local-time columns, in the mirror's zone, as a sync writes
		// them: the views' *_epoch, *_local, *_date and *_month.
		if err := st.FillLocalTimes(ctx, tx); err != nil {
			return fmt.Errorf("synthetic local times: %w", err)
		}
		return nil
	})
}
