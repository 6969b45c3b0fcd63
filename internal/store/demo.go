package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotDemo is returned by CheckDemoReplaceable for a file that the demo
// must not replace.
var ErrNotDemo = errors.New("not a demo mirror")

// demoStateKey is the daemon_state row that marks a mirror written by
// `bankmirror demo` (against its simulated bank).
const demoStateKey = "demo_mirror"

// MarkDemo marks the mirror as the demo's, which a later demo may replace.
func (s *Store) MarkDemo(ctx context.Context) error {
	return s.PutState(ctx, demoStateKey, map[string]string{"note": "written by bankmirror demo against its simulated bank"})
}

// CheckDemoReplaceable returns nil when the demo may replace what is at
// path: nothing, an empty file, or a mirror marked by MarkDemo. Anything
// else (a real mirror, any other file) gets ErrNotDemo. It opens the file
// read-only and changes nothing.
func CheckDemoReplaceable(ctx context.Context, path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrNotDemo, path)
	}
	if fi.Size() == 0 {
		// An empty file is empty unless its content is still in the WAL.
		if wal, err := os.Lstat(path + walSuffix); err != nil || wal.Size() == 0 {
			return nil
		}
	}
	uri, err := fileURI(path)
	if err != nil {
		return err
	}
	// immutable: read the database file alone, creating no -wal or -shm
	// beside it. MarkDemo's mark is in the file itself (the store that
	// wrote it checkpointed on close); a real mirror has none anywhere.
	db, err := sql.Open("sqlite3", string(uri)+"?mode=ro&immutable=1")
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	var n int
	err = db.QueryRowContext(ctx, "SELECT count(*) FROM daemon_state WHERE key = ?", demoStateKey).Scan(&n)
	if err != nil || n == 0 {
		return fmt.Errorf("%w: %s exists and is not a mirror written by the demo, which replaces only its own: "+
			"choose another --db (a demo mirror made by an older bankmirror carries no mark: remove that one yourself)",
			ErrNotDemo, path)
	}
	return nil
}

// RemoveMirror removes the mirror at path and the files beside it (its
// WAL, shared memory, secrets and lock files).
func RemoveMirror(path string) error {
	for _, f := range append([]string{path}, companions(path)...) {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", f, err)
		}
	}
	return nil
}
