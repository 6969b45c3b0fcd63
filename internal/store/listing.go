package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// Listing is the checkpoint of a complete listing of transactions in
// progress. NextURL is the page to fetch next; "" means every page has been
// stored and only the deletion pass is left.
//
// What the listing may delete, and which events it has made effective, is
// decided without clock times, which can step back: StartSeq is the last
// transaction_history row written before the listing began (a row created
// later has a 'created' history row above it, seq only grows), and the
// events pending when it began are kept in sync_pending_events.
type Listing struct {
	Name      string
	Owner     string // random token of this listing's writer
	StartedAt time.Time
	StartSeq  int64
	// StartRowid is the largest transactions.rowid when the listing began
	// (0: the mirror was empty); rows above it were all written since.
	// math.MaxInt64 when not known (a listing begun by an older version).
	StartRowid int64
	NextURL    string
	Pages      int
	Resumed    bool
}

// BeginListing returns the listing in progress under name if it started
// after notBefore (a resumed listing), or else starts a new one at firstURL,
// forgetting what an abandoned one had seen.
func (s *Store) BeginListing(ctx context.Context, name, firstURL string, notBefore time.Time) (Listing, error) {
	l := Listing{Name: name, Owner: rand.Text()}
	err := s.InTx(ctx, func(tx *sql.Tx) error {
		resumed, err := s.resumeListing(ctx, tx, &l, notBefore)
		if err != nil || resumed {
			return err
		}
		return s.startListing(ctx, tx, &l, firstURL)
	})
	return l, err
}

// RestartListing starts a new listing under name at firstURL, even when
// one is in progress (its saved cursor was refused), forgetting what that
// one had seen.
func (s *Store) RestartListing(ctx context.Context, name, firstURL string) (Listing, error) {
	l := Listing{Name: name, Owner: rand.Text()}
	err := s.InTx(ctx, func(tx *sql.Tx) error { return s.startListing(ctx, tx, &l, firstURL) })
	return l, err
}

// resumeListing takes over the listing in progress under l.Name if it
// started after notBefore, and reports whether it did.
func (s *Store) resumeListing(ctx context.Context, tx *sql.Tx, l *Listing, notBefore time.Time) (bool, error) {
	var started string
	var next sql.NullString
	var seq, rowid sql.NullInt64
	err := tx.QueryRowContext(ctx,
		"SELECT started_at, next_page_url, pages, start_seq, start_rowid FROM sync_state WHERE name = ?", l.Name).Scan(
		&started, &next, &l.Pages, &seq, &rowid)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read checkpoint: %w", err)
	}
	// A checkpoint without start_seq cannot say what the listing may
	// delete: that listing starts over.
	if !next.Valid || !seq.Valid {
		return false, nil
	}
	t, err := time.Parse(TimeLayout, started)
	if err != nil || t.Before(notBefore) {
		return false, nil
	}
	l.StartedAt, l.NextURL, l.Resumed = t, next.String, true
	l.StartSeq, l.StartRowid = seq.Int64, math.MaxInt64
	if rowid.Valid {
		l.StartRowid = rowid.Int64
	}
	if _, err := tx.ExecContext(ctx, "UPDATE sync_state SET owner = ? WHERE name = ?", l.Owner, l.Name); err != nil {
		return false, fmt.Errorf("resume listing: %w", err)
	}
	return true, nil
}

