package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// headerTap is a reverse proxy on loopback in front of the daemon's
// webhook listener that records the signature headers each request had.
type headerTap struct {
	srv      *httptest.Server
	mu       sync.Mutex
	up, spec int // requests carrying each header
	total    int
}

func newHeaderTap(t *testing.T, target string) *headerTap {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	tap := &headerTap{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	tap.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tap.mu.Lock()
		tap.total++
		if len(r.Header.Values(simulator.UpSignatureHeader)) > 0 {
			tap.up++
		}
		if len(r.Header.Values(simulator.SignatureHeader)) > 0 {
			tap.spec++
		}
		tap.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(tap.srv.Close)
	return tap
}

// `bankmirror simulator --signature-header X-Up-Authenticity-Signature`
// signs its deliveries the way the real bank (Up) does, and a real daemon
// mirrors the event; a forged signature in that header is refused with
// 401 and changes nothing.
func TestServeAcceptsTheRealBanksSignatureHeader(t *testing.T) {
	s := startSimulator(t, "--transactions", "20", "--seed", "7", "--rate-limit", "0",
		"--webhook-retry", "10ms,100ms,50", "--signature-header", simulator.UpSignatureHeader)
	api, token := s.vars["BANKMIRROR_API_URL"], s.vars["BANKMIRROR_TOKEN"]
	cfg, err := config.Load(map[string]string{
		"BANKMIRROR_API_URL":            api,
		"BANKMIRROR_TOKEN":              token,
		"BANKMIRROR_DB":                 filepath.Join(t.TempDir(), "mirror.db"),
		"BANKMIRROR_LISTEN":             "127.0.0.1:0",
		"BANKMIRROR_ADMIN_LISTEN":       "127.0.0.1:0",
		"BANKMIRROR_REQUESTS_PER_HOUR":  "0",
		"BANKMIRROR_SYNC_SCHEDULE":      "@every 1000h",
		"BANKMIRROR_RECONCILE_SCHEDULE": "@every 1000h",
	})
	if err != nil {
		t.Fatal(err)
	}
	m, applied := startMain(t, cfg)
	tap := newHeaderTap(t, m.URL())

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := bank.New(api, token, bank.WithHourlyBudget(0))
	h, err := client.CreateWebhook(ctx, tap.srv.URL+cfg.WebhookPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	must(t, m.Store.SaveWebhook(ctx, store.Webhook{ID: h.ID, URL: h.URL, SecretKey: h.SecretKey, CreatedAt: h.CreatedAt}))

	// A purchase at the bank: its TRANSACTION_CREATED is delivered with the
	// real bank's header and the worker mirrors the transaction.
	txID := simControlCreate(t, s, `{"description":"Signed the Up way","amountBaseUnits":-1234}`)
	db := m.Store.Reader()
	for mirrortest.Int(t, db, "SELECT count(*) FROM transactions WHERE id = ?", txID) == 0 {
		select {
		case <-applied:
		case <-ctx.Done():
			t.Fatalf("transaction %s not mirrored; the tap saw %+v", txID, tap.counts())
		}
	}
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM webhook_events WHERE transaction_id = ? AND event_type = 'TRANSACTION_CREATED'", txID); n != 1 {
		t.Errorf("%d inbox rows for the purchase's TRANSACTION_CREATED, want 1", n)
	}
	if c := tap.counts(); c.total == 0 || c.up != c.total || c.spec != 0 {
		t.Errorf("deliveries: %d, with %s %d, with %s %d; want all in the first, none in the second",
			c.total, simulator.UpSignatureHeader, c.up, simulator.SignatureHeader, c.spec)
	}

	// Forged deliveries of an event for a transaction the bank never made.
	events := mirrortest.Int(t, db, "SELECT count(*) FROM webhook_events")
	txs := mirrortest.Int(t, db, "SELECT count(*) FROM transactions")
	body := []byte(`{"data":{"type":"webhook-events","id":"ev-forged","attributes":{"eventType":"TRANSACTION_CREATED","createdAt":"2026-01-01T00:00:00+11:00"},` +
		`"relationships":{"webhook":{"data":{"type":"webhooks","id":"` + h.ID + `"}},"transaction":{"data":{"type":"transactions","id":"tx-forged"}}}}}`)
	for _, tc := range []struct {
		name     string
		up, spec string
	}{
		{"forged in the Up header", simulator.Sign("not-the-secret", body), ""},
		{"Up header right, spec header forged", simulator.Sign(h.SecretKey, body), simulator.Sign("not-the-secret", body)},
	} {
		req, _ := http.NewRequest(http.MethodPost, m.URL()+cfg.WebhookPath, bytes.NewReader(body))
		req.Header.Set(simulator.UpSignatureHeader, tc.up)
		if tc.spec != "" {
			req.Header.Set(simulator.SignatureHeader, tc.spec)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", tc.name, resp.StatusCode)
		}
	}
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM webhook_events"); n != events {
		t.Errorf("forged deliveries: inbox rows %d -> %d", events, n)
	}
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM transactions"); n != txs {
		t.Errorf("forged deliveries: transactions %d -> %d", txs, n)
	}
}

func (tap *headerTap) counts() struct{ up, spec, total int } {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	return struct{ up, spec, total int }{tap.up, tap.spec, tap.total}
}

// simControlCreate creates a transaction through the simulator's control
// API and returns its id.
func simControlCreate(t *testing.T, s *simRun, body string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.vars["BANKMIRROR_SIM_CONTROL_URL"]+"/transactions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.vars["BANKMIRROR_SIM_CONTROL_TOKEN"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ IDs []string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusCreated || len(out.IDs) != 1 {
		t.Fatalf("control create: %d %+v %v", resp.StatusCode, out, err)
	}
	return out.IDs[0]
}
