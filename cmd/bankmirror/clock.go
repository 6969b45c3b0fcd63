package main

import (
	"time"
)

// clock writes every time the commands print for people (status, people,
// alerts list, webhook list and logs, events stuck): in the customer's
// zone (BANKMIRROR_TIMEZONE, the zone of the mirror's *_local columns), in
// one layout to the second, each with its offset from UTC, so that none is
// read in the wrong zone.
type clock struct{ loc *time.Location }

// clockLayout is the one layout: 2026-03-04 09:30:12 +11:00.
const clockLayout = "2006-01-02 15:04:05 -07:00"

// statusClock is the clock of loc, the configuration's zone; without one
// it is UTC, which the offsets then say.
func statusClock(loc *time.Location) clock {
	if loc == nil {
		loc = time.UTC
	}
	return clock{loc}
}

// at is t in the customer's zone: 2026-03-04 09:30:12 +11:00.
func (c clock) at(t time.Time) string { return t.In(c.loc).Format(clockLayout) }

// stamp is at of a stamp of the mirror (UTC with microseconds) or of the
// bank (RFC 3339 with its offset); a stamp that does not parse is shown as
// it is ("" and "-" among them).
func (c clock) stamp(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return c.at(t)
}
