package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Heal checkpoints. A heal of one webhook's delivery logs keeps a sync_state
// row (name chosen by the caller, e.g. "heal:<webhook id>"): next_page_url
// is set while a heal is under way and NULL once one completed, and
// last_success_at is when the last one completed. A heal that died or failed
// therefore leaves next_page_url set, and the next heal knows that it may not
// trust "this page is already stored" to mean "so is everything older".

// BeginHeal marks a heal under name as started at firstURL and reports
// whether the previous heal under that name completed. It reports false when
// none ever ran.
func (s *Store) BeginHeal(ctx context.Context, name, firstURL string) (prevCompleted bool, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		var next, success sql.NullString
		err := tx.QueryRowContext(ctx, "SELECT next_page_url, last_success_at FROM sync_state WHERE name = ?", name).
			Scan(&next, &success)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			prevCompleted = false
		case err != nil:
			return fmt.Errorf("read heal checkpoint: %w", err)
		default:
			prevCompleted = !next.Valid && success.Valid
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO sync_state (name, started_at, next_page_url, pages) VALUES (?, ?, ?, 0)
			ON CONFLICT (name) DO UPDATE SET started_at = excluded.started_at, next_page_url = excluded.next_page_url, pages = 0`,
			name, s.stamp(), firstURL)
		if err != nil {
			return fmt.Errorf("start heal: %w", err)
		}
		return nil
	})
	return prevCompleted, err
}

// FinishHeal marks the heal under name as completed after pages pages.
func (s *Store) FinishHeal(ctx context.Context, name string, pages int) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sync_state SET next_page_url = NULL, pages = ?, last_success_at = ?, error_count = 0
			WHERE name = ?`, pages, s.stamp(), name)
		if err != nil {
			return fmt.Errorf("finish heal: %w", err)
		}
		return nil
	})
}
