package store

import (
	"context"
	"testing"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// FeedGone gives a deleted transaction's account and the date its
// createdAt names from the history, and nothing for a live or unknown
// one.
func TestFeedGoneReadsTheDeletedVersion(t *testing.T) {
	s, _ := mustOpen(t)
	ctx := context.Background()
	if _, err := s.UpsertAccounts(ctx, []bank.Account{account("spend", "Spending", "TRANSACTIONAL", 100)}); err != nil {
		t.Fatal(err)
	}
	upsert(t, s,
		spec{id: "live", account: "spend", desc: "Coles", cents: -5000, created: "2026-04-01T10:00:00+11:00"},
		spec{id: "gone", account: "spend", desc: "Hotel deposit", cents: -20000, status: "HELD", hold: -20000, created: "2026-04-01T09:00:00+11:00"})
	if ok, err := s.DeleteTransaction(ctx, "gone"); err != nil || !ok {
		t.Fatalf("delete: %v %v", ok, err)
	}
	got, err := s.FeedGone(ctx, []string{"live", "gone", "unknown"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "gone" || got[0].AccountID != "spend" || got[0].Date != "2026-04-01" {
		t.Errorf("FeedGone = %+v, want the deleted transaction on spend dated 2026-04-01", got)
	}
}
