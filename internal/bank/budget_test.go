package bank

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// bucketBank answers ping like the real bank's rate limit: limit requests
// per bucket, X-RateLimit-Remaining on every answer, 429 when spent.
// Buckets start at offset past multiples of bucket (Unix time), so a client
// cannot assume where they begin.
type bucketBank struct {
	limit      int
	bucket     time.Duration
	offset     time.Duration
	retryAfter string // sent with 429 when set
	noHeader   bool

	arrived chan int // if set, receives the count of requests after each arrival

	mu      sync.Mutex
	counts  map[int64]int // requests answered 200 per bucket
	limited int
	times   []time.Time // arrival of each request
}

func (bb *bucketBank) serve(t *testing.T, s *testServer, w http.ResponseWriter) {
	now := time.Now()
	bb.mu.Lock()
	k := (now.UnixNano() - bb.offset.Nanoseconds()) / bb.bucket.Nanoseconds()
	if bb.counts == nil {
		bb.counts = map[int64]int{}
	}
	bb.times = append(bb.times, now)
	if bb.arrived != nil {
		select {
		case bb.arrived <- len(bb.times):
		default:
		}
	}
	left := bb.limit - bb.counts[k]
	if left <= 0 {
		bb.limited++
		bb.mu.Unlock()
		if bb.retryAfter != "" {
			w.Header().Set("Retry-After", bb.retryAfter)
		}
		w.Header().Set(RemainingHeader, "0")
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	bb.counts[k]++
	bb.mu.Unlock()
	if !bb.noHeader {
		w.Header().Set(RemainingHeader, strconv.Itoa(left-1))
	}
	serveFixture(t, w, 200, "ping.json", s.base())
}

func (bb *bucketBank) server(t *testing.T) *testServer {
	return newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) { bb.serve(t, s, w) })
}

// waitState returns an observer and a channel that receives once the
// budget reports a wait whose reason contains want.
func waitState(want string) (func(BudgetState), <-chan BudgetState) {
	ch := make(chan BudgetState, 1)
	return func(s BudgetState) {
		if s.Waiting && strings.Contains(s.WaitReason, want) {
			select {
			case ch <- s:
			default:
			}
		}
	}, ch
}

func pingN(ctx context.Context, c *Client, n int) (int, error) {
	for i := range n {
		if _, err := c.Ping(ctx); err != nil {
			return i, err
		}
	}
	return n, nil
}

