package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// searchDay is how far back from a page's start (the cursor's time, or
// the newest transaction's) a search's one pass over its matches keeps
// their rowids aside while it counts and sums them: when that day holds a
// page of matches, the page is its newest, read from the table.
const searchDay = 86400

// searchRestMax: a search of several words, whose pass over the index may
// cost far more than its matches (each word's, before they are put
// together), keeps aside the rowids of all of them too when there are at
// most this many, for a page that the day does not fill (words seldom used
// lately). Otherwise such a page is found in two more passes.
var searchRestMax int64 = 2000

// searchMoneyVersion is the schema version that adds
// transactions_search_money.
var searchMoneyVersion = versionOf(searchMoney, "transactions_search_money")

// versionOf is the schema version of the migration whose SQL is sql, which
// adds what.
func versionOf(sql, what string) int {
	for i, m := range migrations {
		if m.sql == sql {
			return i + 1
		}
	}
	panic("store: no migration adds " + what)
}

// hasSearchMoney says whether the mirror has transactions_search_money
// (one opened read-only may be older), for ListTransactions to find the
// page of a search without other conditions with searchMoneyPage.
func (s *Store) hasSearchMoney() bool {
	return s.readOnlySchema == 0 || s.readOnlySchema >= searchMoneyVersion
}

// searchKeysVersion is the schema version that adds
// transactions_search_amount and transactions_search_time.
var searchKeysVersion = versionOf(searchKeys, "transactions_search_amount")

// searchKeysFill is 0021_search_keys.sql's statements that fill
// transactions_search_amount and transactions_search_time anew from
// transactions_search and transactions_search_money, then merge each.
var searchKeysFill = func() []string {
	var out []string
	for _, t := range []string{"transactions_search_amount", "transactions_search_time"} {
		out = append(out,
			sqlStatement(searchKeys, "INSERT INTO "+t+" ("+t+") VALUES ('delete-all');"),
			sqlStatement(searchKeys, "INSERT INTO "+t+" (rowid, "),
			sqlStatement(searchKeys, "INSERT INTO "+t+" ("+t+") VALUES ('optimize');"))
	}
	return out
}()

// hasSearchKeys says whether the mirror has transactions_search_amount
// and transactions_search_time (one opened read-only may be older).
func (s *Store) hasSearchKeys() bool {
	return s.readOnlySchema == 0 || s.readOnlySchema >= searchKeysVersion
}

// searchKeysWide says whether any transaction is in neither
// transactions_search_amount nor transactions_search_time (an amount, a
// time or a rowid beyond 32 bits): the condition of the partial index
// transactions_search_money_wide, written as it is.
const searchKeysWide = `SELECT EXISTS (SELECT 1 FROM transactions_search_money
	WHERE amount_base_units NOT BETWEEN -2147483648 AND 2147483647 OR created_epoch NOT BETWEEN -2147483648 AND 2147483647 OR rowid >= 4294967296)`

