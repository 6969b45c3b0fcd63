package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
)

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }
func (c *clock) advance()       { c.t = c.t.Add(time.Second) }

func mustOpen(tb testing.TB) (*Store, *clock) {
	tb.Helper()
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s, err := Open(context.Background(), filepath.Join(tb.TempDir(), "m.db"), WithClock(c.now))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s, c
}

func ptr[T any](v T) *T { return &v }

func tx(id, status string, units int64, tags ...string) bank.Transaction {
	t := bank.Transaction{
		ID: id, Status: status, Description: "Coffee " + id, IsCategorizable: true,
		Amount:    bank.Money{CurrencyCode: "AUD", Value: "-4.50", ValueInBaseUnits: units},
		CreatedAt: "2026-01-01T10:00:00+11:00", DeepLinkURL: "up://transaction/" + id,
		AccountID: "acc1", CategoryID: ptr("restaurants-and-cafes"), ParentCategoryID: ptr("good-life"),
		TagIDs: tags, Raw: []byte(`{"id":"` + id + `","status":"` + status + `"}`),
	}
	if status == "HELD" {
		t.HoldInfo = &bank.HoldInfo{Amount: t.Amount}
	} else {
		t.SettledAt = ptr("2026-01-02T10:00:00+11:00")
	}
	return t
}

func history(t *testing.T, s *Store, id string) []string {
	t.Helper()
	rows, err := s.Reader().Query("SELECT change || ':' || coalesce(raw, 'NULL') FROM transaction_history WHERE transaction_id = ? ORDER BY seq", id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func queryInt(t *testing.T, s *Store, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := s.Reader().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestOpenCreatesPrivateWALFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	var mode string
	var sync int
	if err := s.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v", mode, err)
	}
	if err := s.db.QueryRow("PRAGMA synchronous").Scan(&sync); err != nil || sync != 2 {
		t.Errorf("synchronous = %d, %v; want 2 (FULL)", sync, err)
	}
	if v := queryInt(t, s, "PRAGMA user_version"); v != int64(SchemaVersion()) {
		t.Errorf("user_version = %d", v)
	}
}

func TestOpenTwiceAndRefuseNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(context.Background(), path)
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("err = %v, want ErrSchemaTooNew", err)
	}
}

