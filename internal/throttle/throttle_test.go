package throttle

import (
	"fmt"
	"net/netip"
	"sync"
	"testing"
	"time"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// A key waits after Burst failures, for one Every, and others do not.
func TestWaitAfterBurst(t *testing.T) {
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	tb := New(Options{Burst: 3, Every: 10 * time.Second, Now: clk.now})
	for i := range 3 {
		if w := tb.Wait("a"); w != 0 {
			t.Fatalf("failure %d: wait %v before the burst is spent", i, w)
		}
		tb.Fail("a")
	}
	if w := tb.Wait("a"); w != 10*time.Second {
		t.Errorf("after the burst: wait %v, want 10s", w)
	}
	if w := tb.Wait("b"); w != 0 {
		t.Errorf("another key waits %v", w)
	}
	clk.advance(4 * time.Second)
	if w := tb.Wait("a"); w != 6*time.Second {
		t.Errorf("4s later: wait %v, want 6s", w)
	}
	clk.advance(6 * time.Second)
	if w := tb.Wait("a"); w != 0 {
		t.Errorf("after Every: wait %v, want 0", w)
	}
	// One failure earned back: the next one makes it wait again.
	tb.Fail("a")
	if w := tb.Wait("a"); w != 10*time.Second {
		t.Errorf("a failure after one earned back: wait %v, want 10s", w)
	}
}

// However many keys fail, the table holds Max, the most recent ones.
func TestTableIsCapped(t *testing.T) {
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	tb := New(Options{Burst: 1, Every: time.Hour, Max: 16, Now: clk.now})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 1000 {
				tb.Fail(fmt.Sprintf("%d-%d", g, i))
			}
		})
	}
	wg.Wait()
	if n := tb.Len(); n != 16 {
		t.Errorf("%d keys after 4,000, want the cap of 16", n)
	}
	tb.Fail("last")
	if tb.Wait("last") == 0 || tb.Len() != 16 {
		t.Errorf("the newest key is not throttled, or the cap moved: %d", tb.Len())
	}
}

func TestKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7":            "192.0.2.7",
		"::ffff:192.0.2.7":     "192.0.2.7",
		"2001:db8:1:2:3:4:5:6": "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::1": "2001:db8:1:2::/64",
		"2001:db8:1:3::1":      "2001:db8:1:3::/64",
		"fe80::1%eth0":         "fe80::/64",
		"::1":                  "loopback",
		"127.0.0.1":            "loopback",
		"127.45.6.7":           "loopback",
		"::ffff:127.0.0.2":     "loopback",
	} {
		if got := Key(netip.MustParseAddr(in)); got != want {
			t.Errorf("Key(%s) = %s, want %s", in, got, want)
		}
	}
	if got := Key(netip.Addr{}); got != "invalid" {
		t.Errorf("Key of no address = %s", got)
	}
}
