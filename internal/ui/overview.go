package ui

import (
	"cmp"
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/store"
)

// months is the last n months up to and including now's, oldest first,
// in the customer's zone (YYYY-MM).
func (h *Handler) months(n int) []string {
	now := h.o.Now().In(h.o.Location)
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, h.o.Location)
	out := make([]string, n)
	for i := range n {
		out[n-1-i] = first.AddDate(0, -i, 0).Format("2006-01")
	}
	return out
}

// monthTotal is one month's spending, as v_monthly_spending sums it.
type monthTotal struct {
	Month string
	Cents int64
	Count int64
}

type overviewData struct {
	Health               *healthLine
	ThisMonth, LastMonth monthTotal
	Categories           hbarChart
	Months               monthsChart
	Accounts             []accountView
	// ByPerson is what each person spent this month (a household's
	// overview of several people).
	ByPerson []personTotal
	// TrendNote: no account has two balances yet, said once under the
	// table rather than on every row.
	TrendNote string
	Held      []store.TxRow
	Today     string
	// Who: the lists say who made each transaction, and the accounts
	// whose they are (a household of several people); Whose is the
	// latter by account id.
	Who   bool
	Whose map[string]string
}

// overview is /: this month and last, by category; twelve months of
// spending and income; the accounts with their trend; what is HELD; the
// mirror's health.
func (h *Handler) overview(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	at := whereOf(ctx)
	months := h.months(12)
	this, last := months[11], months[10]
	spending, err := h.spendingByCategory(ctx, at.Person, months[0], this)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	income, err := h.incomeByMonth(ctx, at.Person, months[0], this)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d := overviewData{ThisMonth: monthTotal{Month: this}, LastMonth: monthTotal{Month: last},
		Today: h.o.Now().In(h.o.Location).Format("Monday 2 January 2006")}
	perMonth := map[string]int64{}
	var cats []hbar
	for _, c := range spending {
		perMonth[c.Month] += c.Cents
		switch c.Month {
		case this:
			d.ThisMonth.Cents += c.Cents
			d.ThisMonth.Count += c.Count
			if c.Cents == 0 {
				continue // refunds netted to nothing: no bar of $0.00
			}
			cats = append(cats, hbar{Label: categoryLabel(c), Cents: c.Cents,
				Link: txLink(url.Values{"month": {this}, "category": {categoryParam(c.CategoryID)}, "spending": {"1"}})})
		case last:
			d.LastMonth.Cents += c.Cents
			d.LastMonth.Count += c.Count
		}
	}
	slices.SortStableFunc(cats, func(a, b hbar) int { return cmp.Compare(b.Cents, a.Cents) })
	d.Categories = newHBarChart(cats)
	d.Months = newMonthsChart(months, perMonth, income)
	d.Who = len(at.People) > 1
	if d.Accounts, err = h.accounts(ctx, at.People, at.Person); err != nil {
		h.fail(w, r, err)
		return
	}
	if at.Person == "" {
		if d.ByPerson, err = h.byPerson(ctx, at.People, this); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	d.TrendNote = trendNote(d.Accounts)
	if d.Who {
		d.Whose = map[string]string{}
		for _, a := range d.Accounts {
			d.Whose[a.ID] = a.Whose
		}
	}
	if d.Held, err = h.heldTransactions(ctx, at.Person, 20); err != nil {
		h.fail(w, r, err)
		return
	}
	if h.o.Status != nil {
		d.Health = h.healthLine(ctx)
	}
	h.render(w, r, http.StatusOK, "overview", "Overview", d)
}

func categoryLabel(c store.CategorySpending) string {
	if c.ParentCategoryID != "" && c.ParentCategory != c.Category {
		return c.ParentCategory + " / " + c.Category
	}
	return c.Category
}

// categoryParam is the category filter of a category id: "none" for
// uncategorised.
func categoryParam(id string) string {
	if id == "" {
		return noCategory
	}
	return id
}

const noCategory = store.NoCategory

// txLink is the list of transactions v selects, relative to the
// session's base.
func txLink(v url.Values) string { return "transactions?" + v.Encode() }

// trendDays is how far back each account's balance trend goes.
const trendDays = 90

type accountView struct {
	store.AccountBalance
	Trend spark
	Days  []store.DailyBalance
	// Whose names the people who see it, in a household of several.
	Whose string
}

// accounts are the household's accounts, or those person sees, with their
// trends and whose they are.
func (h *Handler) accounts(ctx context.Context, people []store.Person, person string) ([]accountView, error) {
	accts, err := h.m.AccountBalances(ctx)
	if err != nil {
		return nil, err
	}
	if person != "" {
		ids, err := h.m.PersonAccounts(ctx, person)
		if err != nil {
			return nil, err
		}
		accts = onlyAccounts(accts, ids)
	}
	from := h.o.Now().In(h.o.Location).AddDate(0, 0, -trendDays).Format(time.DateOnly)
	days, err := h.m.DailyBalances(ctx, from)
	if err != nil {
		return nil, err
	}
	byAccount := map[string][]store.DailyBalance{}
	for _, d := range days {
		byAccount[d.AccountID] = append(byAccount[d.AccountID], d)
	}
	out := make([]accountView, len(accts))
	for i, a := range accts {
		out[i] = accountView{AccountBalance: a, Days: byAccount[a.ID], Trend: newSpark(byAccount[a.ID]), Whose: whose(people, a.People)}
	}
	return out, nil
}

// trendNote is what to say once when no account has a trend yet (fewer
// than two balances observed each): "" when any has one.
func trendNote(accts []accountView) string {
	first := ""
	for _, a := range accts {
		if a.Trend.Days >= 2 {
			return ""
		}
		if a.Trend.First != "" && (first == "" || a.Trend.First < first) {
			first = a.Trend.First
		}
	}
	switch {
	case len(accts) == 0:
		return ""
	case first == "":
		return "No balance observed yet: each account's trend grows as syncs see its balance."
	default:
		return "One balance of each account observed so far (" + first + "): the trends grow as syncs see the balances change."
	}
}

// healthLine is the mirror's health in one line, by the rules of
// `bankmirror status`.
type healthLine struct {
	Level, Text string
}

func (h *Handler) healthLine(ctx context.Context) *healthLine {
	s, err := h.o.Status(ctx)
	if err != nil {
		return &healthLine{Level: health.Failing.String(), Text: "FAILING: " + err.Error()}
	}
	var parts []string
	if s.Level == health.OK {
		parts = append(parts, "OK")
	} else {
		parts = append(parts, s.Level.String()+": "+s.Reason)
	}
	var last time.Time
	for _, kind := range []string{health.KindIncremental, health.KindFull} {
		if t := s.Syncs[kind].At; t.After(last) {
			last = t
		}
	}
	if last.IsZero() {
		parts = append(parts, "no successful sync yet")
	} else {
		parts = append(parts, "last sync "+health.Age(h.o.Now().Sub(last))+" ago ("+last.In(h.o.Location).Format("2 Jan 15:04")+")")
	}
	parts = append(parts, plural(s.Inbox.Pending, "event", "events")+" pending")
	switch {
	case !s.Token.Known:
		parts = append(parts, "token: no report from the daemon")
	case s.Token.Rejected:
		parts = append(parts, "token REJECTED by the bank")
	default:
		parts = append(parts, "token accepted")
	}
	return &healthLine{Level: s.Level.String(), Text: strings.Join(parts, " · ")}
}
