package ui

import (
	"math"
	"testing"
)

func TestMoney(t *testing.T) {
	for cents, want := range map[int64]string{
		0: "$0.00", 5: "$0.05", -5: "−$0.05", 123456: "$1,234.56", -100: "−$1.00",
		-123456789: "−$1,234,567.89", math.MinInt64: "−$92,233,720,368,547,758.08",
	} {
		if got := aud(cents); got != want {
			t.Errorf("aud(%d) = %q, want %q", cents, got, want)
		}
	}
	if got := moneyIn(-1999, "USD"); got != "−USD 19.99" {
		t.Errorf("moneyIn USD: %q", got)
	}
}
