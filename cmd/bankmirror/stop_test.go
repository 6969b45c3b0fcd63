//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// hangingProxy serves the simulated bank's API on another loopback address
// and, once told to, stops answering: every request is held, unanswered,
// until its client gives up or the proxy forwards again. Requests keep
// their Host, so the bank's links name the proxy.
type hangingProxy struct {
	URL string // the proxy's API base URL

	// hangAfter is the number of pages of the complete transaction listing
	// forwarded before the proxy starts hanging by itself (0: never).
	hangAfter atomic.Int64
	listed    atomic.Int64
	hanging   atomic.Bool

	mu      sync.Mutex
	held    map[*http.Request]bool
	changed chan struct{} // closed and replaced whenever held changes
	release chan struct{} // closed when the proxy forwards again
}

func newHangingProxy(t *testing.T, apiURL string, hangAfter int64) *hangingProxy {
	t.Helper()
	upstream, err := url.Parse(apiURL)
	must(t, err)
	p := &hangingProxy{held: map[*http.Request]bool{}, changed: make(chan struct{}), release: make(chan struct{})}
	p.hangAfter.Store(hangAfter)
	transport := http.DefaultTransport.(*http.Transport).Clone()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if after := p.hangAfter.Load(); after > 0 && fullListing(r) && p.listed.Add(1) > after {
			p.hang()
		}
		if p.hanging.Load() {
			p.hold(r)
			return
		}
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.URL.Scheme, out.URL.Host = upstream.Scheme, upstream.Host
		resp, err := transport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(func() {
		p.forward()
		srv.Close()
		transport.CloseIdleConnections()
	})
	p.URL = srv.URL + upstream.Path
	return p
}

// fullListing reports whether r asks for a page of the complete listing
// of transactions (no filter): what a full sync fetches.
func fullListing(r *http.Request) bool {
	return strings.HasSuffix(r.URL.Path, "/transactions") && !strings.Contains(r.URL.RawQuery, "filter")
}

func (p *hangingProxy) hang() { p.hanging.Store(true) }

// forward ends the hang: held requests are dropped, new ones forwarded.
func (p *hangingProxy) forward() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hangAfter.Store(0)
	if p.hanging.CompareAndSwap(true, false) {
		close(p.release)
		p.release = make(chan struct{})
	}
}

// hold keeps r unanswered until its client gives up or the proxy forwards.
func (p *hangingProxy) hold(r *http.Request) {
	p.mu.Lock()
	release := p.release
	p.held[r] = true
	p.notify()
	p.mu.Unlock()
	select {
	case <-r.Context().Done():
	case <-release:
	}
	p.mu.Lock()
	delete(p.held, r)
	p.notify()
	p.mu.Unlock()
}

// notify wakes waitHeld; p.mu is held.
func (p *hangingProxy) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// waitHeld waits until the proxy holds a request of each kind match
// lists, failing the test after timeout.
func (p *hangingProxy) waitHeld(t *testing.T, timeout time.Duration, match map[string]func(*http.Request) bool) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		missing := []string{}
		for what, m := range match {
			found := false
			for r := range p.held {
				found = found || m(r)
			}
			if !found {
				missing = append(missing, what)
			}
		}
		changed := p.changed
		p.mu.Unlock()
		if len(missing) == 0 {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("after %v the hanging bank holds no request of %v", timeout, missing)
		}
	}
}

