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

// SecretCache keeps the webhook secrets in memory, so that authentic
// requests cost no database read. It reloads them every interval, and when
// a signature matches none of them (a webhook may just have been
// registered from another process) it reloads at once, but at most once per
// minGap (except while a registration is in progress): requests from
// strangers cost at most a few small reads a second.
type SecretCache struct {
	load   func(ctx context.Context) (Keys, error)
	every  time.Duration
	minGap time.Duration
	log    zerolog.Logger

	keys    atomic.Pointer[Keys]
	mu      sync.Mutex // serialises loads
	loaded  time.Time
	lastErr string
}

// NewSecretCache returns a cache that reloads with load every interval.
// Call Load once before serving, then Run.
func NewSecretCache(load func(ctx context.Context) (Keys, error), every time.Duration, log zerolog.Logger) *SecretCache {
	c := &SecretCache{load: load, every: every, minGap: 10 * time.Millisecond,
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
	c.loaded = time.Now()
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
// they were loaded less than minGap ago; it reports whether it reloaded
// (for Config.Miss).
func (c *SecretCache) Miss(ctx context.Context) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	// While a registration is storing a new secret, every miss reloads:
	// the window is short and opened by the operator.
	if time.Since(c.loaded) < c.minGap && !c.keys.Load().Registering {
		return false
	}
	return c.loadLocked(ctx) == nil
}
