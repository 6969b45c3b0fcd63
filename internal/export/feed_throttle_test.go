package export_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
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

// A source that keeps failing is answered 429 (with Retry-After) once its
// burst is spent, while the right token still gets in, from it and from
// others. All of loopback is one source: a client rotating through
// 127.x.y.z gains nothing. Behind a trusted proxy the source is the
// address X-Forwarded-For names beyond it. Every refusal is counted by
// reason; the log has one line per reason, with the address, and never
// the token. The table of sources stays at its cap.
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
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")},
			Throttle:       throttle.Options{Burst: 3, Every: time.Minute, Max: 8, Now: clk.now}})
		if err != nil {
			t.Fatal(err)
		}
		feed = f
		return f
	})
	url := s.URL + "/export/v_ledger.csv?since=2026-01"
	one, proxy, other := fromAddr("127.0.0.1"), fromAddr("127.0.0.2"), fromAddr("127.0.0.3")

	for i, bearer := range []string{"", "wrong-token-0123456789", "wrong-token-9876543210"} {
		if code, _ := feedGet(t, one, url, bearer, ""); code != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d, want 401", i+1, code)
		}
	}
	for _, c := range []*http.Client{one, other} {
		code, h := feedGet(t, c, url, "wrong-token-again", "")
		if code != http.StatusTooManyRequests || h.Get("Retry-After") != "60" {
			t.Errorf("a wrong token from throttled loopback: status %d, Retry-After %q; want 429, 60", code, h.Get("Retry-After"))
		}
	}
	if code, _ := feedGet(t, one, url, feedToken, ""); code != http.StatusOK {
		t.Errorf("the right token from the throttled source: status %d, want 200", code)
	}

	// Behind the trusted proxy: the address it appended counts; what the
	// client put before it does not.
	for i := range 3 {
		if code, _ := feedGet(t, proxy, url, "wrong-token-0123456789", fmt.Sprintf("198.51.100.%d, 203.0.113.9", i)); code != http.StatusUnauthorized {
			t.Fatalf("forwarded failure %d: status %d, want 401", i+1, code)
		}
	}
	if code, _ := feedGet(t, proxy, url, "wrong-token-0123456789", "203.0.113.9"); code != http.StatusTooManyRequests {
		t.Errorf("a throttled forwarded address: status %d, want 429", code)
	}
	if code, _ := feedGet(t, proxy, url, "wrong-token-0123456789", "203.0.113.10"); code != http.StatusUnauthorized {
		t.Errorf("another forwarded address: status %d, want 401", code)
	}

	mu.Lock()
	got := fmt.Sprint(counts)
	mu.Unlock()
	if want := fmt.Sprint(map[string]int{export.RefusedNoToken: 1, export.RefusedWrongToken: 6, export.RefusedThrottled: 3}); got != want {
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
	if !strings.Contains(logs, `"refused":{"wrong_token":5,"throttled":2},"total":7`) {
		t.Errorf("no summary of the refusals not logged in full:\n%s", logs)
	}
	s.assertTokenNeverRecorded(t)

	// Strangers from many addresses: the table keeps its cap.
	for i := range 40 {
		feedGet(t, proxy, url, "wrong-token-0123456789", fmt.Sprintf("192.0.2.%d", i))
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

// Without trusted proxies X-Forwarded-For names nothing: a client that
// names itself another address at each try is still its peer address.
func TestFeedIgnoresForwardedForWithoutTrustedProxies(t *testing.T) {
	db := openMirror(t)
	s := newFeedServer(t, func(log zerolog.Logger) *export.Feed {
		f, err := export.NewFeed(db, feedToken, export.FeedOptions{Log: log, Throttle: throttle.Options{Burst: 3, Every: time.Hour}})
		if err != nil {
			t.Fatal(err)
		}
		return f
	})
	url := s.URL + "/export/v_ledger.csv?since=2026-01"
	c := fromAddr("127.0.0.1")
	for i := range 3 {
		if code, _ := feedGet(t, c, url, "wrong-token-0123456789", fmt.Sprintf("198.51.100.%d", i)); code != http.StatusUnauthorized {
			t.Fatalf("failure %d: status %d, want 401", i+1, code)
		}
	}
	if code, _ := feedGet(t, c, url, "wrong-token-0123456789", "203.0.113.77"); code != http.StatusTooManyRequests {
		t.Errorf("a fourth wrong token under a new X-Forwarded-For: status %d, want 429 (the peer is throttled)", code)
	}
}

func TestParseTrustedProxies(t *testing.T) {
	got, err := export.ParseTrustedProxies(" 127.0.0.1, 10.1.2.3/8,::1 ,")
	if err != nil || fmt.Sprint(got) != "[127.0.0.1/32 10.0.0.0/8 ::1/128]" {
		t.Errorf("ParseTrustedProxies: %v, %v", got, err)
	}
	if got, err := export.ParseTrustedProxies(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %v, %v; want none", got, err)
	}
	if _, err := export.ParseTrustedProxies("127.0.0.1,proxy.example"); err == nil || !strings.Contains(err.Error(), `"proxy.example"`) {
		t.Errorf("a name: %v, want an error naming it", err)
	}
}
