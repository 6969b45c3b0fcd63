package bank

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// The budget's probe schedule, driven on a fake clock: no sleeps, and
// every time asserted is the budget's own decision.

// clockBank is the bank's rate limit on a fake clock: limit requests per
// bucket, buckets beginning at offset past multiples of bucket (Unix
// time), X-RateLimit-Remaining on every answer, 429 once spent.
type clockBank struct {
	limit          int
	bucket, offset time.Duration
	used           map[int64]int
}

func (cb *clockBank) answer(at time.Time) (int, http.Header) {
	k := (at.UnixNano() - cb.offset.Nanoseconds()) / cb.bucket.Nanoseconds()
	if cb.used == nil {
		cb.used = map[int64]int{}
	}
	hdr := http.Header{}
	if cb.used[k] >= cb.limit {
		hdr.Set(RemainingHeader, "0")
		return http.StatusTooManyRequests, hdr
	}
	cb.used[k]++
	hdr.Set(RemainingHeader, strconv.Itoa(cb.limit-cb.used[k]))
	return http.StatusOK, hdr
}

// sentRequest is one request the budget let through.
type sentRequest struct {
	at        time.Time // sent
	probe     probe
	status    int
	remaining int // as answered; -1 without the header
}

// budgetRun is one requester sending requests back to back through a
// budget on a fake clock: a wait the budget asks for moves the clock on;
// the bank counts each request half a round trip after it is sent and the
// answer arrives after a whole one.
type budgetRun struct {
	now  time.Time
	b    *budget
	bank *clockBank
	rtt  time.Duration
	sent []sentRequest
}

func newBudgetRun(start time.Time, bank *clockBank, rtt time.Duration) *budgetRun {
	r := &budgetRun{now: start, bank: bank, rtt: rtt}
	r.b = newBudget(zerolog.Nop())
	r.b.now = func() time.Time { return r.now }
	return r
}

// send sends one request of lane as soon as the budget lets it; false
// (the clock at deadline) when that would be after deadline.
func (r *budgetRun) send(lane Lane, deadline time.Time) bool {
	for {
		r.b.mu.Lock()
		p, wait, _ := r.b.admit(lane)
		r.b.mu.Unlock()
		if wait == 0 {
			at := r.now
			status, hdr := r.bank.answer(at.Add(r.rtt / 2))
			r.now = at.Add(r.rtt)
			r.b.done(p, status, hdr)
			rem, ok := parseRemaining(hdr)
			if !ok {
				rem = -1
			}
			r.sent = append(r.sent, sentRequest{at: at, probe: p, status: status, remaining: rem})
			return true
		}
		if wait < 0 || r.now.Add(wait).After(deadline) {
			r.now = deadline
			return false
		}
		r.now = r.now.Add(wait)
	}
}

// sendN sends n requests of lane; it returns how many went before deadline.
func (r *budgetRun) sendN(lane Lane, n int, deadline time.Time) int {
	for i := range n {
		if !r.send(lane, deadline) {
			return i
		}
	}
	return n
}

// probes are the requests sent as probes of a held gate.
func (r *budgetRun) probes() []sentRequest {
	var out []sentRequest
	for _, s := range r.sent {
		if s.probe != probeNone {
			out = append(out, s)
		}
	}
	return out
}

// resumed returns the first request sent at or after from that found a
// new bucket (remaining above the reserve after a wait).
func (r *budgetRun) resumed(t *testing.T, from time.Time) sentRequest {
	t.Helper()
	for _, s := range r.sent {
		if !s.at.Before(from) && s.status == http.StatusOK && s.remaining > r.b.reserve {
			return s
		}
	}
	t.Fatalf("no request after %s found a new bucket", from.Format(time.TimeOnly))
	return sentRequest{}
}

