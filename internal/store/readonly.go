package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"time"
)

// ErrNotMirror is returned by OpenReadOnly for an SQLite file that holds no
// bankmirror schema.
var ErrNotMirror = errors.New("not a bankmirror mirror")

// OpenReadOnly opens an existing mirror for reading only: no file is
// created, nothing is migrated, and every write fails. It works while the
// daemon runs (WAL readers never block the writer), and refuses another
// user's mirror as Open does. An SQLite file without bankmirror's schema
// gives ErrNotMirror.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if _, err := os.Lstat(path); err != nil {
		return nil, fmt.Errorf("open mirror read-only: %w", err)
	}
	uri, err := fileURI(path)
	if err != nil {
		return nil, err
	}
	// A reader may create the -shm file: refuse another user's mirror, as
	// Open does, rather than leave files it cannot use behind.
	if err := prepareFiles(path, os.Getuid()); err != nil {
		return nil, err
	}
	// Not dsn(uri, true): its journal_mode pragma is a write on a file that
	// is not in WAL mode already, so another SQLite file would fail with
	// "attempt to write a readonly database" instead of ErrNotMirror.
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_busy_timeout", strconv.FormatInt(busyTimeout.Milliseconds(), 10))
	q.Set("_txlock", "deferred")
	q.Set("_cache_size", "-2000")
	ro, err := sql.Open("sqlite3", string(uri)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open mirror read-only: %w", err)
	}
	ro.SetMaxOpenConns(2)
	if err := checkFTS5(ctx, ro); err != nil {
		_ = ro.Close()
		return nil, err
	}
	s := &Store{path: path, uri: uri, now: time.Now, ro: ro, db: ro}
	var v int
	if err := ro.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		_ = ro.Close()
		return nil, fmt.Errorf("open mirror read-only %s: %w", path, err)
	}
	switch {
	case v == 0:
		_ = ro.Close()
		return nil, fmt.Errorf("open mirror read-only %s: %w (schema version 0)", path, ErrNotMirror)
	case v > SchemaVersion():
		_ = ro.Close()
		return nil, fmt.Errorf("%w: database is version %d, this binary knows %d", ErrSchemaTooNew, v, SchemaVersion())
	}
	s.readOnlySchema = v
	return s, nil
}

// OpenReadOnlyDB is OpenReadOnly's connection pool alone, for readers that
// need only SQL (`bankmirror export`, the feed). Closing it closes the
// mirror.
func OpenReadOnlyDB(ctx context.Context, path string) (*sql.DB, error) {
	s, err := OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	return s.ro, nil
}
