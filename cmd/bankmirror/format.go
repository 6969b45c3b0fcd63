package main

import (
	"strconv"
	"strings"
)

// formatMoney is how every command prints an amount for people: base units
// (cents) as a signed decimal with thousands separators and the currency,
// -384,470.69 AUD.
func formatMoney(baseUnits int64, currency string) string {
	digits := strconv.FormatInt(baseUnits, 10)
	sign := ""
	if baseUnits < 0 {
		sign, digits = "-", digits[1:]
	}
	for len(digits) < 3 {
		digits = "0" + digits
	}
	whole, cents := digits[:len(digits)-2], digits[len(digits)-2:]
	var b strings.Builder
	b.WriteString(sign)
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	b.WriteString("." + cents)
	if currency != "" {
		b.WriteString(" " + currency)
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

// plural is n and noun, with an s unless n is 1: "1 page", "51 pages".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
