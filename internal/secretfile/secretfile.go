// Package secretfile reads a secret (a password, a token, a channel's
// key) from a file of its own: a regular file (not a symbolic link) that
// group and others cannot read, holding one line.
package secretfile

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
)

// MaxSize is the largest secret file read: a secret is one line, and a
// larger file is refused without being read whole.
const MaxSize = 64 << 10

// Read reads the secret in the file at path, trimmed of surrounding
// white space. A file that cannot be opened is an *fs.PathError; a
// symbolic link or any other file that is not a regular one, a file group
// or others can read, a file larger than MaxSize, an empty one, one of
// more than one line or with another control character is refused by an
// error naming path and, for the mode, the mend.
//
// The file is checked as it is open, not by its name: a link or a named
// pipe put in its place between a check and the read is refused too.
func Read(path string) (string, error) { return read(path, true) }

// ReadCredential reads a systemd credential ($CREDENTIALS_DIRECTORY/NAME)
// as Read does, whatever its mode: systemd gives the service alone access
// to the directory.
func ReadCredential(path string) (string, error) { return read(path, false) }

func read(path string, private bool) (string, error) {
	f, err := openNoFollow(path)
	if errors.Is(err, syscall.ELOOP) {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	if private && fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s can be read by others (mode %04o): chmod 600 it", path, fi.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > MaxSize {
		return "", fmt.Errorf("%s is larger than %d KiB: a secret is one line", path, MaxSize>>10)
	}
	s := strings.TrimSpace(string(b))
	switch {
	case s == "":
		return "", fmt.Errorf("%s is empty", path)
	case strings.ContainsAny(s, "\r\n"):
		return "", fmt.Errorf("%s holds more than one line", path)
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", fmt.Errorf("%s holds a control character (a tab?): a secret is printable text", path)
	}
	return s, nil
}
