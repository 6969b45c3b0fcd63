package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Run is a row of sync_runs.
type Run struct {
	ID         int64   `json:"id"`
	Kind       string  `json:"kind"`
	StartedAt  string  `json:"started_at"`
	Status     string  `json:"status"`
	FinishedAt *string `json:"finished_at"`
	Error      *string `json:"error"`
	Requests   int64   `json:"requests"`
	Upserted   int64   `json:"upserted"`
	Deleted    int64   `json:"deleted"`
}

// Run statuses.
const (
	RunRunning     = "running"
	RunOK          = "ok"
	RunFailed      = "failed"
	RunInterrupted = "interrupted"
)

// StartRun records the start of a sync run of the given kind. Runs left
// 'running' by a process that died are marked 'interrupted' first.
func (s *Store) StartRun(ctx context.Context, kind string) (id int64, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "UPDATE sync_runs SET status = ? WHERE status = ?", RunInterrupted, RunRunning); err != nil {
			return fmt.Errorf("close stale runs: %w", err)
		}
		return tx.QueryRowContext(ctx, "INSERT INTO sync_runs (kind, started_at, status) VALUES (?, ?, ?) RETURNING id",
			kind, s.stamp(), RunRunning).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("start run: %w", err)
	}
	return id, nil
}

// FinishRun records the outcome of a run. A nil runErr means success.
func (s *Store) FinishRun(ctx context.Context, id int64, requests, upserted, deleted int64, runErr error) error {
	status, msg := RunOK, sql.NullString{}
	if runErr != nil {
		status, msg = RunFailed, sql.NullString{String: runErr.Error(), Valid: true}
		if errors.Is(runErr, context.Canceled) {
			status = RunInterrupted
		}
	}
	return s.InTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sync_runs SET finished_at = ?, status = ?, requests = ?, upserted = ?,
			deleted = ?, error = ? WHERE id = ?`, s.stamp(), status, requests, upserted, deleted, msg, id)
		if err != nil {
			return fmt.Errorf("finish run: %w", err)
		}
		return nil
	})
}

// RecentRuns returns the last n runs, newest first.
func (s *Store) RecentRuns(ctx context.Context, n int) ([]Run, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT id, kind, started_at, finished_at, status, requests, upserted, deleted, error
		FROM sync_runs ORDER BY id DESC LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("recent runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		if err := rows.Scan(&r.ID, &r.Kind, &r.StartedAt, &r.FinishedAt, &r.Status, &r.Requests, &r.Upserted, &r.Deleted, &r.Error); err != nil {
			return nil, fmt.Errorf("recent runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("recent runs: %w", err)
	}
	return out, nil
}

// Stats summarises the mirror for `bankmirror status`.
type Stats struct {
	Accounts     int64   `json:"accounts"`
	Transactions int64   `json:"transactions"`
	Held         int64   `json:"held"`
	Categories   int64   `json:"categories"`
	Tags         int64   `json:"tags"`
	Attachments  int64   `json:"attachments"`
	History      int64   `json:"history"`
	OldestHeld   *string `json:"-"` // created_at of the oldest HELD transaction
	OldestHeldID *string `json:"-"`
}

// Size is the mirror's size on disk.
type Size struct {
	Bytes     int64 `json:"bytes"`      // the database file's pages
	FreeBytes int64 `json:"free_bytes"` // of which free (VACUUM gives them back)
	WALBytes  int64 `json:"wal_bytes"`  // the write-ahead log beside it
}

// Size measures the mirror: its pages, the free ones among them, and its
// write-ahead log (absent: 0).
func (s *Store) Size(ctx context.Context) (Size, error) {
	var sz Size
	if err := s.ro.QueryRowContext(ctx, `SELECT p.page_count * z.page_size, f.freelist_count * z.page_size
		FROM pragma_page_count() p, pragma_page_size() z, pragma_freelist_count() f`).Scan(&sz.Bytes, &sz.FreeBytes); err != nil {
		return sz, fmt.Errorf("size: %w", err)
	}
	fi, err := os.Stat(s.path + "-wal")
	switch {
	case err == nil:
		sz.WALBytes = fi.Size()
	case !errors.Is(err, fs.ErrNotExist):
		return sz, fmt.Errorf("size: %w", err)
	}
	return sz, nil
}

// Stats counts the mirror's rows.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := s.ro.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM accounts),
		(SELECT count(*) FROM transactions),
		(SELECT count(*) FROM transactions WHERE status = 'HELD'),
		(SELECT count(*) FROM categories),
		(SELECT count(*) FROM tags),
		(SELECT count(*) FROM attachments),
		(SELECT count(*) FROM transaction_history)`).Scan(
		&st.Accounts, &st.Transactions, &st.Held, &st.Categories, &st.Tags, &st.Attachments, &st.History)
	if err != nil {
		return st, fmt.Errorf("stats: %w", err)
	}
	err = s.ro.QueryRowContext(ctx, `SELECT id, created_at FROM transactions WHERE status = 'HELD'
		ORDER BY `+heldOrder+` LIMIT 1`).Scan(&st.OldestHeldID, &st.OldestHeld)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}
