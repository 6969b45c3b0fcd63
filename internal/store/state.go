package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// PutState records v (as JSON) under key in daemon_state: what the running
// daemon reports of itself for `bankmirror status`.
func (s *Store) PutState(ctx context.Context, key string, v any) error {
	return s.InTx(ctx, func(tx *sql.Tx) error { return s.putState(ctx, tx, key, v) })
}

// putState is PutState inside tx, beside what else tx writes.
func (s *Store) putState(ctx context.Context, tx *sql.Tx, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode state %s: %w", key, err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO daemon_state (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, key, string(b), s.stamp())
	if err != nil {
		return fmt.Errorf("record state %s: %w", key, err)
	}
	return nil
}

// GetState decodes the state recorded under key into v and returns when it
// was recorded; ok is false when nothing was.
func (s *Store) GetState(ctx context.Context, key string, v any) (updated time.Time, ok bool, err error) {
	var value, at string
	err = s.ro.QueryRowContext(ctx, "SELECT value, updated_at FROM daemon_state WHERE key = ?", key).Scan(&value, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("read state %s: %w", key, err)
	}
	if err := json.Unmarshal([]byte(value), v); err != nil {
		return time.Time{}, false, fmt.Errorf("decode state %s: %w", key, err)
	}
	if updated, err = time.Parse(TimeLayout, at); err != nil {
		return time.Time{}, false, fmt.Errorf("read state %s: %w", key, err)
	}
	return updated, true, nil
}

// FileHasState reports whether the database file at path, read alone,
// holds a daemon_state row under key. It opens the file read-only and
// immutable, creating no -wal or -shm beside it and changing nothing, so
// only what a closed store checkpointed into the file is seen. A file that
// is not a mirror (not SQLite, no daemon_state) holds no such row.
func FileHasState(ctx context.Context, path, key string) (bool, error) {
	uri, err := fileURI(path)
	if err != nil {
		return false, err
	}
	db, err := sql.Open("sqlite3", string(uri)+"?mode=ro&immutable=1")
	if err != nil {
		return false, fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM daemon_state WHERE key = ?", key).Scan(&n); err != nil {
		return false, nil
	}
	return n > 0, nil
}
