// Package secretfile reads a secret (a password, a token, a channel's
// key) from a file of its own: a regular file (not a symbolic link) that
// group and others cannot read, holding one line.
package secretfile

import (
	"fmt"
	"os"
	"strings"
)

// Read reads the secret in the file at path, trimmed of surrounding
// white space. A file that cannot be read is an *fs.PathError; a symbolic
// link or any other file that is not a regular one, a file group or others
// can read, an empty file or one of more than one line is refused by an
// error naming path and, for the mode, the mend.
func Read(path string) (string, error) { return read(path, true) }

// ReadCredential reads a systemd credential ($CREDENTIALS_DIRECTORY/NAME)
// as Read does, whatever its mode: systemd gives the service alone access
// to the directory.
func ReadCredential(path string) (string, error) { return read(path, false) }

func read(path string, private bool) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	if private && fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s can be read by others (mode %04o): chmod 600 it", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", fmt.Errorf("%s holds more than one line", path)
	}
	return s, nil
}
