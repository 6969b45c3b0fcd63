package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
)

// ErrNotMirror is returned by OpenReadOnly for an SQLite file that holds no
// bankmirror schema.
var ErrNotMirror = errors.New("not a bankmirror mirror")

// OpenReadOnly opens the existing mirror at path for reading only, as
// `bankmirror export` does: the file is never created, migrated or written,
// so a reader can run beside the daemon, or on a copy it cannot write. The
// caller closes the pool.
func OpenReadOnly(ctx context.Context, path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open mirror read-only: %w", err)
	}
	// Not dsn(path, true): its journal_mode pragma is a write on a file
	// that is not in WAL mode already, so another SQLite file would fail
	// with "attempt to write a readonly database" instead of ErrNotMirror.
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", "5000")
	q.Set("_txlock", "deferred")
	q.Set("_cache_size", "-2000")
	db, err := sql.Open("sqlite3", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open mirror read-only: %w", err)
	}
	db.SetMaxOpenConns(2)
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open mirror read-only %s: %w", path, err)
	}
	switch {
	case v == 0:
		_ = db.Close()
		return nil, fmt.Errorf("open mirror read-only %s: %w (schema version 0)", path, ErrNotMirror)
	case v > len(migrations):
		_ = db.Close()
		return nil, fmt.Errorf("%w: database is version %d, this binary knows %d", ErrSchemaTooNew, v, len(migrations))
	}
	return db, nil
}
