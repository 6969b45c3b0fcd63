package export_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/export"
	"github.com/bankmirror/bankmirror/internal/throttle"
)

// clock is a settable clock for the throttle.
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

// fromAddr is an HTTP client whose connections come from the loopback
// address ip (all of 127.0.0.0/8 is loopback on Linux).
func fromAddr(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// feedGet asks the feed with client c; bearer "" sends no token, fwd sets
// X-Forwarded-For.
func feedGet(t *testing.T, c *http.Client, url, bearer, fwd string) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if fwd != "" {
		req.Header.Set("X-Forwarded-For", fwd)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header
}

// An address that keeps failing is answered 429 (with Retry-After, its
// token not even looked at) once its burst is spent, while other
// addresses, and the same one once it has earned a try back, get in with
// the right token. Behind a reverse proxy on loopback the address is the
// last one of X-Forwarded-For. Every refusal is counted by reason; the log
// has one line per reason, with the address, and never the token. The
// table of addresses stays at its cap.
func TestFeedThrottlesFailingAddresses(t *testing.T) {
	db := openMirror(t)
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	var mu sync.Mutex
	counts := map[string]int{}
	var feed *export.Feed
	s := newFeedServer(t, func(log zerolog.Logger) *export.Feed {
		f, err := export.NewFeed(db, feedToken, export.FeedOptions{Log: log,
			OnRefused: func(r string) {
				mu.Lock()
				counts[r]++
				mu.Unlock()
			},
			Throttle: throttle.Options{Burst: 3, Every: time.Minute, Max: 8, Now: clk.now}})
		if err != nil {
			t.Fatal(err)
		}
		feed = f
		return f
	})
	url := s.URL + "/export/v_ledger.csv?since=2026-01"
	one, two := fromAddr("127.0.0.1"), fromAddr("127.0.0.2")

	for i, bearer := range []string{"", "wrong-token-0123456789", "wrong-token-9876543210"} {
		if code, _ := feedGet(t, one, url, bearer, ""); code != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d, want 401", i+1, code)
		}
	}
	for _, bearer := range []string{"wrong-token-again", feedToken} {
		code, h := feedGet(t, one, url, bearer, "")
		if code != http.StatusTooManyRequests || h.Get("Retry-After") != "60" {
			t.Errorf("a throttled address with token %q: status %d, Retry-After %q; want 429, 60", bearer, code, h.Get("Retry-After"))
		}
	}
	if code, _ := feedGet(t, two, url, feedToken, ""); code != http.StatusOK {
		t.Errorf("another address with the right token: status %d, want 200", code)
	}
	clk.advance(time.Minute)
	if code, _ := feedGet(t, one, url, feedToken, ""); code != http.StatusOK {
		t.Errorf("the throttled address a minute later with the right token: status %d, want 200", code)
	}

	// Behind a proxy on loopback: the address the proxy appended counts;
	// what the client put before it does not.
	for i := range 3 {
		if code, _ := feedGet(t, two, url, "wrong-token-0123456789", fmt.Sprintf("198.51.100.%d, 203.0.113.9", i)); code != http.StatusUnauthorized {
			t.Fatalf("forwarded failure %d: status %d, want 401", i+1, code)
		}
	}
	if code, _ := feedGet(t, two, url, feedToken, "203.0.113.9"); code != http.StatusTooManyRequests {
		t.Errorf("a throttled forwarded address: status %d, want 429", code)
	}
	if code, _ := feedGet(t, two, url, feedToken, "203.0.113.10"); code != http.StatusOK {
		t.Errorf("another forwarded address with the right token: status %d, want 200", code)
	}

	mu.Lock()
	got := fmt.Sprint(counts)
	mu.Unlock()
	if want := fmt.Sprint(map[string]int{export.RefusedNoToken: 1, export.RefusedWrongToken: 5, export.RefusedThrottled: 3}); got != want {
		t.Errorf("refusals counted %s, want %s", got, want)
	}
	s.mu.Lock()
	logs := s.logs.String()
	s.mu.Unlock()
	for _, r := range []string{export.RefusedNoToken, export.RefusedWrongToken, export.RefusedThrottled} {
		if n := strings.Count(logs, `"reason":"`+r+`"`); n != 1 {
			t.Errorf("%d log lines for %s, want one (the rest summarised):\n%s", n, r, logs)
		}
	}
	if !strings.Contains(logs, `"level":"info","component":"export-feed","reason":"no_token","status":401,"client":"127.0.0.1"`) {
		t.Errorf("the first refusal is not logged at info with its address:\n%s", logs)
	}
	feed.Close()
	s.mu.Lock()
	logs = s.logs.String()
	s.mu.Unlock()
	if !strings.Contains(logs, `"refused":{"wrong_token":4,"throttled":2},"total":6`) {
		t.Errorf("no summary of the refusals not logged in full:\n%s", logs)
	}
	s.assertTokenNeverRecorded(t)

	// Strangers from many addresses: the table keeps its cap.
	for i := range 40 {
		feedGet(t, two, url, "wrong-token-0123456789", fmt.Sprintf("192.0.2.%d", i))
	}
	if n := feed.Tracked(); n != 8 {
		t.Errorf("the throttle remembers %d addresses after 40 strangers, want its cap of 8", n)
	}
}

// Requests a browser sends for another site's page (Sec-Fetch-Site
// cross-site or same-site, an Origin not the feed's host) get 403 and
// count nothing against the address: however many, the right token from a
// program (no Sec-Fetch-Site) or from the address bar (none) still gets in.
func TestFeedRefusesCrossSiteRequestsUncounted(t *testing.T) {
	db := openMirror(t)
	var mu sync.Mutex
	counts := map[string]int{}
	s := newFeedServer(t, func(log zerolog.Logger) *export.Feed {
		f, err := export.NewFeed(db, feedToken, export.FeedOptions{Log: log, Throttle: throttle.Options{Burst: 2, Every: time.Hour},
			OnRefused: func(r string) {
				mu.Lock()
				counts[r]++
				mu.Unlock()
			}})
		if err != nil {
			t.Fatal(err)
		}
		return f
	})
	url := s.URL + "/export/v_ledger.csv?since=2026-01"
	ask := func(token string, hdr ...string) int {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"&token="+token, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	crossSite := [][]string{
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
		{"Origin", "https://evil.example"},
		{"Origin", "null"},
		{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"},
	}
	for round := range 3 {
		for _, hdr := range crossSite {
			for _, token := range []string{"wrong-token-0123456789", feedToken} {
				if code := ask(token, hdr...); code != http.StatusForbidden {
					t.Fatalf("round %d, %v, token %q: status %d, want 403", round, hdr, token, code)
				}
			}
		}
	}
	if code := ask(feedToken); code != http.StatusOK {
		t.Errorf("a program with the right token after 30 cross-site tries: status %d, want 200", code)
	}
	if code := ask(feedToken, "Sec-Fetch-Site", "none"); code != http.StatusOK {
		t.Errorf("the address bar with the right token: status %d, want 200", code)
	}
	if code := ask(feedToken, "Sec-Fetch-Site", "same-origin", "Origin", s.URL); code != http.StatusOK {
		t.Errorf("the feed's own origin with the right token: status %d, want 200", code)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := fmt.Sprint(map[string]int{export.RefusedCrossSite: 30}); fmt.Sprint(counts) != want {
		t.Errorf("refusals counted %v, want %s", counts, want)
	}
}
