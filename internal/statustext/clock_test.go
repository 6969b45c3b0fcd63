package statustext

import (
	"testing"
	"time"
)

// Times are shown in the customer's zone with their offset; without a
// zone in UTC; a stamp that does not parse as it is.
func TestClock(t *testing.T) {
	perth, err := time.LoadLocation("Australia/Perth")
	if err != nil {
		t.Fatal(err)
	}
	c := NewClock(perth)
	if got := c.Stamp("2026-03-04T01:30:12.123456Z"); got != "2026-03-04 09:30:12 +08:00" {
		t.Errorf("Stamp in Perth = %q", got)
	}
	if got := NewClock(nil).Stamp("2026-03-04T09:30:12+11:00"); got != "2026-03-03 22:30:12 +00:00" {
		t.Errorf("Stamp without a zone = %q, want UTC", got)
	}
	for _, s := range []string{"", "-", "yesterday"} {
		if got := c.Stamp(s); got != s {
			t.Errorf("Stamp(%q) = %q, want it as it is", s, got)
		}
	}
}
