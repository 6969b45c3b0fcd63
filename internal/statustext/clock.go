// Package statustext says the mirror's status in words for people: the
// report of `bankmirror status`, each person's line, and every time the
// commands print, in the customer's zone.
package statustext

import (
	"time"

	"github.com/bankmirror/bankmirror/internal/health"
)

// Clock writes every time the commands print for people (status, people,
// alerts list, webhook list and logs, feeds status): in the customer's
// zone (BANKMIRROR_TIMEZONE, the zone of the mirror's *_local columns), in
// one layout to the second, each with its offset from UTC, so that none is
// read in the wrong zone.
type Clock struct{ Loc *time.Location }

// Layout is the one layout: 2026-03-04 09:30:12 +11:00.
const Layout = health.TimeLayout

// NewClock is the clock of loc, the configuration's zone; without one it
// is UTC, which the offsets then say.
func NewClock(loc *time.Location) Clock {
	if loc == nil {
		loc = time.UTC
	}
	return Clock{loc}
}

// At is t in the customer's zone: 2026-03-04 09:30:12 +11:00.
func (c Clock) At(t time.Time) string { return t.In(c.Loc).Format(Layout) }

// Stamp is At of a stamp of the mirror (UTC with microseconds) or of the
// bank (RFC 3339 with its offset); a stamp that does not parse is shown as
// it is ("" and "-" among them).
func (c Clock) Stamp(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return c.At(t)
}
