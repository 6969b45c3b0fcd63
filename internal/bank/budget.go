package bank

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/time/rate"
)

// Lane says what a request is for. When the bank's budget runs low, lanes
// are served in order: webhook refetches may spend the reserve, syncs may
// not, so a running backfill never starves live events.
type Lane int

// Lanes, most urgent first.
const (
	LaneWebhook     Lane = iota // refetches for webhook events, and a single write-back a person waits for
	LaneIncremental             // incremental syncs, interactive commands and write-back batches
	LaneFull                    // full listings
)

func (l Lane) String() string {
	switch l {
	case LaneWebhook:
		return "webhook"
	case LaneIncremental:
		return "incremental"
	default:
		return "full"
	}
}

type laneKey struct{}

// WithLane returns a context whose requests are sent in lane l. Requests
// without a lane are LaneIncremental.
func WithLane(ctx context.Context, l Lane) context.Context {
	return context.WithValue(ctx, laneKey{}, l)
}

func laneOf(ctx context.Context) Lane {
	if l, ok := ctx.Value(laneKey{}).(Lane); ok {
		return l
	}
	return LaneIncremental
}

// Budget defaults.
const (
	// DefaultReserve is how many requests of the bank's budget are kept
	// for webhook refetches.
	DefaultReserve = 50
	// DefaultBucket is the length of the bank's rate-limit buckets.
	DefaultBucket = time.Hour
	// fallbackPerHour paces requests while the bank sends no
	// X-RateLimit-Remaining header at all (the bank allows about 1,000).
	fallbackPerHour = 900
)

// RemainingHeader is where the bank reports the requests left in its budget.
const RemainingHeader = "X-RateLimit-Remaining"

// BudgetState is what the client knows of the bank's request budget.
type BudgetState struct {
	Known       bool      // the bank has reported its budget
	Remaining   int       // requests left, as last reported (valid when Known)
	Reserve     int       // kept for webhook refetches
	ObservedAt  time.Time // when Remaining was reported
	Waiting     bool      // some request is waiting for the budget
	WaitUntil   time.Time // when the waiting request tries again
	WaitReason  string    // why it waits
	RateLimited int64     // 429 answers received
}

// gate holds requests back until a time, then lets one request probe
// whether the bank has budget again.
type gate struct {
	until   time.Time // zero: open
	probing bool
	fails   int
}

// probe kinds: which gate a request admitted by acquire is probing.
type probe int

const (
	probeNone    probe = iota
	probeAll           // the bank said 0 or 429: every lane waits
	probeReserve       // syncs are down to the reserve
)

// maxProbes is how many probes of a spent budget are sent at a growing
// backoff before waiting for the latest end of the bank's current bucket.
const maxProbes = 2

// budget decides when a request may be sent: freely while the bank reports
// headroom, down to the reserve for syncs and to zero for webhook
// refetches; after a 429 or a report of 0 it waits (Retry-After, the
// bucket's expected reset, or a backoff) and lets one request probe.
type budget struct {
	mu      sync.Mutex
	log     zerolog.Logger
	now     func() time.Time
	reserve int
	bucket  time.Duration
	// probeBase and probeMax bound the backoff between probes when the
	// bank's next reset is unknown.
	probeBase, probeMax time.Duration

	known     bool
	remaining int
	seenAt    time.Time
	inflight  int
	all       gate      // every lane
	res       gate      // sync lanes, at the reserve
	lastReset time.Time // start of the bank's current bucket, when seen
	// bucketSeen is the first answer seen in the bank's current bucket:
	// the bucket ends at most a bucket length after it.
	bucketSeen time.Time
	// lowSeen: the bank reported the reserve or less in this bucket, so a
	// refusal means the bucket is spent (not a passing throttle).
	lowSeen bool
	limited int64

	waiters    int
	waitUntil  time.Time
	waitReason string
	logged     bool // the current wait was logged

	fallback *rate.Limiter // paces requests while the bank sends no header
	cap      int           // user cap per hour; 0 = none
	capStart time.Time
	capCount int

	changed  chan struct{} // closed and replaced on every change
	onChange func(BudgetState)
}

func newBudget(log zerolog.Logger) *budget {
	return &budget{
		log: log, now: time.Now, reserve: DefaultReserve, bucket: DefaultBucket,
		probeBase: time.Second, probeMax: 5 * time.Minute,
		fallback: rate.NewLimiter(rate.Limit(float64(fallbackPerHour)/3600), fallbackPerHour/10),
		changed:  make(chan struct{}),
	}
}

