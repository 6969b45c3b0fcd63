package ui

import (
	"testing"

	"github.com/bankmirror/bankmirror/internal/store"
)

func TestRecurringRule(t *testing.T) {
	p := func(desc, month string, cents, n int64) store.Payment {
		return store.Payment{Description: desc, Month: month, Cents: cents, Count: n}
	}
	got := recurringPayees([]store.Payment{
		// monthly, same amount, 4 months: recurring
		p("Netflix", "2026-01", 1699, 1), p("Netflix", "2026-02", 1699, 1), p("Netflix", "2026-03", 1699, 1), p("Netflix", "2026-04", 1899, 1),
		// rent weekly, same amount: recurring, 4 a month
		p("Rent", "2026-02", 50000, 4), p("Rent", "2026-03", 50000, 5), p("Rent", "2026-04", 50000, 4),
		// a supermarket, varying amounts: not recurring
		p("Coles", "2026-02", 1200, 1), p("Coles", "2026-02", 8800, 1), p("Coles", "2026-03", 4500, 1),
		p("Coles", "2026-03", 15000, 1), p("Coles", "2026-04", 2300, 1), p("Coles", "2026-04", 6100, 1),
		// the same amount in only two months: not recurring
		p("Gym", "2026-03", 3000, 1), p("Gym", "2026-04", 3000, 1),
	})
	if len(got) != 2 || got[0].Description != "Rent" || got[1].Description != "Netflix" {
		t.Fatalf("recurring %+v, want Rent then Netflix", got)
	}
	if got[0].Monthly != 50000*13/3 || got[0].Typical != 50000 || got[0].Months != 3 {
		t.Errorf("rent: %+v", got[0])
	}
	if got[1].Monthly != (1699*3+1899)/4 || got[1].Typical != 1699 || got[1].LastMonth != "2026-04" {
		t.Errorf("netflix: %+v", got[1])
	}
}