// startListing starts l at firstURL, forgetting what a listing in progress
// under its name had seen.
func (s *Store) startListing(ctx context.Context, tx *sql.Tx, l *Listing, firstURL string) error {
	for _, q := range []string{"DELETE FROM sync_seen", "DELETE FROM sync_pending_events",
		`INSERT INTO sync_pending_events (id) SELECT id FROM webhook_events
			WHERE processed_at IS NULL AND transaction_id IS NOT NULL`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("reset listing: %w", err)
		}
	}
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT coalesce(max(seq), 0) FROM transaction_history),
		(SELECT coalesce(max(rowid), 0) FROM transactions)`).Scan(&l.StartSeq, &l.StartRowid); err != nil {
		return fmt.Errorf("start listing: %w", err)
	}
	if l.StartSeq == 0 {
		// An empty mirror: this listing is a bulk load (bulkload.go).
		if err := dropBulkDeferred(ctx, tx); err != nil {
			return fmt.Errorf("start listing: %w", err)
		}
	}
	now := s.now().UTC()
	l.StartedAt, l.NextURL, l.Pages, l.Resumed = now, firstURL, 0, false
	_, err := tx.ExecContext(ctx, `INSERT INTO sync_state (name, started_at, next_page_url, pages, owner, start_seq, start_rowid)
		VALUES (?, ?, ?, 0, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET started_at = excluded.started_at, next_page_url = excluded.next_page_url,
		pages = 0, owner = excluded.owner, start_seq = excluded.start_seq, start_rowid = excluded.start_rowid`,
		l.Name, now.Format(TimeLayout), firstURL, l.Owner, l.StartSeq, l.StartRowid)
	if err != nil {
		return fmt.Errorf("start listing: %w", err)
	}
	return nil
}

// SaveListingPage stores one page of the listing and the checkpoint that
// follows it in a single transaction: a sync killed after this returns
// resumes at next, and one killed before it refetches this page.
//
// Its commit does not wait for the disk (inRefetchableTx): what it stores
// the bank gives again.
func (s *Store) SaveListingPage(ctx context.Context, l *Listing, txs []bank.Transaction, next string) (res UpsertResult, err error) {
	err = s.inRefetchableTx(ctx, func(tx *sql.Tx) error {
		res, err = s.UpsertTransactionsTx(ctx, tx, txs)
		if err != nil {
			return err
		}
		ids := make([]string, len(txs))
		for i := range txs {
			ids[i] = txs[i].ID
		}
		seen, err := json.Marshal(ids)
		if err != nil {
			return fmt.Errorf("mark seen: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO sync_seen (ids) VALUES (?)", string(seen)); err != nil {
			return fmt.Errorf("mark seen: %w", err)
		}
		r, err := tx.ExecContext(ctx, "UPDATE sync_state SET next_page_url = ?, pages = pages + 1 WHERE name = ? AND owner = ?",
			next, l.Name, l.Owner)
		if err != nil {
			return fmt.Errorf("save checkpoint: %w", err)
		}
		if n, _ := r.RowsAffected(); n != 1 {
			return fmt.Errorf("save checkpoint of %s: %w", l.Name, ErrListingLost)
		}
		return nil
	})
	if err == nil {
		l.NextURL = next
		l.Pages++
	}
	return res, err
}

// unseenSQL selects the live transactions a listing did not see and that
// were mirrored before it began (a rowid no larger than the largest when it
// began, and no 'created' history row after the seq given), in the order
// they were written (rowid), to be deleted in that order. The first test
// spares a first sync one lookup in the history per transaction (none
// existed before it); its + keeps SQLite from reading the rows by rowid.
// The rows are found in the table's index on id, not read from its wide
// rows (a quarter of the end of a first sync when they were), then sorted;
// a filter on accounts (AND …) goes at its end, inside.
const unseenSQL = `WITH unseen AS MATERIALIZED (SELECT t.rowid AS r, t.id FROM transactions AS t
	WHERE +t.rowid <= ? AND NOT EXISTS (SELECT 1 FROM transaction_history AS h
		WHERE h.transaction_id = t.id AND h.change = 'created' AND h.seq > ?)
	AND id NOT IN (SELECT j.value FROM sync_seen, json_each(sync_seen.ids) AS j)%s)
	SELECT id FROM unseen ORDER BY r`

// FinishListing ends a complete listing: every live transaction it did not
// see, and that was already mirrored when it started (a rowid up to
// StartRowid and no 'created' history row after StartSeq), is gone at the
// bank and is deleted here with a 'deleted' history row. It returns the ids
// deleted. Only call it after the last page was saved.
func (s *Store) FinishListing(ctx context.Context, l *Listing) (deleted []string, err error) {
	return s.finishListing(ctx, l, nil, true)
}

// finishListing is FinishListing; when accounts is not nil, only their
// transactions may be deleted (household_sync.go), and only when complete
// are the events pending at its start marked processed.
func (s *Store) finishListing(ctx context.Context, l *Listing, accounts []string, complete bool) (deleted []string, err error) {
	if l.NextURL != "" {
		return nil, fmt.Errorf("finish listing %s: pages remain", l.Name)
	}
	// The deletion pass below reads the history by transaction_id, and
	// its deletions reach the search index through its triggers.
	if err := s.restoreBulkDeferred(ctx); err != nil {
		return nil, err
	}
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		deleted = deleted[:0]
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sync_state WHERE name = ? AND owner = ? AND next_page_url = ''",
			l.Name, l.Owner).Scan(&n); err != nil {
			return fmt.Errorf("check listing: %w", err)
		}
		if n != 1 {
			return fmt.Errorf("finish listing %s: %w", l.Name, ErrListingLost)
		}
		filter, args := "", []any{l.StartRowid, l.StartSeq}
		if accounts != nil {
			only, err := jsonArg(accounts)
			if err != nil {
				return err
			}
			filter, args = " AND account_id IN (SELECT value FROM json_each(?))", append(args, only)
		}
		rows, err := tx.QueryContext(ctx, fmt.Sprintf(unseenSQL, filter), args...) //nolint:gosec // the filter is a constant of this function
		if err != nil {
			return fmt.Errorf("find deleted: %w", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close() //nolint:sqlclosecheck // every path closes it, before the next statement on this connection
				return fmt.Errorf("find deleted: %w", err)
			}
			deleted = append(deleted, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("find deleted: %w", err)
		}
		w, err := s.newTxWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer w.close()
		for _, id := range deleted {
			if _, err := w.delete(ctx, id); err != nil {
				return err
			}
		}
		// Every page was fetched after the events pending when the listing
		// began: their effect is made, stuck ones included.
		_, err = tx.ExecContext(ctx, `UPDATE webhook_events SET processed_at = ?, last_error = NULL
			WHERE ? AND processed_at IS NULL AND id IN (SELECT id FROM sync_pending_events)`, w.now, complete)
		if err != nil {
			return fmt.Errorf("mark covered events processed: %w", err)
		}
		for _, q := range []string{"DELETE FROM sync_seen", "DELETE FROM sync_pending_events"} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("clear listing: %w", err)
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE sync_state SET next_page_url = NULL, last_success_at = ?, error_count = 0
			WHERE name = ?`, s.stamp(), l.Name)
		if err != nil {
			return fmt.Errorf("finish listing: %w", err)
		}
		return nil
	})
	return deleted, err
}

