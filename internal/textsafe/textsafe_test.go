package textsafe

import (
	"strings"
	"testing"
)

func TestLineShowsWhatIsHidden(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Coffee 5 ☕", "Coffee 5 ☕"},
		{"\x1b[2Jwiped", "⟨U+001B⟩[2Jwiped"},
		{"\x1b]0;title\x07x", "⟨U+001B⟩]0;title⟨U+0007⟩x"},
		{"a\r\nBcc: x@y", "a⟨U+000D⟩⟨U+000A⟩Bcc: x@y"},
		{"abc\u202Egpj.exe", "abc⟨U+202E⟩gpj.exe"},
		{"one\u2028two\u2029three", "one⟨U+2028⟩two⟨U+2029⟩three"},
		{"family \u200d joiner", "family \u200d joiner"},
		{"bad \xff byte", "bad \uFFFD byte"},
	}
	for _, c := range cases {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCutCountsCharactersOfTheOriginal(t *testing.T) {
	if got := Cut("abcdef", 4); got != "abc…" {
		t.Errorf("Cut = %q", got)
	}
	if got := Cut("ab\x1b", 3); got != "ab⟨U+001B⟩" {
		t.Errorf("Cut short = %q", got)
	}
	if got := Cut(strings.Repeat("\n", 10), 3); got != "⟨U+000A⟩⟨U+000A⟩…" {
		t.Errorf("Cut hidden = %q", got)
	}
}

func TestFirstLineKeepsTheHeadline(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "",
		"one line":                         "one line",
		"  rules.toml:3: bad \n  detail\n": "rules.toml:3: bad",
		"unknown name x (1:1)\n | x\n | ^": "unknown name x (1:1)",
		"\n\nfirst after blanks\nsecond":   "first after blanks",
	} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
