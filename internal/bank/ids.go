package bank

import (
	"fmt"
	"strings"
)

// maxIDLen bounds an identifier in a webhook event. The bank's ids are
// UUIDs (36 characters); 64 leaves room for other opaque tokens.
const maxIDLen = 64

// validID reports whether s has the shape of an identifier of the bank: 1
// to maxIDLen ASCII letters, digits, '-', '_', '.' or ':'. The bank's (and
// the simulator's) ids are UUIDs; the looser shape accepts other opaque
// tokens and refuses what would make a key or a log line long or
// unprintable (NUL, control characters, spaces, quotes, non-ASCII).
func validID(s string) bool {
	if s == "" || len(s) > maxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// badID is the error for an identifier that is not the bank's shape. The
// value is not quoted: it may be huge or hold control characters.
func badID(kind, field string, id string) error {
	return fmt.Errorf("decode %s %q: not an identifier of the bank (1 to %d letters, digits, '-', '_', '.' or ':'; got %d bytes)",
		kind, field, maxIDLen, len(id))
}

// maxLoggedID is the longest identifier LogID passes unchanged.
const maxLoggedID = 100

// LogID is id as it may appear in a log line: unchanged when it is at most
// 100 bytes of printable ASCII (every id the parser accepts is), else its
// first 64 bytes with anything unprintable as '?' and its length, so that
// an identifier from an older row or a hostile source costs a log line
// at most about 90 bytes.
func LogID(id string) string {
	printable := func(c byte) bool { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' }
	ok := len(id) <= maxLoggedID
	for i := 0; ok && i < len(id); i++ {
		ok = printable(id[i])
	}
	if ok {
		return id
	}
	var b strings.Builder
	for i := 0; i < len(id) && i < maxIDLen; i++ {
		if c := id[i]; printable(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('?')
		}
	}
	fmt.Fprintf(&b, "...(%d bytes)", len(id))
	return b.String()
}