// With headroom reported, requests go out without any wait.
func TestBudgetSpendsFreelyWithHeadroom(t *testing.T) {
	bb := &bucketBank{limit: 1000, bucket: time.Hour}
	s := bb.server(t)
	var mu sync.Mutex
	waited := false
	c := newTestClient(s, WithBudgetObserver(func(st BudgetState) {
		mu.Lock()
		waited = waited || st.Waiting
		mu.Unlock()
	}))
	if _, err := pingN(t.Context(), c, 300); err != nil {
		t.Fatal(err)
	}
	st := c.Budget()
	if !st.Known || st.Remaining != 700 || st.Waiting || st.RateLimited != 0 {
		t.Errorf("budget state %+v, want 700 known remaining", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if waited {
		t.Error("the client waited although the bank reported headroom")
	}
}

// Syncs stop at the reserve; webhook refetches spend it; nobody gets a 429.
func TestBudgetKeepsReserveForWebhooks(t *testing.T) {
	bb := &bucketBank{limit: 30, bucket: time.Hour}
	s := bb.server(t)
	observe, reserveWait := waitState("reserve")
	// Probes of the reserve are kept out of this test by a long interval
	// between them, on a clock stopped half an hour from the next one.
	c := newTestClient(s, WithReserve(10), WithBudgetObserver(observe), WithRateLimitBackoff(time.Hour, time.Hour))
	c.budget.now = func() time.Time { return time.Date(2025, 3, 3, 10, 30, 0, 0, time.UTC) }

	fullCtx, cancel := context.WithCancel(WithLane(t.Context(), LaneFull))
	defer cancel()
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := pingN(fullCtx, c, 30)
		done <- result{n, err}
	}()
	st := <-reserveWait
	if st.Remaining != 10 {
		t.Errorf("full listing waits at %d remaining, want the reserve (10)", st.Remaining)
	}
	n, err := pingN(WithLane(t.Context(), LaneWebhook), c, 10)
	if err != nil || n != 10 {
		t.Fatalf("webhook refetches: %d done, err %v; want all 10 from the reserve", n, err)
	}
	cancel()
	r := <-done
	if r.n != 20 || !errors.Is(r.err, context.Canceled) {
		t.Errorf("full listing did %d requests (err %v), want 20 then a wait", r.n, r.err)
	}
	bb.mu.Lock()
	defer bb.mu.Unlock()
	if bb.limited != 0 {
		t.Errorf("%d requests got 429", bb.limited)
	}
	if got := s.hits.Load(); got != 30 {
		t.Errorf("bank saw %d requests, want 30", got)
	}
}

// A backfill larger than one bucket waits for each new bucket (finding out
// where buckets begin) and finishes in the fewest buckets possible, with at
// most a handful of 429s.
func TestBudgetBackfillAcrossBuckets(t *testing.T) {
	const limit, reserve, requests = 40, 10, 150
	bucket := 400 * time.Millisecond
	bb := &bucketBank{limit: limit, bucket: bucket, offset: bucket / 3}
	s := bb.server(t)
	c := newTestClient(s, WithReserve(reserve), WithBucket(bucket), WithRateLimitBackoff(5*time.Millisecond, bucket/4))
	if n, err := pingN(WithLane(t.Context(), LaneFull), c, requests); err != nil {
		t.Fatalf("after %d requests: %v", n, err)
	}
	bb.mu.Lock()
	defer bb.mu.Unlock()
	// Each bucket gives limit-reserve requests to a sync (plus a probe or
	// two from the reserve); the first bucket may be partly gone.
	minBuckets := (requests + limit - reserve - 1) / (limit - reserve)
	if got := len(bb.counts); got > minBuckets+2 {
		t.Errorf("used %d buckets, want at most %d (%v)", got, minBuckets+2, bb.counts)
	}
	if bb.limited > 3 {
		t.Errorf("%d answers were 429, want at most a handful", bb.limited)
	}
}

// After a 429 with Retry-After, no request is sent before that time.
func TestBudgetHonoursRetryAfter(t *testing.T) {
	bb := &bucketBank{limit: 2, bucket: time.Hour, retryAfter: "1", noHeader: true, arrived: make(chan int, 8)}
	s := bb.server(t)
	c := newTestClient(s)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := pingN(ctx, c, 3); done <- err }()
	// The third request is refused; the client must wait a second before
	// the fourth. Let it send the fourth, then stop it.
	for n := range bb.arrived {
		if n >= 4 {
			break
		}
	}
	cancel()
	<-done
	bb.mu.Lock()
	defer bb.mu.Unlock()
	if gap := bb.times[3].Sub(bb.times[2]); gap < time.Second {
		t.Errorf("probe %v after a 429 with Retry-After: 1", gap)
	}
	if st := c.Budget(); st.RateLimited < 1 {
		t.Errorf("RateLimited = %d, want the 429s counted", st.RateLimited)
	}
}

// A bank that sends no header at all gets a conservative pace: a burst,
// then requests spaced to about 900 an hour.
func TestBudgetPacesWithoutHeader(t *testing.T) {
	bb := &bucketBank{limit: 100000, bucket: time.Hour, noHeader: true}
	s := bb.server(t)
	observe, pacing := waitState("pacing")
	c := newTestClient(s, WithBudgetObserver(observe))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan int, 1)
	go func() { n, _ := pingN(ctx, c, 200); done <- n }()
	st := <-pacing
	cancel()
	if n := <-done; n != fallbackPerHour/10 {
		t.Errorf("%d requests before pacing, want the burst of %d", n, fallbackPerHour/10)
	}
	if st.Known || time.Until(st.WaitUntil) < time.Second {
		t.Errorf("state %+v: want an unknown budget and a wait of seconds", st)
	}
}