// ListingFailed counts a failed attempt at the listing; the checkpoint stays.
// What a bulk load dropped (bulkload.go) is made again now, so that
// search and queries of the history work until the listing is resumed
// (which then keeps them).
func (s *Store) ListingFailed(ctx context.Context, name string) error {
	if err := s.restoreBulkDeferred(ctx); err != nil {
		return err
	}
	return s.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "UPDATE sync_state SET error_count = error_count + 1 WHERE name = ?", name); err != nil {
			return fmt.Errorf("count listing failure: %w", err)
		}
		return nil
	})
}

// NeedsFullSync reports whether the mirror has never completed a full
// listing, or has one in progress (interrupted): the daemon then runs a
// full sync at start instead of waiting for the reconciliation schedule.
func (s *Store) NeedsFullSync(ctx context.Context) (bool, error) {
	var done, inProgress int
	err := s.ro.QueryRowContext(ctx, `SELECT
		count(*) FILTER (WHERE last_success_at IS NOT NULL),
		count(*) FILTER (WHERE next_page_url IS NOT NULL)
		FROM sync_state WHERE name = 'transactions'`).Scan(&done, &inProgress)
	if err != nil {
		return false, fmt.Errorf("read sync state: %w", err)
	}
	return done == 0 || inProgress > 0, nil
}

// inRefetchableTx is InTx for a transaction whose content the bank can give
// again: a listing's page and the checkpoint after it. Its commit does not
// wait for the disk (notWaitingForDisk). A first sync of 100,000
// transactions spent about 0.4 s of its writer's time waiting for these
// syncs.
func (s *Store) inRefetchableTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer conn.Close()
	return notWaitingForDisk(ctx, conn, fn)
}

// notWaitingForDisk runs fn in a write transaction on conn whose commit
// does not wait for the disk (synchronous=NORMAL, in WAL mode), for
// content the mirror can fetch again: a killed process loses none of it,
// and a power cut at most the last of these commits, whose work is then
// done again (a listing resumes at an earlier page, an event is still
// unprocessed in the inbox and applied again). The mirror stays
// consistent either way. Every other commit still waits (FULL), and its
// sync of the WAL makes the earlier ones durable too. conn is left FULL,
// or dropped from the pool.
func notWaitingForDisk(ctx context.Context, conn *sql.Conn, fn func(tx *sql.Tx) error) (err error) {
	if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = NORMAL"); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous = FULL"); rerr != nil {
			// Never leave the writer's connection without FULL: the pool
			// drops it, and opens a new one with the DSN's pragmas.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			if err == nil {
				err = fmt.Errorf("restore synchronous: %w", rerr)
			}
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	return runTx(tx, fn)
}
