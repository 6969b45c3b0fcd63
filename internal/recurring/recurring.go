// Package recurring finds recurring payments (subscriptions, rent,
// insurance) in a list of payments, by cadence.
//
// The rule: a payee's payments (same description) recur when
//   - there are at least MinPayments of them (2 for a yearly cadence),
//   - the median interval between consecutive payments is near one of the
//     cadences (weekly 7 days ±1, fortnightly 14 ±2, monthly 30.4 ±4,
//     quarterly 91 ±10, yearly 365 ±15),
//   - at least 80% of the intervals are within that tolerance of it, and
//   - at least 80% of the amounts are within 20% of the median amount.
//
// A restaurant visited most months fails the interval test (its visits
// are days or weeks apart at random); a gym that raised its price passes
// (the price history says when). The expected next date is the last
// payment plus the cadence; the monthly cost is the last amount scaled to
// a month (weekly × 52/12, yearly ÷ 12).
package recurring

import (
	"math"
	"slices"
	"sort"
	"time"
)

// Cadence is how often a payment recurs.
type Cadence struct {
	Name      string
	Days      float64 // nominal interval
	Tolerance float64 // days either side
	PerMonth  float64 // payments a month, for the monthly cost
	MinCount  int     // payments needed to call it recurring
}

// Cadences, shortest first.
var Cadences = []Cadence{
	{"weekly", 7, 1, 52.0 / 12, 3},
	{"fortnightly", 14, 2, 26.0 / 12, 3},
	{"monthly", 30.44, 4, 1, 3},
	{"quarterly", 91.3, 10, 1.0 / 3, 3},
	{"yearly", 365.25, 15, 1.0 / 12, 2},
}

// Share of intervals and amounts that must be regular.
const (
	regularShare    = 0.8
	amountTolerance = 0.2
)

// Payment is one payment out.
type Payment struct {
	ID       string
	Payee    string
	Date     time.Time // a local date
	Cents    int64     // positive
	Currency string
}

// Price is a payment whose amount differs from the one before it.
type Price struct {
	Date  time.Time
	Cents int64
	ID    string
}

// Series is a recurring payee.
type Series struct {
	Payee       string
	Cadence     Cadence
	Count       int
	First, Last time.Time
	LastID      string
	Cents       int64 // the last amount
	Currency    string
	Next        time.Time // expected next payment
	MonthlyCost int64     // cents a month at the last amount
	// Prices is the amount's history: the first amount and each change,
	// oldest first.
	Prices []Price
}

// Changed says whether the last payment's amount differs from the one
// before it.
func (s Series) Changed() bool {
	return len(s.Prices) > 1 && s.Prices[len(s.Prices)-1].ID == s.LastID
}

// Late says whether the next payment is overdue on day (past Next by the
// cadence's tolerance).
func (s Series) Late(day time.Time) bool {
	return day.After(s.Next.AddDate(0, 0, int(math.Ceil(s.Cadence.Tolerance))))
}

// Find returns the recurring payees among payments, by payee.
func Find(payments []Payment) []Series {
	byPayee := map[string][]Payment{}
	for _, p := range payments {
		byPayee[p.Payee] = append(byPayee[p.Payee], p)
	}
	var out []Series
	for payee, ps := range byPayee {
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].Date.Before(ps[j].Date) })
		if s, ok := series(payee, ps); ok {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].MonthlyCost != out[j].MonthlyCost {
			return out[i].MonthlyCost > out[j].MonthlyCost
		}
		return out[i].Payee < out[j].Payee
	})
	return out
}

func series(payee string, ps []Payment) (Series, bool) {
	if len(ps) < 2 {
		return Series{}, false
	}
	intervals := make([]float64, 0, len(ps)-1)
	for i := 1; i < len(ps); i++ {
		intervals = append(intervals, ps[i].Date.Sub(ps[i-1].Date).Hours()/24)
	}
	med := median(intervals)
	c, ok := cadenceOf(med)
	if !ok || len(ps) < c.MinCount {
		return Series{}, false
	}
	regular := 0
	for _, d := range intervals {
		if math.Abs(d-c.Days) <= c.Tolerance {
			regular++
		}
	}
	if float64(regular) < regularShare*float64(len(intervals)) {
		return Series{}, false
	}
	amounts := make([]float64, len(ps))
	for i, p := range ps {
		amounts[i] = float64(p.Cents)
	}
	medAmount := median(amounts)
	stable := 0
	for _, a := range amounts {
		if math.Abs(a-medAmount) <= amountTolerance*medAmount {
			stable++
		}
	}
	if float64(stable) < regularShare*float64(len(amounts)) {
		return Series{}, false
	}
	last := ps[len(ps)-1]
	s := Series{Payee: payee, Cadence: c, Count: len(ps), First: ps[0].Date, Last: last.Date, LastID: last.ID,
		Cents: last.Cents, Currency: last.Currency, Next: next(last.Date, c),
		MonthlyCost: int64(math.Round(float64(last.Cents) * c.PerMonth))}
	for i, p := range ps {
		if i == 0 || p.Cents != ps[i-1].Cents {
			s.Prices = append(s.Prices, Price{Date: p.Date, Cents: p.Cents, ID: p.ID})
		}
	}
	return s, true
}

// next is the expected date after last: calendar months for monthly,
// quarterly and yearly cadences (the 31st falls to the month's end).
func next(last time.Time, c Cadence) time.Time {
	months := map[string]int{"monthly": 1, "quarterly": 3, "yearly": 12}[c.Name]
	if months == 0 {
		return last.AddDate(0, 0, int(c.Days))
	}
	y, m, d := last.Date()
	first := time.Date(y, m+time.Month(months), 1, 0, 0, 0, 0, last.Location())
	lastDay := first.AddDate(0, 1, -1).Day()
	return time.Date(first.Year(), first.Month(), min(d, lastDay), 0, 0, 0, 0, last.Location())
}

func cadenceOf(days float64) (Cadence, bool) {
	for _, c := range Cadences {
		if math.Abs(days-c.Days) <= c.Tolerance {
			return c, true
		}
	}
	return Cadence{}, false
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
