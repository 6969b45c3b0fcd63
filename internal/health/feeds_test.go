package health

import (
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
)

// A feed failing for less than an hour is retried quietly; past an hour
// the status is DEGRADED naming the feed and what mends it, and the
// mirror stays ready.
func TestFailingFeedDegradesAfterAnHour(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	f := Facts{Now: now, LastSync: now.Add(-time.Minute), FailingFeeds: []store.FailingFeed{
		{Feed: "actual", Error: "actual: server unreachable", Since: now.Add(-59 * time.Minute)},
	}}
	for _, c := range Evaluate(f, Rules{StaleAfter: time.Hour}) {
		if c.Name == CheckFeed {
			t.Errorf("a feed failing for 59 minutes: %+v", c)
		}
	}
	f.FailingFeeds[0].Since = now.Add(-61 * time.Minute)
	checks := Evaluate(f, Rules{StaleAfter: time.Hour})
	level, reason := Verdict(checks)
	if level != Degraded || !strings.Contains(reason, "feed actual has failed since") || !strings.Contains(reason, "bankmirror feeds setup actual") {
		t.Errorf("verdict %v: %s", level, reason)
	}
	if !Ready(checks) {
		t.Error("a failing feed made the mirror not ready")
	}
}
