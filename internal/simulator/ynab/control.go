package ynab

import (
	"fmt"
	"net/http"
	"time"
)

// The control surface: what tests (and "the person" in the app) do
// besides the API. None of it counts against a token's request budget.

// Plan names the ids of a plan made by AddPlan.
type Plan struct {
	ID         string
	Accounts   map[string]string // account name -> id
	Categories map[string]string // category name -> id
}

// AddPlan makes a plan with on-budget checking accounts and categories
// (group name -> category names), beside YNAB's internal group with its
// "Inflow: Ready to Assign" category.
func (f *Fake) AddPlan(name string, accounts []string, categories map[string][]string) Plan {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	p := &plan{id: newUUID(), name: name, byID: map[string]*txn{}, imports: map[string]*txn{}, modified: now,
		payeeIDs: map[string]*payee{}, payeeNames: map[string]*payee{}}
	out := Plan{ID: p.id, Accounts: map[string]string{}, Categories: map[string]string{}}
	internal := &group{id: newUUID(), name: "Internal Master Category", internal: true, knowledge: p.bump(now)}
	p.groups = append(p.groups, internal)
	p.categories = append(p.categories, &category{id: newUUID(), group: internal.id, name: "Inflow: Ready to Assign",
		internal: true, knowledge: p.bump(now)})
	for _, n := range accounts {
		a := &account{id: newUUID(), name: n, typ: "checking", onBudget: true, knowledge: p.bump(now)}
		py := &payee{id: newUUID(), name: "Transfer : " + n, transferAccount: a.id, knowledge: a.knowledge}
		a.transferPayee = py.id
		p.accounts = append(p.accounts, a)
		p.addPayee(py)
		out.Accounts[n] = a.id
	}
	for gname, cats := range categories {
		g := &group{id: newUUID(), name: gname, knowledge: p.bump(now)}
		p.groups = append(p.groups, g)
		for _, cn := range cats {
			c := &category{id: newUUID(), group: g.id, name: cn, knowledge: p.bump(now)}
			p.categories = append(p.categories, c)
			out.Categories[cn] = c.id
		}
	}
	f.plans = append(f.plans, p)
	return out
}

// Transaction is a transaction as the fake holds it, deleted ones too.
type Transaction struct {
	ID, Account, Date string
	Amount            int64 // milliunits
	Cleared           string
	Approved          bool
	Payee, Category   string // names, "" for none
	Memo              string
	ImportID          string
	TransferAccount   string
	TransferID        string
	Deleted           bool
}

// Transactions returns a plan's transactions in creation order.
func (f *Fake) Transactions(planID string) []Transaction {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.planByID(planID)
	if p == nil {
		return nil
	}
	out := make([]Transaction, 0, len(p.txs))
	for _, t := range p.txs {
		x := Transaction{ID: t.id, Account: t.account, Date: t.date, Amount: t.amount, Cleared: t.cleared,
			Approved: t.approved, ImportID: t.importID, TransferAccount: t.transferAccount, TransferID: t.transferTx,
			Deleted: t.deleted}
		if py := p.payee(t.payee); py != nil {
			x.Payee = py.name
		}
		if c := p.category(t.category); c != nil {
			x.Category = c.name
		}
		if t.memo != nil {
			x.Memo = *t.memo
		}
		out = append(out, x)
	}
	return out
}

func (f *Fake) planByID(id string) *plan {
	for _, p := range f.plans {
		if p.id == id {
			return p
		}
	}
	return nil
}

// person runs fn on a live transaction of a plan as the person's edit.
func (f *Fake) person(planID, txID string, fn func(p *plan, t *txn, now time.Time)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.planByID(planID)
	if p == nil {
		return fmt.Errorf("plan %s: %w", planID, errNoPlan)
	}
	t := p.byID[txID]
	if t == nil || t.deleted {
		return fmt.Errorf("no transaction %s", txID)
	}
	fn(p, t, f.now())
	return nil
}

// PersonEdit is the person changing a transaction's category (a name, ""
// for none) and memo in the app.
func (f *Fake) PersonEdit(planID, txID, category, memo string) error {
	return f.person(planID, txID, func(p *plan, t *txn, now time.Time) {
		t.category = ""
		for _, c := range p.categories {
			if c.name == category {
				t.category = c.id
			}
		}
		t.memo = strPtr(memo)
		t.approved = true
		t.knowledge = p.bump(now)
	})
}

// PersonDelete is the person deleting a transaction in the app.
func (f *Fake) PersonDelete(planID, txID string) error {
	return f.person(planID, txID, func(p *plan, t *txn, now time.Time) { p.delete(t, now) })
}

// PersonReconcile is the person reconciling an account: its cleared rows
// become reconciled.
func (f *Fake) PersonReconcile(planID, accountID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.planByID(planID)
	if p == nil {
		return fmt.Errorf("plan %s: %w", planID, errNoPlan)
	}
	now := f.now()
	for _, t := range p.txs {
		if !t.deleted && t.account == accountID && t.cleared == "cleared" {
			t.cleared = "reconciled"
			t.knowledge = p.bump(now)
		}
	}
	return nil
}

// PersonAdd is the person entering a transaction by hand (no import id);
// it returns its id.
func (f *Fake) PersonAdd(planID, accountID, date string, amount int64, payee string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.planByID(planID)
	if p == nil {
		return "", fmt.Errorf("plan %s: %w", planID, errNoPlan)
	}
	if p.account(accountID) == nil {
		return "", fmt.Errorf("no account %s", accountID)
	}
	now := f.now()
	t := &txn{id: newUUID(), account: accountID, date: date, amount: amount, cleared: "uncleared", approved: true,
		payee: p.payeeNamed(payee, now).id}
	t.knowledge = p.bump(now)
	p.add(t)
	return t.id, nil
}

// Prefix is the path the fake is served under beside the simulated bank
// (bankmirror simulator --ynab).
const Prefix = "/ynab"

// Beside returns a fake with a plan "Household" (accounts named as the
// simulated bank's: Spending, Rainy Day 🌧, Japan Trip ✈️, 2Up Spending;
// a few categories) and a handler serving it under Prefix and bank (the
// simulated bank's handler) elsewhere. now is the clock (nil: time.Now);
// spec, if not nil, validates every request (see Options.Spec).
func Beside(bank http.Handler, now func() time.Time, spec Spec) (*Fake, http.Handler, error) {
	f, err := New(Options{Now: now, Spec: spec})
	if err != nil {
		return nil, nil, err
	}
	f.AddPlan("Household", []string{"Spending", "Rainy Day 🌧", "Japan Trip ✈️", "2Up Spending"},
		map[string][]string{"Everyday": {"Groceries", "Eating Out", "Transport"}, "Bills": {"Rent", "Utilities"}})
	mux := http.NewServeMux()
	mux.Handle(Prefix+"/", http.StripPrefix(Prefix, f.Handler()))
	mux.Handle("/", bank)
	return f, mux, nil
}
