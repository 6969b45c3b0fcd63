package tokencheck_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/throttle"
	"github.com/bankmirror/bankmirror/internal/tokencheck"
)

const token = "3f9c1e7a5b2d4086e1c7a9f3b5d20486"

func check(c *tokencheck.Checker, addr, tok string, given bool, hdr ...string) tokencheck.Verdict {
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8083/", nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	return c.Check(r, netip.MustParseAddr(addr), tok, given)
}

// A guesser rotating through 127.x.y.z is one source: throttled after the
// burst like a single address, while the right token still opens from
// loopback.
func TestLoopbackIsOneSourceAndTheRightTokenStillOpens(t *testing.T) {
	var refused []string
	c := tokencheck.New(token, tokencheck.Options{Name: "test", Throttle: throttle.Options{Burst: 3, Every: time.Hour},
		OnRefused: func(r string) { refused = append(refused, r) }})
	defer c.Close()
	for i := range 3 {
		if v := check(c, "127.0.0."+strconv.Itoa(i+1), "wrong-token-"+strconv.Itoa(i), true); v.Status != http.StatusUnauthorized || v.Reason != tokencheck.WrongToken {
			t.Fatalf("wrong token %d: %+v, want 401", i, v)
		}
	}
	for _, addr := range []string{"127.9.9.9", "::1", "127.0.0.1"} {
		if v := check(c, addr, "wrong-token-x", true); v.Status != http.StatusTooManyRequests || v.RetryAfter <= 0 {
			t.Errorf("a wrong token from %s after the burst from other loopback addresses: %+v, want 429 with a wait", addr, v)
		}
	}
	if v := check(c, "127.0.0.1", token, true); !v.OK {
		t.Errorf("the right token from the throttled loopback: %+v, want it to open", v)
	}
	if v := check(c, "192.0.2.1", "wrong-token-y", true); v.Status != http.StatusUnauthorized {
		t.Errorf("another source: %+v, want 401 (not throttled)", v)
	}
	if len(refused) != 7 {
		t.Errorf("refusals %v, want 7", refused)
	}
}

// The global ceiling bounds every source together: past it, even the right
// token is refused unchecked (no answer tells a guess right from wrong).
func TestGlobalCeiling(t *testing.T) {
	c := tokencheck.New(token, tokencheck.Options{Name: "test", GlobalBurst: 5, GlobalEvery: time.Hour})
	defer c.Close()
	for i := range 5 {
		if v := check(c, "198.51.100."+strconv.Itoa(i+1), "wrong-token-"+strconv.Itoa(i), true); v.Status != http.StatusUnauthorized {
			t.Fatalf("wrong token %d from its own address: %+v, want 401", i, v)
		}
	}
	for _, tok := range []string{"wrong-token-z", token} {
		if v := check(c, "203.0.113.9", tok, true); v.OK || v.Status != http.StatusTooManyRequests || v.Reason != tokencheck.Throttled {
			t.Errorf("token %q past the global ceiling: %+v, want 429 unchecked", tok, v)
		}
	}
	// A source that gave the right token before the ceiling was spent is
	// still heard, while it is not throttled itself.
	c3 := tokencheck.New(token, tokencheck.Options{Name: "test", Throttle: throttle.Options{Burst: 2, Every: time.Hour}, GlobalBurst: 3, GlobalEvery: time.Hour})
	defer c3.Close()
	if v := check(c3, "192.0.2.50", token, true); !v.OK {
		t.Fatalf("the sheet's first refresh: %+v", v)
	}
	for i := range 3 {
		check(c3, "198.51.100."+strconv.Itoa(i+1), "wrong-token-"+strconv.Itoa(i), true)
	}
	if v := check(c3, "203.0.113.9", token, true); v.OK {
		t.Errorf("a new source past the ceiling: %+v, want 429 unchecked", v)
	}
	if v := check(c3, "192.0.2.50", token, true); !v.OK {
		t.Errorf("the known source past the ceiling: %+v, want it heard", v)
	}
	for range 2 {
		check(c3, "192.0.2.50", "wrong-token-k", true)
	}
	if v := check(c3, "192.0.2.50", token, true); v.OK || v.Status != http.StatusTooManyRequests {
		t.Errorf("the known source, throttled, past the ceiling: %+v, want 429 unchecked", v)
	}

	// Missing tokens are no guesses: they do not spend the ceiling.
	c2 := tokencheck.New(token, tokencheck.Options{Name: "test", GlobalBurst: 2, GlobalEvery: time.Hour})
	defer c2.Close()
	for i := range 5 {
		if v := check(c2, "198.51.100."+strconv.Itoa(i+1), "", false); v.Reason != tokencheck.NoToken {
			t.Fatalf("no token %d: %+v", i, v)
		}
	}
	if v := check(c2, "203.0.113.9", token, true); !v.OK {
		t.Errorf("the right token after requests without one: %+v", v)
	}
}

// A token sent for another site's page is refused unchecked and uncounted.
func TestCrossSiteUncounted(t *testing.T) {
	c := tokencheck.New(token, tokencheck.Options{Name: "test", Throttle: throttle.Options{Burst: 1, Every: time.Hour}, GlobalBurst: 1})
	defer c.Close()
	for range 5 {
		if v := check(c, "127.0.0.1", token, true, "Sec-Fetch-Site", "cross-site"); v.OK || v.Status != http.StatusForbidden {
			t.Fatalf("cross-site: %+v, want 403", v)
		}
		if v := check(c, "127.0.0.1", "wrong-token-0", true, "Origin", "https://evil.example"); v.Status != http.StatusForbidden {
			t.Fatalf("cross-site origin: %+v, want 403", v)
		}
	}
	if v := check(c, "127.0.0.1", token, true, "Sec-Fetch-Site", "none"); !v.OK {
		t.Errorf("the user's own link after cross-site tries: %+v", v)
	}
}
