package main

import (
	"strconv"
	"strings"
)

// formatMoney is how every command prints an amount for people: base units
// (cents) as a signed decimal with thousands separators and the currency,
// -384,470.69 AUD.
func formatMoney(baseUnits int64, currency string) string {
	sign := ""
	u := uint64(baseUnits)
	if baseUnits < 0 {
		sign, u = "-", uint64(-(baseUnits+1))+1 // no overflow at the minimum
	}
	whole := strconv.FormatUint(u/100, 10)
	var b strings.Builder
	b.WriteString(sign)
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
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

// shellQuote is s as a POSIX shell word, for a command line printed to be
// copied: as it is when it has only safe characters, else single-quoted.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
