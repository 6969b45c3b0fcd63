package store

import (
	"context"
	"slices"
	"testing"
)

// What a rule sees of a household's transaction: who sees the account,
// the performing customer, a transfer between own accounts and its other
// account, and a household transfer with the other side's person.
func TestRuleTransactionsTellTransfersAndPeople(t *testing.T) {
	s := household(t)
	ctx := context.Background()
	upsert(t, s, append(householdRows(),
		spec{id: "move", account: "alex-spend", desc: "Transfer to Alex Saver", cents: -30000, created: mar2, performer: "Alex",
			typ: "Transfer", transfer: "alex-saver"})...)
	txs, _, err := s.RuleTransactions(ctx, RuleQuery{IDs: []string{"pay-out", "pay-in", "move", "j1", "a1"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]RuleTransaction{}
	for _, tx := range txs {
		got[tx.ID] = tx
	}
	if tx := got["pay-out"]; tx.HouseholdTransferID != "pay-in" || tx.HouseholdTransferPerson != "sam" || tx.TransferAccountID != "" {
		t.Errorf("alex paying sam: household transfer %q to %q, transfer account %q; want pay-in, sam, none",
			tx.HouseholdTransferID, tx.HouseholdTransferPerson, tx.TransferAccountID)
	}
	if tx := got["pay-in"]; tx.HouseholdTransferID != "pay-out" || tx.HouseholdTransferPerson != "alex" {
		t.Errorf("sam paid by alex: household transfer %q from %q; want pay-out, alex", tx.HouseholdTransferID, tx.HouseholdTransferPerson)
	}
	if tx := got["move"]; tx.TransferAccountID != "alex-saver" || tx.TransferAccountName != "Alex Saver" || tx.HouseholdTransferID != "" ||
		tx.TransactionType != "Transfer" {
		t.Errorf("own transfer: account %q %q, household %q, type %q", tx.TransferAccountID, tx.TransferAccountName, tx.HouseholdTransferID, tx.TransactionType)
	}
	if tx := got["j1"]; !slices.Equal(tx.AccountPeople, []string{"alex", "sam"}) || tx.PerformingCustomer != "Alex" ||
		tx.Ownership != "JOINT" || tx.AccountID != "joint" || tx.TransferAccountID != "" || tx.HouseholdTransferID != "" {
		t.Errorf("joint purchase: people %v, performer %q, ownership %q, account %q", tx.AccountPeople, tx.PerformingCustomer, tx.Ownership, tx.AccountID)
	}
	if tx := got["a1"]; !slices.Equal(tx.AccountPeople, []string{"alex"}) || tx.Person != "alex" {
		t.Errorf("alex's purchase: people %v, person %q", tx.AccountPeople, tx.Person)
	}
}
