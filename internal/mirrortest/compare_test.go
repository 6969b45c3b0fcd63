package mirrortest_test

import (
	"context"
	"database/sql"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// An exact mirror compares equal; each kind of difference is counted and
// named.
func TestCompareTransactionsAndAccounts(t *testing.T) {
	ctx := context.Background()
	sim := simulator.New(simulator.Options{Seed: 3, Transactions: 40, RateLimit: simulator.RateLimit{Limit: 1_000_000}})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	baseURL := srv.URL + "/api/v1"
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := replica.New(bank.New(baseURL, sim.Token()), st, zerolog.Nop(), replica.Options{}).Full(ctx); err != nil {
		t.Fatal(err)
	}
	snap := sim.Snapshot()
	var truth []mirrortest.Rendering
	for _, tx := range snap.Transactions {
		raw, err := sim.RenderTransaction(baseURL, tx.ID)
		if err != nil {
			t.Fatal(err)
		}
		truth = append(truth, mirrortest.Rendering{ID: tx.ID, Raw: raw})
	}
	m, err := mirrortest.CompareTransactions(ctx, st.Reader(), truth)
	if err != nil || m.String() != "" || len(m.Lines) != 0 {
		t.Fatalf("exact mirror: %q %q, %v", m, m.Lines, err)
	}
	if diffs, err := mirrortest.CompareAccounts(ctx, st.Reader(), snap.Accounts); err != nil || len(diffs) != 0 {
		t.Fatalf("exact accounts: %q, %v", diffs, err)
	}

	// One transaction gone, three changed (raw, status, an extra tag), and
	// one the bank no longer lists.
	ids := []string{truth[0].ID, truth[1].ID, truth[2].ID, truth[3].ID}
	err = st.InTx(ctx, func(tx *sql.Tx) error {
		for _, q := range [][]any{
			{"DELETE FROM transaction_tags WHERE transaction_id = ?", ids[0]},
			{"DELETE FROM transactions WHERE id = ?", ids[0]},
			{"UPDATE transactions SET raw_full = raw || ' ' WHERE id = ?", ids[1]},
			{"UPDATE transactions SET status = 'ODD' WHERE id = ?", ids[2]},
			{"INSERT OR IGNORE INTO tags (id) VALUES ('Planted')"},
			{"INSERT INTO transaction_tags (transaction_id, tag_id) VALUES (?, 'Planted')", ids[3]},
			{"UPDATE accounts SET balance_base_units = balance_base_units + 1 WHERE id = ?", snap.Accounts[0].ID},
		} {
			if _, err := tx.ExecContext(ctx, q[0].(string), q[1:]...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err = mirrortest.CompareTransactions(ctx, st.Reader(), truth[:len(truth)-1])
	if err != nil {
		t.Fatal(err)
	}
	if m.Missing != 1 || m.Differ != 3 || m.Extra != 1 || len(m.Lines) != 5 {
		t.Errorf("mismatch %+v, want 1 missing, 3 differing, 1 extra in 5 lines", m)
	}
	if want := "1 transactions missing, 3 differ from the bank, 1 in the mirror but not at the bank"; m.String() != want {
		t.Errorf("String() = %q, want %q", m, want)
	}
	if diffs, err := mirrortest.CompareAccounts(ctx, st.Reader(), snap.Accounts); err != nil || len(diffs) != 1 {
		t.Errorf("accounts after changing a balance: %q, %v; want one difference", diffs, err)
	}
}
