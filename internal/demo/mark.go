// Package demo marks the mirror `bankmirror demo` writes against its
// simulated bank, so that a later demo replaces that mirror and never a
// real one or any other file.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/bankmirror/bankmirror/internal/store"
)

// ErrNotDemo is returned by CheckReplaceable for a file that the demo must
// not replace.
var ErrNotDemo = errors.New("not a demo mirror")

// stateKey is the daemon_state row that marks a mirror written by
// `bankmirror demo`.
const stateKey = "demo_mirror"

// stateWriter is what Mark needs of the store.
type stateWriter interface {
	PutState(ctx context.Context, key string, v any) error
}

// Mark marks the mirror as the demo's, which a later demo may replace.
func Mark(ctx context.Context, st stateWriter) error {
	return st.PutState(ctx, stateKey, map[string]string{"note": "written by bankmirror demo against its simulated bank"})
}

// CheckReplaceable returns nil when the demo may replace what is at path:
// nothing, an empty file, or a mirror marked by Mark. Anything else (a real
// mirror, any other file) gets ErrNotDemo. It opens the file read-only and
// changes nothing.
func CheckReplaceable(ctx context.Context, path string) error {
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
		if wal, err := os.Lstat(store.WALPath(path)); err != nil || wal.Size() == 0 {
			return nil
		}
	}
	// Mark's row is in the file itself (the store that wrote it
	// checkpointed on close); a real mirror has none anywhere.
	marked, err := store.FileHasState(ctx, path, stateKey)
	if err != nil {
		return err
	}
	if !marked {
		return fmt.Errorf("%w: %s exists and is not a mirror written by the demo, which replaces only its own: "+
			"choose another --db (a demo mirror made by an older bankmirror carries no mark: remove that one yourself)",
			ErrNotDemo, path)
	}
	return nil
}
