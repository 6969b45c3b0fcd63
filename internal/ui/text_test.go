package ui

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTextShownVisibly(t *testing.T) {
	for in, want := range map[string]string{
		"Netflix \u202egnp.exe":  "Netflix ⟨U+202E⟩gnp.exe",
		"a\x00b\tc\x7fd\u0085e":  "a⟨U+0000⟩b⟨U+0009⟩c⟨U+007F⟩d⟨U+0085⟩e",
		"\u2066x\u2069\u200b":    "⟨U+2066⟩x⟨U+2069⟩⟨U+200B⟩",
		"family 👨\u200d👩\u200d👧": "family 👨\u200d👩\u200d👧", // joiners kept
		"bad \xff utf8":          "bad \ufffd utf8",
		"Café":                   "Café",
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
	if got := short(5, "abcdefgh"); got != "abcd…" {
		t.Errorf("short = %q", got)
	}
	if got := short(5, "abcde"); got != "abcde" {
		t.Errorf("short of a value that fits = %q", got)
	}
	huge := strings.Repeat("é", longChars+5)
	if got := long(huge); utf8.RuneCountInString(got) > longChars+60 || !strings.HasSuffix(got, "(6 more characters not shown)") {
		t.Errorf("long of %d characters ends %q", longChars+5, got[len(got)-40:])
	}
	desc := strings.Repeat("é", 80) // 160 bytes
	if got := searchFor(desc); len(got) > searchLen || !utf8.ValidString(got) || !strings.HasPrefix(desc, got) {
		t.Errorf("searchFor cut %q", got)
	}
}
