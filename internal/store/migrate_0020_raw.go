package store

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"time"

	"github.com/bankmirror/bankmirror/internal/logfield"
)

// compactBatch is how many rows migration 20 compacts per statement.
const compactBatch = 20_000

// mentionsRaw matches SQL that reads a column named raw.
var mentionsRaw = regexp.MustCompile(`(?i)\braw\b`)

// compactTransactionsRaw is migration 0020, written in Go after its SQL
// file added raw_base, raw_patch and raw_full: every row's JSON is stored
// as a base URL and patch where they give it back (byte for byte, or the
// same keys and values), else whole in raw_full; then the stored column
// raw is replaced by the generated one (rawColumn), rowids kept, and the
// views that read it are made again. The file is rebuilt after the step
// (scrubIfPending) to give the freed space back.
func (s *Store) compactTransactionsRaw(ctx context.Context, tx *sql.Tx) error {
	var total, last int64
	if err := tx.QueryRowContext(ctx, "SELECT count(*), coalesce(max(rowid), 0) FROM transactions").Scan(&total, &last); err != nil {
		return fmt.Errorf("count transactions: %w", err)
	}
	start := time.Now()
	if total > 0 {
		s.log.Info().Int64(logfield.Transactions, total).Msg("compacting the raw JSON of the mirror's transactions")
	}
	done, reported := int64(0), time.Now()
	for lo := int64(0); lo < last; lo += compactBatch {
		n, err := compactRange(ctx, tx, lo, lo+compactBatch)
		if err != nil {
			return err
		}
		done += n
		if time.Since(reported) >= 5*time.Second || lo+compactBatch >= last {
			reported = time.Now()
			s.log.Info().Int64(logfield.Transactions, done).Int64(logfield.Total, total).
				Dur(logfield.Duration, time.Since(start)).Msg("compacting raw JSON")
		}
	}
	if err := replaceRawColumn(ctx, tx); err != nil {
		return err
	}
	if total == 0 {
		return nil
	}
	s.log.Info().Int64(logfield.Transactions, total).Dur(logfield.Duration, time.Since(start)).
		Msg("compacted raw JSON; the mirror is rebuilt next to give the space back")
	// The rows shrank, the file did not: rebuild it once the step commits.
	if _, err := tx.ExecContext(ctx, `INSERT INTO sync_state (name, started_at) VALUES (?, ?)
		ON CONFLICT (name) DO NOTHING`, scrubStateName, s.stamp()); err != nil {
		return fmt.Errorf("mark the mirror for rebuilding: %w", err)
	}
	return nil
}

// compactRange fills raw_base and raw_patch of the rows with rowid in
// (lo, hi] and keeps in raw_full the JSON of those whose rebuild is not
// byte for byte the stored raw; compactRow then tries those one by one.
// It returns how many rows the range holds.
func compactRange(ctx context.Context, tx *sql.Tx, lo, hi int64) (int64, error) {
	// The base is what precedes "/transactions/<id>" in the resource's own
	// link; the patch holds the tags, which live in transaction_tags.
	res, err := tx.ExecContext(ctx, `UPDATE transactions SET
		raw_base = CASE WHEN json_valid(raw) THEN (SELECT CASE WHEN substr(self, -length(tail)) = tail
			THEN substr(self, 1, length(self) - length(tail)) ELSE '' END
			FROM (SELECT raw->>'$.links.self' AS self, '/transactions/' || id AS tail)) END,
		raw_patch = CASE WHEN json_valid(raw) AND json_type(raw, '$.relationships.tags.data') = 'array'
			AND json_array_length(raw, '$.relationships.tags.data') > 0
			THEN json_object('relationships', json_object('tags', json_object('data', raw->'$.relationships.tags.data'))) END
		WHERE rowid > ? AND rowid <= ?`, lo, hi)
	if err != nil {
		return 0, fmt.Errorf("compact raw json: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("compact raw json: %w", err)
	}
	type whole struct{ id, raw string }
	wholes, err := queryAll(ctx, tx, "compact raw json", func(rows *sql.Rows, w *whole) error { return rows.Scan(&w.id, &w.raw) },
		`UPDATE transactions SET raw_full = raw
		WHERE rowid > ?1 AND rowid <= ?2 AND (raw_base IS NULL OR `+rawColumn+` IS NOT raw)
		RETURNING id, raw`, lo, hi)
	if err != nil {
		return 0, err
	}
	for _, w := range wholes {
		if err := compactRow(ctx, tx, w.id, []byte(w.raw)); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// replaceRawColumn drops the stored column transactions.raw and adds the
// generated one in its place (at the end of the row: SQLite adds columns
// there). The views and triggers that read a column raw are dropped first
// (SQLite refuses to drop a column they use) and made again as they were.
func replaceRawColumn(ctx context.Context, tx *sql.Tx) error {
	type object struct{ typ, name, sql string }
	objects, err := queryAll(ctx, tx, "read views", func(rows *sql.Rows, o *object) error { return rows.Scan(&o.typ, &o.name, &o.sql) },
		`SELECT type, name, sql FROM sqlite_schema WHERE type IN ('view', 'trigger') AND sql IS NOT NULL ORDER BY rowid`)
	if err != nil {
		return err
	}
	var readers []object
	for _, o := range objects {
		if mentionsRaw.MatchString(o.sql) {
			readers = append(readers, o)
		}
	}
	for _, o := range readers {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("DROP %s %q", o.typ, o.name)); err != nil {
			return fmt.Errorf("drop %s %s: %w", o.typ, o.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, "ALTER TABLE transactions DROP COLUMN raw"); err != nil {
		return fmt.Errorf("drop stored raw: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "ALTER TABLE transactions ADD COLUMN raw TEXT GENERATED ALWAYS AS ("+rawColumn+") VIRTUAL"); err != nil {
		return fmt.Errorf("add generated raw: %w", err)
	}
	for _, o := range readers {
		if _, err := tx.ExecContext(ctx, o.sql); err != nil {
			return fmt.Errorf("make %s %s again: %w", o.typ, o.name, err)
		}
	}
	return nil
}