func TestUpsertRecordsOnlyRealChanges(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()

	held := tx("t1", "HELD", -450, "café", "Holiday 2024")
	res, err := s.UpsertTransactions(ctx, []bank.Transaction{held})
	if err != nil || res.Created != 1 {
		t.Fatalf("create: %+v %v", res, err)
	}
	var updated string
	s.Reader().QueryRow("SELECT updated_at FROM transactions WHERE id = 't1'").Scan(&updated)

	c.advance()
	res, err = s.UpsertTransactions(ctx, []bank.Transaction{held})
	if err != nil || res.Unchanged != 1 || res.Changed() != 0 {
		t.Fatalf("resync: %+v %v", res, err)
	}
	var updated2 string
	s.Reader().QueryRow("SELECT updated_at FROM transactions WHERE id = 't1'").Scan(&updated2)
	if updated != updated2 {
		t.Errorf("updated_at moved on an unchanged resync: %s -> %s", updated, updated2)
	}

	c.advance()
	settled := tx("t1", "SETTLED", -500, "café")
	res, err = s.UpsertTransactions(ctx, []bank.Transaction{settled})
	if err != nil || res.Settled != 1 {
		t.Fatalf("settle: %+v %v", res, err)
	}
	c.advance()
	retagged := tx("t1", "SETTLED", -500, "café", "work")
	if res, err = s.UpsertTransactions(ctx, []bank.Transaction{retagged}); err != nil || res.Updated != 1 {
		t.Fatalf("retag: %+v %v", res, err)
	}
	got := history(t, s, "t1")
	want := []string{"created:NULL", "settled:" + string(held.Raw), "updated:" + string(settled.Raw)}
	if len(got) != len(want) {
		t.Fatalf("history = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("history[%d] = %s, want %s", i, got[i], want[i])
		}
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transaction_tags WHERE transaction_id = 't1'"); n != 2 {
		t.Errorf("tags = %d, want 2", n)
	}
	if n := queryInt(t, s, "SELECT amount_base_units FROM transactions WHERE id = 't1'"); n != -500 {
		t.Errorf("amount = %d", n)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM v_transactions WHERE id = 't1' AND tags = 'café,work' AND amount = -4.5"); n != 1 {
		t.Errorf("v_transactions row missing or wrong")
	}

	ok, err := s.DeleteTransaction(ctx, "t1")
	if err != nil || !ok {
		t.Fatalf("delete: %v %v", ok, err)
	}
	if ok, err := s.DeleteTransaction(ctx, "t1"); err != nil || ok {
		t.Fatalf("second delete: %v %v", ok, err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transaction_tags"); n != 0 {
		t.Errorf("tags left after delete: %d", n)
	}
	if h := history(t, s, "t1"); len(h) != 4 || h[3] != "deleted:"+string(retagged.Raw) {
		t.Errorf("history after delete = %v", h)
	}
}

func TestNullMoneyColumns(t *testing.T) {
	s, _ := mustOpen(t)
	t1 := tx("t1", "SETTLED", -100)
	t1.ForeignAmount = &bank.Money{CurrencyCode: "USD", Value: "-0.70", ValueInBaseUnits: -70}
	t1.RoundUp = &bank.RoundUp{Amount: bank.Money{CurrencyCode: "AUD", Value: "-0.50", ValueInBaseUnits: -50}}
	if _, err := s.UpsertTransactions(context.Background(), []bank.Transaction{t1}); err != nil {
		t.Fatal(err)
	}
	var fx sql.NullInt64
	var boost, hold sql.NullString
	err := s.Reader().QueryRow("SELECT foreign_amount_base_units, round_up_boost_value, hold_amount_value FROM transactions").Scan(&fx, &boost, &hold)
	if err != nil {
		t.Fatal(err)
	}
	if !fx.Valid || fx.Int64 != -70 || boost.Valid || hold.Valid {
		t.Errorf("fx=%v boost=%v hold=%v", fx, boost, hold)
	}
}

func TestListingResumesAndDeletesOnlyWhenComplete(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	// Mirror holds t1..t3; the bank now has t1, t3 and a new t4.
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("t1", "SETTLED", -1), tx("t2", "HELD", -2), tx("t3", "SETTLED", -3)}); err != nil {
		t.Fatal(err)
	}
	c.advance()
	l, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour))
	if err != nil || l.Resumed || l.NextURL != "http://x/p1" {
		t.Fatalf("begin: %+v %v", l, err)
	}
	if _, err := s.SaveListingPage(ctx, &l, []bank.Transaction{tx("t4", "SETTLED", -4), tx("t3", "SETTLED", -3)}, "http://x/p2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishListing(ctx, &l); err == nil {
		t.Fatal("finish with pages left succeeded")
	}
	// A transaction first seen during the listing (say from a webhook) is
	// not deleted even though the listing never saw it.
	c.advance()
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("t5", "HELD", -5)}); err != nil {
		t.Fatal(err)
	}

	// The process dies; a new one resumes at page 2.
	l2, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour))
	if err != nil || !l2.Resumed || l2.NextURL != "http://x/p2" || l2.Pages != 1 {
		t.Fatalf("resume: %+v %v", l2, err)
	}
	if _, err := s.SaveListingPage(ctx, &l2, []bank.Transaction{tx("t1", "SETTLED", -1)}, ""); err != nil {
		t.Fatal(err)
	}
	deleted, err := s.FinishListing(ctx, &l2)
	if err != nil {
		t.Fatal(err)
	}
	if len(deleted) != 1 || deleted[0] != "t2" {
		t.Fatalf("deleted = %v, want [t2]", deleted)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transactions"); n != 4 {
		t.Errorf("live = %d, want 4 (t1 t3 t4 t5)", n)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM sync_seen"); n != 0 {
		t.Errorf("sync_seen not cleared: %d", n)
	}
	// A finished listing is not resumed.
	l3, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour))
	if err != nil || l3.Resumed {
		t.Fatalf("begin after finish: %+v %v", l3, err)
	}
}

func TestStaleListingStartsOver(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	l, _ := s.BeginListing(ctx, "transactions", "http://x/p1", c.t)
	if _, err := s.SaveListingPage(ctx, &l, []bank.Transaction{tx("t1", "SETTLED", -1)}, "http://x/p2"); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(48 * time.Hour)
	l2, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-24*time.Hour))
	if err != nil || l2.Resumed || l2.NextURL != "http://x/p1" {
		t.Fatalf("stale listing resumed: %+v %v", l2, err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM sync_seen"); n != 0 {
		t.Errorf("sync_seen kept from stale listing: %d", n)
	}
}

