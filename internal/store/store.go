// Package store owns the SQLite mirror: opening it with the right pragmas,
// migrating its schema, and every SQL statement the daemon runs.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"time"

	_ "github.com/mattn/go-sqlite3" // the SQLite driver
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror"
)

// ErrNotFound is returned when a requested row does not exist.
var ErrNotFound = errors.New("not found")

// ErrSyncRunning is returned by LockSync when another sync of the same
// mirror holds the lock.
var ErrSyncRunning = errors.New("another sync of this mirror is running")

// ErrListingLost is returned when a listing's checkpoint was taken over by
// another listing (which cannot happen while the sync lock is held).
var ErrListingLost = errors.New("listing checkpoint was replaced by another listing")

// ErrSchemaTooNew is returned by Open when the database was written by a
// newer bankmirror than this one.
var ErrSchemaTooNew = errors.New("database schema is newer than this binary")

// ErrNoFTS5 is returned by Open and OpenReadOnly when the SQLite linked
// into the binary lacks FTS5, which the mirror's search index
// (transactions_search, kept by triggers on every write) needs.
var ErrNoFTS5 = errors.New("this bankmirror's SQLite lacks FTS5, which the mirror's search index needs: build it with -tags sqlite_fts5 (go build -tags sqlite_fts5 ./cmd/bankmirror)")

// checkFTS5 returns ErrNoFTS5 unless db's SQLite has FTS5.
func checkFTS5(ctx context.Context, db *sql.DB) error {
	var on bool
	if err := db.QueryRowContext(ctx, "SELECT sqlite_compileoption_used('ENABLE_FTS5')").Scan(&on); err != nil {
		return fmt.Errorf("check for FTS5: %w", err)
	}
	if !on {
		return ErrNoFTS5
	}
	return nil
}

// migration is one step of the schema: SQL, then (if set) Go code in the
// same transaction.
type migration struct {
	sql string
	run func(s *Store, ctx context.Context, tx *sql.Tx) error
}

// migrations[i] brings the schema from version i to i+1. schema.sql is
// version 1; later changes are appended here, never edited in place.
var migrations = []migration{
	{sql: bankmirror.Schema},
	// 2: what the running daemon reports of itself (the bank's request
	// budget, a paused worker, a sync in progress), for `bankmirror status`.
	{sql: `CREATE TABLE IF NOT EXISTS daemon_state (
		key        TEXT PRIMARY KEY,
		value      TEXT NOT NULL, -- JSON
		updated_at TEXT NOT NULL
	) STRICT;`},
	// 3: a full listing remembers where the history stood when it began
	// (its seq only grows) and which events were pending, so what it
	// deletes and marks processed never depends on the wall clock, which
	// can step back.
	{sql: `ALTER TABLE sync_state ADD COLUMN start_seq INTEGER;
	CREATE TABLE IF NOT EXISTS sync_pending_events (
		id TEXT PRIMARY KEY
	) STRICT, WITHOUT ROWID;`},
	// 4: receipts kept on disk (BANKMIRROR_ATTACHMENTS_DIR): where each
	// attachment's file was saved, its SHA-256, and the last failure to
	// download it.
	{sql: `ALTER TABLE attachments ADD COLUMN local_path TEXT;
	ALTER TABLE attachments ADD COLUMN local_sha256 TEXT;
	ALTER TABLE attachments ADD COLUMN download_error TEXT;
	ALTER TABLE attachments ADD COLUMN download_attempts INTEGER NOT NULL DEFAULT 0;`},
	// 5: every timestamp users query also as a UTC epoch and a local
	// time, date and month in the customer's zone (mirror_settings), and
	// views that answer money questions right (money_views.sql).
	{sql: moneyViews},
	// 6: webhook secrets move to the secrets file beside the mirror;
	// webhooks.secret_key stays, always ''.
	{run: (*Store).moveSecretsOut},
	// 7: v_ledger, the columns a spreadsheet needs (ledger_view.sql): the
	// default of `bankmirror export`.
	{sql: ledgerView},
	// 8: the indexes on created_at alone and on (account_id, created_at)
	// go: no query of the daemon's used them (created_at text with mixed
	// offsets does not order as time; created_epoch, indexed, does), and
	// every insert of a full sync paid for them.
	{sql: `DROP INDEX IF EXISTS transactions_created;
	DROP INDEX IF EXISTS transactions_account_created;`},
	// 9: settled money in with a category (a friend paying back their
	// share) nets against that category in v_monthly_spending and leaves
	// v_monthly_income; v_transactions and v_ledger flag it
	// (offsets_spending). spending_offsets.sql.
	{sql: spendingOffsets},
	// 10: transactions_search, a full-text index (FTS5) of description,
	// message, note, raw text and tags kept by triggers, and an index of
	// what the monthly views read (search.sql).
	{sql: searchIndex},
	// 11: a household in one mirror: people, which of them see which
	// account (account_people), accounts no token lists any more
	// (accounts.gone_at) and whose token registered a webhook
	// (webhooks.person). household.sql.
	{sql: householdTables},
	// 12: who spent it: v_transactions.person and people, household
	// transfers paired (transactions.household_transfer_id, kept by
	// triggers) and left out of the household's monthly views, and the
	// monthly views per person. household_views.sql.
	{sql: householdViews},
	// 13: what the rules file did to each transaction (rule_applications),
	// the mirror-only settings it made (transaction_annotations), and the
	// alerts waiting for their channel (alert_outbox), and the views
	// saying so. rules.sql, alerts.sql, rules_views.sql.
	{sql: ruleTables + alertTables + ruleViews},
	// 14: the monthly views per person grouped in the month index's order
	// (by performing_customer, which the index now holds right after the
	// category), as fast as the household's. person_views.sql.
	{sql: personViews},
	// 15: monthly_totals, v_monthly_spending and v_monthly_income summed
	// per month ahead of time and kept by triggers, for the dashboard's
	// overview, without what rules left out of the spending
	// (monthly_totals.sql).
	{sql: monthlyTotals},
	// 16: transactions_search_money, each transaction's time and amount
	// beside the search index, kept by triggers, so that a search counts,
	// sums and pages its matches without reading the table's wide rows
	// (search_money.sql).
	{sql: searchMoney},
	// 17: where a listing's transactions began (the largest rowid when it
	// started): its deletion pass reads no row written after that, and a
	// first sync's none at all.
	{sql: `ALTER TABLE sync_state ADD COLUMN start_rowid INTEGER;`},
	// 18: the same answers and a clean integrity check on SQLite 3.40
	// (Debian 12's sqlite3): transactions_held_created indexes
	// julianday(created_at), not 3.42's unixepoch(..., 'subsec'), and
	// household_transfer_candidates orders outside its subquery; the
	// search index loses rows of deleted transactions; v_ledger ends with
	// excluded_from_spending. sqlite340.sql.
	{sql: sqlite340},
	// 19: feeds (BANKMIRROR_FEEDS_FILE): which row of a budgeting app
	// holds which bank transaction (feed_rows), what a feed looks at again
	// (feed_pending) and where each feed stands (feed_state). feeds.sql.
	{sql: feedTables},
}

