package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bankmirror/bankmirror/internal/fsinfo"
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
	lockSuffix    = "-lock" // after ".sync", ".heal", ".migrate"
)

// lockNames are the store's lock files (see tryLock).
var lockNames = []string{"sync", "heal", "migrate"}

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

// WALPath is SQLite's write-ahead log beside the mirror at dbPath.
func WALPath(dbPath string) string { return dbPath + walSuffix }

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

// ErrSymlink is returned when the mirror, a file beside it or a backup's
// destination is a symbolic link. None is ever followed: a user who could
// plant a link there would otherwise make a command (run as the owner, or
// as root) change the mode of, create or write the file it points to.
var ErrSymlink = errors.New("symbolic link refused")

// ErrUnsafeDir is returned by Open when the mirror's directory belongs to
// another user than the mirror's owner (or root), or when other users may
// write it: they could replace the mirror's files or plant links and files
// among them.
var ErrUnsafeDir = errors.New("unsafe directory for the mirror")

// symlinkError names the symbolic link at path and what it points to
// (quoted: a link's target may hold any byte, a newline included).
func symlinkError(path string) error {
	target, err := os.Readlink(path)
	if err != nil {
		target = "?"
	}
	return fmt.Errorf("%w: %s is a symbolic link (to %q), and bankmirror follows none beside the mirror: remove it, or give the real path",
		ErrSymlink, path, target)
}

// checkFile refuses a symbolic link or anything but a regular file at
// path, as lstat describes it (fi); a missing file (fi nil) passes.
func checkFile(path string, fi fs.FileInfo) error {
	switch {
	case fi == nil || fi.Mode().IsRegular():
		return nil
	case fi.Mode()&fs.ModeSymlink != 0:
		return symlinkError(path)
	default:
		return fmt.Errorf("%s is %s, not a regular file: remove it", path, describeType(fi.Mode()))
	}
}

// describeType names the kind of a file that is not a regular one.
func describeType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "a special file"
	}
}

// lstatFile is os.Lstat of path, nil for a missing file, refusing what
// checkFile refuses.
func lstatFile(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path) //nolint:gosec // the mirror's own path, from the configuration
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", path, err)
	}
	return fi, checkFile(path, fi)
}

