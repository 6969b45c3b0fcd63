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

	"github.com/bankmirror/bankmirror/internal/logfield"
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
//
// Its JSON (status --json, people --json, the daemon's report) has
// snake_case keys and leaves out the times not known.
type BudgetState struct {
	Known       bool      `json:"known"`                 // the bank has reported its budget
	Remaining   int       `json:"remaining"`             // requests left, as last reported (valid when Known)
	Reserve     int       `json:"reserve"`               // kept for webhook refetches
	ObservedAt  time.Time `json:"observed_at,omitzero"`  // when Remaining was reported
	Waiting     bool      `json:"waiting"`               // some request is waiting for the budget
	WaitUntil   time.Time `json:"wait_until,omitzero"`   // when the waiting request tries again
	WaitReason  string    `json:"wait_reason,omitempty"` // why it waits
	RateLimited int64     `json:"rate_limited"`          // 429 answers received
}

// gate holds requests back until a time, then lets one request probe
// whether the bank has budget again.
type gate struct {
	until   time.Time // zero: open
	probing bool
	fails   int
	quick   bool // the probe at until is a quick one after a refusal out of the blue
}

// probe kinds: which gate a request admitted by acquire is probing.
type probe int

const (
	probeNone    probe = iota
	probeAll           // the bank said 0 or 429: every lane waits
	probeReserve       // syncs are down to the reserve
)

// maxProbes is how many probes follow a refusal out of the blue (no low
// budget reported before it: perhaps a passing throttle) at a growing
// backoff, before probes keep to the schedule of a spent bucket.
const maxProbes = 2

// probesPerWindow caps the probes of a spent budget (Retry-After aside):
// at most this many in any probesPerWindow probe intervals, 12 an hour
// with the default interval of 5 minutes.
const probesPerWindow = 12

