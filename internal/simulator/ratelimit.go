package simulator

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// RateLimit is the real bank's rate limiting: Limit requests per token in
// each bucket of length Bucket (the real bank: 1,000 per hour), buckets
// aligned to the bank's clock (Options.Now), so a client may spend them
// all in five minutes and then wait for the next bucket. The zero value
// (Limit 0) is no limit and no X-RateLimit-Remaining header.
type RateLimit struct {
	Limit  int           // requests per token per bucket; 0 = no limit
	Bucket time.Duration // bucket length (default 1h)
	// Offset moves every bucket's start this far past the clock's
	// multiples of Bucket (taken modulo Bucket). 0 is the real bank:
	// buckets begin on the clock hour. With another offset a client can
	// be tested arriving late in a bucket (the first one ending a minute
	// after it starts) without moving the bank's clock.
	Offset     time.Duration
	RetryAfter bool // a 429 carries Retry-After: whole seconds until the bucket ends, rounded up
}

// defaultRateBucket is the real bank's bucket length.
const defaultRateBucket = time.Hour

// rateLimiter counts authenticated requests per token in the current bucket.
type rateLimiter struct {
	mu     sync.Mutex
	cfg    RateLimit
	bucket int64          // index of the current bucket: clock / Bucket
	used   map[string]int // requests per token in the current bucket
}

// SetRateLimit replaces the rate limit; the current bucket's counts are kept.
func (b *Bank) SetRateLimit(rl RateLimit) {
	b.limiter.set(rl)
}

// RateLimit returns the current rate limit configuration.
func (b *Bank) RateLimit() RateLimit {
	b.limiter.mu.Lock()
	defer b.limiter.mu.Unlock()
	return b.limiter.cfg
}

func (l *rateLimiter) set(rl RateLimit) {
	if rl.Limit > 0 && rl.Bucket <= 0 {
		rl.Bucket = defaultRateBucket
	}
	if rl.Bucket > 0 {
		rl.Offset %= rl.Bucket
		if rl.Offset < 0 {
			rl.Offset += rl.Bucket
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cfg = rl
}

// rateDecision is the outcome of take for one request.
type rateDecision struct {
	limited    bool          // the bucket is exhausted: answer 429
	remaining  int           // requests left in the bucket after this one; -1 = no limit set
	retryAfter time.Duration // time until the bucket ends when limited and RetryAfter is on, else 0
}

// take counts one authenticated request of token at now.
func (l *rateLimiter) take(token string, now time.Time) rateDecision {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cfg.Limit <= 0 {
		return rateDecision{remaining: -1}
	}
	idx, n, size := l.bucketAt(now)
	if idx != l.bucket || l.used == nil {
		l.bucket, l.used = idx, map[string]int{}
	}
	if l.used[token] >= l.cfg.Limit {
		d := rateDecision{limited: true}
		if l.cfg.RetryAfter {
			d.retryAfter = time.Duration((idx+1)*size - n)
		}
		return d
	}
	l.used[token]++
	return rateDecision{remaining: l.cfg.Limit - l.used[token]}
}

// bucketAt is the index of the bucket of now, the time into buckets that
// start at multiples of size, and size; l.mu is held and a limit set.
func (l *rateLimiter) bucketAt(now time.Time) (idx, n, size int64) {
	n = now.UnixNano() - int64(l.cfg.Offset)
	size = int64(l.cfg.Bucket)
	idx = n / size
	if n < 0 && n%size != 0 {
		idx-- // floor, for clocks before 1970
	}
	return idx, n, size
}

// usedBy is the number of requests counted for token in the bucket of now.
func (l *rateLimiter) usedBy(token string, now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cfg.Limit <= 0 || l.used == nil {
		return 0
	}
	if idx, _, _ := l.bucketAt(now); idx != l.bucket {
		return 0
	}
	return l.used[token]
}

// ceilSeconds is d in whole seconds, rounded up (at least 1 for d > 0).
func ceilSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

// writeRateLimited answers 429: X-RateLimit-Remaining 0 and, when
// retryAfter > 0, Retry-After in whole seconds rounded up.
func writeRateLimited(w http.ResponseWriter, retryAfter time.Duration) {
	w.Header().Set("X-RateLimit-Remaining", "0")
	detail := "Rate limit exceeded; retry later."
	if retryAfter > 0 {
		s := strconv.FormatInt(ceilSeconds(retryAfter), 10)
		w.Header().Set("Retry-After", s)
		detail = "Rate limit exceeded; retry after " + s + " seconds."
	}
	writeError(w, &apiError{status: http.StatusTooManyRequests, title: "Too Many Requests", detail: detail})
}
