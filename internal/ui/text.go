package ui

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bankmirror/bankmirror/internal/health"
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
// visible, and invalid UTF-8 as U+FFFD.
func clean(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		writeVisible(&b, r)
	}
	return b.String()
}

func needsCleaning(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return true
			}
		}
		if hidden(r) {
			return true
		}
	}
	return false
}

// hidden reports whether r is a control character or an invisible format
// character (bidirectional controls included) other than the joiners that
// emoji and some scripts need.
func hidden(r rune) bool {
	if unicode.IsControl(r) {
		return true
	}
	return unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d'
}

// writeVisible writes r, or ⟨U+XXXX⟩ for a hidden one (the Control
// Pictures block, ␀ and the like, is missing from many fonts).
func writeVisible(b *strings.Builder, r rune) {
	if hidden(r) {
		fmt.Fprintf(b, "⟨U+%04X⟩", r)
		return
	}
	b.WriteRune(r)
}

// short is s cleaned and cut to n characters, "…" ending a cut one.
func short(n int, s string) string {
	if utf8.RuneCountInString(s) <= n {
		return clean(s)
	}
	var b strings.Builder
	i := 0
	for _, r := range s {
		if i == n-1 {
			break
		}
		writeVisible(&b, r)
		i++
	}
	b.WriteString("…")
	return b.String()
}

// long is s cleaned, whole up to longChars characters, and then cut with
// a note of how much more there is.
func long(s string) string {
	n := utf8.RuneCountInString(s)
	if n <= longChars {
		return clean(s)
	}
	return short(longChars, s) + " (" + health.Thousands(int64(n-longChars+1)) + " more characters not shown)"
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
