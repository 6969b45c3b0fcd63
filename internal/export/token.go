package export

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// MinTokenDistinct is how many different characters a feed token must
// have at least. A random token of 16 hex digits has fewer with a chance of
// about 1 in 40,000.
const MinTokenDistinct = 6

// ErrWeakToken is the error CheckToken wraps.
var ErrWeakToken = errors.New("the token is too weak")

// CheckToken refuses a token that cannot guard the feed: shorter than
// MinTokenLength bytes, with fewer than MinTokenDistinct different
// characters (one repeated character, "abab..."), or a shorter piece
// repeated ("abcdefabcdefabcd"). The error never quotes the token.
func CheckToken(token string) error {
	const advice = " (make one with: openssl rand -hex 32)"
	if len(token) < MinTokenLength {
		return fmt.Errorf("%w: it must be at least %d characters%s", ErrWeakToken, MinTokenLength, advice)
	}
	if !utf8.ValidString(token) {
		return fmt.Errorf("%w: it is not valid UTF-8%s", ErrWeakToken, advice)
	}
	seen := map[rune]bool{}
	for _, r := range token {
		seen[r] = true
	}
	if len(seen) < MinTokenDistinct {
		return fmt.Errorf("%w: it has %d different characters, fewer than %d%s", ErrWeakToken, len(seen), MinTokenDistinct, advice)
	}
	if p := period(token); p <= len(token)/2 {
		return fmt.Errorf("%w: it repeats a piece of %d characters%s", ErrWeakToken, p, advice)
	}
	return nil
}

// period is the length of the shortest piece that s repeats (the last
// repetition may be cut short); len(s) when none does.
func period(s string) int {
	for p := 1; p < len(s); p++ {
		if s[p:] == s[:len(s)-p] {
			return p
		}
	}
	return len(s)
}