// TimeLayout is how the store writes its own timestamps (observed_at,
// first_seen_at, ...): UTC with fixed-width microseconds, so that text order
// is time order.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// Store is the SQLite mirror. It holds one writer connection, so that write
// transactions never contend inside the process, and a pool of read-only
// connections for queries.
type Store struct {
	db   *sql.DB // writer: exactly one connection
	ro   *sql.DB // readers
	ck   *sql.DB // checkpoints the WAL in the background
	stop chan struct{}
	done chan struct{}
	path string
	uri  sqliteURI // path as an SQLite URI filename
	now  func() time.Time
	zone *time.Location // the customer's zone, of every *_local, *_date and *_month column
	uid  int            // the user the files must belong to
	// restartFrames is the WAL size past which it is restarted.
	restartFrames int
	// stmts are the writer's statements prepared at open (stmtcache.go).
	stmts map[string]*sql.Stmt
	// noMigrationBackup skips the copy Open keeps before migrating.
	noMigrationBackup bool
	log               zerolog.Logger
	// migrateHook, for tests, is called inside the first step's
	// transaction once the copy is made ("copied") and after each step
	// commits ("step").
	migrateHook func(stage string)
	// readOnlySchema is the schema version of a mirror OpenReadOnly
	// opened, which may be older than this binary's; 0 after Open, which
	// migrates it.
	readOnlySchema int
}

// Option configures a Store.
type Option func(*Store)

// WithClock replaces time.Now, for tests that need fixed timestamps.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithUID replaces os.Getuid as the user the mirror's files must belong
// to, for tests of the ownership check.
func WithUID(uid int) Option { return func(s *Store) { s.uid = uid } }

// WithMigrationBackup says whether Open keeps a copy of the mirror
// (MigrationBackupPath) before migrating its schema; it does unless told
// otherwise.
func WithMigrationBackup(on bool) Option { return func(s *Store) { s.noMigrationBackup = !on } }

// WithLogger is where the store logs what it does on its own (the copy
// kept before a migration); nothing is logged without it.
func WithLogger(log zerolog.Logger) Option { return func(s *Store) { s.log = log } }

