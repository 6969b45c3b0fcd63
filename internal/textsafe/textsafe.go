// Package textsafe makes text from the bank (descriptions, messages,
// notes, account and people's names) safe to show: in a terminal, in an
// alert's mail or push, on the dashboard. Control characters (ESC, BEL,
// CR, LF, ...), the line and paragraph separators (U+2028, U+2029), the
// characters that reorder text (U+202E RIGHT-TO-LEFT OVERRIDE and the
// other bidirectional controls) and other invisible formatting characters
// are shown as ⟨U+XXXX⟩ rather than acted on, so that a description cannot
// clear a screen, retitle a window, start a new mail header line or spoof
// what follows it; invalid UTF-8 becomes U+FFFD. The joiners emoji and
// some scripts need (U+200C, U+200D) are kept.
//
// Line and Cut keep all of a text on one line, its line breaks shown;
// FirstLine keeps only the first line of a text of the daemon's own (an
// error whose detail runs over several lines), the rest dropped.
package textsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is s with every hidden character made visible: one line, whatever
// s holds.
func Line(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		WriteRune(&b, r)
	}
	return b.String()
}

// FirstLine is the first line of s, without the spaces around it: the
// headline of a message that runs over several lines (a compiler's
// error). It hides nothing: the text is the daemon's, not the bank's.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// Cut is Line(s) cut to at most n characters of s, "…" ending a cut one
// (n < 1 is taken as 1).
func Cut(s string, n int) string {
	if n < 1 {
		n = 1
	}
	if utf8.RuneCountInString(s) <= n {
		return Line(s)
	}
	var b strings.Builder
	i := 0
	for _, r := range s {
		if i == n-1 {
			break
		}
		WriteRune(&b, r)
		i++
	}
	b.WriteString("…")
	return b.String()
}

// Hidden reports whether r is a control character, a line or paragraph
// separator (U+2028, U+2029: a line break to some terminals, mail readers
// and scripts) or an invisible format character (bidirectional controls
// included) other than the joiners that emoji and some scripts need.
func Hidden(r rune) bool {
	if unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) {
		return true
	}
	return unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d'
}

// WriteRune writes r to b, or ⟨U+XXXX⟩ for a hidden one (the Control
// Pictures block, ␀ and the like, is missing from many fonts).
func WriteRune(b *strings.Builder, r rune) {
	if Hidden(r) {
		fmt.Fprintf(b, "⟨U+%04X⟩", r)
		return
	}
	b.WriteRune(r)
}

func needsCleaning(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return true
			}
		}
		if Hidden(r) {
			return true
		}
	}
	return false
}
