package store

import (
	"context"
	"database/sql"
	"errors"
)

// ErrNotMirror is returned by OpenReadOnly for an SQLite file that holds no
// bankmirror schema.
var ErrNotMirror = errors.New("not a bankmirror mirror")

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
