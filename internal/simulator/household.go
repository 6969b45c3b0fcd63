package simulator

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// The seeded data of a household (Options.People): each person has a
// "Spending" account and one or two savers; one "2Up Spending" account is
// shared. Each person's history has Options.Transactions transactions on
// their own accounts: card purchases (performingCustomer is the person),
// payments, salary, transfers between their own accounts and into the
// joint account (transfer pairs, transferAccount set), interest, refunds,
// and Up-to-Up payments to another person of the household (one
// transaction in each person's account, no transferAccount, each named
// after the other person, created 0-3 seconds apart). The joint account has
// Options.JointTransactions card purchases by either person, never tagged.

// saverNames name the people's savers, two per person in turn.
var saverNames = []string{"Rainy Day 🌧", "Japan Trip ✈️", "Emergency Fund", "New Car 🚗", "Gifts 🎁", "Bills", "House Deposit 🏡", "Festival 🎪"}

// upMessages are the messages of Up-to-Up payments between partners.
var upMessages = []string{"Dinner 🍜", "Rent share", "Electricity bill", "Groceries", "Concert tickets 🎸", "Thanks!", "Half the Airbnb"}

// seedHousehold opens the household's accounts and generates every
// person's history, then the joint account's.
func (g *generator) seedHousehold(n int) {
	b := g.b
	total := 0
	for _, m := range merchants {
		total += m.weight
		g.weights = append(g.weights, total)
	}
	roles := g.householdAccounts()
	g.cards = make(map[string]string, len(b.people))
	for _, p := range b.people {
		g.cards[p.display] = p.card
	}
	for i, p := range b.people {
		g.acc, g.person, g.jointShare = roles[i], p.display, 0
		g.partner = b.people[(i+1)%len(b.people)].display
		target := len(g.out) + n
		if n >= 50 && i == 0 {
			g.showcase()
		}
		for len(g.out) < target {
			g.householdRandom(roles, i, target-len(g.out))
		}
	}
	jn := b.opts.JointTransactions
	switch {
	case n == 0 || jn < 0:
		jn = 0
	case jn == 0:
		jn = n / 5
	}
	for range jn {
		g.jointPurchase(roles[0].joint)
	}
	g.install()
}

// householdAccounts opens every person's accounts and the joint one, and
// records on the first seed what each person sees.
func (g *generator) householdAccounts() []seededAccounts {
	b := g.b
	b.accountByID = map[string]*Account{}
	open := func(name, typ, owner string, daysBefore int) string {
		a := &Account{
			ID: g.uuid(), DisplayName: name, AccountType: typ, OwnershipType: owner,
			Balance:   Money{CurrencyCode: "AUD"},
			CreatedAt: g.start.Add(-time.Duration(daysBefore)*24*time.Hour + time.Duration(g.rng.IntN(36000))*time.Second),
		}
		b.accounts = append(b.accounts, a)
		b.accountByID[a.ID] = a
		return a.ID
	}
	roles := make([]seededAccounts, len(b.people))
	customers := make([]string, len(b.people))
	cards := make([]string, len(b.people))
	for i := range b.people {
		customers[i] = g.uuid()
		cards[i] = fmt.Sprintf("%04d", g.rng.IntN(10000))
		roles[i].spending = open("Spending", "TRANSACTIONAL", "INDIVIDUAL", 60-i%20)
		roles[i].saver1 = open(saverNames[2*i%len(saverNames)], "SAVER", "INDIVIDUAL", 55-i%20)
		if i%2 == 0 {
			roles[i].saver2 = open(saverNames[(2*i+1)%len(saverNames)], "SAVER", "INDIVIDUAL", 41-i%20)
		}
	}
	joint := open("2Up Spending", "TRANSACTIONAL", "JOINT", 30)
	slices.SortFunc(b.accounts, func(x, y *Account) int { return x.CreatedAt.Compare(y.CreatedAt) })
	b.mainAccount = roles[0].spending
	if b.jointAccount == "" { // a Reset draws the same id again
		b.jointAccount = joint
	}
	b.jointPeople = b.jointPeople[:0]
	for i, p := range b.people {
		roles[i].joint = joint
		b.jointPeople = append(b.jointPeople, p.display)
	}
	if b.owner != nil { // a Reset: the same ids were drawn again
		return roles
	}
	b.owner = map[string]*person{}
	for i, p := range b.people {
		sees := map[string]bool{joint: true}
		for _, id := range []string{roles[i].spending, roles[i].saver1, roles[i].saver2} {
			if id != "" {
				sees[id] = true
				b.owner[id] = p
			}
		}
		p.card = cards[i]
		p.settle(customers[i], b.accounts, sees)
	}
	return roles
}

