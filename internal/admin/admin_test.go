package admin

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/buildinfo"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/replica"
)

type checker struct{ s health.Snapshot }

func (c checker) Check(context.Context) health.Snapshot { return c.s }

func snapshot(f health.Facts) health.Snapshot {
	checks := health.Evaluate(f, health.Rules{StaleAfter: 2 * time.Hour})
	return health.Snapshot{At: f.Now, Facts: f, Checks: checks, Ready: health.Ready(checks), Transactions: 7,
		LastRuns: map[string]time.Time{"full": f.LastSync}}
}

func TestReadyzFormats(t *testing.T) {
	now := time.Now()
	bad := snapshot(health.Facts{Now: now, Probed: true, ProbeErr: errors.New("disk I/O error"), LastSync: now.Add(-time.Minute)})
	m := NewMetrics(StateSource{Health: func(context.Context) health.Snapshot { return bad }})
	h := Handler(checker{bad}, m)

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	body := rec.Body.String()
	if rec.Code != http.StatusServiceUnavailable || !strings.HasPrefix(body, "not ready\n") ||
		!strings.Contains(body, "FAIL  database  the mirror cannot be written: disk I/O error") || !strings.Contains(body, "ok    sync") {
		t.Errorf("text readyz = %d:\n%s", rec.Code, body)
	}
	for _, req := range []*http.Request{httptest.NewRequest(http.MethodGet, "/readyz?format=json", nil), func() *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/readyz", nil)
		r.Header.Set("Accept", "application/json")
		return r
	}()} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var got struct {
			Ready  bool
			Level  string
			Checks []struct {
				Name string
				OK   bool
			}
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("json readyz: %v %q", err, rec.Body)
		}
		if got.Ready || got.Level != "FAILING" || len(got.Checks) != 4 || got.Checks[0].Name != "database" || got.Checks[0].OK {
			t.Errorf("json readyz = %+v", got)
		}
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/readyz", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /readyz = %d", rec.Code)
	}
}

func TestMetricsExposition(t *testing.T) {
	now := time.Now()
	good := snapshot(health.Facts{Now: now, Probed: true, LastSync: now.Add(-time.Minute), Pending: 2, OldestPending: now.Add(-time.Minute),
		BankOutage: replica.Outage{Since: now.Add(-time.Hour), Syncs: 3}})
	m := NewMetrics(StateSource{
		Health: func(context.Context) health.Snapshot { return good },
		Budget: func() bank.BudgetState { return bank.BudgetState{Known: true, Remaining: 321} },
		Token:  func() bank.TokenState { return bank.TokenState{Rejected: true} },
	})
	m.Received(3)
	m.Applied()
	m.Refused("bad signature")
	m.BankResponse(200)
	m.BankResponse(0)
	m.BankResponse(429)
	m.SyncRun("full", 2*time.Second, nil)
	m.SyncRun("heal", time.Second, context.Canceled)
	rec := httptest.NewRecorder()
	Handler(checker{good}, m).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{
		"bankmirror_webhook_events_received_total": 3, "bankmirror_webhook_events_applied_total": 1,
		"bankmirror_webhook_events_pending": 2, "bankmirror_transactions": 7, "bankmirror_bank_budget_remaining": 321,
		"bankmirror_token_rejected": 1, "bankmirror_ready": 1, "bankmirror_bank_unreachable_syncs": 3,
	} {
		f := fams[name]
		if f == nil {
			t.Errorf("no %s", name)
			continue
		}
		var v float64
		if c := f.Metric[0].Counter; c != nil {
			v = c.GetValue()
		} else {
			v = f.Metric[0].Gauge.GetValue()
		}
		if v != want {
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
	codes := map[string]float64{}
	for _, mt := range fams["bankmirror_bank_requests_total"].Metric {
		codes[mt.Label[0].GetValue()] = mt.Counter.GetValue()
	}
	if codes["200"] != 1 || codes["error"] != 1 || codes["429"] != 1 {
		t.Errorf("bank requests by code = %v", codes)
	}
	results := map[string]uint64{}
	for _, mt := range fams["bankmirror_sync_run_duration_seconds"].Metric {
		results[mt.Label[0].GetValue()+"/"+mt.Label[1].GetValue()] = mt.Histogram.GetSampleCount()
	}
	if results["full/ok"] != 1 || results["heal/interrupted"] != 1 {
		t.Errorf("sync runs = %v", results)
	}
	if v := fams["bankmirror_webhook_events_oldest_pending_age_seconds"].Metric[0].Gauge.GetValue(); v != 60 {
		t.Errorf("oldest pending age = %v, want 60", v)
	}
}

func TestExposed(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8082": false, "127.0.0.2:8082": false, "[::1]:8082": false, "localhost:8082": false,
		"[::ffff:127.0.0.1]:8082": false,
		"0.0.0.0:9082":            true, "[::]:9082": true, "192.168.1.5:8082": true, "[2001:db8::1]:8082": true,
		"bank.example:8082": true, ":9082": true,
	} {
		if got := Exposed(addr); got != want {
			t.Errorf("Exposed(%q) = %v, want %v", addr, got, want)
		}
	}
}

// bankmirror_build_info is 1, labelled with the running build.
func TestBuildInfoMetric(t *testing.T) {
	rec := httptest.NewRecorder()
	Handler(checker{}, NewMetrics(StateSource{})).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	f := fams["bankmirror_build_info"]
	if f == nil || len(f.Metric) != 1 || f.Metric[0].Gauge.GetValue() != 1 {
		t.Fatalf("bankmirror_build_info = %v", f)
	}
	labels := map[string]string{}
	for _, l := range f.Metric[0].Label {
		labels[l.GetName()] = l.GetValue()
	}
	b := buildinfo.Get()
	want := map[string]string{"version": b.Version, "commit": b.Commit, "goversion": b.GoVersion, "sqlite": b.SQLite}
	if !maps.Equal(labels, want) {
		t.Errorf("labels = %v, want %v", labels, want)
	}
	if labels["sqlite"] == "" || !strings.HasPrefix(labels["goversion"], "go") {
		t.Errorf("labels = %v", labels)
	}
}

// The admin listener bound to loopback answers 421 to a request naming
// another host (a page of evil.example whose name now resolves to
// 127.0.0.1) and serves /metrics to one naming a loopback host.
func TestListenRefusesForeignHost(t *testing.T) {
	now := time.Now()
	good := snapshot(health.Facts{Now: now, Probed: true, LastSync: now.Add(-time.Minute)})
	srv, err := Listen(t.Context(), "127.0.0.1:0", Handler(checker{good}, NewMetrics(StateSource{Health: func(context.Context) health.Snapshot { return good }})))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Shutdown(time.Second) }()
	port := srv.URL()[strings.LastIndexByte(srv.URL(), ':'):]
	for host, want := range map[string]int{"evil.example": http.StatusMisdirectedRequest, "evil.example" + port: http.StatusMisdirectedRequest,
		"127.0.0.1" + port: http.StatusOK, "localhost" + port: http.StatusOK} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
		if want != http.StatusOK && (len(b) > 200 || strings.Contains(string(b), "bankmirror_")) {
			t.Errorf("Host %s: the refusal's body is %d bytes with metrics in it", host, len(b))
		}
	}
}
