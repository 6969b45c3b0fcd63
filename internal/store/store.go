package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	_ "github.com/mattn/go-sqlite3" // the SQLite driver
	"github.com/rs/zerolog"
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
	// inbox counts the inbox commits queued or running, which go before
	// the event worker's (writeorder.go).
	inbox inboxGate
	// lastInsert and lastCheckpoint are when (UnixNano, s.now) the inbox
	// last committed and the checkpointer last ran (checkpoint.go).
	lastInsert, lastCheckpoint atomic.Int64
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