// RestartListing starts over a listing in progress, however recent, and
// its first writer can no longer save into it.
func TestRestartListingStartsOverAListingInProgress(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	l, _ := s.BeginListing(ctx, "transactions", "http://x/p1", c.t)
	if _, err := s.SaveListingPage(ctx, &l, []bank.Transaction{tx("t1", "SETTLED", -1)}, "http://x/p2"); err != nil {
		t.Fatal(err)
	}
	l2, err := s.RestartListing(ctx, "transactions", "http://x/p1")
	if err != nil || l2.Resumed || l2.NextURL != "http://x/p1" || l2.Pages != 0 {
		t.Fatalf("restarted listing: %+v %v; want a new one at p1", l2, err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM sync_seen"); n != 0 {
		t.Errorf("sync_seen kept from the listing started over: %d", n)
	}
	if _, err := s.SaveListingPage(ctx, &l, nil, ""); !errors.Is(err, ErrListingLost) {
		t.Errorf("the first writer's save: %v, want ErrListingLost", err)
	}
}

func TestAccountsRecordBalanceChanges(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	a := bank.Account{ID: "a1", DisplayName: "Spending", AccountType: "TRANSACTIONAL", OwnershipType: "INDIVIDUAL",
		Balance: bank.Money{CurrencyCode: "AUD", Value: "10.00", ValueInBaseUnits: 1000}, CreatedAt: "2020-01-01T00:00:00+11:00", Raw: []byte(`{}`)}
	for i, wantChanged := range []int{1, 0} {
		c.advance()
		n, err := s.UpsertAccounts(ctx, []bank.Account{a})
		if err != nil || n != wantChanged {
			t.Fatalf("upsert %d: %d %v", i, n, err)
		}
	}
	c.advance()
	a.Balance = bank.Money{CurrencyCode: "AUD", Value: "5.00", ValueInBaseUnits: 500}
	if n, err := s.UpsertAccounts(ctx, []bank.Account{a}); err != nil || n != 1 {
		t.Fatalf("changed balance: %d %v", n, err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM account_balances WHERE account_id = 'a1'"); n != 2 {
		t.Errorf("balance rows = %d, want 2", n)
	}
	if n := queryInt(t, s, "SELECT balance_base_units FROM accounts WHERE id = 'a1'"); n != 500 {
		t.Errorf("balance = %d", n)
	}
}

func TestReplaceListings(t *testing.T) {
	s, _ := mustOpen(t)
	ctx := context.Background()
	cats := []bank.Category{{ID: "good-life", Name: "Good Life", Raw: []byte(`{}`)},
		{ID: "takeaway", Name: "Takeaway", ParentID: ptr("good-life"), Raw: []byte(`{}`)}}
	if err := s.ReplaceCategories(ctx, cats); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceCategories(ctx, cats[:1]); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM categories"); n != 1 {
		t.Errorf("categories = %d, want 1", n)
	}
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("t1", "SETTLED", -1, "kept")}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceTags(ctx, []bank.Tag{{ID: "listed"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceTags(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM tags WHERE id = 'kept'"); n != 1 {
		t.Errorf("tag in use was removed")
	}
	if n := queryInt(t, s, "SELECT count(*) FROM tags"); n != 1 {
		t.Errorf("tags = %d, want 1", n)
	}
	att := bank.Attachment{ID: "at1", TransactionID: "t1", FileURLExpiresAt: "2026-01-01T00:00:00Z", Raw: []byte(`{}`)}
	if err := s.ReplaceAttachments(ctx, []bank.Attachment{att}); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM attachments"); n != 1 {
		t.Errorf("attachments = %d", n)
	}
}

func TestRunsAndStats(t *testing.T) {
	s, _ := mustOpen(t)
	ctx := context.Background()
	id1, err := s.StartRun(ctx, "full")
	if err != nil {
		t.Fatal(err)
	}
	id2, _ := s.StartRun(ctx, "incremental")
	if err := s.FinishRun(ctx, id2, 3, 1, 0, errors.New("boom")); err != nil {
		t.Fatal(err)
	}
	runs, err := s.RecentRuns(ctx, 10)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	if runs[0].ID != id2 || runs[0].Status != RunFailed || *runs[0].Error != "boom" || runs[0].Requests != 3 {
		t.Errorf("run 2 = %+v", runs[0])
	}
	if runs[1].ID != id1 || runs[1].Status != RunInterrupted {
		t.Errorf("stale run 1 = %+v", runs[1])
	}
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("t1", "HELD", -1), tx("t2", "SETTLED", -2)}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx)
	if err != nil || st.Transactions != 2 || st.Held != 1 || st.OldestHeldID == nil || *st.OldestHeldID != "t1" {
		t.Errorf("stats = %+v %v", st, err)
	}
}

