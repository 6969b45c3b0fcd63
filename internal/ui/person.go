package ui

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/bankmirror/bankmirror/internal/store"
)

// A household of several people gets a person switch on every page
// (render's personSwitch): the household's pages count each transaction
// once (v_monthly_spending, v_monthly_income) and the overview shows what
// each person spent this month; a person's pages, below ROOT/p/NAME/, read
// the per-person views (v_monthly_spending_by_person,
// v_monthly_income_by_person) and list the transactions that person made
// (v_transactions.person). The lists say who made each transaction.

// spendingByCategory is the household's spending, or person's.
func (h *Handler) spendingByCategory(ctx context.Context, person, from, to string) ([]store.CategorySpending, error) {
	if person == "" {
		return h.m.SpendingByCategory(ctx, from, to)
	}
	return h.m.PersonSpendingByCategory(ctx, person, from, to)
}

// incomeByMonth is the household's income, or person's.
func (h *Handler) incomeByMonth(ctx context.Context, person, from, to string) (map[string]int64, error) {
	if person == "" {
		return h.m.IncomeByMonth(ctx, from, to)
	}
	return h.m.PersonIncomeByMonth(ctx, person, from, to)
}

// personTotal is what one person spent in a month, for the household's
// overview.
type personTotal struct {
	Label string
	Link  string // their list of the month's spending; "" for spending whose maker is not known
	Cents int64
	Count int64
}

// byPerson is what each person of the household spent in month: nil for a
// household of one.
func (h *Handler) byPerson(ctx context.Context, people []store.Person, month string) ([]personTotal, error) {
	if len(people) < 2 {
		return nil, nil
	}
	rows, err := h.m.SpendingByPerson(ctx, month)
	if err != nil {
		return nil, err
	}
	// Every person, in order, even one who spent nothing; then spending
	// whose maker is not known, and that of people since removed.
	out := make([]personTotal, 0, len(people)+1)
	for _, p := range people {
		t := personTotal{Label: personLabel(p), Link: personPrefix + p.Name + "/" + txLink(url.Values{"month": {month}, "spending": {"1"}})}
		if i := slices.IndexFunc(rows, func(r store.PersonSpending) bool { return r.Person == p.Name }); i >= 0 {
			t.Cents, t.Count = rows[i].Cents, rows[i].Count
		}
		out = append(out, t)
	}
	for _, r := range rows {
		switch {
		case r.Person == "":
			out = append(out, personTotal{Label: "Not known (a joint account's)", Cents: r.Cents, Count: r.Count})
		case !slices.ContainsFunc(people, func(p store.Person) bool { return p.Name == r.Person }):
			out = append(out, personTotal{Label: r.Person + " (removed)", Cents: r.Cents, Count: r.Count})
		}
	}
	return out, nil
}

// personLabel is how a person is named on the pages: the name the bank
// shows on their transactions, else their name in the configuration.
func personLabel(p store.Person) string {
	if p.DisplayName != "" {
		return p.DisplayName
	}
	return p.Name
}

// heldTransactions is what waits to settle, oldest first: the household's,
// or on the accounts person sees.
func (h *Handler) heldTransactions(ctx context.Context, person string, n int) ([]store.TxRow, error) {
	if person == "" {
		return h.m.HeldTransactions(ctx, n)
	}
	return h.m.PersonHeldTransactions(ctx, person, n)
}

// whose names the people of a household of several who see an account
// (store.AccountBalance.People) as the pages name them, "alex & sam" for
// a shared one: "" for a household of one, or when none is recorded.
func whose(people []store.Person, names []string) string {
	if len(people) < 2 {
		return ""
	}
	labels := make([]string, 0, len(names))
	for _, n := range names {
		label := n
		if i := slices.IndexFunc(people, func(p store.Person) bool { return p.Name == n }); i >= 0 {
			label = personLabel(people[i])
		}
		labels = append(labels, label)
	}
	return strings.Join(labels, " & ")
}

// accountsWhose is whose of each account, by id: nil for a household of
// one.
func accountsWhose(people []store.Person, accts []store.AccountBalance) map[string]string {
	if len(people) < 2 {
		return nil
	}
	out := make(map[string]string, len(accts))
	for _, a := range accts {
		out[a.ID] = whose(people, a.People)
	}
	return out
}

// onlyAccounts keeps the accounts whose ids are in ids.
func onlyAccounts(accts []store.AccountBalance, ids []string) []store.AccountBalance {
	return slices.DeleteFunc(accts, func(a store.AccountBalance) bool { return !slices.Contains(ids, a.ID) })
}