// acquire waits until a request of lane may be sent and counts it in
// flight; the caller must call done with the answer and the probe kind.
func (b *budget) acquire(ctx context.Context, lane Lane) (probe, error) {
	for {
		b.mu.Lock()
		p, wait, reason := b.admit(lane)
		if wait == 0 {
			b.endWaitLocked()
			b.mu.Unlock()
			return p, nil
		}
		changed := b.changed
		until := b.now().Add(wait)
		b.startWaitLocked(until, reason, lane)
		b.mu.Unlock()

		t := time.NewTimer(wait)
		var err error
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-t.C:
		case <-changed:
		}
		t.Stop()
		b.mu.Lock()
		b.waiters--
		b.mu.Unlock()
		if err != nil {
			return probeNone, err
		}
	}
}

// admit returns a zero wait and takes a slot when a request of lane may go
// now, or how long to wait before asking again. b.mu is held.
func (b *budget) admit(lane Lane) (probe, time.Duration, string) {
	now := b.now()
	if b.cap > 0 {
		if now.Sub(b.capStart) >= time.Hour {
			b.capStart, b.capCount = now, 0
		}
		if b.capCount >= b.cap {
			return probeNone, b.capStart.Add(time.Hour).Sub(now), "BANKMIRROR_REQUESTS_PER_HOUR reached"
		}
	}
	if wait, ok := b.pass(&b.all, now); !ok {
		return probeNone, wait, "the bank's budget is spent"
	}
	if !b.all.until.IsZero() {
		b.all.probing = true
		b.take()
		return probeAll, 0, ""
	}
	if !b.known {
		r := b.fallback.ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			return probeNone, d, "pacing: the bank reports no budget"
		}
		b.take()
		return probeNone, 0, ""
	}
	floor := 0
	if lane != LaneWebhook {
		floor = b.reserve
	}
	if b.remaining-b.inflight > floor {
		b.take()
		return probeNone, 0, ""
	}
	if b.inflight > 0 {
		// Answers in flight will report the budget again.
		return probeNone, b.probeMax, "the bank's budget is low"
	}
	if lane == LaneWebhook {
		// Nothing left at all.
		b.closeLocked(&b.all, 0, false)
		return probeNone, b.all.until.Sub(now), "the bank's budget is spent"
	}
	// Syncs are down to the reserve: wait for the bank's next bucket, then
	// spend one request to see whether it has begun.
	if b.res.until.IsZero() {
		b.closeLocked(&b.res, 0, false)
	}
	if wait, ok := b.pass(&b.res, now); !ok {
		return probeNone, wait, "keeping the reserve for webhook refetches"
	}
	b.res.probing = true
	b.take()
	return probeReserve, 0, ""
}

// pass reports whether g lets a request through now (as a probe when g is
// closed and its time has come), or how long to wait.
func (b *budget) pass(g *gate, now time.Time) (time.Duration, bool) {
	switch {
	case g.until.IsZero():
		return 0, true
	case now.Before(g.until):
		return g.until.Sub(now), false
	case g.probing:
		return b.probeMax, false // woken by the probe's answer
	}
	return 0, true
}

// nextReset is when the bank's next bucket is expected to begin: a whole
// number of buckets after the last reset seen.
func (b *budget) nextReset(now time.Time) time.Time {
	n := now.Sub(b.lastReset)/b.bucket + 1
	return b.lastReset.Add(n * b.bucket)
}

func (b *budget) take() {
	b.inflight++
	if b.cap > 0 {
		b.capCount++
	}
}

// closeLocked holds g's requests until the bank may have budget again:
// after Retry-After when the bank sent one (hasRA), at the bank's next
// bucket once a reset has been seen, else after a growing backoff; each
// failed probe backs off further. b.mu is held.
func (b *budget) closeLocked(g *gate, retryAfter time.Duration, hasRA bool) {
	now := b.now()
	var until time.Time
	switch {
	case hasRA:
		until = now.Add(retryAfter)
	case !b.lastReset.IsZero() && b.bucket > 0:
		until = b.nextReset(now)
		if g.fails > 0 {
			// The reset was not where expected: back off from it.
			until = until.Add(capped(b.probeBase, b.probeMax, g.fails))
		}
	default:
		until = now.Add(equalJitter(b.probeBase, b.probeMax, g.fails+1))
		// Each failed probe costs a request (or a 429): after a few, wait
		// for the latest moment the bank's current bucket can end.
		if g.fails >= maxProbes && b.lowSeen && !b.bucketSeen.IsZero() && b.bucket > 0 {
			if latest := b.bucketSeen.Add(b.bucket); latest.After(until) {
				until = latest
			}
		}
	}
	g.fails++
	if until.After(g.until) {
		g.until = until
	}
}

