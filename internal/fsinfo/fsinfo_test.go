//go:build unix

package fsinfo

import (
	"os"
	"path/filepath"
	"testing"
)

// A new file belongs to the user and group that made it and has one link;
// a hard link makes two.
func TestOwnerGroupLinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if uid, ok := Owner(fi); !ok || uid != os.Geteuid() {
		t.Errorf("Owner = %d, %v; want %d", uid, ok, os.Geteuid())
	}
	if gid, ok := Group(fi); !ok || gid != os.Getegid() {
		t.Errorf("Group = %d, %v; want %d", gid, ok, os.Getegid())
	}
	if n, ok := Links(fi); !ok || n != 1 {
		t.Errorf("Links = %d, %v; want 1", n, ok)
	}
	if err := os.Link(path, path+"2"); err != nil {
		t.Fatal(err)
	}
	if fi, err = os.Lstat(path); err != nil {
		t.Fatal(err)
	}
	if n, ok := Links(fi); !ok || n != 2 {
		t.Errorf("Links after a hard link = %d, %v; want 2", n, ok)
	}
}
