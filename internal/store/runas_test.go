package store

import (
	"context"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// As root, a mirror owned by a named user is refused with the command to
// run it as its owner: runuser where there is no sudo (a minimal Debian),
// sudo where there is.
func TestOpenAsRootSuggestsRunuserWithoutSudo(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to chown")
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody")
	}
	uid, _ := strconv.Atoi(u.Uid)
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, uid, -1); err != nil {
		t.Fatal(err)
	}

	bin := t.TempDir()
	t.Setenv("PATH", bin) // no sudo there
	_, err = Open(context.Background(), path)
	if !errors.Is(err, ErrNotOwner) || !strings.Contains(err.Error(), "(runuser -u nobody -- bankmirror ...)") || strings.Contains(err.Error(), "sudo") {
		t.Errorf("without sudo: err = %v", err)
	}

	if err := os.WriteFile(filepath.Join(bin, "sudo"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), path)
	if !errors.Is(err, ErrNotOwner) || !strings.Contains(err.Error(), "(sudo -u nobody bankmirror ...)") {
		t.Errorf("with sudo: err = %v", err)
	}
}
