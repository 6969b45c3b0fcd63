package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"
)

// writerDriver is the SQLite driver of the writer connection: automatic
// checkpoints are off there, so that no commit (a webhook's durable insert
// above all) waits while the WAL is copied into the database file; a
// background connection checkpoints instead.
const writerDriver = "sqlite3_bankmirror_writer"

func init() {
	sql.Register(writerDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		if _, err := c.Exec("PRAGMA wal_autocheckpoint = 0", nil); err != nil {
			return fmt.Errorf("turn off automatic checkpoints: %w", err)
		}
		return nil
	}})
}

// checkpointEvery is how often the background connection checkpoints.
const checkpointEvery = 500 * time.Millisecond

// A checkpoint waits while the inbox commits: during a burst of webhook
// deliveries, each acknowledged after its insert's fsync, a checkpoint's
// writes to the database file and its fsync queue on the disk ahead of
// those fsyncs. It runs once no insert has committed for checkpointQuiet,
// or checkpointMaxDefer after the last one ran, whichever comes first.
// The burst rewrites the same few pages (the inbox's last leaves), which
// the later checkpoint copies once; the WAL, which serve writes to its
// full length when it starts (PrepareWAL), holds what a second of commits
// adds.
const (
	checkpointQuiet    = 100 * time.Millisecond
	checkpointMaxDefer = time.Second
)

// checkpointDeferred reports whether a checkpoint due at now waits for the
// inbox's commits to pause.
func (s *Store) checkpointDeferred(now time.Time) bool {
	last := time.Unix(0, s.lastCheckpoint.Load())
	insert := time.Unix(0, s.lastInsert.Load())
	return now.Sub(insert) < checkpointQuiet && now.Sub(last) < checkpointMaxDefer
}

// startCheckpoints opens the checkpointing connection and starts its loop.
func (s *Store) startCheckpoints() error {
	// The checkpointer reads the WAL and writes the database file; it
	// needs no page cache of its own (256 KB).
	ck, err := sql.Open("sqlite3", dsnCache(s.uri, false, -256))
	if err != nil {
		return fmt.Errorf("open checkpointer: %w", err)
	}
	ck.SetMaxOpenConns(1)
	s.ck, s.stop, s.done = ck, make(chan struct{}), make(chan struct{})
	s.lastCheckpoint.Store(s.now().UnixNano())
	go s.checkpoints()
	return nil
}

// checkpoints copies committed WAL frames into the database file, without
// blocking the writer or readers (PASSIVE), until the store closes.
func (s *Store) checkpoints() {
	defer close(s.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			s.checkpoint(true)
			return
		case <-t.C:
			s.checkpoint(false)
		}
	}
}

// checkpoint runs a checkpoint unless it waits for the inbox
// (checkpointDeferred); force runs it regardless.
func (s *Store) checkpoint(force bool) {
	now := s.now()
	if !force && s.checkpointDeferred(now) {
		return
	}
	s.lastCheckpoint.Store(now.UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Failures (a full disk) leave the frames in the WAL for the next try;
	// commits stay durable either way.
	var busy, logFrames, done int
	if err := s.ck.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &done); err != nil {
		return
	}
	if logFrames > s.restartFrames {
		s.restartWAL(ctx)
	}
}

// restartWAL checkpoints the frames a passive checkpoint could not reach
// and starts the WAL over from its beginning. A writer that never pauses
// (a full sync) keeps a passive checkpoint from ever finishing, and this
// connection's own RESTART would wait for the writer lock in vain: the
// WAL grew to 2 GB in a sync of a million transactions, and its index
// (mapped in memory by every connection) to 4 MB. So the restart runs on
// the writer's own connection, between two of its transactions: it waits
// for no writer, only (briefly) for readers of old snapshots, and copies
// what was committed since the passive checkpoint began.
func (s *Store) restartWAL(ctx context.Context) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	// A long read (an export) pins old frames: give up rather than make
	// the writer wait for it, and try again at the next checkpoint.
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", restartWait.Milliseconds())); err != nil {
		return
	}
	_, _ = conn.ExecContext(ctx, "PRAGMA wal_checkpoint(RESTART)")
	_, _ = conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA busy_timeout = %d", busyTimeout.Milliseconds()))
}

// restartFrames is the WAL size, in pages, past which a checkpoint restarts
// the WAL (16,384 pages of 4 KiB: 64 MiB).
const restartFrames = 16384

// withRestartFrames replaces restartFrames, for tests.
func withRestartFrames(n int) Option { return func(s *Store) { s.restartFrames = n } }

// restartWait is how long a WAL restart waits for readers of old snapshots.
const restartWait = 200 * time.Millisecond

// stopCheckpoints runs a last checkpoint and closes the connection.
func (s *Store) stopCheckpoints() {
	if s.ck == nil {
		return
	}
	close(s.stop)
	<-s.done
	_ = s.ck.Close()
	s.ck = nil
}
