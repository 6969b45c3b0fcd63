package demo

import (
	"fmt"
	"time"

	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// The demo of a household: two people (or more), each with their own
// accounts and token, who share a 2Up joint account. Split sizes the
// simulated bank; Activity is what the people do while the demo watches
// the daemon keep up: a purchase by each on their own account (a webhook
// event each), one on the joint account (no event: the bank sends none for
// 2Up accounts, so the daemon's poll brings it), a settlement, an Up-to-Up
// payment from one to the other (a household transfer) and a returned
// hold.

// Split divides the demo's n transactions (n > 0: simulator.Options.Empty
// is the bank of none) among people each with their own accounts and their
// joint account, which gets a fifth as many as each person (the simulated
// bank's proportion): perPerson*people plus the joint account's make n,
// but that each person and the joint account have one at least (the
// daemon polls a joint account from its newest transaction). joint is
// simulator.Options.JointTransactions. A single person gets all n.
func Split(n, people int) (perPerson, joint int) {
	if people < 2 {
		return n, 0
	}
	perPerson = max(n*5/(5*people+1), 1)
	return perPerson, max(n-perPerson*people, 1)
}

// Bank is what the household's activity needs of the simulated bank.
type Bank interface {
	PurchaseAs(name, accountID string, nt simulator.NewTransaction) (string, error)
	PayPerson(pay simulator.Payment) (outID, inID string, err error)
	Settle(id string) error
	Delete(id string) error
	JointAccount() string
}

var _ Bank = (*simulator.Bank)(nil)

// Step is one thing the bank does in the demo.
type Step struct {
	What string // for the output: "alex buys a coffee on their own Spending account (held)"
	// Joint marks a step on the joint account, which gets no webhook
	// event: the poll brings it.
	Joint bool
	Do    func() error
}

// Activity is the household's live activity and what it made.
type Activity struct {
	Steps []Step
	// JointPurchase is the id of the purchase on the joint account, set
	// by its step, at JointAt; JointBy is who makes it.
	JointPurchase, JointBy string
	JointAt                time.Time
	// PaymentOut and PaymentIn are the two sides of the Up-to-Up payment,
	// set by its step.
	PaymentOut, PaymentIn string
}

// The payment between the first two people: half of the concert tickets
// the second one bought.
const (
	ticketsBaseUnits = 12000
	paymentMessage   = "Half the concert tickets 🎸"
)

// HouseholdActivity is the activity of people (at least two, names of
// simulator.Options.People) at b: the first buys a coffee (held, then
// settled) and has a hotel deposit held and returned; the second buys
// concert tickets, and groceries on the joint account; any others buy
// fuel; the first pays the second half the tickets by Up to Up.
func HouseholdActivity(b Bank, people []string) (*Activity, error) {
	if len(people) < 2 {
		return nil, fmt.Errorf("a household's activity needs two people, got %d", len(people))
	}
	a := &Activity{JointBy: people[1]}
	first, second := people[0], people[1]
	var coffee, deposit string
	buy := func(id *string, person, account string, nt simulator.NewTransaction) func() error {
		return func() error {
			got, err := b.PurchaseAs(person, account, nt)
			if id != nil {
				*id = got
			}
			return err
		}
	}
	a.Steps = []Step{
		{What: first + " buys a coffee on their own Spending account (held)",
			Do: buy(&coffee, first, "", simulator.NewTransaction{Description: "Seven Seeds", AmountBaseUnits: -520, Held: true, CategoryID: "restaurants-and-cafes"})},
		{What: second + " buys two concert tickets on their own Spending account",
			Do: buy(nil, second, "", simulator.NewTransaction{Description: "Ticketek", AmountBaseUnits: -ticketsBaseUnits, CategoryID: "events-and-gigs"})},
	}
	for _, p := range people[2:] {
		a.Steps = append(a.Steps, Step{What: p + " buys fuel on their own Spending account",
			Do: buy(nil, p, "", simulator.NewTransaction{Description: "Ampol", AmountBaseUnits: -6010, CategoryID: "fuel"})})
	}
	a.Steps = append(a.Steps,
		Step{What: second + " buys groceries on 2Up, the joint account: the bank sends no webhook event for it", Joint: true,
			Do: func() error {
				joint := b.JointAccount()
				if joint == "" {
					return fmt.Errorf("the bank has no joint account")
				}
				a.JointAt = time.Now()
				return buy(&a.JointPurchase, second, joint, simulator.NewTransaction{Description: "Woolworths", AmountBaseUnits: -8745, CategoryID: "groceries"})()
			}},
		Step{What: first + "'s coffee settles", Do: func() error { return b.Settle(coffee) }},
		Step{What: fmt.Sprintf("%s pays %s %s by Up to Up, %q", first, second, money.Format(ticketsBaseUnits/2, "AUD"), paymentMessage),
			Do: func() error {
				var err error
				a.PaymentOut, a.PaymentIn, err = b.PayPerson(simulator.Payment{From: first, To: second,
					AmountBaseUnits: ticketsBaseUnits / 2, Message: paymentMessage})
				return err
			}},
		Step{What: "a hotel deposit on " + first + "'s Spending account is held",
			Do: buy(&deposit, first, "", simulator.NewTransaction{Description: "Hotel deposit", AmountBaseUnits: -20000, Held: true})},
		Step{What: "the hotel deposit is returned (the hold is deleted)", Do: func() error { return b.Delete(deposit) }},
	)
	return a, nil
}
