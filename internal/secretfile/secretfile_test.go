package secretfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/secretfile"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string, mode os.FileMode) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file("target", "tok\n", 0o600), link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "dir")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		name       string
		path       string
		credential bool
		want       string // the secret, when no error
		err        string // the error's text, "" for none
		notExist   bool   // the error is a *fs.PathError for a missing file
	}{
		{name: "one line", path: file("a", "  s3cret \n", 0o600), want: "s3cret"},
		{name: "owner read only", path: file("b", "tok", 0o400), want: "tok"},
		{name: "others can read", path: file("c", "tok\n", 0o644), err: filepath.Join(dir, "c") + " can be read by others (mode 0644): chmod 600 it"},
		{name: "group can read", path: file("d", "tok\n", 0o640), err: filepath.Join(dir, "d") + " can be read by others (mode 0640): chmod 600 it"},
		{name: "empty", path: file("e", " \n\n", 0o600), err: filepath.Join(dir, "e") + " is empty"},
		{name: "two lines", path: file("f", "tok\nmore\n", 0o600), err: filepath.Join(dir, "f") + " holds more than one line"},
		{name: "a control character", path: file("g", "to\x7fk", 0o600), err: filepath.Join(dir, "g") + " holds a control character (a tab?): a secret is printable text"},
		{name: "a tab", path: file("g2", "to\tk\n", 0o600), err: filepath.Join(dir, "g2") + " holds a control character (a tab?): a secret is printable text"},
		{name: "a carriage return", path: file("g3", "to\rk", 0o600), err: filepath.Join(dir, "g3") + " holds more than one line"},
		{name: "as large as allowed", path: file("j", strings.Repeat("k", secretfile.MaxSize), 0o600), want: strings.Repeat("k", secretfile.MaxSize)},
		{name: "larger than allowed", path: file("k", strings.Repeat("k", secretfile.MaxSize+1), 0o600), err: filepath.Join(dir, "k") + " is larger than 64 KiB: a secret is one line"},
		{name: "a symbolic link", path: link, err: link + " is not a regular file"},
		{name: "a directory", path: sub, err: sub + " is not a regular file"},
		{name: "missing", path: missing, notExist: true},
		{name: "a credential others can read", path: file("h", "tok\n", 0o644), credential: true, want: "tok"},
		{name: "a credential that is a symbolic link", path: link, credential: true, err: link + " is not a regular file"},
		{name: "a credential of two lines", path: file("i", "a\nb", 0o400), credential: true, err: filepath.Join(dir, "i") + " holds more than one line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			read := secretfile.Read
			if c.credential {
				read = secretfile.ReadCredential
			}
			got, err := read(c.path)
			var pe *fs.PathError
			switch {
			case c.notExist:
				if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) || pe.Path != c.path {
					t.Errorf("err = %v, want a path error for a missing %s", err, c.path)
				}
			case c.err != "":
				if err == nil || err.Error() != c.err {
					t.Errorf("err = %v, want %q", err, c.err)
				}
			case err != nil || got != c.want:
				t.Errorf("= %q, %v; want %q", got, err, c.want)
			}
		})
	}
}
