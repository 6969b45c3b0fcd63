package simulator

import (
	"context"
	mrand "math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// Faults are injected into the HTTP API to exercise a client's retries.
type Faults struct {
	ErrorRate float64 // fraction of requests (after auth) answered with a random one of 500/502/503/504
	// Fractions of requests answered with each of the spec's 5xx statuses,
	// drawn after ErrorRate.
	Rate500, Rate502, Rate503, Rate504 float64
	RateLimitBurst                     int           // the next N requests (after auth) are answered 429 with X-RateLimit-Remaining: 0; counts down
	RetryAfter                         time.Duration // Retry-After of those 429s, in whole seconds rounded up; 0 = no header
	Latency                            time.Duration // added to every response
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
		return faultStatuses[fs.rng.IntN(len(faultStatuses))], 0
	}
	if rates := fs.f.statusRates(); rates != [4]float64{} {
		r := fs.rng.Float64()
		for i, code := range faultStatuses {
			if r -= rates[i]; r < 0 {
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
	return b.faults.f
}

// faultStatuses are the 5xx statuses of the spec, in the order of
// Faults.statusRates.
var faultStatuses = [4]int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}

func (f Faults) statusRates() [4]float64 {
	return [4]float64{f.Rate500, f.Rate502, f.Rate503, f.Rate504}
}

// setStatusRate sets the rate of one of faultStatuses; false for another status.
func (f *Faults) setStatusRate(code int, rate float64) bool {
	dst := map[int]*float64{500: &f.Rate500, 502: &f.Rate502, 503: &f.Rate503, 504: &f.Rate504}[code]
	if dst == nil {
		return false
	}
	*dst = rate
	return true
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
