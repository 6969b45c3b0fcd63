package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bankmirror/bankmirror/internal/logfield"
)

// ErrMigrationBackup is returned by Open when the copy of the mirror it
// keeps before migrating could not be made (a full disk): the mirror is
// left as it was, not migrated.
var ErrMigrationBackup = errors.New("the copy kept before migrating failed")

// MigrationBackupPath is the copy of the mirror at dbPath that Open keeps
// before migrating it from schema version v: "bankmirror.db.pre-v8".
func MigrationBackupPath(dbPath string, v int) string {
	return fmt.Sprintf("%s.pre-v%d", dbPath, v)
}

// migrationBackupName matches, after the mirror's file name, a copy kept
// before a migration and the temporary directory of one a crash left
// behind (or, from older versions, its temporary file and journal).
var migrationBackupName = regexp.MustCompile(`^\.pre-v[0-9]+(\.tmp-[0-9]+(-journal)?)?$`)

// backupBeforeMigrate copies the mirror, at schema version v, to
// MigrationBackupPath (replacing a copy of the same version an interrupted
// start left), then removes every other such copy: only the newest is kept.
// The caller holds the migration lock and the write transaction the first
// step runs in, so the copy is exactly what is then migrated. Any failure
// is ErrMigrationBackup, and the caller migrates nothing.
func (s *Store) backupBeforeMigrate(ctx context.Context, v int) error {
	dest := MigrationBackupPath(s.path, v)
	fail := func(err error) error {
		return fmt.Errorf("%w (%s, schema version %d, migrating to %d): %w",
			ErrMigrationBackup, dest, v, len(migrations), err)
	}
	if err := s.checkBackupDest(dest, true); err != nil {
		return fail(err)
	}
	// The writer's open transaction blocks every other writer; a reader
	// beside it sees the last commit.
	ro, err := sql.Open("sqlite3", dsn(s.uri, true))
	if err != nil {
		return fail(err)
	}
	defer ro.Close()
	tmp, size, remove, err := vacuumInto(ctx, ro, dest)
	defer remove()
	if err != nil {
		return fail(err)
	}
	if err := commitFile(tmp, dest, true); err != nil {
		return fail(err)
	}
	if err := removeMigrationBackups(s.path, dest); err != nil {
		return fail(err)
	}
	s.log.Info().Str(logfield.Path, dest).Int64(logfield.Bytes, size).Int(logfield.FromVersion, v).Int(logfield.ToVersion, len(migrations)).
		Msg("copied the mirror before migrating its schema")
	return nil
}

// removeMigrationBackups removes every copy kept before a migration of the
// mirror at dbPath, and their temporary directories and files, but keep.
// A symbolic link among them is removed, never followed (os.RemoveAll
// removes a link itself).
func removeMigrationBackups(dbPath, keep string) error {
	dir, base := filepath.Split(dbPath)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("list older copies: %w", err)
	}
	removed := false
	for _, e := range entries {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, base)
		if !ok || !migrationBackupName.MatchString(rest) || name == filepath.Base(keep) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("remove older copy: %w", err)
		}
		removed = true
	}
	if removed {
		return syncDir(dir)
	}
	return nil
}
