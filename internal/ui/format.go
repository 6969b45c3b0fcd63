package ui

import (
	"strconv"
	"time"

	"github.com/bankmirror/bankmirror/internal/money"
)

// aud is cents of Australian dollars as people read them: $1,234.56,
// −$12.00 for a negative amount (the pages' "money").
func aud(cents int64) string { return moneyIn(cents, "AUD") }

// moneyIn is cents in currency: $ for AUD, the ISO code before others.
func moneyIn(cents int64, currency string) string {
	sign, whole, frac := "", cents/100, cents%100
	if cents < 0 {
		sign, whole, frac = "−", -whole, -frac
	}
	cents2 := strconv.FormatInt(frac+100, 10)[1:]
	unit := "$"
	if currency != "" && currency != "AUD" {
		unit = currency + " "
	}
	return sign + unit + money.Thousands(whole) + "." + cents2
}

// monthName is "March 2026" for "2026-03" (the text itself if it is no
// month).
func monthName(m string) string {
	t, err := time.Parse("2006-01", m)
	if err != nil {
		return m
	}
	return t.Format("January 2006")
}

// shortMonth is "Mar" for "2026-03", "Jan 26" for a January.
func shortMonth(m string) string {
	t, err := time.Parse("2006-01", m)
	if err != nil {
		return m
	}
	if t.Month() == time.January {
		return t.Format("Jan 06")
	}
	return t.Format("Jan")
}

// plural is "1 event", "2 events".
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return money.Thousands(n) + " " + many
}
