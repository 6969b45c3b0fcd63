// Package money writes amounts for people: base units (cents) as a signed
// decimal with thousands separators and the currency, -384,470.69 AUD.
package money

import (
	"strconv"
	"strings"
)

// Format writes baseUnits (cents) of currency: -384,470.69 AUD (no
// currency when it is "").
func Format(baseUnits int64, currency string) string {
	// The decimal digits of the amount, its sign apart: no conversion
	// can overflow, the smallest int64 included.
	digits := strconv.FormatInt(baseUnits, 10)
	sign := ""
	if baseUnits < 0 {
		sign, digits = "-", digits[1:]
	}
	if len(digits) < 3 {
		digits = strings.Repeat("0", 3-len(digits)) + digits
	}
	var b strings.Builder
	b.WriteString(sign)
	b.WriteString(thousands(digits[:len(digits)-2]))
	b.WriteByte('.')
	b.WriteString(digits[len(digits)-2:])
	if currency != "" {
		b.WriteByte(' ')
		b.WriteString(currency)
	}
	return b.String()
}

// Thousands writes n with commas: 123,456.
func Thousands(n int64) string {
	digits := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + thousands(digits[1:])
	}
	return thousands(digits)
}

// thousands puts commas between the groups of three of a run of digits.
func thousands(digits string) string {
	var b strings.Builder
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(digits[i])
	}
	return b.String()
}
