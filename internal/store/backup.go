package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bankmirror/bankmirror/internal/fsinfo"
)

// ErrBackupExists is returned by Backup when the destination exists and
// Force is not set.
var ErrBackupExists = errors.New("backup file exists")

// BackupOptions configures Backup.
type BackupOptions struct {
	// Force replaces an existing destination.
	Force bool
	// WithSecrets also copies the secrets file to the destination plus
	// ".secrets".
	WithSecrets bool
}

// BackupResult describes a backup written.
type BackupResult struct {
	Path  string
	Bytes int64
	// SecretsPath is the copy of the secrets file, "" if none was made
	// (not asked for, or no webhook registered).
	SecretsPath string
}

// Backup writes a consistent copy of the mirror to dest, mode 0600, while
// other connections and processes go on writing: VACUUM INTO reads one
// snapshot (a read transaction, which in WAL mode blocks no writer), so the
// copy holds exactly the transactions committed when it began. The copy is
// written to a temporary file in a private directory beside dest, synced,
// then moved into place: dest never holds a partial copy. What a backup of
// dest interrupted before its end left beside it is removed first.
func (s *Store) Backup(ctx context.Context, dest string, opts BackupOptions) (BackupResult, error) {
	res := BackupResult{Path: dest}
	if err := s.checkBackupDest(dest, opts.Force); err != nil {
		return res, err
	}
	if opts.WithSecrets {
		if err := s.checkBackupDest(SecretsPath(dest), opts.Force); err != nil {
			return res, err
		}
	}

	removeStaleBackupDirs(dest)
	tmp, size, remove, err := vacuumInto(ctx, s.ro, dest)
	defer remove()
	if err != nil {
		return res, err
	}
	res.Bytes = size
	// The secrets are read after the snapshot: every webhook in the copy
	// has its secret in theirs (one registered meanwhile adds a secret
	// without a row, which is erased an hour later).
	var secrets []byte
	if opts.WithSecrets {
		b, err := readRegular(s.secretsPath())
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("read secrets file: %w", err)
		}
		secrets = b
	}
	if err := commitFile(tmp, dest, opts.Force); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return res, fmt.Errorf("%w: %s (use --force to replace it)", ErrBackupExists, dest)
		}
		return res, err
	}
	if secrets != nil {
		res.SecretsPath = SecretsPath(dest)
		if err := WriteFileAtomic(res.SecretsPath, secrets, opts.Force); err != nil {
			return res, fmt.Errorf("copy secrets file: %w", err)
		}
	}
	return res, nil
}

// checkBackupDest refuses a destination that is a symbolic link (dangling
// or not: the copy would be written where it points), that exists (unless
// force), or that is the mirror or a file beside it. The copy itself is
// written to a new temporary file and renamed (or linked) over dest, which
// replaces whatever dest names without following it.
func (s *Store) checkBackupDest(dest string, force bool) error {
	fi, err := os.Lstat(dest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check backup file: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return symlinkError(dest)
	}
	for _, f := range append([]string{s.path}, companions(s.path)...) {
		if own, err := os.Lstat(f); err == nil && os.SameFile(fi, own) {
			return fmt.Errorf("backup file %s is the mirror's own %s", dest, f)
		}
	}
	if !force {
		return fmt.Errorf("%w: %s (use --force to replace it)", ErrBackupExists, dest)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("backup file %s is not a regular file", dest)
	}
	return nil
}

// vacuumInto writes a consistent copy of the mirror, read through db in
// one snapshot (VACUUM INTO), to a new file, mode 0600, synced, and returns
// its name and size; commitFile moves it to dest. The file is made in a new
// private directory (mode 0700) beside dest, on dest's filesystem: SQLite
// creates the copy's rollback journal beside the copy without O_EXCL, so in
// a shared directory such as /tmp another user could otherwise plant the
// journal's name first and have SQLite write into a file they own. The
// directory is locked while the backup runs (a backup killed before its
// end leaves it unlocked, for removeStaleBackupDirs). remove deletes that
// directory and what is left in it, and is set even on error.
func vacuumInto(ctx context.Context, db *sql.DB, dest string) (tmp string, size int64, remove func(), err error) {
	remove = func() {}
	dir, err := os.MkdirTemp(filepath.Dir(dest), filepath.Base(dest)+".tmp-*") // mode 0700
	if err != nil {
		return "", 0, remove, fmt.Errorf("create backup directory: %w", err)
	}
	remove = func() { _ = os.RemoveAll(dir) }
	unlock, err := lockDir(dir)
	if err != nil {
		return "", 0, remove, fmt.Errorf("lock backup directory: %w", err)
	}
	remove = func() {
		_ = os.RemoveAll(dir)
		unlock()
	}
	tmp = filepath.Join(dir, filepath.Base(dest))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return tmp, 0, remove, fmt.Errorf("create backup file: %w", err)
	}
	_ = f.Close()
	uri, err := fileURI(tmp)
	if err != nil {
		return tmp, 0, remove, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return tmp, 0, remove, fmt.Errorf("backup: %w", err)
	}
	_, err = conn.ExecContext(ctx, "VACUUM INTO ?", string(uri))
	_ = conn.Close()
	if err != nil {
		return tmp, 0, remove, fmt.Errorf("backup to %s: %w", dest, err)
	}
	size, err = syncFile(tmp)
	return tmp, size, remove, err
}

// syncFile fsyncs the file at path and returns its size.
func syncFile(path string) (int64, error) {
	f, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("sync %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", path, err)
	}
	return fi.Size(), nil
}

// staleBackupDir is the name of vacuumInto's directory for a destination
// named base: base, ".tmp-" and MkdirTemp's digits.
func staleBackupDir(base, name string) bool {
	digits, ok := strings.CutPrefix(name, base+".tmp-")
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// removeStaleBackupDirs removes the private directories that backups of
// dest interrupted before their end (killed, the machine stopped) left
// beside it: a directory named as vacuumInto names them, owned by this
// user, and not locked (a backup of dest still running in another process
// holds its lock). Best effort: what cannot be removed stays.
func removeStaleBackupDirs(dest string) {
	dir, base := filepath.Dir(dest), filepath.Base(dest)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !staleBackupDir(base, e.Name()) {
			continue // a symbolic link is not a directory here
		}
		path := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() {
			continue
		}
		if uid, ok := fsinfo.Owner(fi); !ok || uid != os.Geteuid() {
			continue
		}
		unlock, err := tryLockDir(path)
		if err != nil {
			continue // in use, or cannot tell
		}
		_ = os.RemoveAll(path)
		unlock()
	}
}
