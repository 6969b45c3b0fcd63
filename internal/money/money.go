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
	sign := ""
	u := uint64(baseUnits)
	if baseUnits < 0 {
		sign, u = "-", uint64(-(baseUnits+1))+1 // no overflow at the minimum
	}
	var b strings.Builder
	b.WriteString(sign)
	b.WriteString(thousands(strconv.FormatUint(u/100, 10)))
	b.WriteByte('.')
	cents := u % 100
	b.WriteByte(byte('0' + cents/10))
	b.WriteByte(byte('0' + cents%10))
	if currency != "" {
		b.WriteByte(' ')
		b.WriteString(currency)
	}
	return b.String()
}

// Thousands writes n with commas: 123,456.
func Thousands(n int64) string {
	if n < 0 {
		return "-" + thousands(strconv.FormatUint(uint64(-(n+1))+1, 10))
	}
	return thousands(strconv.FormatInt(n, 10))
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