func TestWebhookRegistrationMarkAndSecretGrace(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	if s.WebhookRegistering(ctx) {
		t.Fatal("registering before any registration")
	}
	if err := s.BeginWebhookRegistration(ctx); err != nil {
		t.Fatal(err)
	}
	if !s.WebhookRegistering(ctx) {
		t.Fatal("not registering after Begin")
	}
	c.t = c.t.Add(3 * time.Minute)
	if s.WebhookRegistering(ctx) {
		t.Error("an abandoned registration counts forever")
	}
	if err := s.EndWebhookRegistration(ctx); err != nil {
		t.Fatal(err)
	}

	if err := s.SaveWebhook(ctx, Webhook{ID: "w1", URL: "https://x/webhook", SecretKey: "s1", CreatedAt: "2026-01-01T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkWebhookDeleted(ctx, "w1"); err != nil {
		t.Fatal(err)
	}
	sec, err := s.WebhookSecrets(ctx)
	if err != nil || len(sec) != 1 || string(sec[0]) != "s1" {
		t.Fatalf("secrets just after deletion = %q, %v; want the old secret (grace)", sec, err)
	}
	c.t = c.t.Add(SecretGrace + time.Second)
	if sec, err := s.WebhookSecrets(ctx); err != nil || len(sec) != 0 {
		t.Fatalf("secrets after the grace = %q, %v", sec, err)
	}
	if hooks, err := s.ActiveWebhooks(ctx); err != nil || len(hooks) != 0 {
		t.Fatalf("active after deletion = %v, %v", hooks, err)
	}
}

// A full disk (here: the database at its page limit) fails the write with a
// clear error and leaves the mirror as it was: the page and its checkpoint
// are one transaction.
func TestFullDiskChangesNothing(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	l, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveListingPage(ctx, &l, benchPage(0), "http://x/p2"); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := s.db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages+2)); err != nil {
		t.Fatal(err)
	}
	_, err = s.SaveListingPage(ctx, &l, benchPage(1), "http://x/p3")
	if err == nil || !strings.Contains(err.Error(), "full") {
		t.Fatalf("err = %v, want a 'database or disk is full' error", err)
	}
	if l.NextURL != "http://x/p2" {
		t.Errorf("checkpoint moved to %q on a failed write", l.NextURL)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transactions"); n != 100 {
		t.Errorf("transactions = %d, want 100", n)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transaction_history"); n != 100 {
		t.Errorf("history = %d, want 100", n)
	}
	var next string
	if err := s.Reader().QueryRow("SELECT next_page_url FROM sync_state WHERE name = 'transactions'").Scan(&next); err != nil || next != "http://x/p2" {
		t.Errorf("stored checkpoint = %q, %v", next, err)
	}
	if _, err := s.InsertEvents(ctx, []InboxEvent{{ID: "e1", EventType: "PING", WebhookID: "w", CreatedAt: "x", Body: strings.Repeat("x", 64<<10)}}); err == nil {
		t.Error("inbox insert on a full disk succeeded")
	}
	if n := queryInt(t, s, "SELECT count(*) FROM webhook_events"); n != 0 {
		t.Errorf("webhook_events = %d after a failed insert", n)
	}
}

