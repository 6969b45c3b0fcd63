package ui

import (
	"net/http"
	"net/url"
	"time"

	"github.com/bankmirror/bankmirror/internal/recurring"
	"github.com/bankmirror/bankmirror/internal/store"
)

// The recurring payments are those of internal/recurring, the one rule
// the alerts use too (docs/rules.md, "Recurring payments"): a payee's
// payments at a regular cadence with stable amounts. The page reads the
// payments out of recurringYears years, as the alerts do.
const recurringYears = 2

// payee is a recurring payment as the page shows it.
type payee struct {
	Description string
	Search      string // the list of its transactions: a search bounded in length (searchFor)
	Cadence     string
	Count       int
	First, Last string // local dates
	Next        string
	Late        bool
	Cents       int64 // the last amount
	Currency    string
	Monthly     int64 // the cadence-normalised amount: what it costs a month
	Prices      []price
}

// price is one amount of a payee's history: the first, then each change.
type price struct {
	Date  string
	Cents int64
	Link  string // the payment that brought it
}

// recurringList finds the recurring payees among payments (as
// store.PaymentsOut lists them) on day today: those still paid (not late
// past a whole cadence more, which looks cancelled) and those that
// stopped, each largest monthly cost first.
func recurringList(payments []store.PaymentOut, today time.Time) (current, stopped []payee) {
	ps := make([]recurring.Payment, 0, len(payments))
	for _, p := range payments {
		d, err := time.Parse(time.DateOnly, p.Date)
		if err != nil {
			continue
		}
		ps = append(ps, recurring.Payment{ID: p.ID, Payee: p.Description, Date: d, Cents: p.Cents, Currency: p.Currency})
	}
	for _, s := range recurring.Find(ps) {
		p := payee{Description: s.Payee, Search: txLink(url.Values{"q": {searchFor(s.Payee)}}), Cadence: s.Cadence.Name,
			Count: s.Count, First: s.First.Format(time.DateOnly), Last: s.Last.Format(time.DateOnly),
			Next: s.Next.Format(time.DateOnly), Late: s.Late(today), Cents: s.Cents, Currency: s.Currency, Monthly: s.MonthlyCost}
		for _, pr := range s.Prices {
			p.Prices = append(p.Prices, price{Date: pr.Date.Format(time.DateOnly), Cents: pr.Cents, Link: "transactions/" + url.PathEscape(pr.ID)})
		}
		if stoppedOn(s, today) {
			stopped = append(stopped, p)
		} else {
			current = append(current, p)
		}
	}
	return current, stopped
}

// stoppedOn says a series looks cancelled on day: a whole cadence past
// the day it became late.
func stoppedOn(s recurring.Series, day time.Time) bool {
	return s.Late(day.AddDate(0, 0, -int(s.Cadence.Days)))
}

// recurring is /recurring: the recurring payments (recurringList), with
// their cadence, next date, price history and monthly cost. It reads two
// years of payments: a heavy page.
func (h *Handler) recurring(w http.ResponseWriter, r *http.Request) {
	now := h.o.Now().In(h.o.Location)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	from := today.AddDate(-recurringYears, 0, 0).Format(time.DateOnly)
	payments, err := h.m.PaymentsOut(r.Context(), from)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	current, stopped := recurringList(payments, today)
	var total int64 // the account's currency: amounts out are in it, whatever a card paid abroad
	for _, p := range current {
		total += p.Monthly
	}
	h.render(w, r, http.StatusOK, "recurring", "Recurring payments", struct {
		From     string
		List     []payee
		Stopped  []payee
		Total    int64
		Cadences []recurring.Cadence
	}{from, current, stopped, total, recurring.Cadences})
}
