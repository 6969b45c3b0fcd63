package health_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/store"
)

// status reads the status of a real mirror on which the running daemon
// reported people (sam's token rejected), after a successful sync.
func TestStatusNamesThePersonWhoseTokenWasRejected(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.StartRun(ctx, health.KindFull)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.FinishRun(ctx, id, 3, 0, 0, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveWebhook(ctx, store.Webhook{ID: "wh-alex", URL: "https://x.example/webhook", SecretKey: "s1",
		CreatedAt: "2026-03-01T10:00:00Z", Person: "alex"}); err != nil {
		t.Fatal(err)
	}
	rejectedAt := time.Now().Add(-5 * time.Minute)
	rep := health.Report{PID: os.Getpid(), People: []health.PersonState{
		{Name: "alex", Budget: bank.BudgetState{Known: true, Remaining: 812}},
		{Name: "sam", Token: bank.TokenState{Rejected: true, RejectedAt: rejectedAt}},
	}}
	if err := st.PutState(ctx, health.ReportKey, rep); err != nil {
		t.Fatal(err)
	}
	s, err := health.GatherStatus(ctx, st, health.StatusOptions{MaxAttempts: 12, Rules: health.Rules{StaleAfter: 2 * time.Hour},
		People: []string{"alex", "sam"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Level != health.Degraded || !strings.Contains(s.Reason, "sam's token") || strings.Contains(s.Reason, "alex") {
		t.Errorf("status = %v: %s; want DEGRADED naming sam", s.Level, s.Reason)
	}
	if s.Token.Rejected {
		t.Error("the household's token is rejected with alex's accepted")
	}
	if len(s.People) != 2 {
		t.Fatalf("people = %+v", s.People)
	}
	alex, sam := s.People[0], s.People[1]
	if alex.Name != "alex" || alex.TokenState != "ok" || alex.Budget == nil || alex.Budget.Remaining != 812 ||
		len(alex.Webhooks) != 1 || alex.Webhooks[0] != "wh-alex" {
		t.Errorf("alex = %+v", alex)
	}
	if sam.Name != "sam" || sam.TokenState != "revoked" || !sam.Token.Rejected || len(sam.Webhooks) != 0 {
		t.Errorf("sam = %+v", sam)
	}

	// A person no longer configured is not listed.
	s, err = health.GatherStatus(ctx, st, health.StatusOptions{MaxAttempts: 12, Rules: health.Rules{StaleAfter: 2 * time.Hour},
		People: []string{"sam"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.People) != 1 || s.People[0].Name != "sam" {
		t.Errorf("people configured sam only = %+v", s.People)
	}
}

// WithoutCounts leaves the row counts out (the dashboard's health line
// shows none) and reaches the same verdict.
func TestStatusWithoutCountsKeepsTheVerdict(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.UpsertTransactions(ctx, []bank.Transaction{{ID: "tx-1", AccountID: "acc-1", Status: "SETTLED",
		Description: "Coffee", Amount: bank.Money{CurrencyCode: "AUD", Value: "-4.50", ValueInBaseUnits: -450},
		CreatedAt: "2026-03-01T10:00:00Z"}}); err != nil {
		t.Fatal(err)
	}
	o := health.StatusOptions{MaxAttempts: 12, Rules: health.Rules{StaleAfter: 2 * time.Hour}}
	with, err := health.GatherStatus(ctx, st, o)
	if err != nil {
		t.Fatal(err)
	}
	o.WithoutCounts = true
	without, err := health.GatherStatus(ctx, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if with.Rows.Transactions != 1 || with.Rows.History == 0 {
		t.Errorf("counts = %+v, want the transaction and its history", with.Rows)
	}
	if without.Rows != (store.Stats{}) {
		t.Errorf("counts without counts = %+v, want none", without.Rows)
	}
	if without.Level != with.Level || without.Reason != with.Reason || without.Size != with.Size {
		t.Errorf("without counts: %v %q %+v; with: %v %q %+v", without.Level, without.Reason, without.Size, with.Level, with.Reason, with.Size)
	}
}