// A copy fetched before the stored one (a page queued behind a webhook's
// refetch) never overwrites it; a copy fetched before a deletion never
// brings the row back; of two copies in one batch the later counts.
func TestOlderCopiesNeverWin(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(t bank.Transaction, sec int) bank.Transaction {
		t.FetchedAt = base.Add(time.Duration(sec) * time.Second)
		return t
	}
	held := at(tx("t1", "HELD", -450), 1)
	settled := at(tx("t1", "SETTLED", -500), 3)
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{held}); err != nil {
		t.Fatal(err)
	}
	c.advance()
	if res, err := s.UpsertTransactions(ctx, []bank.Transaction{settled}); err != nil || res.Settled != 1 {
		t.Fatalf("settle: %+v %v", res, err)
	}
	c.advance()
	staleHeld := at(tx("t1", "HELD", -450), 2) // fetched between the two
	if res, err := s.UpsertTransactions(ctx, []bank.Transaction{staleHeld}); err != nil || res.Changed() != 0 {
		t.Fatalf("stale copy: %+v %v", res, err)
	}
	var status string
	s.Reader().QueryRow("SELECT status FROM transactions WHERE id = 't1'").Scan(&status)
	if status != "SETTLED" {
		t.Errorf("status = %s after a stale HELD copy, want SETTLED", status)
	}
	if h := history(t, s, "t1"); len(h) != 2 {
		t.Errorf("history = %v, want created and settled only", h)
	}
	// The bank never un-settles: a HELD copy, even one dated later (its
	// request was sent later but answered from before the settlement), is
	// stale.
	if res, err := s.UpsertTransactions(ctx, []bank.Transaction{at(tx("t1", "HELD", -450), 4)}); err != nil || res.Changed() != 0 {
		t.Fatalf("HELD copy after the settlement: %+v %v", res, err)
	}

	// Deleted at the bank; a page fetched before the deletion still lists it.
	c.t = base.Add(10 * time.Second)
	if _, err := s.DeleteTransaction(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if res, err := s.UpsertTransactions(ctx, []bank.Transaction{at(tx("t1", "SETTLED", -500), 9)}); err != nil || res.Changed() != 0 {
		t.Fatalf("stale copy after deletion: %+v %v", res, err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transactions WHERE id = 't1'"); n != 0 {
		t.Error("a copy fetched before the deletion brought the row back")
	}
	// A deletion learned before the row was ever mirrored counts too.
	if _, err := s.DeleteTransaction(ctx, "t2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{at(tx("t2", "HELD", -1), 5)}); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transactions WHERE id = 't2'"); n != 0 {
		t.Error("a stale copy of a transaction deleted before it was mirrored was inserted")
	}

	// Two copies of one id in a batch: the later one's tags, and one row.
	res, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("t3", "SETTLED", -1, "x"), tx("t3", "SETTLED", -1, "y")})
	if err != nil || res.Created != 1 || res.Unchanged != 1 {
		t.Fatalf("duplicate in batch: %+v %v", res, err)
	}
	if got := queryInt(t, s, "SELECT count(*) FROM transaction_tags WHERE transaction_id = 't3' AND tag_id = 'y'"); got != 1 {
		t.Error("later copy's tag missing")
	}
	if got := queryInt(t, s, "SELECT count(*) FROM transaction_tags WHERE transaction_id = 't3'"); got != 1 {
		t.Errorf("tags of t3 = %d, want 1 (only the later copy's)", got)
	}
}

func TestSyncLockExcludesASecondSync(t *testing.T) {
	s, _ := mustOpen(t)
	unlock, err := s.LockSync()
	if err != nil {
		t.Fatal(err)
	}
	// Another process opening the same mirror gets its own descriptor.
	other, err := Open(context.Background(), s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.LockSync(); !errors.Is(err, ErrSyncRunning) {
		t.Fatalf("second lock: %v, want ErrSyncRunning", err)
	}
	unlock()
	unlock2, err := other.LockSync()
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock2()
}

// A listing resumed by another writer takes it over: the first writer's
// next page and its finish fail instead of deleting what it did not see.
func TestListingTakenOverStopsTheFirstWriter(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("old", "SETTLED", -1)}); err != nil {
		t.Fatal(err)
	}
	c.advance()
	a, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveListingPage(ctx, &a, []bank.Transaction{tx("old", "SETTLED", -1)}, "http://x/p2"); err != nil {
		t.Fatal(err)
	}
	b, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour))
	if err != nil || !b.Resumed {
		t.Fatalf("b: %+v %v", b, err)
	}
	if _, err := s.SaveListingPage(ctx, &a, nil, ""); !errors.Is(err, ErrListingLost) {
		t.Fatalf("first writer's save: %v, want ErrListingLost", err)
	}
	if _, err := s.SaveListingPage(ctx, &b, nil, ""); err != nil {
		t.Fatal(err)
	}
	a.NextURL = ""
	if _, err := s.FinishListing(ctx, &a); !errors.Is(err, ErrListingLost) {
		t.Fatalf("first writer's finish: %v, want ErrListingLost", err)
	}
	deleted, err := s.FinishListing(ctx, &b)
	if err != nil || len(deleted) != 0 {
		t.Fatalf("b finish deleted %v, %v; want nothing (old was seen by a's page)", deleted, err)
	}
}

func TestNeedsFullSync(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	check := func(want bool) {
		t.Helper()
		if got, err := s.NeedsFullSync(ctx); err != nil || got != want {
			t.Fatalf("NeedsFullSync = %v, %v; want %v", got, err, want)
		}
	}
	check(true) // empty
	l, _ := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour))
	if _, err := s.SaveListingPage(ctx, &l, []bank.Transaction{tx("t1", "SETTLED", -1)}, ""); err != nil {
		t.Fatal(err)
	}
	check(true) // interrupted before finishing
	if _, err := s.FinishListing(ctx, &l); err != nil {
		t.Fatal(err)
	}
	check(false)
	if _, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	check(true) // a later listing interrupted
}

