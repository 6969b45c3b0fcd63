package simulator

import (
	"context"
	"maps"
	mrand "math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Faults are injected into the HTTP API to exercise a client's retries.
type Faults struct {
	ErrorRate      float64         // fraction of requests (after auth) answered with a random one of 500/502/503/504
	StatusRates    map[int]float64 // fraction of requests answered with each status (any 5xx), after ErrorRate
	RateLimitBurst int             // the next N requests (after auth) are answered 429 with X-RateLimit-Remaining: 0; counts down
	RetryAfter     time.Duration   // Retry-After of those 429s, in whole seconds rounded up; 0 = no header
	Latency        time.Duration   // added to every response
}

// faultState is the current fault configuration; it has its own lock so
// that faults never contend with the data lock.
type faultState struct {
	mu  sync.Mutex
	f   Faults
	rng *mrand.Rand // guarded by mu; seeded from Options.Seed
}

// SetFaults replaces the fault configuration.
func (b *Bank) SetFaults(f Faults) {
	f.StatusRates = maps.Clone(f.StatusRates)
	b.faults.mu.Lock()
	defer b.faults.mu.Unlock()
	b.faults.f = f
}

func (fs *faultState) latency() time.Duration {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.f.Latency
}

// decide returns the fault status for an authenticated request, 0 if
// none, and the Retry-After of a 429. A pending rate-limit burst takes
// precedence over random errors.
func (fs *faultState) decide() (int, time.Duration) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.f.RateLimitBurst > 0 {
		fs.f.RateLimitBurst--
		return http.StatusTooManyRequests, fs.f.RetryAfter
	}
	if fs.f.ErrorRate > 0 && fs.rng.Float64() < fs.f.ErrorRate {
		codes := []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}
		return codes[fs.rng.IntN(len(codes))], 0
	}
	if len(fs.f.StatusRates) > 0 {
		r := fs.rng.Float64()
		for _, code := range slices.Sorted(maps.Keys(fs.f.StatusRates)) {
			if r -= fs.f.StatusRates[code]; r < 0 {
				return code, 0
			}
		}
	}
	return 0, 0
}

// Faults returns the current fault configuration (RateLimitBurst counts
// down as the burst is served).
func (b *Bank) Faults() Faults {
	b.faults.mu.Lock()
	defer b.faults.mu.Unlock()
	f := b.faults.f
	f.StatusRates = maps.Clone(f.StatusRates)
	return f
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// writeFault answers an injected fault.
func writeFault(w http.ResponseWriter, status int, retryAfter time.Duration) {
	if status == http.StatusTooManyRequests {
		writeRateLimited(w, retryAfter)
		return
	}
	writeError(w, &apiError{status: status, title: http.StatusText(status), detail: "Simulated server-side failure; retry later."})
}