// Open opens (creating with mode 0600 if needed) and migrates the mirror at
// path, first copying a mirror of an earlier schema version to
// MigrationBackupPath (see WithMigrationBackup). It refuses (ErrNotOwner)
// to touch a mirror, or a file beside it, that belongs to another user,
// refuses a symbolic link in place of any of them (ErrSymlink) and a
// directory others may write (ErrUnsafeDir), and makes the existing ones
// mode 0600.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	s := &Store{path: path, now: time.Now, uid: os.Getuid(), restartFrames: restartFrames, log: zerolog.Nop()}
	for _, o := range opts {
		o(s)
	}
	if s.zone == nil {
		loc, err := time.LoadLocation(DefaultTimeZone)
		if err != nil {
			return nil, fmt.Errorf("load time zone: %w", err)
		}
		s.zone = loc
	}
	if _, err := zoneName(s.zone); err != nil {
		return nil, err
	}
	var err error
	if s.uri, err = fileURI(path); err != nil {
		return nil, err
	}
	if err := prepareFiles(path, s.uid); err != nil {
		return nil, err
	}
	// Create the file ourselves so it never exists with a wider mode;
	// SQLite gives the -wal and -shm files the mode of the database file.
	f, err := openRegular(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create database file: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("create database file: %w", err)
	}

	s.db, err = sql.Open(writerDriver, dsn(s.uri, false))
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	s.db.SetMaxOpenConns(1)
	s.db.SetConnMaxIdleTime(0)
	s.db.SetConnMaxLifetime(0)

	if err := checkFTS5(ctx, s.db); err != nil {
		_ = s.db.Close()
		return nil, err
	}
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		_ = s.db.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if mode != "wal" {
		_ = s.db.Close()
		return nil, fmt.Errorf("open database: journal_mode is %q, want wal", mode)
	}
	if err := s.migrate(ctx); err != nil {
		_ = s.db.Close()
		return nil, err
	}
	if err := s.ensureZone(ctx); err != nil {
		_ = s.db.Close()
		return nil, err
	}
	if err := s.restoreBulkDeferredIdle(ctx); err != nil {
		_ = s.db.Close()
		return nil, err
	}
	if err := s.scrubIfPending(ctx); err != nil {
		_ = s.db.Close()
		return nil, err
	}
	if err := s.pruneSecretsNow(ctx); err != nil {
		_ = s.db.Close()
		return nil, err
	}
	if err := s.prepareWriterStmts(ctx); err != nil {
		_ = s.db.Close()
		return nil, err
	}

	s.ro, err = sql.Open("sqlite3", dsn(s.uri, true))
	if err != nil {
		_ = s.db.Close()
		return nil, fmt.Errorf("open database readers: %w", err)
	}
	s.ro.SetMaxOpenConns(4)
	if err := s.startCheckpoints(); err != nil {
		_ = s.ro.Close()
		_ = s.db.Close()
		return nil, err
	}
	return s, nil
}

// dsn puts every pragma in the connection string so that each pooled
// connection gets them. synchronous=FULL: a commit is durable when it returns
// (mattn's WAL default, NORMAL, can lose the last commits on power loss).
func dsn(uri sqliteURI, readOnly bool) string {
	if readOnly {
		return dsnCache(uri, true, -readerCacheKiB)
	}
	return dsnCache(uri, false, -writerCacheKiB)
}

// The page caches. The writer's is full through a sync, and a larger one
// makes a full sync no faster while it adds to the daemon's RSS
// (docs/performance.md, Full sync). A reader's fills only as far as its
// queries read.
const (
	writerCacheKiB = 4000
	readerCacheKiB = 8000
)

// busyTimeout is how long a statement waits for a lock another connection
// holds (another process's write, a checkpoint) before failing.
const busyTimeout = 5 * time.Second

// dsnCache is dsn with the page cache size (PRAGMA cache_size: negative
// is KiB).
// uri is the database's URI filename (fileURI).
func dsnCache(uri sqliteURI, readOnly bool, cacheSize int) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_busy_timeout", strconv.FormatInt(busyTimeout.Milliseconds(), 10))
	q.Set("_foreign_keys", "on")
	q.Set("_synchronous", "FULL")
	q.Set("_txlock", "immediate")
	q.Set("_cache_size", strconv.Itoa(cacheSize))
	if readOnly {
		q.Set("mode", "ro")
		q.Set("_txlock", "deferred")
	}
	return string(uri) + "?" + q.Encode()
}

// Path is the database file's path.
func (s *Store) Path() string { return s.path }

// Close closes both pools. Call it last, after every writer has stopped.
func (s *Store) Close() error {
	var errs []error
	s.stopCheckpoints()
	if s.ro != nil {
		errs = append(errs, s.ro.Close())
	}
	if s.db != nil {
		s.closeWriterStmts()
		errs = append(errs, s.db.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	return nil
}

// Ping checks that the database answers (for readiness checks).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.ro.PingContext(ctx); err != nil {
		return fmt.Errorf("ping database: %w", err)
	}
	return nil
}

// Reader is the read-only pool, for ad-hoc queries (status, demo, tests).
func (s *Store) Reader() *sql.DB { return s.ro }

func (s *Store) stamp() string { return s.now().UTC().Format(TimeLayout) }

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

// InTx runs fn in one write transaction, committing if it returns nil and
// rolling back on error or panic.
func (s *Store) InTx(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	return runTx(tx, fn)
}

// runTx runs fn in tx, then commits tx, or rolls it back if fn fails or
// panics.
func runTx(tx *sql.Tx, fn func(tx *sql.Tx) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
