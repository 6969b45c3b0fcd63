package malloc

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// BurstGCPercent is the garbage collector's target (GOGC) while a burst of
// webhook deliveries lasts. The daemon's live heap is a few MiB, so at the
// default of 100 it collects many times a second under a burst, on the
// processors the acknowledgements need; GOMEMLIMIT still bounds the heap.
const BurstGCPercent = 300

// Burst raises the garbage collector's target to BurstGCPercent from Begin
// (the first delivery of a burst) to End (the burst applied and its memory
// returned), unless GOGC is already higher or off. Its methods are safe
// for concurrent use and cheap to call for every delivery.
type Burst struct {
	on   atomic.Bool
	mu   sync.Mutex
	prev int
}

// Begin raises the target, if it is not raised already.
func (b *Burst) Begin() {
	if b.on.Load() {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.on.Load() {
		return
	}
	prev := debug.SetGCPercent(BurstGCPercent)
	if prev < 0 || prev >= BurstGCPercent {
		debug.SetGCPercent(prev)
		return
	}
	b.prev = prev
	b.on.Store(true)
}

// End puts the target back as it was before Begin.
func (b *Burst) End() {
	if !b.on.Load() {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.on.Load() {
		debug.SetGCPercent(b.prev)
		b.on.Store(false)
	}
}
