package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/store"
)

// A push's spans keep, for each bank account and app account, the
// earliest date of a row it put there; a mirror whose feeds pushed before the
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
	var account string
	got = spansAfterUpgrade(t, func(db *sql.DB) {
		var id string
		if err := db.QueryRow(`SELECT id, account_id FROM transactions ORDER BY id LIMIT 1`).Scan(&id, &account); err != nil {
			t.Fatal(err)
		}
		feedRow(t, db, id, "2026-02-03", "pushed")
	})
	if want := []store.FeedSpan{{BankAccount: account, AppAccount: "app-1", Since: "2026-02-03"}}; !slices.Equal(got, want) {
		t.Errorf("spans after the migration = %+v; want %+v", got, want)
	}
}

// spansAfterUpgrade opens a mirror of schema version 21 that prepare
// changed (feed rows added) with this version, and returns the spans the
// migration seeded of the feed "actual".
func spansAfterUpgrade(t *testing.T, prepare func(db *sql.DB)) []store.FeedSpan {
	t.Helper()
	path := store.LoadFixture(t, 21)
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	prepare(db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spans, err := st.FeedSpans(t.Context(), "actual")
	if err != nil {
		t.Fatal(err)
	}
	return spans
}

// feedRow adds the feed "actual"'s row of the transaction id in the app
// account app-1, dated date, in state.
func feedRow(t *testing.T, db *sql.DB, id, date, state string) {
	t.Helper()
	if _, err := db.Exec(`INSERT INTO feed_rows (feed, transaction_id, app_id, app_account, date, amount, cleared, state, pushed_at)
		VALUES ('actual', ?, 'row-' || ?, 'app-1', ?, -100, 1, ?, '2026-02-03T00:00:00Z')`, id, id, date, state); err != nil {
		t.Fatal(err)
	}
}

// A reconciled row keeps the date the app has, which the person may have
// moved before anything the feed fed: the upgrade's span starts at its
// transaction's date, not there, so that the feed never claims the rows
// before it.
func TestFeedSpansSeededFromAReconciledRowsTransaction(t *testing.T) {
	var id, account, date string
	got := spansAfterUpgrade(t, func(db *sql.DB) {
		if err := db.QueryRow(`SELECT id, account_id, created_date FROM transactions WHERE created_date > '2001-01-01' ORDER BY id LIMIT 1`).
			Scan(&id, &account, &date); err != nil {
			t.Fatal(err)
		}
		feedRow(t, db, id, "2001-01-01", "reconciled")
	})
	if want := []store.FeedSpan{{BankAccount: account, AppAccount: "app-1", Since: date}}; !slices.Equal(got, want) {
		t.Errorf("spans after the migration = %+v; want %+v", got, want)
	}
}

// The rows of transactions the bank deleted before the upgrade seed spans
// too, their bank account from the history: a pushed row from its own
// date, a reconciled one from its transaction's date in the history (the
// app's date, the person's to move, is not the one the feed fed it from).
func TestFeedSpansSeededFromRowsOfDeletedTransactions(t *testing.T) {
	type tx struct{ id, account, date string }
	var pushed, reconciled tx
	got := spansAfterUpgrade(t, func(db *sql.DB) {
		// A transaction of each of two accounts.
		var txs []tx
		rows, err := db.Query(`SELECT id, account_id, substr(raw->>'$.attributes.createdAt', 1, 10) FROM transactions
			WHERE created_date > '2001-01-01' ORDER BY account_id, id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var x tx
			if err := rows.Scan(&x.id, &x.account, &x.date); err != nil {
				t.Fatal(err)
			}
			if len(txs) == 0 || txs[len(txs)-1].account != x.account {
				txs = append(txs, x)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(txs) < 2 {
			t.Fatalf("transactions of %d accounts in the fixture: the test tests nothing", len(txs))
		}
		pushed, reconciled = txs[0], txs[1]
		feedRow(t, db, pushed.id, "2026-02-03", "pushed")
		feedRow(t, db, reconciled.id, "2001-01-01", "reconciled")
		for _, id := range []string{pushed.id, reconciled.id} {
			// The bank deletes it: the history keeps it as it was.
			if _, err := db.Exec(`INSERT INTO transaction_history (transaction_id, change, observed_at, raw)
				SELECT id, 'deleted', '2026-03-01T00:00:00Z', raw FROM transactions WHERE id = ?`, id); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`DELETE FROM transactions WHERE id = ?`, id); err != nil {
				t.Fatal(err)
			}
		}
	})
	want := []store.FeedSpan{{BankAccount: pushed.account, AppAccount: "app-1", Since: "2026-02-03"},
		{BankAccount: reconciled.account, AppAccount: "app-1", Since: reconciled.date}}
	slices.SortFunc(want, func(a, b store.FeedSpan) int { return strings.Compare(a.BankAccount, b.BankAccount) })
	if !slices.Equal(got, want) {
		t.Errorf("spans after the migration = %+v; want %+v", got, want)
	}
}
