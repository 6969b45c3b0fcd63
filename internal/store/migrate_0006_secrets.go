package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"

	"github.com/bankmirror/bankmirror/internal/logfield"
)

// moveSecretsOut is migration 0006, written in Go (goMigrations): every secret still in the webhooks
// table goes to the secrets file and is cleared in the mirror. The mirror
// is then scrubbed (scrubIfPending) so that no copy lingers in free
// pages or the WAL.
func (s *Store) moveSecretsOut(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT id, secret_key FROM webhooks WHERE secret_key != ''")
	if err != nil {
		return fmt.Errorf("read webhook secrets: %w", err)
	}
	moved := map[string]string{}
	for rows.Next() {
		var id, key string
		if err := rows.Scan(&id, &key); err != nil {
			rows.Close() //nolint:sqlclosecheck // every path closes it, before the next statement on this connection
			return fmt.Errorf("read webhook secrets: %w", err)
		}
		moved[id] = key
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read webhook secrets: %w", err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM webhooks").Scan(&n); err != nil {
		return fmt.Errorf("count webhooks: %w", err)
	}
	if n == 0 {
		return nil // no secret was ever stored here
	}
	if len(moved) > 0 {
		stamp := s.stamp()
		err := s.updateSecrets(ctx, tx, func(doc *secretsDoc) {
			for id, key := range moved {
				if _, ok := doc.Webhooks[id]; !ok {
					doc.Webhooks[id] = storedSecret{SecretKey: key, StoredAt: stamp}
				}
			}
		})
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE webhooks SET secret_key = '' WHERE secret_key != ''"); err != nil {
			return fmt.Errorf("clear webhook secrets: %w", err)
		}
	}
	// Rows updated earlier (a deletion rewrites the row) left old copies
	// of their secrets in free space: scrub the whole file.
	if _, err := tx.ExecContext(ctx, `INSERT INTO sync_state (name, started_at) VALUES (?, ?)
		ON CONFLICT (name) DO NOTHING`, scrubStateName, s.stamp()); err != nil {
		return fmt.Errorf("mark the mirror for scrubbing: %w", err)
	}
	return nil
}

// scrubStateName is the sync_state row that says the mirror must be
// rebuilt: it may hold old copies of secrets in free pages or its WAL
// (migration 6), or free pages a migration left (migration 20).
const scrubStateName = "scrub_secrets"

// scrubIfPending rebuilds the mirror (VACUUM: every page written afresh, no
// free page left, the file cut to its new size) and empties its WAL, when a
// migration asked for it. It is retried at every Open until it completes
// (it needs free disk space about the size of the mirror, and no other
// process reading it when the WAL is emptied).
func (s *Store) scrubIfPending(ctx context.Context) error {
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sync_state WHERE name = ?", scrubStateName).Scan(&n); err != nil {
		return fmt.Errorf("read scrub mark: %w", err)
	}
	if n == 0 {
		return nil
	}
	if err := s.vacuum(ctx); err != nil {
		return fmt.Errorf("rebuild the mirror (VACUUM needs free disk space about the size of the mirror): %w", err)
	}
	var busy, logFrames, done int
	if err := s.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("empty the WAL after rebuilding the mirror: %w", err)
	}
	if busy != 0 {
		return nil // another process reads the mirror: try again next time
	}
	if _, err := s.db.ExecContext(ctx, "DELETE FROM sync_state WHERE name = ?", scrubStateName); err != nil {
		return fmt.Errorf("clear scrub mark: %w", err)
	}
	// The deletion is in the WAL again, without any secret; empty it too.
	_, _ = s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return nil
}

// vacuumProgressEvery is how often vacuum logs how far it is.
const vacuumProgressEvery = 5 * time.Second

// vacuum rebuilds the mirror, logging its progress: VACUUM builds the new
// file aside, then writes it through the WAL, whose growth (from empty)
// says how far it is, and whose size at the end is the new file's.
func (s *Store) vacuum(ctx context.Context) error {
	// The WAL starts empty, unless another process reads the mirror: its
	// growth is then the rebuild's alone, and the disk holds no copy of
	// the pages the migration wrote beside the new ones.
	var busy, logFrames, done int
	if err := s.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("checkpoint before rebuilding: %w", err)
	}
	walSize := func() int64 {
		fi, err := os.Stat(s.path + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	var size int64
	if fi, err := os.Stat(s.path); err == nil {
		size = fi.Size()
	}
	start := time.Now()
	s.log.Info().Str(logfield.Path, s.path).Int64(logfield.Bytes, size).Msg("rebuilding the mirror to give free space back")
	stop := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(vacuumProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				s.log.Info().Int64(logfield.Bytes, walSize()).Dur(logfield.Duration, time.Since(start)).
					Msg("rebuilding the mirror: written so far")
			}
		}
	}()
	_, err := s.db.ExecContext(ctx, "VACUUM")
	close(stop)
	<-stopped
	if err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	s.log.Info().Int64(logfield.Bytes, walSize()).Dur(logfield.Duration, time.Since(start)).Msg("rebuilt the mirror")
	return nil
}
