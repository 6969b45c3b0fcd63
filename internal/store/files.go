package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNotOwner is returned by Open when the mirror, or a file beside it,
// belongs to another user than the one running the command: files it
// would create (a WAL, a lock) would then belong to the wrong user and break
// the owner's later runs.
var ErrNotOwner = errors.New("not the owner of the mirror")

// The files SQLite and the store keep beside the database.
const (
	walSuffix     = "-wal"
	shmSuffix     = "-shm"
	secretsSuffix = ".secrets"
	lockSuffix    = "-lock" // after ".sync", ".heal"
)

// lockNames are the store's lock files (see tryLock).
var lockNames = []string{"sync", "heal"}

// companions are the files beside the database at path that hold its
// data, its secrets or its locks, and must be private to its owner.
func companions(path string) []string {
	out := []string{path + walSuffix, path + shmSuffix, path + secretsSuffix}
	for _, n := range lockNames {
		out = append(out, lockPath(path, n))
	}
	return out
}

func lockPath(path, name string) string { return path + "." + name + lockSuffix }

// SecretsPath is the file beside the mirror at dbPath that holds the
// webhook secrets.
func SecretsPath(dbPath string) string { return dbPath + secretsSuffix }

// prepareFiles checks, before anything is created, that the database and
// every file beside it belong to uid, then makes each existing one mode
// 0600. It refuses with ErrNotOwner (and changes nothing) when one does
// not; it fails when a mode cannot be tightened.
func prepareFiles(path string, uid int) error {
	files := append([]string{path}, companions(path)...)
	infos := make([]fs.FileInfo, len(files))
	for i, f := range files {
		fi, err := os.Stat(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("check %s: %w", f, err)
		}
		infos[i] = fi
	}
	if fi := infos[0]; fi != nil {
		if owner, ok := fileOwner(fi); ok && owner != uid {
			return fmt.Errorf("%w: %s belongs to %s, but this command runs as %s: run it as the owner (sudo -u %s bankmirror ...)",
				ErrNotOwner, path, describeUser(owner), describeUser(uid), sudoUser(owner))
		}
	}
	for i, fi := range infos[1:] {
		if fi == nil {
			continue
		}
		if owner, ok := fileOwner(fi); ok && owner != uid {
			return fmt.Errorf("%w: %s belongs to %s, not to %s who runs this command and owns the mirror: give it back (sudo chown %s %s) or remove it",
				ErrNotOwner, files[i+1], describeUser(owner), describeUser(uid), sudoUser(uid), files[i+1])
		}
	}
	for i, fi := range infos {
		if fi == nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := os.Chmod(files[i], 0o600); err != nil {
			return fmt.Errorf("%s is mode %04o and could not be made 0600: %w", files[i], fi.Mode().Perm(), err)
		}
	}
	return nil
}

// describeUser names uid for a message: "user bankmirror (uid 998)".
func describeUser(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return fmt.Sprintf("user %s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}

// sudoUser is how sudo -u and chown name uid: its user name, or #uid.
func sudoUser(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	return "'#" + strconv.Itoa(uid) + "'"
}

// sqliteURI is an SQLite URI filename without its query, made by fileURI:
// its own type, so that a plain path is never passed where it is expected.
type sqliteURI string

// fileURI is path as an SQLite URI filename ("file:/abs/path"), every byte
// but the unreserved ones and '/' percent-encoded, so that a name holding
// '?', '#', '%', spaces or any other byte names that file and no other.
func fileURI(path string) (sqliteURI, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("absolute path of %s: %w", path, err)
	}
	abs = filepath.ToSlash(abs)
	if !strings.HasPrefix(abs, "/") {
		abs = "/" + abs // a Windows drive: file:/C:/...
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.WriteString("file:")
	for i := 0; i < len(abs); i++ {
		c := abs[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '/':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xF])
		}
	}
	return sqliteURI(b.String()), nil
}
