package receipts_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/receipts"
)

// Open serves only the file that was kept: by its name in the directory,
// whatever directory the stored path names, and not a symbolic link, a
// hard link to another file put in its place (/etc/passwd, served as a
// PNG before), a file whose content changed, a directory, or a name not of
// a kept file's shape.
func TestOpenServesOnlyTheKeptFile(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write := func(p string, b []byte) string {
		t.Helper()
		must(t, os.WriteFile(p, b, 0o600))
		return p
	}
	named := func(b []byte, ext string) string {
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:]) + "." + ext
	}
	png := hostileBodies["png"]
	kept := write(filepath.Join(dir, named(png, "png")), png)
	secret := write(filepath.Join(outside, "passwd"), []byte("root:x:0:0:SECRET"))

	open := func(path string) ([]byte, error) {
		t.Helper()
		f, err := receipts.Open(dir, path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	}
	for _, path := range []string{kept, filepath.Join("/var/lib/elsewhere", filepath.Base(kept))} {
		if got, err := open(path); err != nil || !bytes.Equal(got, png) {
			t.Errorf("kept file stored as %s: %q, %v; want its bytes", path, got, err)
		}
	}

	// Each attack puts something in place of a kept file's name.
	other := []byte("another receipt")
	for _, c := range []struct {
		name  string
		plant func(path string) error
		why   string
	}{
		{"hard link", func(p string) error { return os.Link(secret, p) }, "changed since it was kept"},
		{"symbolic link", func(p string) error { return os.Symlink(secret, p) }, "not a regular file"},
		{"changed content", func(p string) error { return os.WriteFile(p, []byte("changed"), 0o600) }, "changed since it was kept"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o700) }, "not a regular file"},
	} {
		path := filepath.Join(dir, named(append(other, c.name...), "png"))
		must(t, c.plant(path))
		got, err := open(path)
		if err == nil || !strings.Contains(err.Error(), c.why) || strings.Contains(string(got), "SECRET") {
			t.Errorf("%s in place of a kept file: %q, %v; want refused as %q", c.name, got, err, c.why)
		}
	}
	for _, path := range []string{"/etc/passwd", secret, filepath.Join(dir, "..", filepath.Base(outside), "passwd"), dir, ""} {
		if got, err := open(path); err == nil {
			t.Errorf("stored path %q served %q", path, got)
		}
	}
	if _, err := receipts.Open("", kept); err == nil {
		t.Error("served without an attachments directory")
	}
}

// A receipts directory other users may read is warned about when a fetcher
// is made; a private or missing one is not.
func TestFetcherWarnsOfAnOpenDirectory(t *testing.T) {
	base := t.TempDir()
	for _, c := range []struct {
		mode os.FileMode
		make bool
		warn bool
	}{{0o755, true, true}, {0o750, true, true}, {0o700, true, false}, {0, false, false}} {
		dir := filepath.Join(base, c.mode.String())
		if c.make {
			must(t, os.Mkdir(dir, 0o700))
			must(t, os.Chmod(dir, c.mode))
		}
		var out bytes.Buffer
		receipts.New(nil, nil, zerolog.New(&out), receipts.Options{Dir: dir})
		warned := strings.Contains(out.String(), `"level":"warn"`) && strings.Contains(out.String(), "chmod 700")
		if warned != c.warn {
			t.Errorf("directory %v (made %v): warned %v, want %v: %s", c.mode, c.make, warned, c.warn, out.String())
		}
	}
}
