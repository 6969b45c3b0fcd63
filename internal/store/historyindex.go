package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/bankmirror/bankmirror"
)

// A first full listing into an empty mirror (a bulk load) writes a
// 'created' history row for every transaction. Their index on
// transaction_id (transaction_history_tx) is keyed at random, so keeping it
// up to date row by row rewrites most of its pages at every commit, a large
// share of a bulk load's disk writes and time (docs/performance.md, Full
// sync). BeginListing drops it for a bulk load, and it is built once, from
// sorted keys, when the listing finishes or fails, or when the mirror is
// next opened (after a crash). Only user queries of a transaction's history
// and FinishListing read through it; nothing the daemon writes needs it.
const historyIndex = "transaction_history_tx"

// historyIndexSQL is the index's statement in schema.sql, the one place it
// is written.
var historyIndexSQL = schemaStatement("CREATE INDEX IF NOT EXISTS " + historyIndex + " ")

// schemaStatement returns the statement of schema.sql that starts with
// prefix, up to its semicolon.
func schemaStatement(prefix string) string {
	i := strings.Index(bankmirror.Schema, prefix)
	if i < 0 {
		panic("store: schema.sql has no statement " + prefix)
	}
	stmt, _, _ := strings.Cut(bankmirror.Schema[i:], ";")
	return stmt
}

// dropHistoryIndex drops the index for a bulk load, in tx.
func dropHistoryIndex(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "DROP INDEX IF EXISTS "+historyIndex); err != nil {
		return fmt.Errorf("drop history index: %w", err)
	}
	return nil
}

// restoreHistoryIndexIdle is restoreHistoryIndex unless a sync is running
// (in another process: the daemon's first sync, while a command such as
// `bankmirror webhook register` opens the mirror). That sync builds the
// index itself when it ends or fails, and sorting now would hold the write
// lock, and the daemon's writer with it, for as long as the sort takes.
func (s *Store) restoreHistoryIndexIdle(ctx context.Context) error {
	// Almost always there: then no lock file is touched.
	if exists, err := historyIndexExists(ctx, s.db); err != nil || exists {
		return err
	}
	unlock, err := s.LockSync()
	if errors.Is(err, ErrSyncRunning) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unlock()
	return s.restoreHistoryIndex(ctx)
}

// restoreHistoryIndex builds transaction_history_tx if a bulk load dropped
// it. SQLite's sorter may hold as many bytes as the page cache, on top of
// it, so both are kept small while it sorts.
func (s *Store) restoreHistoryIndex(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("build history index: %w", err)
	}
	defer conn.Close()
	if exists, err := historyIndexExists(ctx, conn); err != nil || exists {
		return err
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA cache_size = -1024"); err != nil {
		return fmt.Errorf("build history index: %w", err)
	}
	_, err = conn.ExecContext(ctx, historyIndexSQL)
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA cache_size = -%d", writerCacheKiB)); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("build history index: %w", err)
	}
	return nil
}

// rowQuerier reads one row (*sql.DB, *sql.Conn).
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// historyIndexExists reports whether transaction_history_tx exists.
func historyIndexExists(ctx context.Context, q rowQuerier) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx,
		"SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?", historyIndex).Scan(&n); err != nil {
		return false, fmt.Errorf("look for the history index: %w", err)
	}
	return n == 1, nil
}
