package receiver

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// Keys is what the receiver authenticates deliveries with: the valid
// secrets, and whether a registration is storing a new one.
type Keys struct {
	Secrets     [][]byte
	Registering bool
}

// MissReloadGap is the shortest time between two loads that SecretCache.Miss
// starts: whatever strangers send, their bad signatures cost at most one
// small read a second, together, not one each.
const MissReloadGap = time.Second

// SecretCache keeps the webhook secrets in memory, so that requests cost no
// database read. It reloads them every interval, and when a signature
// matches none of them (a webhook may just have been registered from
// another process) it reloads at once, unless it loaded them less than
// MissReloadGap ago, during a registration too.
type SecretCache struct {
	load   func(ctx context.Context) (Keys, error)
	every  time.Duration
	minGap time.Duration
	now    func() time.Time
	log    zerolog.Logger

	keys    atomic.Pointer[Keys]
	mu      sync.Mutex // serialises loads
	loaded  time.Time
	lastErr string
}

// NewSecretCache returns a cache that reloads with load every interval.
// Call Load once before serving, then Run.
func NewSecretCache(load func(ctx context.Context) (Keys, error), every time.Duration, log zerolog.Logger) *SecretCache {
	c := &SecretCache{load: load, every: every, minGap: MissReloadGap, now: time.Now,
		log: log.With().Str(logComponent, "receiver").Logger()}
	c.keys.Store(&Keys{})
	return c
}

// Load reloads the keys now.
func (c *SecretCache) Load(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loadLocked(ctx)
}

func (c *SecretCache) loadLocked(ctx context.Context) error {
	c.loaded = c.now()
	k, err := c.load(ctx)
	if err != nil {
		if err.Error() != c.lastErr && ctx.Err() == nil {
			c.log.Error().Err(err).Msg("reload webhook secrets; keeping the ones loaded")
		}
		c.lastErr = err.Error()
		return err
	}
	c.lastErr = ""
	c.keys.Store(&k)
	return nil
}

// Run reloads the keys every interval until ctx ends.
func (c *SecretCache) Run(ctx context.Context) {
	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = c.Load(ctx)
		}
	}
}

// Secrets returns the cached secrets (for Config.Secrets).
func (c *SecretCache) Secrets(context.Context) ([][]byte, error) { return c.keys.Load().Secrets, nil }

// Registering returns the cached registration mark (for Config.Registering).
func (c *SecretCache) Registering(context.Context) bool { return c.keys.Load().Registering }

// Miss reloads the keys after a signature matched none of them, unless
// they were loaded less than MissReloadGap ago; it reports whether it
// reloaded (for Config.Miss). A delivery it does not reload for is
// answered 401, or 503 during a registration, and the bank retries it.
func (c *SecretCache) Miss(ctx context.Context) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now().Sub(c.loaded) < c.minGap {
		return false
	}
	return c.loadLocked(ctx) == nil
}
