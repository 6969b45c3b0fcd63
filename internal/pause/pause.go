// Package pause holds the one sleep that a context cuts short, for the
// retry loops of the bank client and the mirror's worker and schedule.
package pause

import (
	"context"
	"time"
)

// For waits d, or until ctx ends: nil after d, ctx's error if it ended
// first. A d of zero or less does not wait, and says whether ctx has
// ended.
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
