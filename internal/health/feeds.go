package health

import (
	"fmt"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
)

// CheckFeed is the check of the feeds to budgeting apps.
const CheckFeed = "feed"

// FeedFailingAfter is how long a feed may fail before the status says
// DEGRADED: an app down for a few minutes (a restart, an upgrade) is
// retried quietly.
const FeedFailingAfter = time.Hour

// feedChecks are DEGRADED checks for the feeds failing for longer than
// FeedFailingAfter, naming each feed and what mends it. Not readiness
// checks: the mirror is as good with a feed down.
func feedChecks(now time.Time, failing []store.FailingFeed, r Rules) []Check {
	var out []Check
	for _, f := range failing {
		if now.Sub(f.Since) < FeedFailingAfter {
			continue
		}
		out = append(out, Check{Name: CheckFeed, Level: Degraded, Detail: fmt.Sprintf(
			"feed %s has failed since %s (%s ago): %s; `bankmirror feeds status` and `bankmirror feeds setup %s`",
			f.Feed, r.At(f.Since), Age(now.Sub(f.Since)), f.Error, f.Feed)})
	}
	return out
}
