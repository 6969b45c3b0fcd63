package store

import (
	"context"
	"fmt"
	"os"
)

// A commit is durable when the fsync of the WAL returns. When the commit
// made the WAL file longer, that fsync also journals the file's new size
// and blocks (ext4: 0.31 ms at p50 for a one-event commit, against 0.18 ms
// when it overwrites blocks the file already has; docs/performance.md,
// Webhook receiver). SQLite keeps the WAL file at the longest it has been
// and, once a checkpoint has caught up, writes it again from the start, so
// a daemon that has run for a while mostly overwrites. PrepareWAL gives a
// daemon that just started that state at once.

// walChunk is how much of the WAL PrepareWAL writes under one write lock.
const walChunk = 4 << 20

// PrepareWAL writes zeros past the end of the WAL file until it holds as
// many frames as a checkpoint lets it reach before restarting it
// (restartFrames), so that commits overwrite the file rather than make it
// longer. SQLite reads no further than the last frame it committed, whose
// checksum and salt the zeros do not match, so the zeros are never read as
// data. Each chunk is written under the database's write lock (BEGIN
// IMMEDIATE: no connection of any process appends a frame meanwhile), and
// made durable after the lock is released. It returns the WAL's size.
//
// It writes up to 64 MiB, once: the daemon calls it when it starts.
func (s *Store) PrepareWAL(ctx context.Context) (int64, error) {
	var pageSize int64
	if err := s.db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		return 0, fmt.Errorf("prepare wal: %w", err)
	}
	const walHeader, frameHeader = 32, 24
	want := walHeader + int64(s.restartFrames)*(frameHeader+pageSize)
	zeros := make([]byte, os.Getpagesize())
	for {
		size, err := s.extendWAL(ctx, want, zeros)
		if err != nil || size >= want {
			return size, err
		}
	}
}

// extendWAL writes zeros, a page (len(zeros)) at a time, at the end of the
// WAL file, up to walChunk and no further than want, and returns the
// file's size.
func (s *Store) extendWAL(ctx context.Context, want int64, zeros []byte) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		return 0, fmt.Errorf("prepare wal: %w", err)
	}
	// In WAL mode the transaction has opened (or created) the WAL file.
	f, err := openRegular(s.path+"-wal", os.O_WRONLY, 0)
	if err != nil {
		_ = tx.Rollback()
		return 0, fmt.Errorf("prepare wal: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		_ = tx.Rollback()
		return 0, fmt.Errorf("prepare wal: %w", err)
	}
	size := fi.Size()
	if size >= want {
		return size, tx.Rollback()
	}
	// One page of the page cache at a time: a larger write makes the
	// kernel cache the file in large folios, and each of SQLite's small
	// writes into one (a frame is a 24-byte header and a page, straddling
	// two pages of the file) then walks the whole folio's buffers: 10 us a
	// frame, against 2.3 us in pages written one by one.
	end := min(size+walChunk, want)
	var werr error
	page := int64(len(zeros))
	for size < end && werr == nil {
		var n int
		n, werr = f.WriteAt(zeros[:min(page-size%page, end-size)], size)
		size += int64(n)
	}
	// Nothing was written through SQLite: the rollback only unlocks.
	if err := tx.Rollback(); err != nil {
		return size, fmt.Errorf("prepare wal: %w", err)
	}
	if werr != nil {
		return size, fmt.Errorf("prepare wal: %w", werr)
	}
	if err := f.Sync(); err != nil {
		return size, fmt.Errorf("prepare wal: %w", err)
	}
	return size, nil
}
