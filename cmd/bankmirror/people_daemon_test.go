//go:build unix

package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// A daemon serving a household of two: the bank revokes sam's token. The
// next sync finds it out; then status is DEGRADED naming sam and has a
// line saying what to do, /metrics says bankmirror_person_token_ok 0 for
// sam and 1 for alex, /readyz still answers 200 (the sync is fresh), and
// alex's deliveries are still accepted and applied. The advice names the
// token file's own path and a reload (a tokens directory is read again on
// SIGHUP), in status and in the daemon's log; a reload with the same
// tokens says "token replaced" of no one.
func TestDaemonHouseholdRevokedToken(t *testing.T) {
	b, env, _ := householdCLI(t)
	env["BANKMIRROR_SYNC_SCHEDULE"], env["BANKMIRROR_RECONCILE_SCHEDULE"] = "@every 1000h", "@every 1000h"
	env["BANKMIRROR_POLL_INTERVAL"] = "0"
	cfg, err := config.Load(env)
	must(t, err)
	cfg.Listen, cfg.AdminListen = "127.0.0.1:0", "127.0.0.1:0"
	people, err := config.People(env)
	must(t, err)
	var logs cliBuffer
	m := daemon.New(cfg, zerolog.New(&logs))
	m.Environ, m.People = env, people
	applied := make(chan string, 100)
	m.OnEventApplied = func(e store.InboxEvent, _ store.Change) { applied <- e.TransactionID }
	if err := m.Open(context.Background()); err != nil {
		_ = m.Close()
		t.Fatalf("open the daemon: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	select {
	case <-m.InitialSyncDone:
	case <-time.After(convDrainWait):
		t.Fatalf("the start-up sync did not finish within %v", convDrainWait)
	}
	wantCode(t, runCLI(t, env, "webhook", "register", "--url", m.URL()+m.Config.WebhookPath), 0)

	must(t, b.sim.RevokePersonToken("sam"))
	scheduledSync(context.Background(), m, false)
	must(t, m.Store.PutState(context.Background(), health.ReportKey, m.Report()))

	r := runCLI(t, env, "status")
	wantCode(t, r, exitDegraded)
	first, _, _ := strings.Cut(r.stdout, "\n")
	if !strings.HasPrefix(first, "DEGRADED: ") || !strings.Contains(first, "sam's token") || strings.Contains(first, "alex") {
		t.Errorf("status's verdict = %q, want DEGRADED naming sam", first)
	}
	samFile := filepath.Join(env["BANKMIRROR_TOKENS_DIR"], "sam")
	advice := "put a new token in " + samFile + ", then `systemctl reload bankmirror`"
	if !regexp.MustCompile(`(?m)^person sam: token REJECTED .*`+regexp.QuoteMeta(advice)).MatchString(r.stdout) ||
		strings.Contains(r.stdout, "BANKMIRROR_TOKENS_DIR/sam") || strings.Contains(r.stdout, "restart") ||
		!regexp.MustCompile(`(?m)^person alex: token ok, \d+ requests left`).MatchString(r.stdout) {
		t.Errorf("status's person lines:\n%s", r.stdout)
	}
	if !strings.Contains(logs.String(), advice) || strings.Contains(logs.String(), "BANKMIRROR_TOKENS_DIR/sam") {
		t.Errorf("the daemon's log does not say where sam's token goes:\n%s", logs.String())
	}
	before := len(logs.String())
	must(t, m.Reload())
	reloaded := logs.String()[before:]
	if strings.Contains(reloaded, "token replaced") || !strings.Contains(reloaded, `"person":"sam","message":"the same token read again`) ||
		strings.Contains(reloaded, `"person":"alex","message":"the same token`) {
		t.Errorf("a reload with the same tokens logs:\n%s", reloaded)
	}
	r = runCLI(t, env, "people")
	wantCode(t, r, 0)
	if !regexp.MustCompile(`(?m)^sam\s.*REJECTED`).MatchString(r.stdout) || !regexp.MustCompile(`(?m)^alex\s+\S+\s+\d+ \(.*\)\s+\d+\s+ok\s`).MatchString(r.stdout) {
		t.Errorf("people with sam's token revoked:\n%s", r.stdout)
	}
	// The daemon's report of each budget, in snake_case without zero times.
	r = runCLI(t, env, "people", "--json")
	wantCode(t, r, 0)
	if !regexp.MustCompile(`"budget": \{\s*"known": true,\s*"remaining": \d+`).MatchString(r.stdout) || strings.Contains(r.stdout, `"Known"`) ||
		strings.Contains(r.stdout, "0001-01-01") {
		t.Errorf("people --json with a daemon's report:\n%s", r.stdout)
	}

	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(m.AdminURL() + path)
		must(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		must(t, err)
		return resp.StatusCode, string(body)
	}
	if code, body := get("/readyz"); code != http.StatusOK {
		t.Errorf("/readyz with sam's token revoked and a fresh sync = %d:\n%s", code, body)
	}
	_, body := get("/metrics")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	must(t, err)
	ok := map[string]float64{}
	if f := fams["bankmirror_person_token_ok"]; f != nil {
		for _, mt := range f.Metric {
			ok[mt.Label[0].GetValue()] = mt.Gauge.GetValue()
		}
	}
	if len(ok) != 2 || ok["alex"] != 1 || ok["sam"] != 0 {
		t.Errorf("bankmirror_person_token_ok = %v, want alex 1, sam 0", ok)
	}

	// alex's purchase still reaches the mirror through alex's webhook.
	alexAccount := b.sim.PersonAccounts("alex")[0]
	id, err := b.sim.PurchaseAs("alex", alexAccount, simulator.NewTransaction{Description: "Bakery", AmountBaseUnits: -650})
	must(t, err)
	deadline := time.After(30 * time.Second)
	for {
		select {
		case got := <-applied:
			if got != id {
				continue
			}
		case <-deadline:
			t.Fatalf("alex's purchase %s was not applied with sam's token revoked", id)
		}
		break
	}
	if n := mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM transactions WHERE id = ?", id); n != 1 {
		t.Errorf("alex's purchase in the mirror %d times", n)
	}

	// sam's webhook still delivers, signed with sam's secret: accepted
	// while sam is configured, refused once sam's token file is gone and
	// the daemon reloaded.
	samDelivery := func() string {
		t.Helper()
		_, err := b.sim.PurchaseAs("sam", b.sim.PersonAccounts("sam")[0], simulator.NewTransaction{Description: "Cinema", AmountBaseUnits: -1800})
		must(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		must(t, b.sim.WaitDeliveries(ctx))
		for _, h := range b.sim.Webhooks() {
			if h.Person == "sam" {
				logs := b.sim.DeliveryLog(h.ID)
				return logs[len(logs)-1].DeliveryStatus
			}
		}
		t.Fatal("sam has no webhook at the bank")
		return ""
	}
	if got := samDelivery(); got != "DELIVERED" {
		t.Errorf("sam's delivery while configured: %s", got)
	}
	must(t, os.Remove(filepath.Join(env["BANKMIRROR_TOKENS_DIR"], "sam")))
	must(t, m.Reload())
	if got := samDelivery(); got != "BAD_RESPONSE_CODE" {
		t.Errorf("sam's delivery after sam left the configuration: %s, want refused", got)
	}
}
