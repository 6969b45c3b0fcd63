package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
)

//go:generate go test -tags sqlite_fts5 -run TestSchemaFile -update

// migrationFiles are the schema's steps written in SQL:
// migrations/NNNN_what.sql brings the schema from version NNNN-1 to NNNN.
// The repository's schema.sql is what they make together, generated from
// them (go generate ./internal/store).
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// goStep is a step of the schema written in Go, run in the step's
// transaction.
type goStep func(s *Store, ctx context.Context, tx *sql.Tx) error

// goMigrations are the steps written in Go, by number. Each runs after the
// step's SQL file, if it has one, in the same transaction.
var goMigrations = map[int]goStep{
	// 6: webhook secrets move to the secrets file beside the mirror;
	// webhooks.secret_key stays, always '' (migrate_0006_secrets.go).
	6: (*Store).moveSecretsOut,
	// 20: transactions.raw becomes a generated column, rebuilt from the
	// row (migrate_0020_raw.go).
	20: (*Store).compactTransactionsRaw,
}

// migration is one step of the schema: SQL, then (if set) Go code in the
// same transaction.
type migration struct {
	name string // the SQL file's name, "" for a step written in Go only
	sql  string
	run  goStep
}

// migrations[i] brings the schema from version i to i+1. A change to the
// schema is a new step at the end, never an edit of one that shipped.
var migrations = mustLoadMigrations(migrationFiles, goMigrations)

// migrationName is a migration file's name: its number, four digits, then
// what it does.
var migrationName = regexp.MustCompile(`^([0-9]{4})_[a-z0-9_]+\.sql$`)

// loadMigrations reads the steps from fsys's migrations folder and goSteps:
// numbered from 1 without a gap, each number at most once in fsys, and
// every number in one or the other.
func loadMigrations(fsys fs.FS, goSteps map[int]goStep) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	byNumber := map[int]migration{}
	last := 0
	for _, e := range entries {
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			return nil, fmt.Errorf("migration %s: not named NNNN_what.sql", e.Name())
		}
		n, _ := strconv.Atoi(m[1])
		if n == 0 {
			return nil, fmt.Errorf("migration %s: numbers start at 0001", e.Name())
		}
		if prev, ok := byNumber[n]; ok {
			return nil, fmt.Errorf("migration %s: number %d already taken by %s", e.Name(), n, prev.name)
		}
		text, err := fs.ReadFile(fsys, path.Join("migrations", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read migration: %w", err)
		}
		byNumber[n] = migration{name: e.Name(), sql: string(text)}
		last = max(last, n)
	}
	for n, run := range goSteps {
		m := byNumber[n]
		m.run = run
		byNumber[n] = m
		last = max(last, n)
	}
	out := make([]migration, last)
	for n := 1; n <= last; n++ {
		m, ok := byNumber[n]
		if !ok {
			return nil, fmt.Errorf("migration %04d missing: no file and no Go step", n)
		}
		out[n-1] = m
	}
	return out, nil
}

// mustLoadMigrations is loadMigrations for the embedded files, which a
// test checks.
func mustLoadMigrations(fsys fs.FS, goSteps map[int]goStep) []migration {
	m, err := loadMigrations(fsys, goSteps)
	if err != nil {
		panic("store: " + err.Error())
	}
	return m
}

// migrationSQL is the statements of the embedded migration file name.
func migrationSQL(name string) string {
	text, err := fs.ReadFile(migrationFiles, path.Join("migrations", name))
	if err != nil {
		panic("store: " + err.Error())
	}
	return string(text)
}

// The migrations whose statements the store also runs on its own (a bulk
// load's indexes and triggers, the rebuilds of derived tables), read from
// their files so that each statement is written once.
var (
	initSchema     = migrationSQL("0001_init.sql")
	searchIndex    = migrationSQL("0010_search.sql")
	householdViews = migrationSQL("0012_household_views.sql")
	personViews    = migrationSQL("0014_person_views.sql")
	monthlyTotals  = migrationSQL("0015_monthly_totals.sql")
	searchMoney    = migrationSQL("0016_search_money.sql")
	searchKeys     = migrationSQL("0021_search_keys.sql")
)

// sqlStatement returns the statement of src that starts a line with
// prefix, without its semicolon: up to the first one, or, for a trigger,
// up to the END that closes its body.
func sqlStatement(src, prefix string) string {
	i := strings.Index("\n"+src, "\n"+prefix)
	if i < 0 {
		panic("store: no statement " + prefix)
	}
	stmt := src[i:]
	end := ";"
	if strings.HasPrefix(prefix, "CREATE TRIGGER ") {
		end = "\nEND;"
	}
	j := strings.Index(stmt, end)
	if j < 0 {
		panic("store: statement " + prefix + " does not end")
	}
	return stmt[:j+len(end)-1]
}

// after is what follows the first marker in src.
func after(src, marker string) string {
	_, rest, ok := strings.Cut(src, marker)
	if !ok {
		panic("store: no " + marker)
	}
	return rest
}

// SchemaVersion is the version this binary migrates to.
func SchemaVersion() int { return len(migrations) }

// migrate applies each pending step in its own immediate transaction,
// re-reading user_version under the lock so that two processes starting at
// once do not both apply a step. A mirror of an earlier version (not a new,
// empty one) is first copied (backupBeforeMigrate) while the migration lock
// is held, so that of two processes starting at once one copies and
// migrates and the other then finds nothing to do.
func (s *Store) migrate(ctx context.Context) error {
	var v int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v == len(migrations) {
		return nil
	}
	backup := !s.noMigrationBackup && v > 0 && v < len(migrations)
	if backup {
		unlock, err := s.lockMigrate(ctx)
		if err != nil {
			return err
		}
		defer unlock()
	}
	for {
		done, err := s.migrateStep(ctx, backup)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if s.migrateHook != nil {
			s.migrateHook("step")
		}
		backup = false
	}
}

// migrateStep applies the next pending step, if any. With backup set, a
// mirror of an earlier version is copied first, in the same write
// transaction: the copy holds exactly what the step then migrates.
func (s *Store) migrateStep(ctx context.Context, backup bool) (done bool, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		var v int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		switch {
		case v > len(migrations):
			return fmt.Errorf("%w: database is version %d, this binary knows %d", ErrSchemaTooNew, v, len(migrations))
		case v == len(migrations):
			done = true
			return nil
		}
		if backup && v > 0 {
			if err := s.backupBeforeMigrate(ctx, v); err != nil {
				return err
			}
			if s.migrateHook != nil {
				s.migrateHook("copied")
			}
		}
		m := migrations[v]
		if m.sql != "" {
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migrate to version %d: %w", v+1, err)
			}
		}
		if m.run != nil {
			if err := m.run(s, ctx, tx); err != nil {
				return fmt.Errorf("migrate to version %d: %w", v+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			return fmt.Errorf("set schema version %d: %w", v+1, err)
		}
		return nil
	})
	return done, err
}
