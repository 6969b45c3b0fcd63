package admin

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// A household of two, each person's token at a simulated bank of its own.
// The bank revokes sam's token: the next request through it is refused,
// and from then on bankmirror_person_token_ok says 0 for sam and 1 for
// alex, whose budget is still reported. The token check is DEGRADED
// naming sam, not a readiness check: /readyz still answers 200 while the
// last sync is fresh.
func TestPersonTokenMetrics(t *testing.T) {
	ctx := context.Background()
	clients := map[string]*bank.Client{}
	sims := map[string]*simulator.Bank{}
	for i, p := range []string{"alex", "sam"} {
		sim := simulator.New(simulator.Options{Seed: uint64(i + 1), Transactions: 1, Token: "tok-" + p,
			RateLimit: simulator.RateLimit{Limit: 1000}})
		t.Cleanup(sim.Close)
		srv := httptest.NewServer(sim.Handler())
		t.Cleanup(srv.Close)
		clients[p], sims[p] = bank.New(srv.URL+"/api/v1", sim.Token(), bank.WithHourlyBudget(0), bank.WithMaxAttempts(1)), sim
	}
	people := func() []health.PersonState {
		var out []health.PersonState
		for _, p := range []string{"alex", "sam"} {
			out = append(out, health.PersonState{Name: p, Token: clients[p].Token(), Budget: clients[p].Budget()})
		}
		return out
	}
	for _, p := range []string{"alex", "sam"} {
		if _, err := clients[p].Ping(ctx); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	sims["sam"].RevokeToken()
	if _, err := clients["sam"].Ping(ctx); err == nil {
		t.Fatal("ping through a revoked token: no error")
	}
	if _, err := clients["alex"].Ping(ctx); err != nil {
		t.Fatalf("alex after sam's token was revoked: %v", err)
	}

	now := time.Now()
	f := health.Facts{Now: now, Probed: true, LastSync: now.Add(-time.Minute), People: people()}
	s := snapshot(f)
	// The first person's client (sam's, rejected) does not speak for the
	// household.
	m := NewMetrics(StateSource{Health: func(context.Context) health.Snapshot { return s }, People: people,
		Token: func() bank.TokenState { return clients["sam"].Token() }})
	rec := httptest.NewRecorder()
	Handler(checker{s}, m).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	byPerson := func(name string) map[string]float64 {
		out := map[string]float64{}
		f := fams[name]
		if f == nil {
			t.Fatalf("no %s", name)
		}
		for _, mt := range f.Metric {
			if len(mt.Label) != 1 || mt.Label[0].GetName() != "person" {
				t.Fatalf("%s labels = %v", name, mt.Label)
			}
			out[mt.Label[0].GetValue()] = mt.Gauge.GetValue()
		}
		return out
	}
	if got := byPerson("bankmirror_person_token_ok"); len(got) != 2 || got["alex"] != 1 || got["sam"] != 0 {
		t.Errorf("bankmirror_person_token_ok = %v, want alex 1, sam 0", got)
	}
	if v := fams["bankmirror_token_rejected"].Metric[0].Gauge.GetValue(); v != 0 {
		t.Errorf("bankmirror_token_rejected = %v with alex's token accepted, want 0", v)
	}
	if line := health.StatusLine(s, clients["sam"].Token(), now); strings.Contains(line, "waiting for a new token") || !strings.Contains(line, "sam's token rejected") {
		t.Errorf("status line = %q, want it mirroring and saying sam's token was rejected", line)
	}
	// The simulator's bucket is 1,000 an hour: alex made two requests.
	if got := byPerson("bankmirror_person_budget_remaining"); got["alex"] != 998 {
		t.Errorf("bankmirror_person_budget_remaining = %v, want alex 998", got)
	}

	level, reason := health.Verdict(s.Checks)
	if level != health.Degraded || !strings.Contains(reason, "token: the bank rejected sam's token") || strings.Contains(reason, "alex") {
		t.Errorf("verdict = %v: %s; want DEGRADED naming sam only", level, reason)
	}
	rec = httptest.NewRecorder()
	Handler(checker{s}, m).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("/readyz with sam's token revoked and a fresh sync = %d:\n%s", rec.Code, rec.Body)
	}
	// Stale past BANKMIRROR_STALE_AFTER, /readyz fails as it always has.
	f.LastSync = now.Add(-3 * time.Hour)
	stale := snapshot(f)
	rec = httptest.NewRecorder()
	Handler(checker{stale}, m).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("/readyz stale = %d", rec.Code)
	}
	// Every token revoked: FAILING, not ready.
	sims["alex"].RevokeToken()
	if _, err := clients["alex"].Ping(ctx); err == nil {
		t.Fatal("ping through alex's revoked token: no error")
	}
	f.LastSync, f.People = now.Add(-time.Minute), people()
	all := snapshot(f)
	if level, _ := health.Verdict(all.Checks); level != health.Failing || all.Ready {
		t.Errorf("every token revoked: %v, ready %t; want FAILING, not ready", level, all.Ready)
	}
	if line := health.StatusLine(all, clients["sam"].Token(), now); !strings.Contains(line, "waiting for a new token") {
		t.Errorf("status line with every token revoked = %q", line)
	}
	rec = httptest.NewRecorder()
	Handler(checker{all}, m).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if fams, err = parser.TextToMetricFamilies(rec.Body); err != nil {
		t.Fatal(err)
	}
	if v := fams["bankmirror_token_rejected"].Metric[0].Gauge.GetValue(); v != 1 {
		t.Errorf("bankmirror_token_rejected with every token revoked = %v, want 1", v)
	}
	if got := byPerson("bankmirror_person_token_ok"); got["alex"] != 0 || got["sam"] != 0 {
		t.Errorf("bankmirror_person_token_ok with every token revoked = %v", got)
	}
}
