package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bankmirror/bankmirror/internal/store"
)

// A push's spans keep, for each bank account and app account, the
// earliest since it fed it from; a mirror whose feeds pushed before the
// spans were kept starts with a span for each bank account and app
// account of the rows they recorded, from the earliest row's date.
func TestFeedSpans(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, since := range []string{"2026-03-01", "2026-01-01", "2026-05-01"} {
		if err := st.RecordFeedSpans(ctx, "ynab", []store.FeedSpan{{BankAccount: "b1", AppAccount: "a1", Since: since}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.RecordFeedSpans(ctx, "ynab", []store.FeedSpan{{BankAccount: "b1", AppAccount: "a2", Since: ""}}); err != nil {
		t.Fatal(err)
	}
	got, err := st.FeedSpans(ctx, "ynab")
	want := []store.FeedSpan{{BankAccount: "b1", AppAccount: "a1", Since: "2026-01-01"}, {BankAccount: "b1", AppAccount: "a2", Since: ""}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("spans = %+v, %v; want %+v", got, err, want)
	}
	if other, err := st.FeedSpans(ctx, "actual"); err != nil || len(other) != 0 {
		t.Errorf("another feed's spans = %+v, %v", other, err)
	}

	// A mirror of the version before, with a feed's rows.
	path := store.LoadFixture(t, 21)
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	var id, account string
	if err := db.QueryRow(`SELECT id, account_id FROM transactions ORDER BY id LIMIT 1`).Scan(&id, &account); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO feed_rows (feed, transaction_id, app_id, app_account, date, amount, cleared, state, pushed_at)
		VALUES ('actual', ?, 'row-1', 'app-1', '2026-02-03', -100, 0, 'pushed', '2026-02-03T00:00:00Z')`, id); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	old, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	got, err = old.FeedSpans(ctx, "actual")
	if want := []store.FeedSpan{{BankAccount: account, AppAccount: "app-1", Since: "2026-02-03"}}; err != nil || !slices.Equal(got, want) {
		t.Errorf("spans after the migration = %+v, %v; want %+v", got, err, want)
	}
}

// A reconciled row keeps the date the app has, which the person may have
// moved before anything the feed fed: the upgrade's span starts at its
// transaction's date, not there, so that the feed never claims the rows
// before it.
func TestFeedSpansSeededFromAReconciledRowsTransaction(t *testing.T) {
	ctx := context.Background()
	path := store.LoadFixture(t, 21)
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	var id, account, date string
	if err := db.QueryRow(`SELECT id, account_id, created_date FROM transactions WHERE created_date > '2001-01-01' ORDER BY id LIMIT 1`).
		Scan(&id, &account, &date); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO feed_rows (feed, transaction_id, app_id, app_account, date, amount, cleared, state, pushed_at)
		VALUES ('actual', ?, 'row-1', 'app-1', '2001-01-01', -100, 1, 'reconciled', '2026-02-03T00:00:00Z')`, id); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.FeedSpans(ctx, "actual")
	if want := []store.FeedSpan{{BankAccount: account, AppAccount: "app-1", Since: date}}; err != nil || !slices.Equal(got, want) {
		t.Errorf("spans after the migration = %+v, %v; want %+v", got, err, want)
	}
}
