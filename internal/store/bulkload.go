package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// A first full listing into an empty mirror (a bulk load) writes every
// transaction once, with a 'created' history row. What is kept up to
// date row by row cost it a large share of its disk writes and time
// (docs/performance.md, Full sync):
//
//   - transaction_history_tx, the history's index on transaction_id, keyed
//     at random, so that most of its pages are rewritten at every commit;
//   - transactions_search (FTS5), which the triggers of 0010_search.sql fill
//     with every write to transactions and transaction_tags;
//   - transactions_month_money, the monthly views' index;
//   - the household's pairing of transfers (0012_household_views.sql): its
//     triggers, which every insert ran;
//   - the triggers that keep monthly_totals (0015_monthly_totals.sql).
//
// BeginListing drops these indexes and triggers for a bulk load,
// in the transaction that starts it, and they are made again, the indexes
// from sorted keys and the search index from the table in one pass, when
// the listing finishes or fails, or when the mirror is next opened (after a
// crash), and the household's transfers are paired then, all at once
// (repairHouseholdTransfers), when the mirror has more than one person.
// Until then a search finds nothing. Nothing the daemon writes reads them;
// FinishListing's deletion pass reads the history index, and runs after
// they are back.
//
// Their statements are those of the migrations that made them (0001_init,
// 0010_search, 0012_household_views, 0015_monthly_totals and, for the month
// index as version 14 redefined it, 0014_person_views), read from the embedded files, so that each is
// written once.

// historyIndex is the history's index on transaction_id.
const historyIndex = "transaction_history_tx"

// monthIndex is the index of what the monthly views read.
const monthIndex = "transactions_month_money"

// deferredObject is a schema object a bulk load drops.
type deferredObject struct {
	kind string // "index" or "trigger", as in sqlite_schema.type
	name string
	sql  string // the CREATE statement, from the embedded schema
}

var (
	// historyIndexSQL is the history index's statement in 0001_init.sql.
	historyIndexSQL = sqlStatement(initSchema, "CREATE INDEX IF NOT EXISTS "+historyIndex+" ")

	// bulkDeferred is what a bulk load runs without: two indexes, every
	// trigger of 0010_search.sql (each fills transactions_search), the
	// household's pairing triggers and those that keep monthly_totals.
	bulkDeferred = slices.Concat([]deferredObject{
		{"index", historyIndex, historyIndexSQL},
		{"index", monthIndex, sqlStatement(personViews, "CREATE INDEX IF NOT EXISTS "+monthIndex+" ")},
	}, searchTriggers(), triggersOf(householdViews, "household_transfer_"), triggersOf(monthlyTotals, "monthly_totals_"))

	// searchRebuild fills transactions_search anew from transactions and
	// transaction_tags, then transactions_search_amount and
	// transactions_search_time from it: 0010_search.sql's and
	// 0021_search_keys.sql's own statements, which do it for an existing
	// mirror.
	searchRebuild = append([]string{
		sqlStatement(searchIndex, "DELETE FROM transactions_search;"),
		sqlStatement(searchIndex, "INSERT INTO transactions_search "),
	}, searchKeysFill...)

	// monthlyTotalsRebuild fills monthly_totals anew from the transactions:
	// 0015_monthly_totals.sql's own statements, which do it for an
	// existing mirror.
	monthlyTotalsRebuild = []string{
		sqlStatement(monthlyTotals, "DELETE FROM monthly_totals;"),
		sqlStatement(monthlyTotals, "INSERT INTO monthly_totals "),
		sqlStatement(after(monthlyTotals, "GROUP BY month, kind"), "INSERT INTO monthly_totals "),
	}
)

// triggerName is the name of a trigger statement of a migration file.
var triggerName = regexp.MustCompile(`(?m)^CREATE TRIGGER IF NOT EXISTS (\w+)\s`)

// searchTriggers is every trigger of 0010_search.sql, as
// 0021_search_keys.sql made them again.
func searchTriggers() []deferredObject { return triggersOf(searchKeys, "transactions_search_") }

// triggersOf is every trigger of src whose name starts with prefix.
func triggersOf(src, prefix string) []deferredObject {
	var out []deferredObject
	for _, m := range triggerName.FindAllStringSubmatch(src, -1) {
		if strings.HasPrefix(m[1], prefix) {
			out = append(out, deferredObject{"trigger", m[1], sqlStatement(src, m[0])})
		}
	}
	if len(out) == 0 {
		panic("store: no trigger " + prefix)
	}
	return out
}

