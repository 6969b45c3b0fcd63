package store

import (
	"context"
	"slices"
	"testing"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// WebhookKeys keeps each secret's webhook and person, and leaves out the
// webhooks of a person removed from the household; PeopleSummaries lists
// each person with their accounts and webhooks; TransactionAccounts says
// who sees a transaction's account and whether it is joint.
func TestHouseholdOps(t *testing.T) {
	s, _ := mustOpen(t)
	ctx := context.Background()
	for _, p := range []string{"alex", "sam"} {
		if err := s.NamePerson(ctx, p, false); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveWebhook(ctx, Webhook{ID: "wh-" + p, URL: "https://x.example/webhook", SecretKey: "secret-" + p,
			CreatedAt: "2026-01-01T00:00:00Z", Person: p}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveWebhook(ctx, Webhook{ID: "wh-old", URL: "https://x.example/webhook", SecretKey: "secret-old",
		CreatedAt: "2025-01-01T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	keys := func() []string {
		t.Helper()
		ks, err := s.WebhookKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, k := range ks {
			out = append(out, k.WebhookID+"/"+k.Person+"/"+string(k.Secret))
		}
		slices.Sort(out)
		return out
	}
	if got, want := keys(), []string{"wh-alex/alex/secret-alex", "wh-old//secret-old", "wh-sam/sam/secret-sam"}; !slices.Equal(got, want) {
		t.Errorf("keys = %q, want %q", got, want)
	}
	if _, err := s.db.ExecContext(ctx, "UPDATE people SET removed_at = ? WHERE name = 'sam'", s.stamp()); err != nil {
		t.Fatal(err)
	}
	if got, want := keys(), []string{"wh-alex/alex/secret-alex", "wh-old//secret-old"}; !slices.Equal(got, want) {
		t.Errorf("keys after sam was removed = %q, want %q", got, want)
	}

	money := bank.Money{CurrencyCode: "AUD", Value: "1.00", ValueInBaseUnits: 100}
	if _, err := s.UpsertAccounts(ctx, []bank.Account{
		{ID: "acc1", DisplayName: "Spending", AccountType: "TRANSACTIONAL", OwnershipType: "INDIVIDUAL", Balance: money, CreatedAt: "2025-01-01T00:00:00Z", Raw: []byte(`{}`)},
		{ID: "joint", DisplayName: "2Up Spending", AccountType: "TRANSACTIONAL", OwnershipType: "JOINT", Balance: money, CreatedAt: "2025-01-01T00:00:00Z", Raw: []byte(`{}`)},
	}); err != nil {
		t.Fatal(err)
	}
	j := tx("t-joint", "SETTLED", -100)
	j.AccountID = "joint"
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("t-1", "SETTLED", -450), j}); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]string{{"acc1", "alex"}, {"joint", "alex"}, {"joint", "sam"}} {
		if _, err := s.db.ExecContext(ctx, "INSERT INTO account_people (account_id, person, seen_at) VALUES (?, ?, ?)", r[0], r[1], s.stamp()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.ExecContext(ctx, "UPDATE people SET removed_at = NULL WHERE name = 'sam'"); err != nil {
		t.Fatal(err)
	}
	accs, err := s.TransactionAccounts(ctx, []string{"t-1", "t-joint", "no-such"})
	if err != nil {
		t.Fatal(err)
	}
	if a := accs["t-joint"]; a.AccountID != "joint" || a.Ownership != "JOINT" || !slices.Equal(a.People, []string{"alex", "sam"}) {
		t.Errorf("t-joint's account = %+v", a)
	}
	if a := accs["t-1"]; a.AccountID != "acc1" || a.Ownership != "INDIVIDUAL" || !slices.Equal(a.People, []string{"alex"}) {
		t.Errorf("t-1's account = %+v", a)
	}
	if _, ok := accs["no-such"]; ok || len(accs) != 2 {
		t.Errorf("accounts = %+v", accs)
	}
	people, err := s.PeopleSummaries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(people) != 2 || people[0].Name != "alex" || !slices.Equal(people[0].Accounts, []string{"2Up Spending", "Spending"}) ||
		!slices.Equal(people[0].Webhooks, []string{"wh-alex"}) || people[1].Name != "sam" || !slices.Equal(people[1].Accounts, []string{"2Up Spending"}) {
		t.Errorf("people = %+v", people)
	}
}