// TestServeStopsWithinBudgetWhileTheBankHangs stops the daemon (SIGTERM)
// while its first full sync is listing, a burst of webhook events is being
// applied, and the bank answers nothing at all: it must exit, with status
// 0, within daemon.StopBudget, which is below the systemd unit's TimeoutStopSec.
// Nothing is lost by not waiting for the bank: after a restart, with the
// bank answering again, the mirror becomes equal to the bank.
//
// BANKMIRROR_STOP_TRANSACTIONS sets the bank's size (default 3,000); the
// stop time is logged.
func TestServeStopsWithinBudgetWhileTheBankHangs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and stops bankmirror subprocesses")
	}
	n := 3000
	if v := os.Getenv("BANKMIRROR_STOP_TRANSACTIONS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 200 {
			t.Fatalf("BANKMIRROR_STOP_TRANSACTIONS=%q: want a number of at least 200", v)
		}
	}
	const purchases = 60
	b := newBankWith(t, simulator.Options{Seed: 11, Transactions: n, Token: "tok",
		WebhookRetryBase: 2 * time.Millisecond, WebhookRetryMax: 50 * time.Millisecond, WebhookMaxAttempts: 10000})
	// The bank hangs when the full listing is half done.
	proxy := newHangingProxy(t, b.apiURL, int64(n/100/2))

	listen, adminListen := freeLoopbackAddr(t), freeLoopbackAddr(t)
	hook, err := b.client.CreateWebhook(context.Background(), "http://"+listen+"/webhook", nil)
	must(t, err)
	dbPath := filepath.Join(t.TempDir(), "mirror.db")
	env := childEnviron(map[string]string{
		"BANKMIRROR_ADMIN_LISTEN":       adminListen,
		"BANKMIRROR_API_URL":            proxy.URL,
		"BANKMIRROR_TOKEN":              b.sim.Token(),
		"BANKMIRROR_WEBHOOK_SECRET":     hook.SecretKey,
		"BANKMIRROR_DB":                 dbPath,
		"BANKMIRROR_LISTEN":             listen,
		"BANKMIRROR_REQUESTS_PER_HOUR":  "0",
		"BANKMIRROR_SYNC_SCHEDULE":      "@every 1000h",
		"BANKMIRROR_RECONCILE_SCHEDULE": "@every 1000h",
		"BANKMIRROR_LOG_FORMAT":         "json",
		"BANKMIRROR_LOG_LEVEL":          "info",
	})
	out := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bankmirror output:\n%s", out.String())
		}
	})

	d := startChild(t, env, out, "serve")
	workerRequest := func(r *http.Request) bool { return !fullListing(r) }
	proxy.waitHeld(t, 60*time.Second, map[string]func(*http.Request) bool{"the full sync": fullListing})
	for i := range purchases {
		b.sim.AddTransaction(simulator.NewTransaction{Description: fmt.Sprintf("Purchase %d", i), AmountBaseUnits: -500 - int64(i)})
	}
	poll(t, d, 30*time.Second, "every purchase's event acknowledged", func() bool {
		return countDeliveries(b.sim.DeliveryLog(hook.ID), true) >= purchases
	})
	proxy.waitHeld(t, 30*time.Second, map[string]func(*http.Request) bool{"the full sync": fullListing, "the worker": workerRequest})

	sent := time.Now()
	must(t, d.cmd.Process.Signal(syscall.SIGTERM))
	if err := d.wait(daemon.StopBudget); err != nil {
		t.Fatalf("bankmirror serve did not exit cleanly within the stop budget (%v) of SIGTERM: %v", daemon.StopBudget, err)
	}
	t.Logf("%d transactions, %d purchases, the bank hanging: bankmirror serve exited %v after SIGTERM",
		n, purchases, time.Since(sent).Round(10*time.Millisecond))

	// Restarted with the bank answering, the daemon resumes the listing and
	// applies the events it had stored.
	proxy.forward()
	d = startChild(t, env, out, "serve")
	t.Cleanup(func() {
		if !d.exited() {
			_ = d.cmd.Process.Signal(syscall.SIGTERM)
			_ = d.wait(daemon.StopBudget)
		}
	})
	st, err := store.Open(context.Background(), dbPath)
	must(t, err)
	t.Cleanup(func() { _ = st.Close() })
	db := st.Reader()
	poll(t, d, 120*time.Second, "a completed full sync and every event processed", func() bool {
		return mirrortest.Int(t, db, "SELECT count(*) FROM sync_runs WHERE kind = 'full' AND status = 'ok'") > 0 &&
			mirrortest.Int(t, db, "SELECT count(*) FROM webhook_events WHERE processed_at IS NULL") == 0
	})
	if got := mirrortest.Int(t, db, "SELECT count(*) FROM webhook_events"); got != purchases {
		t.Errorf("the inbox holds %d events, want the %d purchases'", got, purchases)
	}
	mirrortest.AssertEqualsTruth(t, b.sim, db, proxy.URL)
}