// householdRandom appends one random transaction of person i, or a pair
// (a transfer, an Up-to-Up payment) when room >= 2.
func (g *generator) householdRandom(roles []seededAccounts, i, room int) {
	b := g.b
	at := g.randomTime()
	a := g.acc
	switch r := g.rng.IntN(1000); {
	case r < 760:
		g.add(g.purchaseTx(g.randomPurchase(at)))
	case r < 800:
		g.add(g.paymentTx(at, false))
	case r < 825:
		g.add(g.paymentTx(at, true))
	case r < 845:
		g.add(g.salaryTx(at))
	case r < 905 && room >= 2:
		routes := [][2]string{{a.spending, a.saver1}, {a.saver1, a.spending}, {a.spending, a.joint}, {a.spending, a.joint}}
		if a.saver2 != "" {
			routes = append(routes, [2]string{a.spending, a.saver2})
		}
		route := pick(g, routes)
		var msg *string
		if g.chance(0.3) {
			msg = ptr(pick(g, []string{"Top up", "Bills buffer", "Groceries this week", "Our share"}))
		}
		g.transferPair(at, route[0], route[1], g.between(2000, 150000), msg)
	case r < 925:
		saver := a.saver1
		if a.saver2 != "" && g.chance(0.5) {
			saver = a.saver2
		}
		g.add(g.interestTx(at, saver, g.between(5, 4000), "Interest"))
	case r < 945 && room >= 2 && len(b.people) > 1:
		j := (i + 1 + g.rng.IntN(len(b.people)-1)) % len(b.people)
		msg := ptr(pick(g, upMessages))
		lag := time.Duration(g.between(0, 3)) * time.Second // the two sides a moment apart, as two postings are
		out, in := g.upPayment(at, b.people[i], b.people[j], a.spending, roles[j].spending, g.between(500, 40000), msg, lag)
		g.add(out, in)
	default:
		g.add(g.refundTx(at))
	}
}

// jointPurchase appends a card purchase on the joint account by one of
// the people, untagged (2Up transactions cannot be tagged).
func (g *generator) jointPurchase(joint string) {
	b := g.b
	at := g.randomTime()
	p := g.randomPurchase(at)
	p.account, p.person = joint, b.people[g.rng.IntN(len(b.people))].display
	if p.method != "" {
		p.suffix = g.cardSuffix(p)
	}
	p.tags, p.roundUp, p.boost = nil, false, false
	g.add(g.purchaseTx(p))
}

// upPayment builds an Up-to-Up payment as the bank shows it: money out of
// one person's account and into another's, two transactions with opposite
// amounts and no transferAccount, each described by the other person's
// name, the money arriving lag after it left.
func (g *generator) upPayment(at time.Time, from, to *person, fromAccount, toAccount string, amount int64, msg *string, lag time.Duration) (out, in *txn) {
	out = g.newTxn(fromAccount, at, to.full, -amount)
	in = g.newTxn(toAccount, at.Add(lag), from.full, amount)
	out.TransactionType, in.TransactionType = ptr("Pay Anyone"), ptr("Osko Payment Received")
	out.IsCategorizable, in.IsCategorizable = true, true
	out.PerformingCustomer = ptr(from.display)
	out.Message, in.Message = clonePtr(msg), clonePtr(msg)
	return out, in
}

// householdBalances draws each account's closing balance by its kind.
func (g *generator) householdBalances() map[string]int64 {
	out := make(map[string]int64, len(g.b.accounts))
	for _, a := range g.b.accounts {
		switch {
		case a.OwnershipType == "JOINT":
			out[a.ID] = g.between(20000, 250000)
		case a.AccountType == "SAVER":
			out[a.ID] = g.between(50000, 1500000)
		default:
			out[a.ID] = g.between(80000, 600000)
		}
	}
	return out
}