// openRegular opens path with flag (os.O_*) through openNoFollow and
// refuses (closing it) anything but a regular file.
func openRegular(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := openNoFollow(path, flag, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkFile(path, fi)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// readRegular reads the regular file at path, never through a link.
func readRegular(path string) ([]byte, error) {
	f, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// prepareFiles checks, before anything is created, that the database and
// every file beside it is a regular file (never a symbolic link) belonging
// to uid, and that their directory is safe (checkDir); then it makes each
// existing one mode 0600, through a descriptor opened without following
// links. It refuses (ErrSymlink, ErrNotOwner, ErrUnsafeDir) and changes
// nothing when one is not; it fails when a mode cannot be tightened.
func prepareFiles(path string, uid int) error {
	files := append([]string{path}, companions(path)...)
	infos := make([]fs.FileInfo, len(files))
	for i, f := range files {
		fi, err := lstatFile(f)
		if err != nil {
			return err
		}
		infos[i] = fi
	}
	if fi := infos[0]; fi != nil {
		if owner, ok := fsinfo.Owner(fi); ok && owner != uid {
			return fmt.Errorf("%w: %s belongs to %s, but this command runs as %s: run it as the owner (sudo -u %s bankmirror ...)",
				ErrNotOwner, path, describeUser(owner), describeUser(uid), sudoUser(owner))
		}
	}
	for i, fi := range infos[1:] {
		if fi == nil {
			continue
		}
		if owner, ok := fsinfo.Owner(fi); ok && owner != uid {
			return fmt.Errorf("%w: %s belongs to %s, not to %s who runs this command and owns the mirror: give it back (sudo chown %s %s) or remove it",
				ErrNotOwner, files[i+1], describeUser(owner), describeUser(uid), sudoUser(uid), files[i+1])
		}
	}
	dir := filepath.Dir(path)
	di, err := os.Stat(dir) //nolint:gosec // the mirror's directory, from the configuration
	if errors.Is(err, fs.ErrNotExist) {
		// Outside systemd (a container, WSL, su) no StateDirectory= makes it.
		return fmt.Errorf("the mirror's directory %s does not exist: create it, owned by the user who runs bankmirror (install -d -m 0700 -o %s %s), or set BANKMIRROR_DB",
			dir, sudoUser(uid), dir)
	}
	if err != nil {
		return fmt.Errorf("check the mirror's directory: %w", err)
	}
	if err := checkDir(dir, di, uid, privateGroup); err != nil {
		return err
	}
	for i, fi := range infos {
		if fi == nil || fi.Mode().Perm()&0o077 == 0 {
			continue
		}
		if err := tightenMode(files[i], fi); err != nil {
			return fmt.Errorf("%s is mode %04o and could not be made 0600: %w", files[i], fi.Mode().Perm(), err)
		}
	}
	return nil
}

// tightenMode makes the file lstat described as fi mode 0600, through a
// descriptor: a link put in its place meanwhile is refused, not followed,
// and another file put there is left alone.
func tightenMode(path string, fi fs.FileInfo) error {
	f, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	now, err := f.Stat()
	if err != nil {
		return err
	}
	if !os.SameFile(fi, now) {
		return fmt.Errorf("%s was replaced while being checked", path)
	}
	return f.Chmod(0o600)
}

// checkDir refuses the mirror's directory dir (described by fi, with its
// symbolic links followed) when another user than uid or root owns it, or
// when anyone but its owner may write it: every user (the sticky bit
// included: others could still plant a file SQLite then opens), or its
// group, unless that group is root's or uid's own user private group
// (private says whether it is). Whoever can write the directory can rename, remove and
// plant the mirror's files, which no check of the files themselves stops.
// Without Unix ownership nothing is checked.
func checkDir(dir string, fi fs.FileInfo, uid int, private func(uid, gid int) bool) error {
	owner, ok := fsinfo.Owner(fi)
	if !ok {
		return nil
	}
	perm := fi.Mode().Perm()
	switch {
	case owner != uid && owner != 0:
		return fmt.Errorf("%w: %s belongs to %s, not to %s who owns the mirror (or root), so that user could replace the mirror's files: move the mirror to a directory of its owner's",
			ErrUnsafeDir, dir, describeUser(owner), describeUser(uid))
	case perm&0o002 != 0:
		return fmt.Errorf("%w: every user may write %s (mode %04o), so any of them could replace the mirror's files or plant links among them: move the mirror, or chmod o-w %s",
			ErrUnsafeDir, dir, perm, dir)
	}
	if gid, ok := fsinfo.Group(fi); ok && perm&0o020 != 0 && gid != 0 && !private(uid, gid) {
		return fmt.Errorf("%w: group %s may write %s (mode %04o), so its members could replace the mirror's files or plant links among them: move the mirror, or chmod g-w %s",
			ErrUnsafeDir, describeGroup(gid), dir, perm, dir)
	}
	return nil
}

// privateGroup reports whether gid is uid's user private group: the
// user's primary group, with the user's name (the default of many
// distributions, whose umask 002 makes a user's directories group-writable).
func privateGroup(uid, gid int) bool {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil || u.Gid != strconv.Itoa(gid) {
		return false
	}
	g, err := user.LookupGroupId(u.Gid)
	return err == nil && g.Name == u.Username
}

// describeGroup names gid for a message: "bankmirror (gid 998)".
func describeGroup(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil {
		return fmt.Sprintf("%s (gid %d)", g.Name, gid)
	}
	return fmt.Sprintf("gid %d", gid)
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
