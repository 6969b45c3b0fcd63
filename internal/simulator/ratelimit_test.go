package simulator

import (
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// testClock is a bank clock that tests move by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock(t time.Time) *testClock { return &testClock{t: t} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// rateStatus is the status and rate-limit headers of one response.
type rateStatus struct {
	status     int
	remaining  string
	retryAfter string
}

func (e *env) rateStatus(target string) rateStatus {
	e.t.Helper()
	r := e.get(target)
	return rateStatus{r.status, r.header.Get("X-RateLimit-Remaining"), r.header.Get("Retry-After")}
}

func TestNoRateLimitByDefault(t *testing.T) {
	e := newEnv(t, Options{Seed: 1, Transactions: 60})
	for range 5 {
		r := e.get("/util/ping")
		if r.status != http.StatusOK || r.header.Values("X-RateLimit-Remaining") != nil {
			t.Fatalf("status %d, header %v", r.status, r.header)
		}
	}
}

func TestHourlyBucketRateLimit(t *testing.T) {
	// Buckets of 2s aligned to the bank's clock: start 500ms into one.
	bucketStart := time.Date(2024, 3, 3, 9, 30, 0, 0, time.UTC)
	clock := newTestClock(bucketStart.Add(500 * time.Millisecond))
	e := newEnv(t, Options{Seed: 1, Transactions: 60, Now: clock.Now, RateLimit: RateLimit{Limit: 3, Bucket: 2 * time.Second}})

	got := []rateStatus{e.rateStatus("/util/ping"), e.rateStatus("/accounts"), e.rateStatus("/nope"), e.rateStatus("/util/ping")}
	want := []rateStatus{{200, "2", ""}, {200, "1", ""}, {404, "0", ""}, {429, "0", ""}}
	if !slices.Equal(got, want) {
		t.Fatalf("first bucket: got %v, want %v", got, want)
	}
	if r := e.do(http.MethodGet, "/util/ping", nil, "Authorization", "Bearer wrong"); r.status != http.StatusUnauthorized || r.header.Values("X-RateLimit-Remaining") != nil {
		t.Errorf("unauthenticated: status %d, header %v", r.status, r.header)
	}

	e.bank.SetRateLimit(RateLimit{Limit: 3, Bucket: 2 * time.Second, RetryAfter: true})
	if got := e.rateStatus("/util/ping"); got != (rateStatus{429, "0", "2"}) { // 1.5s left, rounded up
		t.Errorf("with Retry-After 1.5s before the bucket ends: %v", got)
	}
	clock.Set(bucketStart.Add(1999 * time.Millisecond))
	if got := e.rateStatus("/util/ping"); got != (rateStatus{429, "0", "1"}) {
		t.Errorf("with Retry-After 1ms before the bucket ends: %v", got)
	}

	clock.Set(bucketStart.Add(2 * time.Second)) // the next bucket starts
	if got := e.rateStatus("/util/ping"); got != (rateStatus{200, "2", ""}) {
		t.Errorf("next bucket: %v", got)
	}

	e.bank.SetRateLimit(RateLimit{})
	if r := e.get("/util/ping"); r.status != http.StatusOK || r.header.Values("X-RateLimit-Remaining") != nil {
		t.Errorf("limit removed: status %d, header %v", r.status, r.header)
	}
}

// With an offset, buckets start that far past the clock hour: here the
// bucket the client arrives in ends a minute later, and Retry-After says
// so.
func TestRateLimitOffset(t *testing.T) {
	hour := time.Date(2024, 3, 3, 9, 0, 0, 0, time.UTC)
	clock := newTestClock(hour.Add(58 * time.Minute))
	e := newEnv(t, Options{Seed: 1, Transactions: 60, Now: clock.Now,
		RateLimit: RateLimit{Limit: 2, Bucket: time.Hour, Offset: 59 * time.Minute, RetryAfter: true}})
	got := []rateStatus{e.rateStatus("/util/ping"), e.rateStatus("/util/ping"), e.rateStatus("/util/ping")}
	if want := []rateStatus{{200, "1", ""}, {200, "0", ""}, {429, "0", "60"}}; !slices.Equal(got, want) {
		t.Fatalf("a minute before the bucket ends: got %v, want %v", got, want)
	}
	clock.Set(hour.Add(59*time.Minute - time.Millisecond))
	if got := e.rateStatus("/util/ping"); got != (rateStatus{429, "0", "1"}) {
		t.Errorf("a millisecond before the bucket ends: %v", got)
	}
	clock.Set(hour.Add(59 * time.Minute))
	if got := e.rateStatus("/util/ping"); got != (rateStatus{200, "1", ""}) {
		t.Errorf("at 9:59, the next bucket: %v", got)
	}
	clock.Set(hour.Add(time.Hour + 30*time.Minute))
	if got := e.rateStatus("/util/ping"); got != (rateStatus{200, "0", ""}) {
		t.Errorf("10:30 is still the bucket that began at 9:59: %v", got)
	}
	// An offset is taken modulo the bucket.
	e.bank.SetRateLimit(RateLimit{Limit: 2, Bucket: time.Hour, Offset: -time.Minute})
	if got := e.bank.RateLimit().Offset; got != 59*time.Minute {
		t.Errorf("offset -1m in hourly buckets reads %v, want 59m", got)
	}
}

func TestRateLimitIsPerToken(t *testing.T) {
	clock := newTestClock(fixedNow)
	e := newEnv(t, Options{Seed: 1, Transactions: 60, Now: clock.Now, RateLimit: RateLimit{Limit: 1, Bucket: time.Second}})
	if got := e.rateStatus("/util/ping"); got != (rateStatus{200, "0", ""}) {
		t.Fatalf("first request: %v", got)
	}
	if got := e.rateStatus("/util/ping"); got.status != http.StatusTooManyRequests {
		t.Fatalf("second request: %v", got)
	}
	if tok := e.bank.RotateToken(""); tok == "" || tok != e.bank.Token() {
		t.Fatalf("RotateToken returned %q, Token() is %q", tok, e.bank.Token())
	}
	if got := e.rateStatus("/util/ping"); got != (rateStatus{200, "0", ""}) {
		t.Errorf("a new token has a fresh bucket: %v", got)
	}
}

func TestRateLimitBurstRetryAfter(t *testing.T) {
	e := newEnv(t, Options{Seed: 1, Transactions: 60})
	e.bank.SetFaults(Faults{RateLimitBurst: 2, RetryAfter: 2500 * time.Millisecond})
	got := []rateStatus{e.rateStatus("/util/ping"), e.rateStatus("/util/ping"), e.rateStatus("/util/ping")}
	want := []rateStatus{{429, "0", "3"}, {429, "0", "3"}, {200, "", ""}}
	if !slices.Equal(got, want) {
		t.Errorf("burst with RetryAfter 2.5s: got %v, want %v", got, want)
	}
}

func TestRequestCounts(t *testing.T) {
	e := newEnv(t, Options{Seed: 1, Transactions: 60})
	e.get("/util/ping")
	e.get("/util/ping")
	e.get("/transactions/nope")
	e.get("/nope")
	e.do(http.MethodGet, "/accounts", nil, "Authorization", "")
	e.bank.SetFaults(Faults{RateLimitBurst: 1})
	e.get("/util/ping")
	got := e.bank.RequestCounts()
	want := []RequestCount{
		{Method: "GET", Route: "", Status: 404, Count: 1},
		{Method: "GET", Route: "/accounts", Status: 401, Count: 1},
		{Method: "GET", Route: "/transactions/{id}", Status: 404, Count: 1},
		{Method: "GET", Route: "/util/ping", Status: 200, Count: 2},
		{Method: "GET", Route: "/util/ping", Status: 429, Count: 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("RequestCounts:\n got %v\nwant %v", got, want)
	}
}
