package replica

import (
	"context"
	"runtime/debug"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/malloc"
)

// memoryReleaser frees SQLite's page caches (store.Store.ReleaseMemory).
type memoryReleaser interface {
	ReleaseMemory(ctx context.Context) error
}

// ReleaseMemory returns what a piece of work used to the OS once it is
// over: SQLite's page caches, the C heap pages they freed, and with
// goHeap Go's free heap at once rather than minutes later. The schedule
// calls it after a sync, the worker after a burst, the daemon after a
// feed's round.
func ReleaseMemory(ctx context.Context, m memoryReleaser, log zerolog.Logger, goHeap bool) {
	if err := m.ReleaseMemory(ctx); err != nil && ctx.Err() == nil {
		log.Debug().Err(err).Msg("release memory")
	}
	malloc.Trim()
	if goHeap {
		debug.FreeOSMemory()
	}
}
