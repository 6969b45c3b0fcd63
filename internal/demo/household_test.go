package demo

import (
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/simulator"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct{ n, people, perPerson, joint int }{
		{5000, 2, 2272, 456},
		{300, 2, 136, 28},
		{24, 2, 10, 4},
		{5000, 3, 1562, 314},
		{5000, 1, 5000, 0},
		{3, 2, 1, 1},
		{2, 2, 1, 1}, // one each and one on the joint account at least
		{1, 2, 1, 1},
	} {
		per, joint := Split(tc.n, tc.people)
		if per != tc.perPerson || joint != tc.joint {
			t.Errorf("Split(%d, %d) = %d, %d; want %d, %d", tc.n, tc.people, per, joint, tc.perPerson, tc.joint)
		}
		if tc.people > 1 && tc.n > tc.people && per*tc.people+joint != tc.n {
			t.Errorf("Split(%d, %d) makes %d transactions", tc.n, tc.people, per*tc.people+joint)
		}
	}
}

// The activity, run against the simulated bank, leaves what the demo says
// it does: sam's groceries on the joint account, alex's coffee settled,
// the payment from alex to sam, the deposit gone.
func TestHouseholdActivity(t *testing.T) {
	if _, err := HouseholdActivity(simulator.New(simulator.Options{Transactions: 10}), []string{"me"}); err == nil {
		t.Error("an activity of one person: no error")
	}
	sim := simulator.New(simulator.Options{People: []string{"alex", "sam", "kim"}, Transactions: 10})
	defer sim.Close()
	before, start := len(sim.Snapshot().Transactions), time.Now().Add(-time.Second)
	act, err := HouseholdActivity(sim, []string{"alex", "sam", "kim"})
	if err != nil {
		t.Fatal(err)
	}
	joint := 0
	for _, s := range act.Steps {
		if err := s.Do(); err != nil {
			t.Fatalf("%s: %v", s.What, err)
		}
		if s.Joint {
			joint++
		}
	}
	if joint != 1 || act.JointBy != "sam" || act.JointAt.IsZero() {
		t.Errorf("%d joint steps by %q at %v, want one by sam", joint, act.JointBy, act.JointAt)
	}
	byID := map[string]simulator.Transaction{}
	for _, tx := range sim.Snapshot().Transactions {
		byID[tx.ID] = tx
	}
	// coffee, tickets, kim's fuel, groceries, the payment's two sides; the
	// deposit is gone.
	if got := len(byID) - before; got != 6 {
		t.Errorf("%d transactions made, want 6", got)
	}
	g, ok := byID[act.JointPurchase]
	if !ok || g.AccountID != sim.JointAccount() || g.PerformingCustomer == nil || *g.PerformingCustomer != "Sam" || g.Status != "SETTLED" {
		t.Errorf("the joint purchase = %+v, want sam's, settled, on the joint account %s", g, sim.JointAccount())
	}
	out, in := byID[act.PaymentOut], byID[act.PaymentIn]
	if out.AccountID != sim.PersonAccounts("alex")[0] || in.AccountID != sim.PersonAccounts("sam")[0] ||
		out.Amount.ValueInBaseUnits != -6000 || in.Amount.ValueInBaseUnits != 6000 {
		t.Errorf("the payment = %+v and %+v, want 60.00 from alex's Spending to sam's", out, in)
	}
	coffee := 0
	for _, tx := range byID {
		if tx.CreatedAt.Before(start) {
			continue // seeded
		}
		switch tx.Description {
		case "Hotel deposit":
			t.Errorf("the hotel deposit is still at the bank: %+v", tx)
		case "Seven Seeds":
			coffee++
			if tx.AccountID != sim.PersonAccounts("alex")[0] || tx.Status != "SETTLED" {
				t.Errorf("alex's coffee = %+v, want settled on alex's Spending", tx)
			}
		}
	}
	if coffee != 1 {
		t.Errorf("%d coffees made, want 1", coffee)
	}
}