// keysWords says whether every word of a search is one token of the
// indexes' tokenizer (letters, digits and combining marks), as
// transactions_search_amount and transactions_search_time, which keep no
// positions, need: a word such as "7-eleven" is a phrase of two.
func keysWords(words string) bool {
	for _, r := range words {
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.Mn, r) && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// searchKeysPage is searchMoneyPage from transactions_search_amount and
// transactions_search_time alone: the count and the sum of the matches'
// keys (amount << 32 | rowid) in one walk of the first, and the page's
// candidates from the keys (time << 32 | rowid) of the second: those of
// the cursor's second, and the newest limit+searchKeysMargin before it,
// of which those newer than the oldest second among them are complete
// (when they are fewer than a page, every match from that second on).
// ok is false, and nothing read, when some transaction is in neither
// index. All in one read transaction.
func (s *Store) searchKeysPage(ctx context.Context, q string, f TxFilter, before string, beforeArgs []any, limit int) (out TxList, ok bool, err error) {
	tx, err := s.ro.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return out, false, fmt.Errorf("search transactions: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var wide bool
	if err := tx.QueryRowContext(ctx, searchKeysWide).Scan(&wide); err != nil || wide {
		return out, false, err
	}
	if q, err = keysQuery(ctx, tx, f.Search, q); err != nil {
		return out, false, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(rowid >> 32), 0) FROM transactions_search_amount
		WHERE transactions_search_amount MATCH ?`, q).Scan(&out.Count, &out.Sum); err != nil {
		return out, false, fmt.Errorf("search transactions: %w", err)
	}
	if out.Count == 0 {
		return out, true, nil
	}
	// The page's candidates: every match of the cursor's second (the
	// final statement keeps those older than its id), and the newest of
	// those before it, up to olderMax.
	var candidates []int64
	olderMax := int64(math.MaxInt64)
	if f.BeforeID != "" && f.BeforeEpoch <= math.MaxInt32 {
		second := max(f.BeforeEpoch, math.MinInt32) << 32
		olderMax = second - 1
		if candidates, err = queryKeys(ctx, tx, `SELECT rowid FROM transactions_search_time WHERE transactions_search_time MATCH ?
			AND rowid BETWEEN ? AND ?`, q, second, second|math.MaxUint32); err != nil {
			return out, false, err
		}
	}
	older, err := queryKeys(ctx, tx, `SELECT rowid FROM transactions_search_time WHERE transactions_search_time MATCH ?
		AND rowid <= ? ORDER BY rowid DESC LIMIT ?`, q, olderMax, limit+searchKeysMargin)
	if err != nil {
		return out, false, err
	}
	if len(older) == limit+searchKeysMargin {
		// Those of the oldest second among them may be incomplete: the
		// others are enough if they fill a page, else every match from
		// that second on.
		oldest := older[len(older)-1] >> 32
		if i := slices.IndexFunc(older, func(k int64) bool { return k>>32 == oldest }); i >= limit {
			older = older[:i]
		} else if older, err = queryKeys(ctx, tx, `SELECT rowid FROM transactions_search_time WHERE transactions_search_time MATCH ?
			AND rowid BETWEEN ? AND ?`, q, oldest<<32, olderMax); err != nil {
			return out, false, err
		}
	}
	candidates = append(candidates, older...)
	ids := make([]string, len(candidates))
	for i, k := range candidates {
		ids[i] = strconv.FormatInt(k&math.MaxUint32, 10)
	}
	// #nosec G202 -- before is a constant; values are arguments
	out.Rows, err = queryAll(ctx, tx, "search transactions", scanTxRow, "SELECT "+txRowColumns+
		" FROM v_transactions WHERE id IN (SELECT id FROM transactions WHERE rowid IN (SELECT value FROM json_each(?))"+
		before+txOrder+" LIMIT ?)"+txOrder, slices.Concat([]any{"[" + strings.Join(ids, ",") + "]"}, beforeArgs, []any{limit})...)
	return out, true, err
}

// keysQuery is the search of words for transactions_search_amount and
// transactions_search_time: each word of lower-case ASCII letters and
// digits that is the prefix of at most keysTerms terms (from
// transactions_search_terms) as those terms, ORed; any other as in q
// (SearchQuery's prefix).
func keysQuery(ctx context.Context, tx *sql.Tx, words, q string) (string, error) {
	fields := strings.Fields(words)
	if len(fields) > 16 {
		return q, nil
	}
	parts := make([]string, 0, len(fields))
	for _, w := range fields {
		prefix := `"` + strings.ReplaceAll(w, `"`, `""`) + `"*`
		lw := strings.ToLower(w)
		if strings.IndexFunc(lw, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') }) >= 0 {
			parts = append(parts, prefix)
			continue
		}
		terms, err := prefixTerms(ctx, tx, lw)
		if err != nil {
			return "", err
		}
		if len(terms) == 0 || len(terms) > keysTerms {
			parts = append(parts, prefix)
		} else {
			parts = append(parts, "("+strings.Join(terms, " OR ")+")")
		}
	}
	return strings.Join(parts, " AND "), nil
}

// prefixTerms is the terms of transactions_search_terms that start with
// lw (lower-case ASCII), quoted, up to keysTerms+1 of them.
func prefixTerms(ctx context.Context, tx *sql.Tx, lw string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, "SELECT term FROM transactions_search_terms WHERE term >= ? AND term < ? LIMIT ?",
		lw, lw[:len(lw)-1]+string(lw[len(lw)-1]+1), keysTerms+1)
	if err != nil {
		return nil, fmt.Errorf("search transactions: %w", err)
	}
	defer rows.Close()
	var terms []string
	for rows.Next() {
		var term string
		if err := rows.Scan(&term); err != nil {
			return nil, fmt.Errorf("search transactions: %w", err)
		}
		terms = append(terms, `"`+strings.ReplaceAll(term, `"`, `""`)+`"`)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search transactions: %w", err)
	}
	return terms, nil
}

// keysTerms is how many terms a word's prefix may stand for to be
// searched as them.
const keysTerms = 8

// searchKeysMargin is how many keys past a page searchKeysPage reads
// first, for the transactions of the same second as its last.
const searchKeysMargin = 16