// done records the answer to a request admitted by acquire as kind p: its
// status (0 for a transport error) and headers.
func (b *budget) done(p probe, status int, hdr http.Header) {
	b.mu.Lock()
	defer b.mu.Unlock()
	defer b.broadcastLocked()
	b.inflight--
	now := b.now()
	switch p {
	case probeAll:
		b.all.probing = false
	case probeReserve:
		b.res.probing = false
	}
	if status == http.StatusTooManyRequests {
		// Remaining keeps what the last accepted answer said: a refusal
		// may be a passing throttle, and a reset is only recognised from
		// answers counting the same budget.
		b.limited++
		d, ok := retryAfter(hdr.Get("Retry-After"), now)
		b.closeLocked(&b.all, d, ok)
		return
	}
	if status == 0 {
		return // nothing reached the bank, or no answer: the next request probes
	}
	v, ok := parseRemaining(hdr)
	if !ok {
		// An answer without the header: the block is over.
		if p == probeAll {
			b.all = gate{}
		}
		if p == probeReserve {
			b.res = gate{}
		}
		return
	}
	switch {
	case !b.known:
		b.bucketSeen = now
	case v > b.remaining+b.inflight+1:
		// A new bucket began since the last answer.
		b.lastReset, b.bucketSeen, b.lowSeen = now, now, false
		if gap := now.Sub(b.seenAt); gap < b.bucket/20 {
			b.lastReset = b.seenAt
		}
	}
	b.known, b.remaining, b.seenAt = true, v, now
	if v <= b.reserve {
		b.lowSeen = true
	}
	if v == 0 {
		b.closeLocked(&b.all, 0, false)
		return
	}
	b.all = gate{}
	if v > b.reserve {
		b.res = gate{}
	} else if p == probeReserve {
		b.closeLocked(&b.res, 0, false)
	}
}

func parseRemaining(hdr http.Header) (int, bool) {
	s := strings.TrimSpace(hdr.Get(RemainingHeader))
	if s == "" {
		return 0, false
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, false
	}
	return v, true
}

func (b *budget) startWaitLocked(until time.Time, reason string, lane Lane) {
	b.waiters++
	changed := !until.Equal(b.waitUntil) || reason != b.waitReason
	b.waitUntil, b.waitReason = until, reason
	if !b.logged && until.Sub(b.now()) >= time.Second {
		b.logged = true
		ev := b.log.Info().Str("lane", lane.String()).Time("until", until).Str("reason", reason)
		if b.known {
			ev = ev.Int("remaining", b.remaining)
		}
		ev.Msg("waiting for the bank's request budget")
	}
	if changed {
		b.broadcastLocked()
	}
}

func (b *budget) endWaitLocked() {
	if b.waiters > 0 || b.waitUntil.IsZero() {
		return
	}
	if b.logged {
		b.logged = false
		ev := b.log.Info()
		if b.known {
			ev = ev.Int("remaining", b.remaining)
		}
		ev.Msg("bank budget available again")
	}
	b.waitUntil, b.waitReason = time.Time{}, ""
	b.broadcastLocked()
}

// broadcastLocked wakes every waiter and reports the new state.
func (b *budget) broadcastLocked() {
	close(b.changed)
	b.changed = make(chan struct{})
	if b.onChange != nil {
		b.onChange(b.stateLocked())
	}
}

func (b *budget) state() BudgetState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stateLocked()
}

func (b *budget) stateLocked() BudgetState {
	s := BudgetState{Known: b.known, Remaining: b.remaining, Reserve: b.reserve, ObservedAt: b.seenAt, RateLimited: b.limited}
	if b.waiters > 0 && !b.waitUntil.IsZero() {
		s.Waiting, s.WaitUntil, s.WaitReason = true, b.waitUntil, b.waitReason
	}
	return s
}