// Stamps from a clock that ran ahead and was set back do not freeze rows.
func TestFutureStampsAreNotTrusted(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	ahead := tx("t1", "HELD", -1)
	ahead.FetchedAt = c.t.Add(48 * time.Hour) // the clock was two days fast
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{ahead}); err != nil {
		t.Fatal(err)
	}
	c.advance()
	now := tx("t1", "SETTLED", -1)
	now.FetchedAt = c.t
	if res, err := s.UpsertTransactions(ctx, []bank.Transaction{now}); err != nil || res.Settled != 1 {
		t.Fatalf("copy fetched now after a future-stamped one: %+v %v; want it applied", res, err)
	}
}

func TestHealLockWaitsForTheHolder(t *testing.T) {
	s, _ := mustOpen(t)
	other, err := Open(context.Background(), s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	unlock, err := s.LockHeal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := other.LockHeal(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("lock held elsewhere: %v, want the context's error", err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := other.LockHeal(context.Background())
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	if err := <-got; err != nil {
		t.Fatalf("waiting lock: %v", err)
	}
}

func TestPruneInboxKeepsUnprocessedAndRecent(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	if _, err := s.InsertEvents(ctx, []InboxEvent{{ID: "old-done", EventType: "PING", WebhookID: "w", CreatedAt: "x", Body: "{}"},
		{ID: "old-pending", EventType: "PING", WebhookID: "w", CreatedAt: "x", Body: "{}"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyEvents(ctx, EventBatch{Events: []string{"old-done"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveDeliveryLogs(ctx, []DeliveryLog{
		{ID: "l-old", WebhookID: "w", EventID: "old-done", DeliveryStatus: "DELIVERED", CreatedAt: "2025-12-01T10:00:00+11:00", RequestBody: "{}"},
		{ID: "l-new", WebhookID: "w", EventID: "x", DeliveryStatus: "DELIVERED", CreatedAt: "2026-03-01T10:00:00+11:00", RequestBody: "{}"},
	}); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(48 * time.Hour)
	if _, err := s.InsertEvents(ctx, []InboxEvent{{ID: "new-done", EventType: "PING", WebhookID: "w", CreatedAt: "x", Body: "{}"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyEvents(ctx, EventBatch{Events: []string{"new-done"}}); err != nil {
		t.Fatal(err)
	}
	events, logs, err := s.PruneInbox(ctx, c.t.Add(-24*time.Hour))
	if err != nil || events != 1 || logs != 1 {
		t.Fatalf("pruned %d events and %d logs, %v; want 1 and 1", events, logs, err)
	}
	got := mirrortestStrings(t, s, "SELECT id FROM webhook_events ORDER BY id")
	if len(got) != 2 || got[0] != "new-done" || got[1] != "old-pending" {
		t.Errorf("left %v, want new-done and old-pending", got)
	}
}

func mirrortestStrings(t *testing.T, s *Store, q string) []string {
	t.Helper()
	out, err := s.strings(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Attachments are replaced by a listing stored page by page; finishing
// without a listing deletes nothing.
func TestAttachmentsReplacedPageByPage(t *testing.T) {
	s, _ := mustOpen(t)
	ctx := context.Background()
	att := func(id string) bank.Attachment {
		return bank.Attachment{ID: id, TransactionID: "t1", FileURLExpiresAt: "2026-01-01T10:15:00+11:00", Raw: []byte(`{"id":"` + id + `"}`)}
	}
	if err := s.ReplaceAttachments(ctx, []bank.Attachment{att("a1"), att("a2"), att("a3")}); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginAttachments(ctx); err != nil {
		t.Fatal(err)
	}
	for _, page := range [][]bank.Attachment{{att("a1")}, {att("a3"), att("a4")}} {
		if err := s.SaveAttachments(ctx, page); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.FinishAttachments(ctx); err != nil || n != 1 {
		t.Fatalf("finish: %d deleted, %v; want a2 deleted", n, err)
	}
	if got := mirrortestStrings(t, s, "SELECT id FROM attachments ORDER BY id"); !slices.Equal(got, []string{"a1", "a3", "a4"}) {
		t.Errorf("attachments %v", got)
	}
	if _, err := s.FinishAttachments(ctx); err == nil {
		t.Error("a finish without a listing succeeded")
	}
	if n := queryInt(t, s, "SELECT count(*) FROM attachments"); n != 3 {
		t.Errorf("attachments = %d after a stray finish, want 3", n)
	}
}

// historyIndexed reports whether transaction_history_tx exists and the
// planner reads a transaction's history through it.
func historyIndexed(t *testing.T, s *Store) bool {
	t.Helper()
	exists := queryInt(t, s, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'transaction_history_tx'") == 1
	var plan strings.Builder
	rows, err := s.Reader().Query("EXPLAIN QUERY PLAN SELECT seq FROM transaction_history WHERE transaction_id = 'x'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(detail)
	}
	if used := strings.Contains(plan.String(), "transaction_history_tx"); used != exists {
		t.Fatalf("index exists %v but plan %q", exists, plan.String())
	}
	return exists
}

func TestBulkLoadBuildsHistoryIndexOnce(t *testing.T) {
	ctx := context.Background()
	page := []bank.Transaction{tx("t1", "SETTLED", -1), tx("t2", "HELD", -2)}
	// bulkLoad opens an empty mirror and starts its first listing, a bulk
	// load, which runs without the history index.
	bulkLoad := func(t *testing.T, path string) (*Store, Listing) {
		t.Helper()
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if !historyIndexed(t, s) {
			t.Fatal("a new mirror has no history index")
		}
		l, err := s.BeginListing(ctx, "transactions", "http://x/p1", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if historyIndexed(t, s) {
			t.Fatal("history index kept during a bulk load")
		}
		return s, l
	}

	t.Run("finished", func(t *testing.T) {
		s, l := bulkLoad(t, filepath.Join(t.TempDir(), "m.db"))
		defer s.Close()
		if _, err := s.SaveListingPage(ctx, &l, page, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FinishListing(ctx, &l); err != nil {
			t.Fatal(err)
		}
		if !historyIndexed(t, s) {
			t.Fatal("no history index after the listing finished")
		}
		if got := history(t, s, "t2"); !slices.Equal(got, []string{"created:NULL"}) {
			t.Errorf("history of t2 = %v", got)
		}
		// The next listing is not a bulk load: it keeps the index.
		if _, err := s.BeginListing(ctx, "transactions", "http://x/p1", time.Time{}); err != nil {
			t.Fatal(err)
		}
		if !historyIndexed(t, s) {
			t.Fatal("a listing into a non-empty mirror dropped the history index")
		}
	})
	t.Run("failed", func(t *testing.T) {
		s, l := bulkLoad(t, filepath.Join(t.TempDir(), "m.db"))
		defer s.Close()
		if _, err := s.SaveListingPage(ctx, &l, page, "http://x/p2"); err != nil {
			t.Fatal(err)
		}
		if err := s.ListingFailed(ctx, "transactions"); err != nil {
			t.Fatal(err)
		}
		if !historyIndexed(t, s) {
			t.Fatal("no history index after a failed listing")
		}
		l, err := s.BeginListing(ctx, "transactions", "http://x/p1", time.Time{})
		if err != nil || !l.Resumed {
			t.Fatalf("resume: %+v %v", l, err)
		}
		if !historyIndexed(t, s) {
			t.Fatal("a resumed listing dropped the history index")
		}
	})
	t.Run("opened elsewhere", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "m.db")
		s, l := bulkLoad(t, path)
		defer s.Close()
		unlock, err := s.LockSync() // as the daemon's sync holds it
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SaveListingPage(ctx, &l, page, "http://x/p2"); err != nil {
			t.Fatal(err)
		}
		// A command opening the mirror meanwhile leaves the index to the
		// running sync.
		other, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if historyIndexed(t, other) {
			t.Error("opening the mirror during another's bulk load built the history index")
		}
		if err := other.Close(); err != nil {
			t.Fatal(err)
		}
		unlock()
		if other, err = Open(ctx, path); err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		if !historyIndexed(t, other) {
			t.Error("no history index once no sync was running")
		}
	})
	t.Run("crashed", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "m.db")
		s, l := bulkLoad(t, path)
		if _, err := s.SaveListingPage(ctx, &l, page, "http://x/p2"); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if !historyIndexed(t, s) {
			t.Fatal("Open did not build the history index")
		}
		if got := history(t, s, "t1"); !slices.Equal(got, []string{"created:NULL"}) {
			t.Errorf("history of t1 = %v", got)
		}
	})
}

// A listing of some accounts (a household's) deletes what it did not see
// of those accounts only; of none, nothing.
func TestFinishListingOfDeletesOnlyTheAccountsGiven(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	other := tx("t3", "SETTLED", -3)
	other.AccountID = "acc2"
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("t1", "SETTLED", -1), tx("t2", "SETTLED", -2), other}); err != nil {
		t.Fatal(err)
	}
	for _, c2 := range []struct {
		accounts []string
		want     []string
	}{{[]string{}, nil}, {[]string{"acc1"}, []string{"t2"}}} {
		c.advance()
		l, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SaveListingPage(ctx, &l, []bank.Transaction{tx("t1", "SETTLED", -1)}, ""); err != nil {
			t.Fatal(err)
		}
		deleted, err := s.FinishListingOf(ctx, &l, c2.accounts, true)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(deleted, c2.want) {
			t.Errorf("accounts %v: deleted %v, want %v", c2.accounts, deleted, c2.want)
		}
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transactions WHERE id IN ('t1', 't3')"); n != 2 {
		t.Errorf("%d of t1 and t3 left, want both", n)
	}
}

// A listing's page commits without waiting for the disk, and leaves the
// writer waiting for it again, whether the page was stored or not.
func TestSaveListingPageLeavesTheWriterSynchronous(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	l, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	synchronous := func() int64 {
		t.Helper()
		var v int64
		if err := s.db.QueryRow("PRAGMA synchronous").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	var during int64
	if err := s.inRefetchableTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRow("PRAGMA synchronous").Scan(&during)
	}); err != nil || during != 1 {
		t.Fatalf("synchronous in a listing's transaction = %d, %v; want 1 (NORMAL)", during, err)
	}
	if _, err := s.SaveListingPage(ctx, &l, []bank.Transaction{tx("t1", "SETTLED", -1)}, "http://x/p2"); err != nil {
		t.Fatal(err)
	}
	if v := synchronous(); v != 2 {
		t.Errorf("synchronous after a page = %d, want 2 (FULL)", v)
	}
	lost := l
	lost.Owner = "another writer"
	if _, err := s.SaveListingPage(ctx, &lost, []bank.Transaction{tx("t2", "SETTLED", -2)}, ""); !errors.Is(err, ErrListingLost) {
		t.Fatalf("save by a writer that lost the listing: %v", err)
	}
	if v := synchronous(); v != 2 {
		t.Errorf("synchronous after a failed page = %d, want 2 (FULL)", v)
	}
	if n := queryInt(t, s, "SELECT count(*) FROM transactions WHERE id = 't2'"); n != 0 {
		t.Errorf("the failed page was stored")
	}
}

// What a listing did not see is deleted in the order it was written, not
// in the order of the ids, so the history's 'deleted' rows follow it.
func TestFinishListingDeletesInTheOrderWritten(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("tc", "SETTLED", -1), tx("ta", "SETTLED", -2), tx("tb", "SETTLED", -3)}); err != nil {
		t.Fatal(err)
	}
	c.advance()
	l, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveListingPage(ctx, &l, nil, ""); err != nil {
		t.Fatal(err)
	}
	deleted, err := s.FinishListing(ctx, &l)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tc", "ta", "tb"}
	if !slices.Equal(deleted, want) {
		t.Errorf("deleted %v, want %v", deleted, want)
	}
	order := mirrortest.Strings(t, s.Reader(), "SELECT transaction_id FROM transaction_history WHERE change = 'deleted' ORDER BY seq")
	if !slices.Equal(order, want) {
		t.Errorf("'deleted' history rows in the order %v, want %v", order, want)
	}
}

// A listing begun by a version that did not record start_rowid, resumed
// by this one, still deletes what it did not see; one begun on an empty
// mirror records 0, and what is written during it stays.
func TestListingStartRowid(t *testing.T) {
	s, c := mustOpen(t)
	ctx := context.Background()
	l, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if l.StartRowid != 0 {
		t.Errorf("a listing of an empty mirror: StartRowid %d, want 0", l.StartRowid)
	}
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("ta", "SETTLED", -1), tx("tb", "SETTLED", -2)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveListingPage(ctx, &l, nil, ""); err != nil {
		t.Fatal(err)
	}
	if deleted, err := s.FinishListing(ctx, &l); err != nil || len(deleted) != 0 {
		t.Fatalf("a listing deleted %v (%v) written during it", deleted, err)
	}

	c.advance()
	if _, err := s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, "UPDATE sync_state SET start_rowid = NULL"); err != nil {
		t.Fatal(err)
	}
	l, err = s.BeginListing(ctx, "transactions", "http://x/p1", c.t.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !l.Resumed || l.StartRowid != math.MaxInt64 {
		t.Fatalf("resumed %v, StartRowid %d: want a resumed listing with no bound", l.Resumed, l.StartRowid)
	}
	if _, err := s.SaveListingPage(ctx, &l, []bank.Transaction{tx("ta", "SETTLED", -1)}, ""); err != nil {
		t.Fatal(err)
	}
	if deleted, err := s.FinishListing(ctx, &l); err != nil || !slices.Equal(deleted, []string{"tb"}) {
		t.Errorf("deleted %v (%v), want [tb]", deleted, err)
	}
}