// reserveReached is when the first answer at or below the reserve came.
func (r *budgetRun) reserveReached(t *testing.T, from time.Time) time.Time {
	t.Helper()
	for _, s := range r.sent {
		if !s.at.Before(from) && s.remaining >= 0 && s.remaining <= r.b.reserve {
			return s.at.Add(r.rtt)
		}
	}
	t.Fatalf("the reserve was never reached after %s", from.Format(time.TimeOnly))
	return time.Time{}
}

func at(hms string) time.Time {
	t, err := time.Parse(time.DateTime, "2025-03-03 "+hms)
	if err != nil {
		panic(err)
	}
	return t
}

// At the reserve with the reset unknown, a sync probes every 5 minutes,
// on the clock's 5-minute marks just after them, and the probe just after
// the top of the hour finds the real bank's new bucket.
func TestBudgetProbesEveryFiveMinutesAtReserve(t *testing.T) {
	bank := &clockBank{limit: 200, bucket: time.Hour} // buckets on the clock hour
	r := newBudgetRun(at("10:07:00"), bank, time.Second)
	r.sendN(LaneFull, 300, at("12:00:00"))

	reached := r.reserveReached(t, at("10:07:00"))
	if want := at("10:09:30"); !reached.Equal(want) {
		t.Fatalf("reserve reached at %s, want %s (150 requests a second apart)", reached.Format(time.TimeOnly), want.Format(time.TimeOnly))
	}
	probes := r.probes()
	var times []string
	for _, p := range probes {
		times = append(times, p.at.Format(time.TimeOnly))
	}
	if len(probes) != 11 {
		t.Fatalf("%d probes (%v), want 11: 10:10:03 to 11:00:03", len(probes), times)
	}
	prev := reached
	for i, p := range probes {
		if gap := p.at.Sub(prev); gap > 5*time.Minute {
			t.Errorf("probe %d at %s, %s after the last answer: want at most 5 minutes", i, p.at.Format(time.TimeOnly), gap)
		}
		if p.at.Minute()%5 != 0 || p.at.Second() != 3 {
			t.Errorf("probe %d at %s, want 3 s past a 5-minute mark", i, p.at.Format(time.TimeOnly))
		}
		prev = p.at.Add(r.rtt)
	}
	last := probes[len(probes)-1]
	if want := at("11:00:03"); !last.at.Equal(want) || last.remaining != 199 {
		t.Errorf("last probe at %s answered remaining %d, want the new bucket found at %s", last.at.Format(time.TimeOnly), last.remaining, want.Format(time.TimeOnly))
	}
	for _, p := range probes[:len(probes)-1] {
		if p.status != http.StatusOK || p.remaining >= 50 {
			t.Errorf("probe at %s: status %d remaining %d, want one request of the reserve", p.at.Format(time.TimeOnly), p.status, p.remaining)
		}
	}
	if res := r.resumed(t, at("10:09:30")); !res.at.Equal(at("11:00:03")) {
		t.Errorf("the sync resumed at %s, want 11:00:03", res.at.Format(time.TimeOnly))
	}
}

// probesPerHour fails when any hour holds more than limit probes, and
// returns the longest gap between probes.
func probesPerHour(t *testing.T, probes []sentRequest, limit int) time.Duration {
	t.Helper()
	var longest time.Duration
	for i, p := range probes {
		n := 0
		for _, q := range probes[i:] {
			if q.at.Sub(p.at) < time.Hour {
				n++
			}
		}
		if n > limit {
			t.Errorf("%d probes in the hour from %s, want at most %d", n, p.at.Format(time.TimeOnly), limit)
		}
		if i > 0 {
			longest = max(longest, p.at.Sub(probes[i-1].at))
		}
	}
	return longest
}

