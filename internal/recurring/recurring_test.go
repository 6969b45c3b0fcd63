package recurring_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/recurring"
)

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func pays(payee string, cents int64, dates ...string) []recurring.Payment {
	var out []recurring.Payment
	for i, d := range dates {
		out = append(out, recurring.Payment{ID: fmt.Sprintf("%s-%d", payee, i), Payee: payee, Date: day(d), Cents: cents, Currency: "AUD"})
	}
	return out
}

func find(ps []recurring.Payment, payee string) (recurring.Series, bool) {
	for _, s := range recurring.Find(ps) {
		if s.Payee == payee {
			return s, true
		}
	}
	return recurring.Series{}, false
}

func TestCadences(t *testing.T) {
	var ps []recurring.Payment
	ps = append(ps, pays("Netflix", 1699, "2025-01-15", "2025-02-15", "2025-03-15", "2025-04-15", "2025-05-15")...)
	ps = append(ps, pays("Cleaner", 12000, "2025-03-01", "2025-03-15", "2025-03-29", "2025-04-12")...)
	ps = append(ps, pays("Coffee club", 500, "2025-04-01", "2025-04-08", "2025-04-15", "2025-04-21")...)
	ps = append(ps, pays("Insurance", 45000, "2024-01-20", "2024-04-20", "2024-07-21", "2024-10-20")...)
	ps = append(ps, pays("Domain", 2500, "2023-06-01", "2024-06-03")...)
	// A restaurant visited most months, at random days: no subscription.
	ps = append(ps, pays("Pho Place", 3500, "2025-01-03", "2025-01-28", "2025-03-09", "2025-03-20", "2025-05-02")...)
	// Two payments a month apart: too few for monthly.
	ps = append(ps, pays("Once or twice", 999, "2025-01-01", "2025-02-01")...)
	want := map[string]string{"Netflix": "monthly", "Cleaner": "fortnightly", "Coffee club": "weekly", "Insurance": "quarterly", "Domain": "yearly"}
	got := recurring.Find(ps)
	if len(got) != len(want) {
		t.Fatalf("found %d series: %+v", len(got), got)
	}
	for _, s := range got {
		if want[s.Payee] != s.Cadence.Name {
			t.Errorf("%s: cadence %s, want %s", s.Payee, s.Cadence.Name, want[s.Payee])
		}
	}
	n, _ := find(ps, "Netflix")
	if !n.Next.Equal(day("2025-06-15")) || n.MonthlyCost != 1699 || n.Changed() {
		t.Errorf("Netflix: next %v, monthly %d, changed %v", n.Next, n.MonthlyCost, n.Changed())
	}
	c, _ := find(ps, "Coffee club")
	if c.MonthlyCost != 2167 { // 500 × 52 / 12
		t.Errorf("weekly monthly cost %d", c.MonthlyCost)
	}
	if !n.Late(day("2025-06-20")) || n.Late(day("2025-06-18")) {
		t.Errorf("lateness of a monthly payment due 15 June")
	}
}

func TestPriceChange(t *testing.T) {
	ps := pays("Gym", 2000, "2025-01-10", "2025-02-10", "2025-03-10")
	ps = append(ps, pays("Gym", 2300, "2025-04-10")...)
	ps[3].ID = "gym-april"
	s, ok := find(ps, "Gym")
	if !ok || !s.Changed() || len(s.Prices) != 2 || s.Prices[1].Cents != 2300 || s.Cents != 2300 {
		t.Fatalf("gym %+v ok=%v", s, ok)
	}
	// A price that jumps by half is another payment, not the same series.
	ps = append(ps, pays("Gym", 5000, "2025-05-10", "2025-06-10")...)
	if _, ok := find(ps, "Gym"); ok {
		t.Fatal("unstable amounts still recur")
	}
}

func TestMonthEnd(t *testing.T) {
	s, ok := find(pays("Rent", 200000, "2025-01-31", "2025-02-28", "2025-03-31"), "Rent")
	if !ok || !s.Next.Equal(day("2025-04-30")) {
		t.Fatalf("rent %+v %v", s, ok)
	}
}
