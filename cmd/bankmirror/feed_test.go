package main

import (
	"encoding/csv"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/bankmirror/bankmirror/internal/export"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/throttle"
)

// With BANKMIRROR_EXPORT_TOKEN set, serve's admin listener serves the
// spreadsheet feed: the mirror's views as CSV, for the token only.
func TestServeFeedsSpreadsheets(t *testing.T) {
	const token = "feed-token-0123456789abcdef"
	b := newBank(t, 120)
	cfg := testConfig(t, b)
	cfg.ExportToken = token
	m, _ := startMain(t, cfg)
	url := m.AdminURL() + "/export/v_transactions.csv"

	get := func(auth string) *http.Response {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		must(t, err)
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for _, bad := range []string{"", "wrong-token-0123456789abcdef"} {
		if resp := get(bad); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", bad, resp.StatusCode)
		}
	}
	resp := get(token)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("with the token: status %d", resp.StatusCode)
	}
	rows, err := csv.NewReader(resp.Body).ReadAll()
	must(t, err)
	want := mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM v_transactions")
	if len(rows) != want+1 || want == 0 || rows[0][0] == "" {
		t.Errorf("feed gave %d lines, want a header and %d rows", len(rows), want)
	}

	// Without a token the feed is not there at all.
	cfg2 := testConfig(t, b)
	m2, _ := startMain(t, cfg2)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, m2.AdminURL()+"/export/v_transactions.csv?token="+token, nil)
	must(t, err)
	r2, err := http.DefaultClient.Do(req)
	must(t, err)
	r2.Body.Close()
	if r2.StatusCode != http.StatusNotFound {
		t.Errorf("feed without BANKMIRROR_EXPORT_TOKEN: status %d, want 404", r2.StatusCode)
	}
}

// A finished sync's progress is cleared, so the next sync's report does
// not start with the previous one's pages and ETA.
func TestServeClearsProgressAfterARun(t *testing.T) {
	m, _ := startMain(t, testConfig(t, newBank(t, 150)))
	if p, ok := m.Progress(); ok {
		t.Errorf("after the start-up sync, progress still holds %+v", p)
	}
}

// Wrong tokens on the feed are counted in /metrics by reason (each reason
// from zero), and past the burst loopback (every address of it, one
// source) gets 429 for a wrong token while the right one still gets in.
func TestServeFeedCountsAndThrottlesRefusals(t *testing.T) {
	const token = "feed-token-0123456789abcdef"
	cfg := testConfig(t, newBank(t, 20))
	cfg.ExportToken = token
	m, _ := startMain(t, cfg)
	url := m.AdminURL() + "/export/v_ledger.csv"
	get := func(from, auth string) *http.Response {
		t.Helper()
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		must(t, err)
		req.Header.Set("Authorization", "Bearer "+auth)
		resp, err := c.Do(req)
		must(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	fams := scrape(t, m)
	if f := fams["bankmirror_export_requests_refused_total"]; f == nil || len(f.Metric) != len(export.RefusalReasons()) || value(fams, f.GetName()) != 0 {
		t.Fatalf("before any request: %v, want every reason at zero", f)
	}
	for i := range throttle.DefaultBurst {
		if resp := get("127.0.0.1", "wrong-token-0123456789"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: status %d, want 401", i+1, resp.StatusCode)
		}
	}
	resp := get("127.0.0.2", "wrong-token-0123456789")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("past the burst, from another loopback address: status %d, Retry-After %q; want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if resp := get("127.0.0.1", token); resp.StatusCode != http.StatusOK {
		t.Errorf("the right token from the throttled source: status %d, want 200", resp.StatusCode)
	}
	fams = scrape(t, m)
	for reason, want := range map[string]float64{"wrong_token": throttle.DefaultBurst, "throttled": 1, "no_token": 0} {
		if got := value(fams, "bankmirror_export_requests_refused_total", "reason", reason); got != want {
			t.Errorf("refused{reason=%q} = %v, want %v", reason, got, want)
		}
	}
}