// queryKeys reads a column of integers.
func queryKeys(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("search transactions: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var k int64
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("search transactions: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search transactions: %w", err)
	}
	return out, nil
}

// matchesSQL is each match of the search (?1, an FTS5 query) as r, its
// transaction's rowid, e, its created_epoch (0 when unknown, as pages
// order it), and a, its amount.
const matchesSQL = `SELECT s.rowid AS r, coalesce(m.created_epoch, 0) AS e, m.amount_base_units AS a
	FROM transactions_search s JOIN transactions_search_money m ON m.rowid = s.rowid
	WHERE transactions_search MATCH ?1`

// searchMoneyPage is searchPage for a search without other filters,
// which reads every match's time and amount from
// transactions_search_money by rowid, and only a page of rows from the
// table. One pass counts and sums the matches and keeps aside the rowids
// of those of the day before the page's start, and of the others if
// there are at most searchRestMax of them; the page is the newest of the
// day's if it holds a page, else of them all, else (many older matches)
// of the matches from the limit-th newest time on, found in two more
// passes. before and beforeArgs are the cursor's condition on the table
// (listPage's). All in one read transaction.
func (s *Store) searchMoneyPage(ctx context.Context, q string, f TxFilter, before string, beforeArgs []any, limit int) (out TxList, err error) {
	tx, err := s.ro.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return out, fmt.Errorf("search transactions: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	// The page holds matches up to end (a cursor's time: the final
	// statement keeps those of that very second older than its id).
	end := int64(math.MaxInt64)
	start := f.BeforeEpoch
	if f.BeforeID != "" {
		end = f.BeforeEpoch
	} else if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(created_epoch), 0) FROM transactions").Scan(&start); err != nil {
		return out, fmt.Errorf("search transactions: %w", err)
	}
	// What the pass keeps beside the count and the sum: the day's rowids
	// (up to the page's end); how many of them are before it, when a
	// cursor's second may hold some that are not; the others' rowids.
	dayCond := fmt.Sprintf("e >= ?3 - %d", searchDay)
	cols := []string{"json_group_array(r) FILTER (WHERE " + dayCond + " AND e <= ?2)", "NULL", "NULL"}
	if f.BeforeID != "" {
		cols[1] = "count(*) FILTER (WHERE " + dayCond + " AND e < ?2)"
	}
	if len(strings.Fields(f.Search)) > 1 {
		cols[2] = "CASE WHEN count(*) <= ?4 THEN json_group_array(r) FILTER (WHERE NOT " + dayCond + ") END"
	}
	var day string
	var dayBefore sql.NullInt64
	var rest sql.NullString
	// #nosec G202 -- cols are constants
	if err := tx.QueryRowContext(ctx, "SELECT count(*), coalesce(sum(a), 0), "+strings.Join(cols, ", ")+" FROM ("+matchesSQL+")",
		q, end, start, searchRestMax).Scan(&out.Count, &out.Sum, &day, &dayBefore, &rest); err != nil {
		return out, fmt.Errorf("search transactions: %w", err)
	}
	if !dayBefore.Valid {
		dayBefore.Int64 = jsonArrayLen(day)
	}
	if out.Count == 0 {
		return out, nil
	}
	var candidates string
	switch {
	case dayBefore.Int64 >= int64(limit):
		candidates = day
	case rest.Valid:
		candidates = joinJSONArrays([]string{day, rest.String})
	default:
		// The limit-th newest time before the page's end, and every match
		// from it on.
		if err := tx.QueryRowContext(ctx, `WITH m AS (`+matchesSQL+`)
			SELECT json_group_array(r) FROM m WHERE e <= ?2
			AND e >= coalesce((SELECT e FROM m WHERE e < ?2 ORDER BY e DESC LIMIT 1 OFFSET ?3), e)`,
			q, end, limit-1).Scan(&candidates); err != nil {
			return out, fmt.Errorf("search transactions: %w", err)
		}
	}
	// #nosec G202 -- before is a constant; values are arguments
	out.Rows, err = queryAll(ctx, tx, "search transactions", scanTxRow, "SELECT "+txRowColumns+
		" FROM v_transactions WHERE id IN (SELECT id FROM transactions WHERE rowid IN (SELECT value FROM json_each(?))"+
		before+txOrder+" LIMIT ?)"+txOrder, slices.Concat([]any{candidates}, beforeArgs, []any{limit})...)
	return out, err
}

// jsonArrayLen is the length of a JSON array of numbers ("[1,2]", "[]").
func jsonArrayLen(a string) int64 {
	if len(a) <= 2 {
		return 0
	}
	return int64(strings.Count(a, ",")) + 1
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
