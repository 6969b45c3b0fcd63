package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// searchAgrees fails t unless transactions_search_money holds each
// transaction's rowid, created_epoch and amount, and every search of
// words (only the search: the path of searchMoneyPage), paged limit at a
// time, lists, counts and sums what a plain scan of transactions says.
func searchAgrees(t *testing.T, s *Store, step string, limit int, words ...string) {
	t.Helper()
	db := s.Reader()
	want := rows(t, db, "SELECT rowid, created_epoch, amount_base_units FROM transactions ORDER BY rowid")
	if got := rows(t, db, "SELECT rowid, created_epoch, amount_base_units FROM transactions_search_money ORDER BY rowid"); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("%s: transactions_search_money\n got %v\nwant %v", step, got, want)
	}
	for _, w := range words {
		var wantIDs []string
		var wantSum int64
		for _, r := range rows(t, db, `SELECT id, amount_base_units FROM transactions
			WHERE rowid IN (SELECT rowid FROM transactions_search WHERE transactions_search MATCH ?)
			ORDER BY created_epoch DESC, id DESC`, SearchQuery(w)) {
			wantIDs = append(wantIDs, r[0])
			n, _ := strconv.ParseInt(r[1], 10, 64)
			wantSum += n
		}
		if keysWords(w) {
			keysAgree(t, s, step, w)
		}
		got, count, sum := searchPages(t, s, TxFilter{Search: w, Limit: limit})
		if count != int64(len(wantIDs)) || sum != wantSum {
			t.Errorf("%s: search %q counts %d and sums %d, want %d and %d", step, w, count, sum, len(wantIDs), wantSum)
		}
		if !slices.Equal(got, wantIDs) {
			t.Errorf("%s: search %q pages\n got %v\nwant %v", step, w, got, wantIDs)
		}
	}
}

// keysAgree fails t unless transactions_search_amount and
// transactions_search_time give, for the search of words, the keys
// (amount or time << 32 | rowid) of what transactions_search matches,
// from the table (those whose amount or time fits in 32 bits), and both
// pass FTS5's integrity check.
func keysAgree(t *testing.T, s *Store, step, words string) {
	t.Helper()
	db := s.Reader()
	for _, c := range []struct{ table, key string }{
		{"transactions_search_amount", "amount_base_units"},
		{"transactions_search_time", "coalesce(created_epoch, 0)"},
	} {
		want := rows(t, db, `SELECT (`+c.key+` << 32) | rowid AS k FROM transactions
			WHERE rowid IN (SELECT rowid FROM transactions_search WHERE transactions_search MATCH ?)
			AND `+c.key+` BETWEEN -2147483648 AND 2147483647 ORDER BY k`, SearchQuery(words))
		got := rows(t, db, "SELECT rowid FROM "+c.table+" WHERE "+c.table+" MATCH ? ORDER BY rowid", SearchQuery(words))
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: %s for %q\n got %v\nwant %v", step, c.table, words, got, want)
		}
		if s.db == s.ro {
			continue // read-only
		}
		if _, err := s.db.Exec("INSERT INTO " + c.table + " (" + c.table + ") VALUES ('integrity-check')"); err != nil {
			t.Errorf("%s: %s: %v", step, c.table, err)
		}
	}
}