// However long the bank's bucket stays spent, probes stay at 12 an hour:
// at the reserve, then (the reserve spent by the probes) refused, then
// after a refusal out of the blue.
func TestBudgetCapsProbesPerHour(t *testing.T) {
	t.Run("reserve then refused", func(t *testing.T) {
		bank := &clockBank{limit: 200, bucket: 24 * time.Hour, offset: 20 * time.Hour} // a bucket that outlasts the test
		r := newBudgetRun(at("09:00:00"), bank, 100*time.Millisecond)
		r.sendN(LaneFull, 1000, at("16:00:00"))
		probes := r.probes()
		if len(probes) < 6*12 {
			t.Fatalf("%d probes in 7 hours, want one every 5 minutes", len(probes))
		}
		if longest := probesPerHour(t, probes, 12); longest > 5*time.Minute {
			t.Errorf("%s between probes, want at most 5 minutes", longest)
		}
		refused := 0
		for _, p := range probes {
			if p.status == http.StatusTooManyRequests {
				refused++
			}
		}
		if refused == 0 {
			t.Errorf("no probe was refused: the test never spent the reserve")
		}
	})
	t.Run("a predicted reset that does not come", func(t *testing.T) {
		// A boundary learned at 11:17:30; then the bank's buckets change
		// (24 hours, not renewing): the predicted probe at 12:17:33
		// fails and the grid takes over, within the cap.
		bank := &clockBank{limit: 200, bucket: time.Hour, offset: 17*time.Minute + 30*time.Second}
		r := newBudgetRun(at("11:16:00"), bank, time.Second)
		r.sendN(LaneFull, 400, at("11:30:00"))
		long := &clockBank{limit: 200, bucket: 24 * time.Hour, offset: 20 * time.Hour, used: map[int64]int{}}
		long.used[(r.now.UnixNano()-long.offset.Nanoseconds())/long.bucket.Nanoseconds()] = 160
		r.bank = long
		r.sendN(LaneFull, 1000, at("16:00:00"))
		probes := r.probes()
		if len(probes) < 3*12 || !probes[0].at.Equal(at("12:17:34")) {
			t.Fatalf("%d probes, the first at %s: want the predicted one at 12:17:34, then the grid", len(probes), probes[0].at.Format(time.TimeOnly))
		}
		if longest := probesPerHour(t, probes, 12); longest > 10*time.Minute {
			t.Errorf("%s between probes, want at most 10 minutes", longest)
		}
	})
	t.Run("refusal out of the blue", func(t *testing.T) {
		bank := &clockBank{limit: 200, bucket: 24 * time.Hour, offset: 20 * time.Hour, used: map[int64]int{}}
		start := at("09:00:00")
		bank.used[(start.UnixNano()-bank.offset.Nanoseconds())/bank.bucket.Nanoseconds()] = 200 // spent by someone else
		r := newBudgetRun(start, bank, 100*time.Millisecond)
		r.sendN(LaneWebhook, 1000, at("13:00:00"))
		probes := r.probes()
		if len(probes) < 3*12 {
			t.Fatalf("%d probes in 4 hours, want about one every 5 minutes", len(probes))
		}
		// Two quick probes (a refusal may be a passing throttle), then
		// the 5-minute grid.
		if gap := probes[1].at.Sub(probes[0].at); gap > 5*time.Second {
			t.Errorf("second probe %s after the first, want a quick one", gap)
		}
		probesPerHour(t, probes[:2], 2)
		if longest := probesPerHour(t, probes[2:], 12); longest > 5*time.Minute {
			t.Errorf("%s between probes, want at most 5 minutes", longest)
		}
	})
}

