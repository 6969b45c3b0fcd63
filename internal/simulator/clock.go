package simulator

import (
	"sync"
	"time"
)

// clock is the bank's clock: Options.Now, moved by SetClock.
type clock struct {
	base func() time.Time // Options.Now

	mu     sync.Mutex
	frozen bool
	at     time.Time     // the time when frozen
	offset time.Duration // added to base() when running
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	frozen, at, offset := c.frozen, c.at, c.offset
	c.mu.Unlock()
	if frozen {
		return at
	}
	return c.base().Add(offset)
}

// SetClock sets the bank's clock to at. A frozen clock stays at at until
// the next SetClock (with the same seed, a frozen clock makes every
// response byte-identical from run to run); a running one moves on from at
// with the clock of Options.Now. Timestamps of data already there do not
// change, and webhook deliveries keep their real-time retry schedule.
func (b *Bank) SetClock(at time.Time, frozen bool) {
	c := &b.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frozen, c.at, c.offset = frozen, at, 0
	if !frozen {
		c.offset = at.Sub(c.base())
	}
}

// Now is the bank's current time.
func (b *Bank) Now() time.Time { return b.clock.Now() }
