package main

import (
	"math"
	"testing"
)

func TestFormatMoney(t *testing.T) {
	for _, c := range []struct {
		units    int64
		currency string
		want     string
	}{
		{0, "AUD", "0.00 AUD"},
		{5, "AUD", "0.05 AUD"},
		{-520, "AUD", "-5.20 AUD"},
		{99999, "AUD", "999.99 AUD"},
		{100000, "AUD", "1,000.00 AUD"},
		{-38447069, "AUD", "-384,470.69 AUD"},
		{123456789012, "USD", "1,234,567,890.12 USD"},
		{-100, "", "-1.00"},
		{math.MinInt64, "AUD", "-92,233,720,368,547,758.08 AUD"},
	} {
		if got := formatMoney(c.units, c.currency); got != c.want {
			t.Errorf("formatMoney(%d, %q) = %q, want %q", c.units, c.currency, got, c.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"bankmirror-demo.db":   "bankmirror-demo.db",
		"/var/lib/x/mirror.db": "/var/lib/x/mirror.db",
		"my mirror.db":         "'my mirror.db'",
		"it's.db":              `'it'\''s.db'`,
		"":                     "''",
		"$(rm -rf ~).db":       "'$(rm -rf ~).db'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
