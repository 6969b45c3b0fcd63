package rules

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Transaction is what a rule's `when` sees. Amounts are decimal numbers,
// negative for money out; optional text is "" when the bank sends none.
type Transaction struct {
	ID                 string   `expr:"id"`
	Description        string   `expr:"description"`
	RawText            string   `expr:"raw_text"`
	Message            string   `expr:"message"`
	Amount             float64  `expr:"amount"`
	Currency           string   `expr:"currency"`
	ForeignCurrency    string   `expr:"foreign_currency"`
	Account            string   `expr:"account"`
	AccountType        string   `expr:"account_type"`
	Ownership          string   `expr:"ownership"`
	Person             string   `expr:"person"`
	Status             string   `expr:"status"`
	Category           string   `expr:"category"`
	ParentCategory     string   `expr:"parent_category"`
	Tags               []string `expr:"tags"`
	CardPurchaseMethod string   `expr:"card_purchase_method"`
	// Weekday is 0 (Sunday) to 6 and Hour 0 to 23, of the transaction's
	// creation in the customer's zone.
	Weekday int `expr:"weekday"`
	Hour    int `expr:"hour"`
	// AccountID is the account's id; AccountPeople who see it (the
	// household's people, sorted); PerformingCustomer the bank's
	// performingCustomer (a display name); TransactionType the bank's
	// transactionType ("Purchase", "Pay Anyone", ...).
	AccountID          string   `expr:"account_id"`
	AccountPeople      []string `expr:"account_people"`
	PerformingCustomer string   `expr:"performing_customer"`
	TransactionType    string   `expr:"transaction_type"`
	// IsTransfer says the money moved between the customer's own
	// accounts (the bank's transferAccount), TransferAccount is the
	// other account's name.
	IsTransfer      bool   `expr:"is_transfer"`
	TransferAccount string `expr:"transfer_account"`
	// HouseholdTransfer says the money moved between two people of the
	// household (paired with the other side: household_transfer_id),
	// HouseholdTransferPerson is the other side's person.
	HouseholdTransfer       bool   `expr:"household_transfer"`
	HouseholdTransferPerson string `expr:"household_transfer_person"`
}

// Match says whether the rule matches tx. A run-time failure (which the
// compile-time checks make rare: a regular expression that does not
// compile, the memory budget, ErrTooLong) is an error, and the rule counts
// as not matching; so is the end of ctx (its error wrapped).
func (r *Rule) Match(ctx context.Context, tx *Transaction) (bool, error) {
	var g guard
	return r.match(ctx, &g, &env{Transaction: *tx, Guard: g.check})
}

func (r *Rule) match(ctx context.Context, g *guard, e *env) (bool, error) {
	g.reset(ctx, time.Now())
	ok, err := g.run(r.program, e)
	if err != nil {
		return false, fmt.Errorf("rule %q: %w", r.Name, err)
	}
	return ok, nil
}

// Outcome is what the rules decide for one transaction, and which rule
// decided each part.
type Outcome struct {
	// Matched lists the rules that matched, in file order.
	Matched []*Rule
	// CategorySet says a rule sets the category; CategoryID is the id it
	// sets ("" removes it) and CategoryRule the rule.
	CategorySet  bool
	CategoryID   string
	CategoryRule *Rule
	// Tags are the tags the matching rules add (each once), TagRules the
	// rule that first added each.
	Tags     []string
	TagRules map[string]*Rule
	// Notify lists the channels to alert, each once, and NotifyRules the
	// rules that asked for each.
	Notify      []string
	NotifyRules map[string][]*Rule
	// Exclude and Note are the mirror-only settings of the first rules
	// that set them (nil when none did).
	Exclude     *bool
	ExcludeRule *Rule
	Note        *string
	NoteRule    *Rule
	// Errors are the rules that failed at run time.
	Errors []error
}

// Evaluate runs every rule against tx, in file order. It stops when ctx
// ends, with ctx's error; a rule that fails otherwise is in the outcome's
// Errors.
func (s *Set) Evaluate(ctx context.Context, tx *Transaction) (Outcome, error) {
	var o Outcome
	var g guard
	e := &env{Transaction: *tx, Guard: g.check}
	for _, r := range s.Rules {
		if err := ctx.Err(); err != nil {
			return o, err
		}
		ok, err := r.match(ctx, &g, e)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return o, err
		}
		if err != nil {
			o.Errors = append(o.Errors, err)
			continue
		}
		if !ok {
			continue
		}
		o.Matched = append(o.Matched, r)
		if r.SetsCategory() && !o.CategorySet {
			o.CategorySet, o.CategoryID, o.CategoryRule = true, r.CategoryID, r
		}
		for _, t := range r.Tags {
			if o.TagRules == nil {
				o.TagRules = map[string]*Rule{}
			}
			if _, seen := o.TagRules[t]; !seen {
				o.Tags = append(o.Tags, t)
				o.TagRules[t] = r
			}
		}
		for _, c := range r.Notify {
			if o.NotifyRules == nil {
				o.NotifyRules = map[string][]*Rule{}
			}
			if _, seen := o.NotifyRules[c]; !seen {
				o.Notify = append(o.Notify, c)
			}
			o.NotifyRules[c] = append(o.NotifyRules[c], r)
		}
		if r.ExcludeFromSpending != nil && o.Exclude == nil {
			o.Exclude, o.ExcludeRule = r.ExcludeFromSpending, r
		}
		if r.Note != nil && o.Note == nil {
			o.Note, o.NoteRule = r.Note, r
		}
	}
	return o, nil
}