// budget decides when a request may be sent: freely while the bank reports
// headroom, down to the reserve for syncs and to zero for webhook
// refetches; after a 429 or a report of 0, or at the reserve, it waits and
// lets one request probe whether the bank's next bucket has begun.
//
// When to probe: after Retry-After when the bank sends one; else at the
// next reset predicted from the last one seen (see resetSeenLocked), when
// that is known to within two probe intervals; else on a grid of probe
// intervals (probeMax, 5 minutes) aligned to the clock, so a probe comes
// just after each top of the hour, where the real bank's buckets begin, and
// never more than an interval after the last answer. Scheduled probes are
// capped at probesPerWindow per probesPerWindow intervals (12 an hour).
type budget struct {
	mu      sync.Mutex
	log     zerolog.Logger
	now     func() time.Time
	reserve int
	bucket  time.Duration
	// probeBase is the first backoff after a refusal out of the blue;
	// probeMax is the longest wait between probes while the bank's next
	// reset is not known.
	probeBase, probeMax time.Duration

	known     bool
	remaining int
	seenAt    time.Time
	inflight  int
	all       gate // every lane
	res       gate // sync lanes, at the reserve
	// checkedAt is the last answer that counted the budget (one with
	// X-RateLimit-Remaining, or a 429): the bank's next bucket had not
	// begun then, unless that answer showed it.
	checkedAt time.Time
	// resetLo and resetHi bound the last reset seen: it came after resetLo
	// and at or before resetHi (zero: none seen, or a prediction from
	// them failed).
	resetLo, resetHi time.Time
	// lowSeen: the bank reported the reserve or less in this bucket, so a
	// refusal means the bucket is spent (not a passing throttle); lowAt is
	// the first such answer.
	lowSeen bool
	lowAt   time.Time
	probes  []time.Time // when the last probesPerWindow probes were sent
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
		b.probeSentLocked(&b.all, now)
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
	b.probeSentLocked(&b.res, now)
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

func (b *budget) take() {
	b.inflight++
	if b.cap > 0 {
		b.capCount++
	}
}

// probeSentLocked records a scheduled probe of g sent at now, for the cap
// of probes.
func (b *budget) probeSentLocked(g *gate, now time.Time) {
	if g.quick {
		return
	}
	if len(b.probes) >= probesPerWindow {
		b.probes = append(b.probes[:0], b.probes[len(b.probes)-probesPerWindow+1:]...)
	}
	b.probes = append(b.probes, now)
}

// closeLocked holds g's requests until the bank may have budget again, and
// then lets one request probe: after Retry-After when the bank sent one
// (hasRA); else at the bank's next reset predicted from the last one seen;
// else, after a refusal out of the blue, at a short growing backoff
// (twice: quick probes, not counted in the cap); else at the next point of
// the probe grid. b.mu is held.
func (b *budget) closeLocked(g *gate, retryAfter time.Duration, hasRA bool) {
	now := b.now()
	var until time.Time
	quick := false
	if hasRA {
		until = now.Add(retryAfter)
	} else {
		var ok bool
		until, ok = b.predictedProbeLocked()
		switch {
		case ok:
		case g == &b.all && !b.lowSeen && g.fails < maxProbes:
			until, quick = now.Add(equalJitter(b.probeBase, b.probeMax, g.fails+1)), true
		default:
			until = b.gridProbe(b.lastCheck(now))
		}
		// The cap: no more than probesPerWindow scheduled probes in any
		// window of that many intervals; past it, the grid again.
		if !quick && len(b.probes) >= probesPerWindow {
			if t := b.probes[len(b.probes)-probesPerWindow].Add(probesPerWindow * b.interval()); t.After(until) {
				until = b.gridProbe(t.Add(-time.Nanosecond))
			}
		}
	}
	g.fails++
	if until.After(g.until) {
		g.until, g.quick = until, quick
	}
}

// interval is the longest wait between probes while the bank's next reset
// is not known, and the step of the probe grid.
func (b *budget) interval() time.Duration {
	if b.probeMax > 0 {
		return b.probeMax
	}
	return 5 * time.Minute
}

// probeLag is how long after a point of the grid (or a predicted reset) a
// probe goes, for clocks that differ a little: 3s for 5-minute intervals.
func (b *budget) probeLag() time.Duration { return b.interval() / 100 }

// closeGap is the widest bound on a reset that counts as knowing where it
// is: a reset seen between two answers this close (30s for hourly buckets)
// predicts the next ones; a wider bound is narrowed bucket by bucket.
func (b *budget) closeGap() time.Duration { return min(b.bucket/120, b.interval()/10) }

// lastCheck is when the bank last showed its bucket unchanged, now if it
// never answered.
func (b *budget) lastCheck(now time.Time) time.Time {
	if b.checkedAt.IsZero() {
		return now
	}
	return b.checkedAt
}

// gridProbe is the first point of the probe grid after t, plus the lag: the
// grid's step is the probe interval, aligned to the clock (to UTC, and so
// to every whole-hour time zone), and a new bucket begins on it. A
// request held at the reserve or refused since t probes there.
func (b *budget) gridProbe(t time.Time) time.Time {
	step, lag := b.interval(), b.probeLag()
	next := t.Add(-lag).Truncate(step).Add(step + lag)
	if b.bucket > 0 {
		// The top of the hour, also when the interval does not divide it.
		if top := t.Add(-lag).Truncate(b.bucket).Add(b.bucket + lag); top.Before(next) {
			next = top
		}
	}
	return next
}

// predictedProbeLocked is when to probe for the bank's next reset as
// predicted by the last one seen, a whole number of buckets later; false
// when no reset was seen to within two probe intervals. A bound wider than
// closeGap is split: a probe at the top of the hour when it lies within,
// else in the middle, then one at its end; each answer narrows the bound
// for the buckets after (resetSeenLocked). When every probe of a prediction
// found the old bucket, the prediction is dropped. b.mu is held.
func (b *budget) predictedProbeLocked() (time.Time, bool) {
	w := b.resetHi.Sub(b.resetLo)
	if b.resetHi.IsZero() || b.bucket <= 0 || w > 2*b.interval() || w >= b.bucket {
		return time.Time{}, false
	}
	checked := b.lastCheck(b.now())
	// The current bucket was spent by lowAt (or checked unchanged): it
	// ends after that.
	from := b.lowAt
	if from.IsZero() {
		from = checked
	}
	n := max(from.Sub(b.resetHi)/b.bucket+1, 1)
	lo, hi := b.resetLo.Add(n*b.bucket), b.resetHi.Add(n*b.bucket)
	lag := b.probeLag()
	candidates := make([]time.Time, 0, 2)
	if w > b.closeGap() {
		split := lo.Add(w / 2)
		if top := hi.Truncate(b.bucket); top.After(lo) {
			split = top
		}
		candidates = append(candidates, split.Add(lag))
	}
	candidates = append(candidates, hi.Add(lag))
	for _, c := range candidates {
		if c.After(checked) {
			return c, true
		}
	}
	b.log.Debug().Time(logfield.ExpectedBy, hi).Msg("the bank's bucket did not renew where expected")
	b.resetLo, b.resetHi = time.Time{}, time.Time{}
	return time.Time{}, false
}

// resetSeenLocked records a reset of the bank's budget seen between
// answers at lo and hi. Where an earlier bound, moved by whole buckets,
// overlaps it, the reset lies in both: a reset seen only by a probe long
// after it still narrows down, bucket by bucket, to where it is. b.mu is
// held.
func (b *budget) resetSeenLocked(lo, hi time.Time) {
	if lo.IsZero() || !hi.After(lo) || b.bucket <= 0 || hi.Sub(lo) >= b.bucket {
		return // says nothing of where buckets begin
	}
	if !b.resetHi.IsZero() {
		k := (hi.Sub(b.resetHi) + b.bucket/2) / b.bucket
		oldLo, oldHi := b.resetLo.Add(k*b.bucket), b.resetHi.Add(k*b.bucket)
		if nlo, nhi := maxTime(lo, oldLo), minTime(hi, oldHi); nhi.After(nlo) {
			lo, hi = nlo, nhi
		}
	}
	b.resetLo, b.resetHi = lo, hi
	b.log.Debug().Time(logfield.After, lo).Time(logfield.By, hi).Msg("the bank's budget renewed")
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
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
		b.checkedAt = now
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
	if b.known && v > b.remaining+b.inflight+1 {
		// A new bucket began since the last answer that counted the
		// budget.
		b.resetSeenLocked(b.checkedAt, now)
		b.lowSeen, b.lowAt = false, time.Time{}
	}
	b.known, b.remaining, b.seenAt, b.checkedAt = true, v, now, now
	if v <= b.reserve && !b.lowSeen {
		b.lowSeen, b.lowAt = true, now
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
		ev := b.log.Info().Str(logfield.Lane, lane.String()).Time(logfield.Until, until).Str(logfield.Reason, reason)
		if b.known {
			ev = ev.Int(logfield.Remaining, b.remaining)
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
			ev = ev.Int(logfield.Remaining, b.remaining)
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
