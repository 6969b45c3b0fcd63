//go:build unix

package secretfile_test

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/bankmirror/bankmirror/internal/secretfile"
)

// A named pipe where the secret should be is refused at once: the read
// does not wait for a writer that never comes (a feed's load, a channel's
// send would hang), whoever put it there and whenever.
func TestReadRefusesANamedPipeWithoutBlocking(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, read := range []func(string) (string, error){secretfile.Read, secretfile.ReadCredential} {
		if _, err := read(p); err == nil || err.Error() != p+" is not a regular file" {
			t.Errorf("err = %v, want %q", err, p+" is not a regular file")
		}
	}
}