// The boundary is learned from a reset seen between two answers a second
// apart: in the next bucket the sync waits at the reserve without a probe
// until just after the reset it predicts, and finds the bucket there.
func TestBudgetLearnsBoundaryFromCloseAnswers(t *testing.T) {
	bank := &clockBank{limit: 200, bucket: time.Hour, offset: 17*time.Minute + 30*time.Second}
	r := newBudgetRun(at("11:16:00"), bank, time.Second)
	r.sendN(LaneFull, 400, at("13:00:00"))

	// 90 requests in the first bucket; at 11:17:30 the next one begins,
	// between two answers a second apart.
	reached := r.reserveReached(t, at("11:17:30"))
	if want := at("11:20:00"); reached.Sub(want).Abs() > 2*time.Second {
		t.Fatalf("reserve reached at %s, want about %s", reached.Format(time.TimeOnly), want.Format(time.TimeOnly))
	}
	res := r.resumed(t, reached)
	if late := res.at.Sub(at("12:17:30")); late < 0 || late > 5*time.Second {
		t.Errorf("the sync resumed at %s, want within 5 s after the reset at 12:17:30", res.at.Format(time.TimeOnly))
	}
	for _, p := range r.probes() {
		if p.at.Before(res.at) && p.at.After(reached) {
			t.Errorf("probe at %s while the next reset was known to be at 12:17:30", p.at.Format(time.TimeOnly))
		}
	}
}

// A reset first seen by a probe long after it is not taken as the
// boundary: the next bucket is probed within the bound the two answers
// gave, and bucket by bucket the bound narrows to where the reset is.
func TestBudgetLearnsBoundaryNotFromLateProbe(t *testing.T) {
	bank := &clockBank{limit: 200, bucket: time.Hour, offset: 17*time.Minute + 30*time.Second}
	r := newBudgetRun(at("11:10:00"), bank, time.Second)
	r.sendN(LaneFull, 5000, at("17:30:00"))

	// The reset at 11:17:30 is first seen by the probe at 11:20:03.
	first := r.resumed(t, at("11:13:00"))
	if !first.at.Equal(at("11:20:03")) {
		t.Fatalf("first bucket found at %s, want by the probe at 11:20:03", first.at.Format(time.TimeOnly))
	}
	for h := 12; h <= 17; h++ {
		reset := at(strconv.Itoa(h) + ":17:30")
		res := r.resumed(t, reset.Add(-10*time.Minute))
		late := res.at.Sub(reset)
		switch {
		case late < 0:
			t.Fatalf("resumed before the reset?")
		case h == 12 && late >= 2*time.Minute+33*time.Second:
			// A probe an hour after the late one would come at 12:20:03.
			t.Errorf("bucket at %s found at %s: not earlier than an hour after the late probe", reset.Format(time.TimeOnly), res.at.Format(time.TimeOnly))
		case h >= 14 && late > 15*time.Second:
			t.Errorf("bucket at %s found %s late: the bound did not narrow", reset.Format(time.TimeOnly), late)
		}
		n := 0
		for _, p := range r.probes() {
			if p.at.After(reset.Add(-45*time.Minute)) && !p.at.After(res.at) {
				n++
			}
		}
		if n > 2 {
			t.Errorf("%d probes for the bucket at %s, want at most 2", n, reset.Format(time.TimeOnly))
		}
	}
}

// The first sync of a mirror needing two of the bank's buckets (200 an
// hour, 253 requests) whose first ends a minute after the first request
// finishes within 7 minutes, wherever the start falls on the probe grid.
func TestBudgetFirstSyncAcrossTwoBuckets(t *testing.T) {
	for phase := time.Duration(0); phase < 5*time.Minute; phase += 7 * time.Second {
		start := at("10:20:00").Add(phase)
		end := start.Add(time.Minute)
		bank := &clockBank{limit: 200, bucket: time.Hour, offset: time.Duration(end.UnixNano() % int64(time.Hour))}
		r := newBudgetRun(start, bank, 50*time.Millisecond)
		if n := r.sendN(LaneFull, 253, start.Add(time.Hour)); n != 253 {
			t.Fatalf("start %s: %d of 253 requests within the hour", start.Format(time.TimeOnly), n)
		}
		if took := r.now.Sub(start); took > 7*time.Minute {
			t.Errorf("start %s: the sync took %s, want at most 7 minutes", start.Format(time.TimeOnly), took)
		}
		if n := len(r.probes()); n > 2 {
			t.Errorf("start %s: %d probes, want at most 2", start.Format(time.TimeOnly), n)
		}
	}
}
