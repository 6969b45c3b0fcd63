package ui

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"

	"github.com/bankmirror/bankmirror/internal/store"
)

// The rule of a recurring payment (subscriptions, rent, bills): a payee
// (the transaction's description, the bank's merchant name) paid in at
// least recurringMonths of the last recurringWindow months (this month
// included), with similar amounts: at least 80% of its payments within
// recurringTolerancePct of their median. A supermarket visited every week
// for varying amounts is not recurring; rent paid every week for the same
// amount is.
const (
	recurringWindow       = 6
	recurringMonths       = 3
	recurringTolerancePct = 20
	recurringSimilarPct   = 80
)

// payee is a recurring payment.
type payee struct {
	Description string
	Search      string // the list of its transactions: a search bounded in length (searchFor)
	Months      int    // months it was paid in
	LastMonth   string
	Typical     int64 // the median payment, cents
	Monthly     int64 // paid per month it was paid in: total / Months
	Payments    int64
}

// recurringPayees applies the rule to payments (money out, positive
// cents), largest monthly amount first.
func recurringPayees(payments []store.Payment) []payee {
	by := map[string][]store.Payment{}
	for _, p := range payments {
		by[p.Description] = append(by[p.Description], p)
	}
	var out []payee
	for desc, ps := range by {
		months := map[string]bool{}
		var n, total int64
		last := ""
		for _, p := range ps {
			months[p.Month] = true
			n += p.Count
			total += p.Cents * p.Count
			last = max(last, p.Month)
		}
		if len(months) < recurringMonths {
			continue
		}
		med := weightedMedian(ps, n)
		var similar int64
		for _, p := range ps {
			if diff := p.Cents - med; diff*100 <= med*recurringTolerancePct && -diff*100 <= med*recurringTolerancePct {
				similar += p.Count
			}
		}
		if similar*100 < n*recurringSimilarPct {
			continue
		}
		out = append(out, payee{Description: desc, Search: txLink(url.Values{"q": {searchFor(desc)}}), Months: len(months), LastMonth: last, Typical: med,
			Monthly: total / int64(len(months)), Payments: n})
	}
	slices.SortFunc(out, func(a, b payee) int {
		return cmp.Or(cmp.Compare(b.Monthly, a.Monthly), cmp.Compare(a.Description, b.Description))
	})
	return out
}

// weightedMedian is the median of the payments' amounts, each counted
// Count times (the lower middle of an even number).
func weightedMedian(ps []store.Payment, n int64) int64 {
	sorted := slices.Clone(ps)
	slices.SortFunc(sorted, func(a, b store.Payment) int { return cmp.Compare(a.Cents, b.Cents) })
	mid := (n - 1) / 2
	for _, p := range sorted {
		if mid < p.Count {
			return p.Cents
		}
		mid -= p.Count
	}
	return 0
}

// recurring is /recurring: payees paid in at least 3 of the last 6
// months with similar amounts (recurringPayees).
func (h *Handler) recurring(w http.ResponseWriter, r *http.Request) {
	months := h.months(recurringWindow)
	payments, err := h.m.Payments(r.Context(), months[0])
	if err != nil {
		h.fail(w, r, err)
		return
	}
	list := recurringPayees(payments)
	var total int64
	for _, p := range list {
		total += p.Monthly
	}
	h.render(w, r, http.StatusOK, "recurring", "Recurring payments", struct {
		From, To      string
		List          []payee
		Total         int64
		Window, Least int
		Tolerance     int
	}{months[0], months[len(months)-1], list, total, recurringWindow, recurringMonths, recurringTolerancePct})
}