// searchPages follows f's pages to the end: the ids listed, and the count
// and sum every page says (the test fails if two pages disagree).
func searchPages(t *testing.T, s *Store, f TxFilter) (ids []string, count, sum int64) {
	t.Helper()
	for page := 0; ; page++ {
		list, err := s.ListTransactions(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if page == 0 {
			count, sum = list.Count, list.Sum
		} else if list.Count != count || list.Sum != sum {
			t.Fatalf("search %q page %d: count %d sum %d, the first page said %d and %d", f.Search, page, list.Count, list.Sum, count, sum)
		}
		for _, r := range list.Rows {
			ids = append(ids, r.ID)
		}
		if len(list.Rows) < f.Limit || page > 1000 {
			return ids, count, sum
		}
		last := list.Rows[len(list.Rows)-1]
		f.BeforeEpoch, f.BeforeID = last.Epoch, last.ID
	}
}

// offsetsWords are searched in the offsets fixture: common, rare and
// absent words, a prefix, two words.
var offsetsWords = []string{"woolworths", "ray", "o", "a", "osko", "chin", "transfer spending", "nothing-matches"}

// TestSearchMoneyFollowsEveryWriter: transactions_search_money, and the
// searches it answers, agree with the table after every kind of write:
// the upserts of syncs, polls, webhooks and write-back (UpsertTransactions,
// ApplyEvents) changing amounts, times and text, deletions by each path,
// the rules' annotations, SQL from another program, and the migration's
// fill of an existing mirror.
func TestSearchMoneyFollowsEveryWriter(t *testing.T) {
	ctx := context.Background()
	s := offsetsFixture(t, t.TempDir()+"/m.db")
	searchAgrees(t, s, "fixture", 2, offsetsWords...)

	oct := "2025-10-05T10:00:00+11:00"
	upsert(t, s,
		spec{id: "chin", account: "spend", desc: "Chin Chin", cents: -20000, typ: "Purchase", method: "CARD_PIN", category: "groceries", parent: "home", created: oct},
		spec{id: "salary", account: "joint", desc: "Acme Analytics Pty Ltd", cents: 430000, typ: "Salary", created: "2025-09-30T10:00:00+10:00"},
		spec{id: "new-held", account: "spend", desc: "Coles", cents: -999, status: "HELD", hold: -999, method: "CONTACTLESS", created: oct},
	)
	searchAgrees(t, s, "upserted", 2, append(offsetsWords, "coles", "acme")...)

	later := spec{id: "new-held", account: "spend", desc: "Coles Express", cents: -1250, method: "CONTACTLESS", created: "2025-10-06T09:00:00+11:00"}.resource(t)
	if _, err := s.ApplyEvents(ctx, EventBatch{Upserts: []bank.Transaction{later}, Deletes: []string{"woolies2"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteTransaction(ctx, "liam"); err != nil {
		t.Fatal(err)
	}
	searchAgrees(t, s, "webhook batch and deletion", 2, append(offsetsWords, "coles", "express")...)

	// The rules' annotations, as the rules write them.
	if _, err := s.db.ExecContext(ctx, `INSERT INTO transaction_annotations (transaction_id, exclude_from_spending, exclude_rule, note)
		VALUES ('chin', 1, 'r', 'x')`); err != nil {
		t.Fatal(err)
	}
	// Another program's SQL.
	for _, q := range []string{
		"UPDATE transactions SET amount_base_units = amount_base_units - 7 WHERE id IN ('chin', 'woolies1')",
		"UPDATE transactions SET created_epoch = created_epoch + 86400 WHERE id = 'salary'",
		"UPDATE transactions SET created_epoch = NULL WHERE id = 'footy'",
		"DELETE FROM transactions WHERE id = 'mei'",
	} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	searchAgrees(t, s, "annotations and plain SQL", 1, offsetsWords...)

	if _, err := s.db.ExecContext(ctx, "UPDATE transactions_search_money SET amount_base_units = 0; "+searchMoney); err != nil {
		t.Fatal(err)
	}
	searchAgrees(t, s, "migrated", 3, offsetsWords...)

	// The migration's statements that fill it, run with its triggers gone.
	if _, err := s.db.ExecContext(ctx, `DROP TRIGGER transactions_search_money_insert;
		INSERT INTO transactions_search_money VALUES (999999, 1, 1);
		DELETE FROM transactions_search_money WHERE rowid % 2 = 0`); err != nil {
		t.Fatal(err)
	}
	upsert(t, s, spec{id: "after-drop", account: "spend", desc: "Woolworths Metro", cents: -420, created: oct})
	for _, q := range append(triggerStatements(t, "transactions_search_money_insert"), searchMoneyFill...) {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	searchAgrees(t, s, "rebuilt", 2, append(offsetsWords, "metro")...)
}

// TestSearchMoneyFilledByTheMigration: a mirror of the schema version
// before it gets transactions_search_money filled, and its searches agree
// with the table.
func TestSearchMoneyFilledByTheMigration(t *testing.T) {
	s, err := Open(context.Background(), LoadFixture(t, searchMoneyVersion-1), WithMigrationBackup(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := queryInt(t, s, "SELECT count(*) FROM transactions_search_money"); n < 20 {
		t.Fatalf("%d rows", n)
	}
	var desc string
	if err := s.Reader().QueryRow("SELECT description FROM transactions ORDER BY rowid LIMIT 1").Scan(&desc); err != nil {
		t.Fatal(err)
	}
	searchAgrees(t, s, "migrated", 2, strings.Fields(desc)[0], "a", "e")
}

// TestSearchOfAnOlderMirrorReadOnly: the dashboard's store, opened
// read-only beside a daemon that has not migrated the mirror yet, searches
// a mirror without transactions_search_money as it did before it.
func TestSearchOfAnOlderMirrorReadOnly(t *testing.T) {
	s, err := OpenReadOnly(context.Background(), LoadFixture(t, searchMoneyVersion-1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := queryInt(t, s, "SELECT count(*) FROM sqlite_schema WHERE name = 'transactions_search_money'"); n != 0 {
		t.Fatalf("the fixture has transactions_search_money")
	}
	for _, w := range []string{"a", "e", "nothing-matches"} {
		want := rows(t, s.Reader(), `SELECT count(*), coalesce(sum(amount_base_units), 0) FROM transactions
			WHERE rowid IN (SELECT rowid FROM transactions_search WHERE transactions_search MATCH ?)`, SearchQuery(w))[0]
		ids, count, sum := searchPages(t, s, TxFilter{Search: w, Limit: 3})
		if got := []string{strconv.FormatInt(count, 10), strconv.FormatInt(sum, 10)}; !slices.Equal(got, want) || int64(len(ids)) != count {
			t.Errorf("search %q: count and sum %v (%d listed), want %v", w, got, len(ids), want)
		}
	}
}

// TestSearchPagesNearAndFar: a search's pages are right whether its
// newest matches lie within the day its first pass keeps aside (a word
// used every few minutes), before it (a word last used months ago), or
// straddle it, whether the older matches are kept aside or found in a
// second pass, with several transactions in the same second, some
// without a time, and at page sizes that end inside a second.
func TestSearchPagesNearAndFar(t *testing.T) {
	ctx := context.Background()
	s, _ := mustOpen(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Unix()
	insert := `INSERT INTO transactions (id, account_id, status, description, message, is_categorizable,
		amount_currency, amount_value, amount_base_units, created_at, deep_link_url, raw_full, content_hash, first_seen_at, updated_at, created_epoch)
		VALUES (?, 'acc', 'SETTLED', ?, ?, 1, 'AUD', '-1.00', ?, '2026-01-02T03:04:05+11:00', '', '{}', x'00', '', '', ?)`
	if err := s.InTx(ctx, func(tx *sql.Tx) error {
		for i := range 400 {
			// Every 7 minutes for the newest 300 (some in the same second
			// as another), then every 5 days.
			epoch := any(now - int64(i)*420)
			if i%10 == 3 {
				epoch = now - int64(i-1)*420
			}
			if i >= 300 {
				epoch = now - 300*420 - int64(i-300)*5*86400
			}
			if i%97 == 50 {
				epoch = nil
			}
			desc := "Coffee Cart"
			switch {
			case i >= 300:
				desc = "Annual Dentist"
			case i%5 == 0:
				desc = "Grocer Coffee"
			}
			msg := any(nil)
			if i%40 == 0 || i == 350 {
				msg = "thanks " + strconv.Itoa(i)
			}
			if _, err := tx.ExecContext(ctx, insert, fmt.Sprintf("tx-%03d", (i*37)%400), desc, msg, -100-i, epoch); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	words := []string{"coffee", "grocer", "dentist", "thanks", "cart", "annual", "zzz", "coffee cart", "annual dentist", "grocer coffee", "thanks 3", "dentist thanks"}
	// The older matches kept aside in the first pass, or found in a
	// second one.
	defer func(n int64) { searchRestMax = n }(searchRestMax)
	for _, restMax := range []int64{searchRestMax, 4, 0} {
		searchRestMax = restMax
		for _, limit := range []int{1, 2, 3, 50, 120} {
			searchAgrees(t, s, fmt.Sprintf("limit %d, at most %d older kept aside", limit, restMax), limit, words...)
		}
	}
}

// TestSearchReadsOnlyItsMatches: a search reads its matches from the
// search index and each one's time and amount from
// transactions_search_money by rowid, never a scan of either table.
func TestSearchReadsOnlyItsMatches(t *testing.T) {
	s, _ := mustOpen(t)
	plan := queryPlan(t, s, "SELECT count(*), sum(a) FROM ("+strings.Replace(matchesSQL, "?1", "'x'", 1)+")")
	if !strings.Contains(plan, "SCAN s VIRTUAL TABLE") || !strings.Contains(plan, "SEARCH m USING INTEGER PRIMARY KEY") {
		t.Errorf("plan: %s", plan)
	}
}

// triggerStatements is the CREATE statement of each named trigger of
// 0016_search_money.sql.
func triggerStatements(t *testing.T, names ...string) []string {
	t.Helper()
	var out []string
	for _, o := range triggersOf(searchMoney, "transactions_search_money_") {
		if slices.Contains(names, o.name) {
			out = append(out, o.sql)
		}
	}
	if len(out) != len(names) {
		t.Fatalf("triggers %v: found %d", names, len(out))
	}
	return out
}

// searchMoneyFill is 0016_search_money.sql's last two statements, which fill
// transactions_search_money anew from transactions.
var searchMoneyFill = []string{
	sqlStatement(searchMoney, "DELETE FROM transactions_search_money;"),
	sqlStatement(searchMoney, "INSERT INTO transactions_search_money "),
}

// TestSearchKeysFallBack: a transaction whose amount does not fit in the
// keys of transactions_search_amount is in neither index, and a word of
// two tokens is a phrase they cannot answer; either way the search counts,
// sums and pages what a plain scan says, as before them.
func TestSearchKeysFallBack(t *testing.T) {
	ctx := context.Background()
	s := offsetsFixture(t, t.TempDir()+"/m.db")
	upsert(t, s, spec{id: "house", account: "spend", desc: "Woolworths land deal", cents: -5_000_000_000, created: "2025-10-05T10:00:00+11:00"})
	if n := queryInt(t, s, "SELECT count(*) FROM transactions_search_amount WHERE transactions_search_amount MATCH 'deal'"); n != 0 {
		t.Fatalf("the wide amount is in transactions_search_amount (%d)", n)
	}
	var wide bool
	if err := s.Reader().QueryRowContext(ctx, searchKeysWide).Scan(&wide); err != nil || !wide {
		t.Fatalf("searchKeysWide: %v, %v", wide, err)
	}
	if plan := queryPlan(t, s, searchKeysWide); !strings.Contains(plan, "transactions_search_money_wide") {
		t.Errorf("searchKeysWide does not use its index: %s", plan)
	}
	searchAgrees(t, s, "wide amount", 2, "woolworths", "deal", "wool")
	if _, err := s.DeleteTransaction(ctx, "house"); err != nil {
		t.Fatal(err)
	}
	searchAgrees(t, s, "wide amount deleted", 2, "woolworths", "wool")
	if !keysWords("woolworths café 42") || keysWords("7-eleven") || keysWords(`a"b`) {
		t.Error("keysWords")
	}
	// A phrase: searched through transactions_search alone.
	upsert(t, s, spec{id: "seven", account: "spend", desc: "7-Eleven Fitzroy", cents: -350, created: "2025-10-06T10:00:00+11:00"})
	searchAgrees(t, s, "phrase", 2, "7-eleven", "eleven")
}

// TestSearchKeysPagesInOneSecond: pages of a search whose matches share
// seconds by the dozen (more than searchKeysPage reads past a page) list
// them all in order, from the first page and from a cursor inside such a
// second.
func TestSearchKeysPagesInOneSecond(t *testing.T) {
	ctx := context.Background()
	s, _ := mustOpen(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Unix()
	insert := `INSERT INTO transactions (id, account_id, status, description, message, is_categorizable,
		amount_currency, amount_value, amount_base_units, created_at, deep_link_url, raw_full, content_hash, first_seen_at, updated_at, created_epoch)
		VALUES (?, 'acc', 'SETTLED', ?, NULL, 1, 'AUD', '-1.00', ?, '2026-01-02T03:04:05+11:00', '', '{}', x'00', '', '', ?)`
	if err := s.InTx(ctx, func(tx *sql.Tx) error {
		for i := range 130 {
			// Three seconds of 40 tram fares each (their ids out of
			// insertion order), then ten a minute apart.
			epoch := now - int64(min(i/40, 3))*60 - int64(max(i-120, 0))*60
			desc := "Tram Fare"
			if i%9 == 4 {
				desc = "Ferry Fare"
			}
			if _, err := tx.ExecContext(ctx, insert, fmt.Sprintf("tx-%03d", (i*53)%130), desc, -100-i, epoch); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{1, 3, 7, 30, 50} {
		searchAgrees(t, s, fmt.Sprintf("limit %d", limit), limit, "tram", "fare", "ferry", "tr")
	}
}
