package alerts_test

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/alerts"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
)

// A rule's alert says what the money did: moved between own accounts,
// paid to a partner or a person, spent at a shop, received.
func TestRuleAlertsSayMovedPaidOrSpent(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	d := alerts.NewDispatcher(st, nil, zerolog.Nop())
	configure(t, d, "[channel.hook]\nurl = \"http://127.0.0.1:9/hook\"\n\n[[rule]]\nname = \"big\"\nwhen = 'amount <= -100'\nnotify = [\"hook\"]\n")
	rule := &rules.Rule{Name: "big", Notify: []string{"hook"}}
	base := store.RuleTransaction{Person: "alex", AccountName: "Alex Spending", Currency: "AUD", CreatedLocal: "2026-03-02 09:15:00"}
	cases := []struct {
		id   string
		edit func(*store.RuleTransaction)
		want string
	}{
		{"own", func(t *store.RuleTransaction) {
			t.Description, t.AmountBaseUnits, t.TransferAccountID, t.TransferAccountName = "Transfer to 2Up Spending", -30000, "2up", "2Up Spending"
		}, "Alex moved 300.00 AUD to 2Up Spending, Mon 2 Mar 09:15, Alex Spending. Rule: big."},
		{"own-in", func(t *store.RuleTransaction) {
			t.Description, t.AmountBaseUnits, t.TransferAccountID, t.TransferAccountName = "Transfer from Saver", 30000, "saver", "Saver"
		}, "Alex moved 300.00 AUD in from Saver, Mon 2 Mar 09:15, Alex Spending. Rule: big."},
		{"partner", func(t *store.RuleTransaction) {
			t.Description, t.AmountBaseUnits, t.HouseholdTransferID, t.HouseholdTransferPerson = "Sam Smith", -5000, "in-1", "sam"
		}, "Alex paid Sam 50.00 AUD, Mon 2 Mar 09:15, Alex Spending. Rule: big."},
		{"partner-in", func(t *store.RuleTransaction) {
			t.Description, t.AmountBaseUnits, t.HouseholdTransferID, t.HouseholdTransferPerson = "Sam Smith", 5000, "out-1", "sam"
		}, "Alex was paid 50.00 AUD by Sam, Mon 2 Mar 09:15, Alex Spending. Rule: big."},
		{"pay-anyone", func(t *store.RuleTransaction) {
			t.Description, t.AmountBaseUnits, t.TransactionType = "Robin Lee", -12000, "Pay Anyone"
		}, "Alex paid Robin Lee 120.00 AUD, Mon 2 Mar 09:15, Alex Spending. Rule: big."},
		{"shop", func(t *store.RuleTransaction) {
			t.Description, t.AmountBaseUnits, t.TransactionType = "JB Hi-Fi", -125000, "Purchase"
		}, "Alex spent 1,250.00 AUD at JB Hi-Fi, Mon 2 Mar 09:15, Alex Spending. Rule: big."},
	}
	var notices []rules.Notice
	for _, c := range cases {
		tx := base
		tx.ID = c.id
		c.edit(&tx)
		notices = append(notices, rules.Notice{Tx: tx, Rule: rule, Channels: rule.Notify})
	}
	if err := d.Notify(ctx, notices); err != nil {
		t.Fatal(err)
	}
	queued, err := st.RecentAlerts(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range queued {
		got[a.Key] = a.Message
	}
	for _, c := range cases {
		if m := got["rule:big:"+c.id]; m != c.want {
			t.Errorf("%s: %q, want %q", c.id, m, c.want)
		}
	}
}
