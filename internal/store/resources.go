package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// UpsertAccounts writes accounts and appends an account_balances row for
// every account whose balance is new or different. It returns the number of
// balance changes.
func (s *Store) UpsertAccounts(ctx context.Context, accounts []bank.Account) (changed int, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		changed = 0
		at := s.now()
		now := at.UTC().Format(TimeLayout)
		loc, err := s.zoneIn(ctx, tx)
		if err != nil {
			return err
		}
		observed := localize(at, loc)
		for _, a := range accounts {
			var cur string
			var units int64
			err := tx.QueryRowContext(ctx, "SELECT balance_currency, balance_base_units FROM accounts WHERE id = ?", a.ID).Scan(&cur, &units)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("read account %s: %w", a.ID, err)
			}
			if errors.Is(err, sql.ErrNoRows) || cur != a.Balance.CurrencyCode || units != a.Balance.ValueInBaseUnits {
				changed++
				_, err := tx.ExecContext(ctx, `INSERT INTO account_balances (account_id, observed_at, balance_currency, balance_value,
					balance_base_units, observed_epoch, observed_local, observed_date, observed_month)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET balance_currency = excluded.balance_currency,
					balance_value = excluded.balance_value, balance_base_units = excluded.balance_base_units`,
					a.ID, now, a.Balance.CurrencyCode, a.Balance.Value, a.Balance.ValueInBaseUnits,
					observed[0], observed[1], observed[2], observed[3])
				if err != nil {
					return fmt.Errorf("record balance of %s: %w", a.ID, err)
				}
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO accounts (id, display_name, account_type, ownership_type,
				balance_currency, balance_value, balance_base_units, created_at, raw, synced_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET display_name = excluded.display_name, account_type = excluded.account_type,
				ownership_type = excluded.ownership_type, balance_currency = excluded.balance_currency,
				balance_value = excluded.balance_value, balance_base_units = excluded.balance_base_units,
				created_at = excluded.created_at, raw = excluded.raw, synced_at = excluded.synced_at`,
				a.ID, a.DisplayName, a.AccountType, a.OwnershipType, a.Balance.CurrencyCode, a.Balance.Value,
				a.Balance.ValueInBaseUnits, a.CreatedAt, string(a.Raw), now)
			if err != nil {
				return fmt.Errorf("write account %s: %w", a.ID, err)
			}
		}
		return nil
	})
	return changed, err
}

// replaceAll makes table hold exactly the n rows of a complete listing:
// write stores row i and returns its id; rows not listed are deleted unless
// keep (an SQL condition on id) holds for them.
func (s *Store) replaceAll(ctx context.Context, table string, n int, write func(tx *sql.Tx, i int) (string, error), keep string) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "CREATE TEMP TABLE IF NOT EXISTS listed (id TEXT PRIMARY KEY); DELETE FROM temp.listed"); err != nil {
			return fmt.Errorf("replace %s: %w", table, err)
		}
		for i := range n {
			id, err := write(tx, i)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO temp.listed (id) VALUES (?)", id); err != nil {
				return fmt.Errorf("replace %s: %w", table, err)
			}
		}
		q := "DELETE FROM " + table + " WHERE id NOT IN (SELECT id FROM temp.listed)" //nolint:gosec // table is one of this package's constant names
		if keep != "" {
			q += " AND NOT (" + keep + ")"
		}
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("remove unlisted %s: %w", table, err)
		}
		return nil
	})
}

// ReplaceCategories makes the categories table equal to cats, a complete
// listing.
func (s *Store) ReplaceCategories(ctx context.Context, cats []bank.Category) error {
	return s.replaceAll(ctx, "categories", len(cats), func(tx *sql.Tx, i int) (string, error) {
		c := cats[i]
		_, err := tx.ExecContext(ctx, `INSERT INTO categories (id, name, parent_id, raw) VALUES (?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, parent_id = excluded.parent_id, raw = excluded.raw`,
			c.ID, c.Name, nullable(c.ParentID), string(c.Raw))
		if err != nil {
			return "", fmt.Errorf("write category %s: %w", c.ID, err)
		}
		return c.ID, nil
	}, "")
}

// ReplaceTags makes the tags table equal to a complete listing of the tags in
// use, keeping any tag a mirrored transaction still carries.
func (s *Store) ReplaceTags(ctx context.Context, tags []bank.Tag) error {
	return s.replaceAll(ctx, "tags", len(tags), func(tx *sql.Tx, i int) (string, error) {
		if _, err := tx.ExecContext(ctx, "INSERT INTO tags (id) VALUES (?) ON CONFLICT DO NOTHING", tags[i].ID); err != nil {
			return "", fmt.Errorf("write tag: %w", err)
		}
		return tags[i].ID, nil
	}, "id IN (SELECT tag_id FROM transaction_tags)")
}

// ReplaceAttachments makes the attachments table equal to atts, a complete
// listing.
func (s *Store) ReplaceAttachments(ctx context.Context, atts []bank.Attachment) error {
	if err := s.BeginAttachments(ctx); err != nil {
		return err
	}
	if err := s.SaveAttachments(ctx, atts); err != nil {
		return err
	}
	_, err := s.FinishAttachments(ctx)
	return err
}

// BeginAttachments starts replacing the attachments table by a listing
// stored a page at a time (SaveAttachments), so that a listing of any size
// needs the memory of one page; FinishAttachments deletes what it lacked.
// The listed ids are kept in a temporary table of the single writer
// connection.
func (s *Store) BeginAttachments(ctx context.Context) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS listed_attachments (id TEXT PRIMARY KEY);
			DELETE FROM temp.listed_attachments`)
		if err != nil {
			return fmt.Errorf("begin attachments: %w", err)
		}
		return nil
	})
}

