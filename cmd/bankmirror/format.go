package main

import (
	"strconv"
	"strings"

	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// formatMoney is how every command prints an amount for people:
// -384,470.69 AUD.
func formatMoney(baseUnits int64, currency string) string { return money.Format(baseUnits, currency) }

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

// shownError is err's text for a terminal: each of its lines with what is
// hidden in it (bank text an error quotes) shown as ⟨U+XXXX⟩.
func shownError(err error) string {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = textsafe.Line(l)
	}
	return strings.Join(lines, "\n")
}
