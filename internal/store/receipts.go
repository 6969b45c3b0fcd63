package store

import (
	"context"
	"database/sql"
	"fmt"
	"unicode/utf8"
)

// MaxDownloadAttempts is how many times a receipt's download is tried
// before it is left alone (its error stays in attachments.download_error).
const MaxDownloadAttempts = 5

// PendingReceipt is an attachment whose file is not on disk yet.
type PendingReceipt struct {
	ID, FileURL, FileURLExpiresAt string
	FileExtension, ContentType    string
	Attempts                      int
}

// UnlistedAttachments returns up to n attachment ids that transactions
// name but the attachments table lacks: attachments seen on a transaction
// (a webhook, an incremental sync) before the next full listing.
func (s *Store) UnlistedAttachments(ctx context.Context, n int) ([]string, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT DISTINCT t.attachment_id FROM transactions AS t
		WHERE t.attachment_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM attachments AS a WHERE a.id = t.attachment_id)
		ORDER BY t.attachment_id LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("unlisted attachments: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("unlisted attachments: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("unlisted attachments: %w", err)
	}
	return ids, nil
}

// PendingReceipts returns up to n attachments not yet on disk that have
// attempts left, in id order after the id after ("" for the first).
func (s *Store) PendingReceipts(ctx context.Context, after string, n int) ([]PendingReceipt, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT id, coalesce(file_url, ''), file_url_expires_at, coalesce(file_extension, ''),
		coalesce(file_content_type, ''), download_attempts FROM attachments
		WHERE local_path IS NULL AND download_attempts < ? AND id > ? ORDER BY id LIMIT ?`, MaxDownloadAttempts, after, n)
	if err != nil {
		return nil, fmt.Errorf("pending receipts: %w", err)
	}
	defer rows.Close()
	var out []PendingReceipt
	for rows.Next() {
		var p PendingReceipt
		if err := rows.Scan(&p.ID, &p.FileURL, &p.FileURLExpiresAt, &p.FileExtension, &p.ContentType, &p.Attempts); err != nil {
			return nil, fmt.Errorf("pending receipts: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pending receipts: %w", err)
	}
	return out, nil
}

// SaveReceipt records where an attachment's file was written.
func (s *Store) SaveReceipt(ctx context.Context, id, path, sha256 string) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE attachments SET local_path = ?, local_sha256 = ?, download_error = NULL
			WHERE id = ?`, path, sha256, id)
		if err != nil {
			return fmt.Errorf("save receipt %s: %w", id, err)
		}
		return nil
	})
}

// ReceiptFailed counts a failed download of an attachment's file.
func (s *Store) ReceiptFailed(ctx context.Context, id string, cause error) error {
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE attachments SET download_attempts = download_attempts + 1, download_error = ?
			WHERE id = ?`, truncate(cause.Error(), 500), id)
		if err != nil {
			return fmt.Errorf("count receipt failure %s: %w", id, err)
		}
		return nil
	})
}

// truncate cuts s to at most n bytes, on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
