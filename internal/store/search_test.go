package store

import (
	"context"
	"database/sql"
	"slices"
	"testing"
)

// searchIDs is the ids of the transactions transactions_search matches
// for the words typed, sorted.
func searchIDs(t *testing.T, s *Store, words string) []string {
	t.Helper()
	list, err := s.ListTransactions(context.Background(), TxFilter{Search: words, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range list.Rows {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	if int(list.Count) != len(ids) {
		t.Errorf("search %q counts %d, lists %d", words, list.Count, len(ids))
	}
	return ids
}

// TestSearchIndexFollowsEveryWrite: the triggers keep transactions_search
// in step with inserts, updates of each indexed column, tags added and
// removed, and deletions, whoever writes them (plain SQL here).
func TestSearchIndexFollowsEveryWrite(t *testing.T) {
	s, _ := mustOpen(t)
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if err := s.InTx(ctx, func(tx *sql.Tx) error { _, err := tx.ExecContext(ctx, q, args...); return err }); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	insert := `INSERT INTO transactions (id, account_id, status, raw_text, description, message, is_categorizable,
		amount_currency, amount_value, amount_base_units, created_at, note, deep_link_url, raw_full, content_hash, first_seen_at, updated_at, created_epoch)
		VALUES (?, 'acc', 'SETTLED', ?, ?, ?, 1, 'AUD', '-1.00', -100, '2026-01-02T03:04:05+11:00', ?, '', '{}', x'00', '', '', ?)`
	exec(insert, "tx-1", "SQ *BEAN THERE", "Bean There Café", nil, nil, 1)
	exec(insert, "tx-2", nil, "Woolworths", "dinner with Sam", "split 3 ways", 2)
	for words, want := range map[string][]string{
		"cafe": {"tx-1"}, "CAFÉ": {"tx-1"}, "bean": {"tx-1"}, "sq": {"tx-1"}, "wool": {"tx-2"},
		"sam": {"tx-2"}, "split ways": {"tx-2"}, "nothing": nil, `"quoted" AND (x`: nil, "*": nil,
	} {
		if got := searchIDs(t, s, words); !slices.Equal(got, want) {
			t.Errorf("search %q: %v, want %v", words, got, want)
		}
	}
	exec(`UPDATE transactions SET note = 'for the office' WHERE id = 'tx-1'`)
	exec(`UPDATE transactions SET description = 'Coles' WHERE id = 'tx-2'`)
	exec(`UPDATE transactions SET status = 'HELD' WHERE id = 'tx-1'`) // not indexed: the row stays found
	if got := searchIDs(t, s, "office"); !slices.Equal(got, []string{"tx-1"}) {
		t.Errorf("after a note was set: %v", got)
	}
	if got := searchIDs(t, s, "woolworths"); got != nil {
		t.Errorf("the old description is still found: %v", got)
	}
	if got := searchIDs(t, s, "coles"); !slices.Equal(got, []string{"tx-2"}) {
		t.Errorf("the new description: %v", got)
	}
	exec(`INSERT INTO tags (id) VALUES ('Holiday 2026') ON CONFLICT DO NOTHING`)
	exec(`INSERT INTO transaction_tags (transaction_id, tag_id) VALUES ('tx-2', 'Holiday 2026')`)
	if got := searchIDs(t, s, "holiday"); !slices.Equal(got, []string{"tx-2"}) {
		t.Errorf("after tagging: %v", got)
	}
	if got := searchIDs(t, s, "coles holiday"); !slices.Equal(got, []string{"tx-2"}) {
		t.Errorf("a description and a tag together: %v", got)
	}
	exec(`DELETE FROM transaction_tags WHERE transaction_id = 'tx-2'`)
	if got := searchIDs(t, s, "holiday"); got != nil {
		t.Errorf("after untagging: %v", got)
	}
	exec(`DELETE FROM transactions WHERE id = 'tx-1'`)
	if got := searchIDs(t, s, "office"); got != nil {
		t.Errorf("after deletion: %v", got)
	}
	var n int
	if err := s.Reader().QueryRow(`SELECT count(*) FROM transactions_search`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the index holds %d rows (%v), want 1", n, err)
	}
}

// TestSearchIndexBuiltForAnOlderMirror: the migration indexes what a
// mirror of schema version 9 already holds.
func TestSearchIndexBuiltForAnOlderMirror(t *testing.T) {
	path := LoadFixture(t, 9)
	s, err := Open(context.Background(), path, WithMigrationBackup(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var id, desc string
	if err := s.Reader().QueryRow(`SELECT id, description FROM transactions t
		WHERE EXISTS (SELECT 1 FROM transaction_tags WHERE transaction_id = t.id) ORDER BY id LIMIT 1`).Scan(&id, &desc); err != nil {
		t.Fatal(err)
	}
	var indexed, live int
	if err := s.Reader().QueryRow(`SELECT (SELECT count(*) FROM transactions_search), (SELECT count(*) FROM transactions)`).Scan(&indexed, &live); err != nil {
		t.Fatal(err)
	}
	if indexed != live || live == 0 {
		t.Errorf("%d of %d transactions indexed", indexed, live)
	}
	if got := searchIDs(t, s, desc); !slices.Contains(got, id) {
		t.Errorf("search %q does not find %s: %v", desc, id, got)
	}
}
