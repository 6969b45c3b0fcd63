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

// The DEGRADED reason shows when the feed began failing as every command
// shows a time: in the customer's zone, with its offset.
func TestFailingFeedShowsTheTimeInTheCustomersZone(t *testing.T) {
	perth, err := time.LoadLocation("Australia/Perth")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	f := Facts{Now: now, LastSync: now.Add(-time.Minute), FailingFeeds: []store.FailingFeed{
		{Feed: "ynab", Error: "ynab: token rejected", Since: now.Add(-61 * time.Minute)},
	}}
	_, reason := Verdict(Evaluate(f, Rules{StaleAfter: time.Hour, Zone: perth}))
	if !strings.Contains(reason, "feed ynab has failed since 2026-12-01 18:59:00 +08:00 (1h1m ago)") {
		t.Errorf("reason in Perth: %s", reason)
	}
	_, reason = Verdict(Evaluate(f, Rules{StaleAfter: time.Hour}))
	if !strings.Contains(reason, "since 2026-12-01 10:59:00 +00:00 (") {
		t.Errorf("reason without a zone: %s", reason)
	}
}