// SaveAttachments stores one page of the listing begun by BeginAttachments.
func (s *Store) SaveAttachments(ctx context.Context, atts []bank.Attachment) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		for _, a := range atts {
			if err := upsertAttachment(ctx, tx, a); err != nil {
				return err
			}
			// Fails, and so fails the listing, if the writer connection
			// (and its temporary table) was replaced since BeginAttachments.
			if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO temp.listed_attachments (id) VALUES (?)", a.ID); err != nil {
				return fmt.Errorf("write attachment %s: %w", a.ID, err)
			}
		}
		return nil
	})
}

// UpsertAttachment stores one attachment fetched on its own (with a fresh
// download link), outside a listing.
func (s *Store) UpsertAttachment(ctx context.Context, a bank.Attachment) error {
	return s.InTx(ctx, func(tx *sql.Tx) error { return upsertAttachment(ctx, tx, a) })
}

// upsertAttachment writes the bank's fields of a; what bankmirror keeps of
// its own (the downloaded file) stays.
func upsertAttachment(ctx context.Context, tx *sql.Tx, a bank.Attachment) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO attachments (id, transaction_id, created_at, file_url,
		file_url_expires_at, file_extension, file_content_type, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET transaction_id = excluded.transaction_id, created_at = excluded.created_at,
		file_url = excluded.file_url, file_url_expires_at = excluded.file_url_expires_at,
		file_extension = excluded.file_extension, file_content_type = excluded.file_content_type, raw = excluded.raw`,
		a.ID, a.TransactionID, nullable(a.CreatedAt), nullable(a.FileURL), a.FileURLExpiresAt,
		nullable(a.FileExtension), nullable(a.FileContentType), string(a.Raw))
	if err != nil {
		return fmt.Errorf("write attachment %s: %w", a.ID, err)
	}
	return nil
}

// FinishAttachments ends the listing: attachments it did not contain are
// deleted. It returns how many. Without the listing's temporary table (the
// writer connection was replaced) it fails and deletes nothing.
func (s *Store) FinishAttachments(ctx context.Context) (deleted int64, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, "DELETE FROM attachments WHERE id NOT IN (SELECT id FROM temp.listed_attachments)")
		if err != nil {
			return fmt.Errorf("remove unlisted attachments: %w", err)
		}
		deleted, _ = r.RowsAffected()
		// Dropped, so that a FinishAttachments without a listing fails.
		_, err = tx.ExecContext(ctx, "DROP TABLE temp.listed_attachments")
		if err != nil {
			return fmt.Errorf("finish attachments: %w", err)
		}
		return nil
	})
	return deleted, err
}
