package bench

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// The burst's plan scales its mix of changes to the deliveries asked for.
func TestBurstPlan(t *testing.T) {
	for _, c := range []struct {
		target                                    int
		held, settledNew, settle, replace, remove int
		events                                    int
	}{
		{1500, 555, 180, 375, 60, 75, 1305},
		{200, 74, 24, 50, 8, 10, 174},
		{20, 7, 2, 5, 1, 1, 17},
	} {
		p := newBurstPlan(c.target, 1)
		if got := [5]int{p.held, p.settledNew, p.settle, p.replace, p.remove}; got != [5]int{c.held, c.settledNew, c.settle, c.replace, c.remove} {
			t.Errorf("plan for %d = %v", c.target, got)
		}
		if p.events() != c.events || p.ops() != c.events-c.replace {
			t.Errorf("plan for %d: %d events in %d changes, want %d in %d", c.target, p.events(), p.ops(), c.events, c.events-c.replace)
		}
		if d, want := p.duplicate(c.target), float64(c.target-c.events)/float64(c.events); math.Abs(d-want) > 1e-9 {
			t.Errorf("plan for %d duplicates %.3f, want %.3f", c.target, d, want)
		}
	}
}

// Ticks are counted over a day: to within one tick a day.
func TestTicksPerHour(t *testing.T) {
	for spec, want := range map[string]float64{"@every 30m": 2, "@hourly": 1, "@daily": 1.0 / 24, "*/5 * * * *": 12} {
		if got, err := ticksPerHour(spec); err != nil || math.Abs(got-want) > 1.0/24+1e-9 {
			t.Errorf("ticksPerHour(%q) = %v, %v; want %v", spec, got, err, want)
		}
	}
	if _, err := ticksPerHour("every now and then"); err == nil {
		t.Error("a bad schedule was accepted")
	}
}

func TestMedianAndPercentile(t *testing.T) {
	v := []float64{5, 1, 3}
	if m := median(v); m != 3 {
		t.Errorf("median %v = %v", v, m)
	}
	if !slices.Equal(v, []float64{5, 1, 3}) {
		t.Errorf("median changed its argument: %v", v)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median of 4 values = %v, want 2.5", m)
	}
	if m := median(nil); m != 0 {
		t.Errorf("median of none = %v", m)
	}
	sorted := make([]time.Duration, 100)
	for i := range sorted {
		sorted[i] = time.Duration(i+1) * time.Millisecond
	}
	if p := benchPercentile(sorted, 50); p != 51*time.Millisecond {
		t.Errorf("p50 = %v", p)
	}
	if p := benchPercentile(sorted, 100); p != 100*time.Millisecond {
		t.Errorf("p100 = %v", p)
	}
}

func TestRequestCounts(t *testing.T) {
	before := map[string]int64{"GET /accounts 200": 2, "GET /transactions 200": 5}
	after := map[string]int64{"GET /accounts 200": 2, "GET /transactions 200": 9, "GET /transactions/{id} 404": 4}
	d, total := requestDiff(before, after)
	if total != 8 || len(d) != 2 {
		t.Errorf("diff %v, total %d; want 2 routes, 8 requests", d, total)
	}
	if got, want := formatCounts(d), "GET /transactions 200: 4, GET /transactions/{id} 404: 4"; got != want {
		t.Errorf("formatCounts = %q, want %q (largest first, then by name)", got, want)
	}
}

// The benchmark's events are what the bank sends: they parse as webhook
// events, and the bare handler accepts them only with a right signature.
func TestSignedEventsAndBareHandler(t *testing.T) {
	body := webhookEventBody("http://bank/api/v1", "ev-1", "TRANSACTION_SETTLED", "2026-03-01T10:00:00+11:00", "hook-1", "tx-1")
	e, err := bank.ParseWebhookEvent(body)
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != "ev-1" || e.EventType != "TRANSACTION_SETTLED" || e.WebhookID != "hook-1" || e.TransactionID != "tx-1" {
		t.Errorf("parsed %+v", e)
	}
	h := bareWebhookHandler("/webhook", []byte("secret"))
	for _, c := range []struct {
		sig  string
		want int
	}{
		{simulator.Sign("secret", body), http.StatusOK},
		{simulator.Sign("other", body), http.StatusUnauthorized},
		{"", http.StatusUnauthorized},
	} {
		req := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(string(body)))
		req.Header.Set(simulator.SignatureHeader, c.sig)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("signature %q: %d, want %d", c.sig, rec.Code, c.want)
		}
	}
}

// The daemon runs with the user's settings except those the benchmark
// sets itself, and the user's are listed beside the figures.
func TestConfigTakesTheUsersSettings(t *testing.T) {
	env := Env{
		Environ: map[string]string{"BANKMIRROR_TOKEN": "user-token", "BANKMIRROR_SYNC_SCHEDULE": "@every 1h",
			"BANKMIRROR_LOG_LEVEL": "warn", "BANKMIRROR_SIM_CONTROL_URL": "http://x", "HOME": "/root"},
	}
	cfg, user, vars, err := env.configEnv(map[string]string{"TOKEN": "sim-token", "DB": "/m.db"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"BANKMIRROR_TOKEN": "sim-token", "BANKMIRROR_DB": "/m.db",
		"BANKMIRROR_SYNC_SCHEDULE": "@every 1h", "BANKMIRROR_LOG_LEVEL": "warn"}
	if !mapsEqual(vars, want) || cfg.Token != "sim-token" || cfg.SyncSchedule != "@every 1h" || cfg.DB != "/m.db" {
		t.Errorf("configuration read from %v: token %q, schedule %q, mirror %q; want %v", vars, cfg.Token, cfg.SyncSchedule, cfg.DB, want)
	}
	if !slices.Equal(user, []string{"BANKMIRROR_SYNC_SCHEDULE=@every 1h"}) {
		t.Errorf("user's settings %q", user)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A child bankmirror gets this process's environment without its
// bankmirror, memory-limit and systemd variables, then the settings given.
func TestChildEnv(t *testing.T) {
	environ := map[string]string{"HOME": "/root", "BANKMIRROR_DB": "/real.db", "GOMEMLIMIT": "1GiB",
		"NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "1"}
	got := benchChildEnv(environ, []string{"BANKMIRROR_SYNC_SCHEDULE=@hourly"}, map[string]string{"DB": "/bench.db"}, "24MiB")
	slices.Sort(got)
	want := []string{"BANKMIRROR_DB=/bench.db", "BANKMIRROR_SYNC_SCHEDULE=@hourly", "GOMEMLIMIT=24MiB", "HOME=/root"}
	if !slices.Equal(got, want) {
		t.Errorf("child environment %q, want %q", got, want)
	}
	if got := benchChildEnv(environ, nil, nil, "off"); slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, "GOMEMLIMIT=") }) {
		t.Errorf("--gomemlimit off still sets one: %q", got)
	}
}

// TestBareNeedsItsSecret: bench bare refuses to serve without the secret
// (every delivery would be refused, and the baseline would measure that).
func TestBareNeedsItsSecret(t *testing.T) {
	err := Bare(context.Background(), Env{Stdout: io.Discard, Environ: map[string]string{}}, "/webhook")
	if err == nil || !strings.Contains(err.Error(), BareSecretVar) {
		t.Fatalf("Bare without %s: %v, want an error naming it", BareSecretVar, err)
	}
}
