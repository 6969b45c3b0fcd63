package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
)

// The recurring page applies internal/recurring's rule: a restaurant
// visited most months is not a subscription, a weekly payment costs
// ×52/12 a month, a price change shows in the history, a late payment is
// marked, and one not paid for over a cadence more is listed as stopped.
func TestRecurringByCadence(t *testing.T) {
	today := time.Date(2026, 4, 20, 0, 0, 0, 0, time.UTC)
	var ps []store.PaymentOut
	n := 0
	pay := func(desc string, day time.Time, cents int64) {
		n++
		ps = append(ps, store.PaymentOut{ID: fmt.Sprintf("tx-%d", n), Description: desc, Date: day.Format(time.DateOnly), Currency: "AUD", Cents: cents})
	}
	// monthly on the 3rd, up from 16.99 to 18.99 in April
	for m := range 6 {
		cents := int64(1699)
		if m == 5 {
			cents = 1899
		}
		pay("Netflix", time.Date(2025, 11+time.Month(m), 3, 0, 0, 0, 0, time.UTC), cents)
	}
	// weekly rent, every Monday for ten weeks
	for w := range 10 {
		pay("Rent", time.Date(2026, 2, 9, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 7*w), 50000)
	}
	// a restaurant in most months, on days weeks apart at random, at much the same price
	for _, d := range []string{"2025-11-02", "2025-11-25", "2025-12-21", "2026-01-05", "2026-02-27", "2026-03-08", "2026-04-14"} {
		day, _ := time.Parse(time.DateOnly, d)
		pay("Trattoria", day, 6400)
	}
	// a gym paid monthly until January: stopped
	for m := range 4 {
		pay("Gym", time.Date(2025, 10+time.Month(m), 15, 0, 0, 0, 0, time.UTC), 3000)
	}
	// a phone plan due on the 10th of April, not paid yet: late
	for m := range 4 {
		pay("Phone", time.Date(2025, 12+time.Month(m), 10, 0, 0, 0, 0, time.UTC), 4500)
	}

	current, stopped := recurringList(ps, today)
	byName := map[string]payee{}
	for _, p := range current {
		byName[p.Description] = p
	}
	if _, ok := byName["Trattoria"]; ok {
		t.Error("a restaurant visited most months is listed as recurring")
	}
	if len(current) != 3 || current[0].Description != "Rent" {
		t.Fatalf("recurring %+v, want Rent first, then Phone and Netflix", current)
	}
	rent := byName["Rent"]
	if weekly := int64(216667); rent.Cadence != "weekly" || rent.Monthly != weekly || rent.Next != "2026-04-20" || rent.Late {
		t.Errorf("rent: %+v, want weekly at %d (500.00 × 52 / 12) a month, next 2026-04-20, not late", rent, weekly)
	}
	nf := byName["Netflix"]
	if nf.Cadence != "monthly" || nf.Monthly != 1899 || nf.Cents != 1899 || nf.Next != "2026-05-03" || nf.Late {
		t.Errorf("netflix: %+v", nf)
	}
	if len(nf.Prices) != 2 || nf.Prices[0].Cents != 1699 || nf.Prices[1].Cents != 1899 || nf.Prices[1].Date != "2026-04-03" ||
		nf.Prices[1].Link != "transactions/tx-6" {
		t.Errorf("netflix's price history %+v, want 16.99 then 18.99 from 2026-04-03", nf.Prices)
	}
	if ph := byName["Phone"]; !ph.Late || ph.Next != "2026-04-10" {
		t.Errorf("phone: %+v, want late", ph)
	}
	if len(stopped) != 1 || stopped[0].Description != "Gym" {
		t.Errorf("stopped %+v, want the gym", stopped)
	}
}
