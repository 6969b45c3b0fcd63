package replica

import (
	"context"
	"sync"
	"time"
)

// DefaultStopGrace is how long work in progress when its context ends may
// go on, unless its options say otherwise: a worker round's commit, the
// bookkeeping of a sync or heal that was stopped. The daemon passes a
// share of its stop budget instead.
const DefaultStopGrace = 5 * time.Second

// afterStop returns a context that is not cancelled with ctx but grace
// after it (or by the returned cancel): work in progress when a stop
// begins finishes, or is given up, within grace. Giving up is always
// safe: events are durable, applying them is idempotent, and a listing
// resumes from its checkpoint.
func afterStop(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	after, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var mu sync.Mutex
	var timer *time.Timer
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if after.Err() == nil {
			timer = time.AfterFunc(grace, cancel)
		}
	})
	return after, func() {
		stop()
		cancel()
		mu.Lock()
		defer mu.Unlock()
		if timer != nil {
			timer.Stop()
		}
	}
}
