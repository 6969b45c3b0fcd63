package store

import (
	"context"
	"database/sql"
	_ "embed" // search_money.sql
	"fmt"
	"math"
	"strings"
)

// searchMoney is the migration that adds transactions_search_money, the
// time and amount of each transaction beside the search index, kept by
// triggers (search_money.sql).
//
//go:embed search_money.sql
var searchMoney string

// searchBands are how far back from the newest match a search looks for
// its first page in one pass (each band's matches are kept aside while
// they are counted and summed): an hour, six hours, a day, four days,
// sixteen days. The page's rows are the newest of the narrowest bands
// that hold a page of matches; when even sixteen days hold fewer (a word
// seldom used lately), the page is found in a second pass.
var searchBands = []int64{3600, 6 * 3600, 86400, 4 * 86400, 16 * 86400}

// searchOnly says whether the search is f's only filter: such a search
// is counted, summed and paged from transactions_search and
// transactions_search_money alone (searchMoneyPage).
func (f TxFilter) searchOnly() bool {
	return f.Month == "" && f.Account == "" && f.Category == "" && f.Tag == "" && f.Status == "" && !f.Spending && f.Person == ""
}

// matchesSQL is each match of the search (?1, an FTS5 query) as r, its
// transaction's rowid, e, its created_epoch (0 when unknown, as pages
// order it), and a, its amount.
const matchesSQL = `SELECT s.rowid AS r, coalesce(m.created_epoch, 0) AS e, m.amount_base_units AS a
	FROM transactions_search s JOIN transactions_search_money m ON m.rowid = s.rowid
	WHERE transactions_search MATCH ?1`

// searchMoneyPage is searchPage for a search without other filters. One
// pass over the matches, reading each one's time and amount from
// transactions_search_money by rowid, counts and sums them and keeps
// aside the rowids of the matches in each of searchBands back from the
// page's start (the cursor's time, or the newest transaction's); the page
// is the newest limit of those bands (their rows read from the table),
// or, if they hold fewer, of the matches from the limit-th newest time on
// (a second pass). All in one read transaction.
func (s *Store) searchMoneyPage(ctx context.Context, q string, f TxFilter, limit int) (out TxList, err error) {
	tx, err := s.ro.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return out, fmt.Errorf("search transactions: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	// The page holds matches up to end (the cursor's time; those of that
	// very second are kept for the final statement to order by id) and
	// the bands reach back from start.
	end := int64(math.MaxInt64)
	start := f.BeforeEpoch
	if f.BeforeID != "" {
		end = f.BeforeEpoch
	} else if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(created_epoch), 0) FROM transactions").Scan(&start); err != nil {
		return out, fmt.Errorf("search transactions: %w", err)
	}
	var cols []string
	for _, w := range searchBands {
		cols = append(cols, fmt.Sprintf("count(*) FILTER (WHERE e < ?2 AND e >= ?3 - %d)", w))
	}
	for i, w := range searchBands {
		// Each band is apart from the narrower ones; the first reaches
		// the page's end.
		cond := fmt.Sprintf("e <= ?2 AND e >= ?3 - %d", w)
		if i > 0 {
			cond += fmt.Sprintf(" AND e < ?3 - %d", searchBands[i-1])
		}
		cols = append(cols, "json_group_array(r) FILTER (WHERE "+cond+")")
	}
	vals := make([]any, 2+2*len(searchBands))
	counts := make([]int64, len(searchBands))
	bands := make([]string, len(searchBands))
	vals[0], vals[1] = &out.Count, &out.Sum
	for i := range searchBands {
		vals[2+i], vals[2+len(searchBands)+i] = &counts[i], &bands[i]
	}
	// #nosec G201 -- the columns are made of searchBands, constants
	if err := tx.QueryRowContext(ctx, "SELECT count(*), coalesce(sum(a), 0), "+strings.Join(cols, ", ")+" FROM ("+matchesSQL+")",
		q, end, start).Scan(vals...); err != nil {
		return out, fmt.Errorf("search transactions: %w", err)
	}
	if out.Count == 0 {
		return out, nil
	}
	var candidates string
	for i, n := range counts {
		if n >= int64(limit) {
			candidates = joinJSONArrays(bands[:i+1])
			break
		}
	}
	if candidates == "" {
		// The limit-th newest time before the page's end, and every match
		// from it on.
		if err := tx.QueryRowContext(ctx, `WITH m AS (`+matchesSQL+`)
			SELECT json_group_array(r) FROM m WHERE e <= ?2
			AND e >= coalesce((SELECT e FROM m WHERE e < ?2 ORDER BY e DESC LIMIT 1 OFFSET ?3), e)`,
			q, end, limit-1).Scan(&candidates); err != nil {
			return out, fmt.Errorf("search transactions: %w", err)
		}
	}
	before, beforeArgs := "", []any(nil)
	if f.BeforeID != "" {
		before = " AND (coalesce(created_epoch, 0) < ? OR (coalesce(created_epoch, 0) = ? AND id < ?))"
		beforeArgs = []any{f.BeforeEpoch, f.BeforeEpoch, f.BeforeID}
	}
	args := append(append([]any{candidates}, beforeArgs...), limit)
	// #nosec G202 -- before is a constant; values are arguments
	out.Rows, err = queryAll(ctx, tx, "search transactions", scanTxRow, "SELECT "+txRowColumns+
		" FROM v_transactions WHERE id IN (SELECT id FROM transactions WHERE rowid IN (SELECT value FROM json_each(?))"+
		before+txOrder+" LIMIT ?)"+txOrder, args...)
	return out, err
}

// joinJSONArrays joins JSON arrays of numbers ("[1,2]", "[]") into one.
func joinJSONArrays(arrays []string) string {
	var parts []string
	for _, a := range arrays {
		if a = strings.TrimSuffix(strings.TrimPrefix(a, "["), "]"); a != "" {
			parts = append(parts, a)
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}