// Payment is an Up-to-Up payment between two people of a household, for
// PayPerson.
type Payment struct {
	From, To        string        // names of the payer and the payee (Options.People)
	FromAccountID   string        // an account the payer sees; "" = their Spending account
	ToAccountID     string        // an account the payee sees; "" = their Spending account
	AmountBaseUnits int64         // cents paid, positive
	Message         string        // the payment's message; "" = none
	CreatedAt       time.Time     // when the money leaves; zero = the bank's Now()
	Lag             time.Duration // the money arrives this long after it leaves (0 = the same instant)
	// Held makes a pending payment: both transactions start HELD, and
	// each then settles (Settle) or is deleted (Delete: a payment
	// returned), as any held transaction.
	Held bool
}

// ErrInvalidPayment is returned for a Payment that cannot be made.
var ErrInvalidPayment = fmt.Errorf("simulator: invalid payment")

// PayPerson makes an Up-to-Up payment: a transaction out of the payer's
// account (description: the payee's full name, performingCustomer the
// payer) and one into the payee's account (description: the payer's full
// name), opposite amounts, the same message, neither with a
// transferAccount. It returns their ids. Events: TRANSACTION_CREATED for
// each, to the webhooks of whoever sees the account.
func (b *Bank) PayPerson(pay Payment) (outID, inID string, err error) {
	b.mu.Lock()
	out, in, err := b.buildPayment(pay)
	if err == nil {
		b.insertLocked(out)
		b.insertLocked(in)
	}
	b.mu.Unlock()
	if err != nil {
		return "", "", fmt.Errorf("pay %s: %w", pay.To, err)
	}
	b.emit(eventCreated, out.ID, out.AccountID)
	b.emit(eventCreated, in.ID, in.AccountID)
	return out.ID, in.ID, nil
}

// buildPayment checks pay and builds its two transactions; b.mu is held.
func (b *Bank) buildPayment(pay Payment) (out, in *txn, err error) {
	from, err := b.personNamed(pay.From)
	if err != nil {
		return nil, nil, err
	}
	to, err := b.personNamed(pay.To)
	if err != nil {
		return nil, nil, err
	}
	if from == to {
		return nil, nil, fmt.Errorf("%s cannot pay themselves: %w", from.name, ErrInvalidPayment)
	}
	if pay.AmountBaseUnits <= 0 {
		return nil, nil, fmt.Errorf("amount must be positive: %w", ErrInvalidPayment)
	}
	fromAcc, toAcc := cmp.Or(pay.FromAccountID, from.own[0]), cmp.Or(pay.ToAccountID, to.own[0])
	switch {
	case b.accountByID[fromAcc] == nil || !from.canSee(fromAcc):
		return nil, nil, fmt.Errorf("%q is not an account of %s: %w", fromAcc, from.name, ErrUnknownAccount)
	case b.accountByID[toAcc] == nil || !to.canSee(toAcc):
		return nil, nil, fmt.Errorf("%q is not an account of %s: %w", toAcc, to.name, ErrUnknownAccount)
	case fromAcc == toAcc:
		return nil, nil, fmt.Errorf("payer and payee accounts are the same: %w", ErrInvalidPayment)
	case pay.Lag < 0:
		return nil, nil, fmt.Errorf("lag must not be negative: %w", ErrInvalidPayment)
	}
	at := pay.CreatedAt.Round(0)
	if at.IsZero() {
		at = b.now().Round(0)
	}
	var msg *string
	if pay.Message != "" {
		msg = ptr(pay.Message)
	}
	g := b.controlGenerator(at)
	out, in = g.upPayment(at, from, to, fromAcc, toAcc, pay.AmountBaseUnits, msg, pay.Lag)
	if pay.Held {
		for _, t := range []*txn{out, in} {
			t.Status, t.SettledAt = "HELD", nil
			t.HoldInfo = &HoldInfo{Amount: t.Amount}
		}
	}
	return out, in, nil
}

// PurchaseAs creates one transaction (a card purchase for a negative
// amount) made by the person on an account they see (the joint one
// included; "" = their Spending account) and returns its id: nt with
// Person and AccountID set, as CreateTransaction makes it.
func (b *Bank) PurchaseAs(name, accountID string, nt NewTransaction) (string, error) {
	if nt.TransferAccountID != "" {
		return "", fmt.Errorf("purchase as %s: %w", name, ErrInvalidTransfer)
	}
	nt.Person, nt.AccountID = name, accountID
	ids, err := b.CreateTransaction(nt)
	if err != nil {
		return "", err
	}
	return ids[0], nil
}
