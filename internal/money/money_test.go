package money_test

import (
	"math"
	"testing"

	"github.com/bankmirror/bankmirror/internal/money"
)

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		units    int64
		currency string
		want     string
	}{
		{-38447069, "AUD", "-384,470.69 AUD"},
		{5, "AUD", "0.05 AUD"},
		{-5, "", "-0.05"},
		{100000, "USD", "1,000.00 USD"},
		{0, "AUD", "0.00 AUD"},
		{math.MinInt64, "", "-92,233,720,368,547,758.08"},
	} {
		if got := money.Format(c.units, c.currency); got != c.want {
			t.Errorf("Format(%d, %q) = %q, want %q", c.units, c.currency, got, c.want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 123456: "123,456", -4500: "-4,500", -1234567: "-1,234,567", math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := money.Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
