package ui

import (
	"unicode/utf8"

	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// Text from the bank (descriptions, messages, notes, names) is shown as
// text (html/template escapes it), and also so that it cannot break or
// spoof a page: control characters, the characters that reorder text
// (U+202E RIGHT-TO-LEFT OVERRIDE and the other bidirectional controls) and
// other invisible formatting ones are shown as ⟨U+XXXX⟩, and the templates put each value in a <bdi>, so that
// right-to-left text stays within its own cell. Lists show the first
// characters of a value; the transaction's page shows it whole, up to
// longChars.

// longChars is the most of one value the transaction's page shows.
const longChars = 10_000

// clean is s with every control or invisible formatting character made
// visible, and invalid UTF-8 as U+FFFD: textsafe's, as the terminal and
// the alerts show it.
func clean(s string) string { return textsafe.Line(s) }

// short is s cleaned and cut to n characters, "…" ending a cut one.
func short(n int, s string) string { return textsafe.Cut(s, n) }

// long is s cleaned, whole up to longChars characters, and then cut with
// a note of how much more there is.
func long(s string) string {
	n := utf8.RuneCountInString(s)
	if n <= longChars {
		return clean(s)
	}
	return short(longChars, s) + " (" + money.Thousands(int64(n-longChars+1)) + " more characters not shown)"
}

// searchLen is the most bytes of a description that a search link holds.
const searchLen = 100

// searchFor is a search (?q=) that finds the transactions of description:
// its first searchLen bytes (the search matches words and the starts of
// words, so a cut word still matches), within the list's 200-byte limit.
func searchFor(description string) string {
	if len(description) <= searchLen {
		return description
	}
	cut := searchLen
	for cut > 0 && !utf8.RuneStart(description[cut]) {
		cut--
	}
	return description[:cut]
}