// dropBulkDeferred drops, in tx, what a bulk load runs without.
func dropBulkDeferred(ctx context.Context, tx *sql.Tx) error {
	for _, o := range bulkDeferred {
		if _, err := tx.ExecContext(ctx, "DROP "+strings.ToUpper(o.kind)+" IF EXISTS "+o.name); err != nil {
			return fmt.Errorf("drop %s %s: %w", o.kind, o.name, err)
		}
	}
	return nil
}

// restoreBulkDeferredIdle is restoreBulkDeferred unless a sync is running
// (in another process: the daemon's first sync, while a command such as
// `bankmirror webhook register` opens the mirror). That sync makes them
// itself when it ends or fails, and making them now would hold the write
// lock, and the daemon's writer with it, for as long as that takes.
func (s *Store) restoreBulkDeferredIdle(ctx context.Context) error {
	// Almost always all there: then no lock file is touched.
	if missing, err := missingBulkDeferred(ctx, s.db); err != nil || len(missing) == 0 {
		return err
	}
	unlock, err := s.LockSync()
	if errors.Is(err, ErrSyncRunning) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unlock()
	return s.restoreBulkDeferred(ctx)
}

// restoreBulkDeferred makes again, in one transaction, whatever a bulk
// load dropped, and fills the search index anew if a search trigger was
// missing: every write the triggers missed is in the table it reads, and
// none can come between. SQLite's sorter may hold as many bytes as the page
// cache, on top of it, so both are kept small meanwhile. The indexes are
// sorted by two threads (PRAGMA threads): a first sync's end is the only
// work left then, and the machine's other core idle.
func (s *Store) restoreBulkDeferred(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("restore bulk load indexes: %w", err)
	}
	defer conn.Close()
	missing, err := missingBulkDeferred(ctx, conn)
	if err != nil || len(missing) == 0 {
		return err
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA cache_size = -1024; PRAGMA threads = 2"); err != nil {
		return fmt.Errorf("restore bulk load indexes: %w", err)
	}
	err = restoreInTx(ctx, conn, missing)
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA cache_size = -%d; PRAGMA threads = 0", writerCacheKiB)); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("restore bulk load indexes: %w", err)
	}
	return nil
}

// restoreInTx makes the missing objects in one transaction on conn; the
// search index anew if a search trigger is among them, and the household's
// transfers paired if a pairing trigger is, and there are people to pair.
func restoreInTx(ctx context.Context, conn *sql.Conn, missing []deferredObject) (err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	rebuild, repair, totals := false, false, false
	for _, o := range missing {
		if _, err := tx.ExecContext(ctx, o.sql); err != nil {
			return fmt.Errorf("%s %s: %w", o.kind, o.name, err)
		}
		rebuild = rebuild || o.kind == "trigger" && strings.HasPrefix(o.name, "transactions_search_")
		repair = repair || o.kind == "trigger" && strings.HasPrefix(o.name, "household_transfer_")
		totals = totals || o.kind == "trigger" && strings.HasPrefix(o.name, "monthly_totals_")
	}
	if rebuild {
		for _, q := range searchRebuild {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("fill transactions_search: %w", err)
			}
		}
	}
	if repair {
		// One person pairs nothing, and every row of the load has no
		// pair: the statement's scan of the table would change nothing.
		var people int
		if err := tx.QueryRowContext(ctx, "SELECT count(DISTINCT person) FROM account_people").Scan(&people); err != nil {
			return fmt.Errorf("pair household transfers: %w", err)
		}
		if people > 1 {
			if _, err := tx.ExecContext(ctx, repairHouseholdTransfers); err != nil {
				return fmt.Errorf("pair household transfers: %w", err)
			}
		}
	}
	// After the pairing: the totals leave household transfers out.
	if totals {
		for _, q := range monthlyTotalsRebuild {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("fill monthly_totals: %w", err)
			}
		}
	}
	return tx.Commit()
}

// missingBulkDeferred returns the objects of bulkDeferred that are not in
// the schema.
func missingBulkDeferred(ctx context.Context, q querier) ([]deferredObject, error) {
	rows, err := q.QueryContext(ctx, "SELECT type, name FROM sqlite_schema WHERE type IN ('index', 'trigger')")
	if err != nil {
		return nil, fmt.Errorf("look for the bulk load's indexes: %w", err)
	}
	defer rows.Close()
	have := map[[2]string]bool{}
	for rows.Next() {
		var kind, name string
		if err := rows.Scan(&kind, &name); err != nil {
			return nil, fmt.Errorf("look for the bulk load's indexes: %w", err)
		}
		have[[2]string{kind, name}] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look for the bulk load's indexes: %w", err)
	}
	var missing []deferredObject
	for _, o := range bulkDeferred {
		if !have[[2]string{o.kind, o.name}] {
			missing = append(missing, o)
		}
	}
	return missing, nil
}
