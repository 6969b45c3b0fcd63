package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// adminGet fetches a path of the daemon's admin listener.
func adminGet(t *testing.T, m *daemon.Daemon, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(m.AdminURL() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// wantReady fails the test unless /readyz answers 200.
func wantReady(t *testing.T, m *daemon.Daemon) {
	t.Helper()
	if code, body := adminGet(t, m, "/readyz"); code != http.StatusOK || !strings.HasPrefix(body, "ready\n") {
		t.Fatalf("readyz = %d, want 200:\n%s", code, body)
	}
}

// wantNotReady fails the test unless /readyz answers 503 with check
// failing for a reason containing why.
func wantNotReady(t *testing.T, m *daemon.Daemon, check, why string) {
	t.Helper()
	code, body := adminGet(t, m, "/readyz")
	if !notReadyFor(code, body, check, why) {
		t.Fatalf("readyz = %d, want 503 failing %q because of %q:\n%s", code, check, why, body)
	}
}

// notReadyFor reports whether a /readyz answer is 503 with check failing
// for a reason containing why.
func notReadyFor(code int, body, check, why string) bool {
	if code != http.StatusServiceUnavailable || !strings.HasPrefix(body, "not ready\n") {
		return false
	}
	for _, line := range strings.Split(body, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "FAIL" && f[1] == check && strings.Contains(line, why) {
			return true
		}
	}
	return false
}

// awaitProbe waits for /readyz to answer 200 (ready) or to fail the
// database check because of why: a write probe's result is reused for up
// to a second, so the answer right after the disk changes may be the
// previous probe's.
func awaitProbe(t *testing.T, m *daemon.Daemon, ready bool, why string) {
	t.Helper()
	var code int
	var body string
	if !eventually(t, nil, 10*time.Second, "readyz", func() bool {
		code, body = adminGet(t, m, "/readyz")
		if ready {
			return code == http.StatusOK && strings.HasPrefix(body, "ready\n")
		}
		return notReadyFor(code, body, "database", why)
	}) {
		t.Fatalf("readyz = %d, want ready=%v (database: %q):\n%s", code, ready, why, body)
	}
}

// bankControl calls the simulator's control API, as a test harness would.
func bankControl(t *testing.T, b *bankEnv, method, path, body string) {
	t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(b.apiURL, "/api/v1")+"/_sim"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+b.sim.ControlToken())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("simulator control %s %s: %d %s", method, path, resp.StatusCode, b)
	}
}

// bankRequests counts the API requests the simulator answered with status.
func bankRequests(b *bankEnv, status int) int64 {
	var n int64
	for _, c := range b.sim.RequestCounts() {
		if c.Status == status {
			n += c.Count
		}
	}
	return n
}

// A revoked token: the daemon stops syncing and refetching (one refused
// request, no retries), keeps receiving webhooks, logs one error, fails
// /readyz at once, shows it in metrics and status; a new token file and a
// reload (what SIGHUP calls) bring it back, syncing at once.
func TestRevokedTokenIsAnIncidentUntilReload(t *testing.T) {
	b := newBank(t, 100)
	cfg := testConfig(t, b)
	tokenFile := filepath.Join(t.TempDir(), "token")
	must(t, os.WriteFile(tokenFile, []byte(b.sim.Token()+"\n"), 0o600))
	var logs cliBuffer
	m := daemon.New(cfg, zerolog.New(&logs))
	m.Environ = map[string]string{"BANKMIRROR_TOKEN_FILE": tokenFile}
	applied := make(chan string, 100)
	m.OnEventApplied = func(e store.InboxEvent, _ store.Change) { applied <- e.ID }
	must(t, m.Open(context.Background()))
	t.Cleanup(func() { must(t, m.Close()) })
	<-m.InitialSyncDone
	wantReady(t, m)
	register(t, b, m)

	bankControl(t, b, http.MethodPost, "/token/revoke", "")
	// A delivery arrives: its refetch is refused.
	first := b.sim.AddTransaction(simulator.NewTransaction{Description: "During the revocation", AmountBaseUnits: -300})
	poll(t, nil, 30*time.Second, "the bank's 401", func() bool { rejected, _ := m.Bank.TokenRejected(); return rejected })
	wantNotReady(t, m, "token", "rejected the token")
	code, body := adminGet(t, m, "/readyz?format=json")
	var ready readyJSON
	must(t, json.Unmarshal([]byte(body), &ready))
	if code != http.StatusServiceUnavailable || ready.Ready || ready.Level != "FAILING" || ready.check("token").OK || !ready.check("database").OK {
		t.Errorf("readyz JSON = %d %+v", code, ready)
	}

	// More webhooks are received and queued; a scheduled sync and the
	// worker send nothing with the refused token.
	refused := bankRequests(b, http.StatusUnauthorized)
	runs := mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM sync_runs")
	second := b.sim.AddTransaction(simulator.NewTransaction{Description: "Still revoked", AmountBaseUnits: -400})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	must(t, b.sim.WaitDeliveries(ctx))
	m.Schedule.Run(context.Background(), false)
	m.Worker.Notify()
	if n := mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM webhook_events WHERE processed_at IS NULL AND transaction_id IN (?, ?)", first, second); n != 2 {
		t.Errorf("%d of the 2 events queued while the token is refused", n)
	}
	if n := mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM sync_runs"); n != runs {
		t.Errorf("a sync ran with a refused token (%d runs, were %d)", n, runs)
	}
	if got := scrape(t, m)["bankmirror_token_rejected"]; got == nil || got.Metric[0].Gauge.GetValue() != 1 {
		t.Errorf("bankmirror_token_rejected = %v, want 1", got)
	}
	poll(t, nil, 30*time.Second, "status to say FAILING: token", func() bool {
		r := runCLI(t, map[string]string{"BANKMIRROR_DB": cfg.DB}, "status")
		return r.code == 2 && strings.HasPrefix(r.stdout, "FAILING: token: the bank rejected the token")
	})
	if n := bankRequests(b, http.StatusUnauthorized); n != refused {
		t.Errorf("%d more requests sent with the refused token", n-refused)
	}
	if n := strings.Count(logs.String(), `"level":"error"`); n != 1 || !strings.Contains(logs.String(), "the bank rejected the token (401)") {
		t.Errorf("want one error line naming the rejected token, got %d:\n%s", n, logs.String())
	}

	// A new token: written to the file, then the reload SIGHUP triggers.
	bankControl(t, b, http.MethodPost, "/token/rotate", `{"token":"tok-2"}`)
	must(t, os.WriteFile(tokenFile, []byte("tok-2\n"), 0o600))
	must(t, m.Reload())
	wantReady(t, m)
	waitApplied(t, applied, map[string]bool{eventOf(t, m, first): true, eventOf(t, m, second): true})
	poll(t, nil, 30*time.Second, "a sync right after the reload", func() bool {
		return mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM sync_runs WHERE status = 'ok'") > runs
	})
	mirrortest.AssertEqualsTruth(t, b.sim, m.Store.Reader(), b.apiURL)
	if got := scrape(t, m)["bankmirror_token_rejected"]; got == nil || got.Metric[0].Gauge.GetValue() != 0 {
		t.Errorf("bankmirror_token_rejected = %v after the reload, want 0", got)
	}

	// A malformed token file changes nothing.
	must(t, os.WriteFile(tokenFile, []byte("tok\x1b-3\n"), 0o600))
	if err := m.Reload(); err == nil || !strings.Contains(err.Error(), "BANKMIRROR_TOKEN_FILE") || strings.Contains(err.Error(), "tok\x1b-3") {
		t.Errorf("reload of a malformed token: %v", err)
	}
	if rejected, _ := m.Bank.TokenRejected(); rejected {
		t.Error("a malformed token file changed the token state")
	}
}

// eventOf is the id of the inbox event about transaction id.
func eventOf(t *testing.T, m *daemon.Daemon, id string) string {
	t.Helper()
	ids := mirrortest.Strings(t, m.Store.Reader(), "SELECT id FROM webhook_events WHERE transaction_id = ?", id)
	if len(ids) != 1 {
		t.Fatalf("%d events about %s", len(ids), id)
	}
	return ids[0]
}

type readyJSON struct {
	Ready  bool   `json:"ready"`
	Level  string `json:"level"`
	Checks []struct {
		Name   string `json:"name"`
		OK     bool   `json:"ok"`
		Detail string `json:"detail"`
	} `json:"checks"`
}

func (r readyJSON) check(name string) (c struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return c
}

// setLastSync makes the last successful runs look as if they finished ago.
func setLastSync(t *testing.T, m *daemon.Daemon, ago time.Duration) {
	t.Helper()
	must(t, m.Store.InTx(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec("UPDATE sync_runs SET finished_at = ? WHERE status = 'ok'", time.Now().Add(-ago).UTC().Format(store.TimeLayout))
		return err
	}))
}

// A sync older than BANKMIRROR_STALE_AFTER fails /readyz and makes status
// DEGRADED; twice as old, FAILING; a sync makes it ready again.
func TestReadyzFailsOnAStaleSync(t *testing.T) {
	b := newBank(t, 50)
	cfg := testConfig(t, b)
	m, _ := startMain(t, cfg)
	wantReady(t, m)
	env := map[string]string{"BANKMIRROR_DB": cfg.DB}

	setLastSync(t, m, 3*time.Hour)
	wantNotReady(t, m, "sync", "over BANKMIRROR_STALE_AFTER=2h")
	r := runCLI(t, env, "status")
	wantCode(t, r, 1)
	if !strings.HasPrefix(r.stdout, "DEGRADED: sync: last successful sync 3h ago") {
		t.Errorf("status:\n%s", r)
	}

	setLastSync(t, m, 5*time.Hour)
	r = runCLI(t, env, "status", "--json")
	wantCode(t, r, 2)
	var st struct {
		Level, Reason string
		Checks        []struct{ Name, Level string }
		Daemon        struct{ Running bool }
	}
	must(t, json.Unmarshal([]byte(r.stdout), &st))
	if st.Level != "FAILING" || !strings.Contains(st.Reason, "over twice BANKMIRROR_STALE_AFTER") || !st.Daemon.Running {
		t.Errorf("status --json = %+v\n%s", st, r.stdout)
	}

	m.Schedule.Run(context.Background(), false)
	wantReady(t, m)
	r = runCLI(t, env, "status", "--json")
	wantCode(t, r, 0)
	st.Level, st.Reason = "", ""
	must(t, json.Unmarshal([]byte(r.stdout), &st))
	if st.Level != "OK" || st.Reason != "" {
		t.Errorf("status --json after a sync = %+v", st)
	}
	r = runCLI(t, env, "status")
	wantCode(t, r, 0)
	if !strings.HasPrefix(r.stdout, "OK\ndaemon: running (pid ") {
		t.Errorf("status:\n%s", r)
	}

	// A daemon that stopped leaves the mirror DEGRADED.
	must(t, m.Close())
	r = runCLI(t, env, "status")
	wantCode(t, r, 1)
	if !strings.HasPrefix(r.stdout, "DEGRADED: daemon: not running (stopped ") {
		t.Errorf("status after the daemon stopped:\n%s", r)
	}
}

// readOnly makes path unwritable for this process, and undoes it at the
// end of the test: chmod for a user, chattr +i for root (whom permission
// bits do not stop).
func readOnly(t *testing.T, path string) (undo func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		must(t, os.Chmod(path, 0o400))
		return func() { must(t, os.Chmod(path, 0o600)) }
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("running as root and cannot make %s immutable: %v %s", path, err, out)
	}
	done := false
	undo = func() {
		if !done {
			done = true
			if out, err := exec.Command("chattr", "-i", path).CombinedOutput(); err != nil {
				t.Errorf("chattr -i: %v %s", err, out)
			}
		}
	}
	t.Cleanup(undo)
	return undo
}

// A database file made read-only under the running daemon fails /readyz
// (the daemon could not reopen it) and the status; writable again, it
// recovers.
func TestReadyzFailsOnAReadOnlyDatabase(t *testing.T) {
	b := newBank(t, 50)
	cfg := testConfig(t, b)
	m, _ := startMain(t, cfg)
	wantReady(t, m)
	undo := readOnly(t, cfg.DB)
	awaitProbe(t, m, false, "not writable")
	undo()
	awaitProbe(t, m, true, "")
}

// scrape parses /metrics with the Prometheus text parser.
func scrape(t *testing.T, m *daemon.Daemon) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(m.AdminURL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("metrics: %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("metrics do not parse: %v", err)
	}
	return fams
}

// value is the sum of a family's samples whose labels include labels.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
	sum := 0.0
next:
	for _, mt := range f.Metric {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range mt.Label {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case mt.Counter != nil:
			sum += mt.Counter.GetValue()
		case mt.Gauge != nil:
			sum += mt.Gauge.GetValue()
		case mt.Histogram != nil:
			sum += float64(mt.Histogram.GetSampleCount())
		}
	}
	return sum
}

// /metrics parses as Prometheus text, and its counters follow real
// traffic: signed deliveries from the bank, the worker's refetches, syncs.
func TestMetricsMoveWithRealTraffic(t *testing.T) {
	b := newBank(t, 120)
	m, applied := startMain(t, testConfig(t, b))
	register(t, b, m)
	before := scrape(t, m)
	if v := value(before, "bankmirror_sync_run_duration_seconds", "kind", "full", "result", "ok"); v != 1 {
		t.Errorf("full syncs = %v, want the start-up one", v)
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "bankmirror_ready", "bankmirror_bank_budget_remaining"} {
		if before[name] == nil {
			t.Errorf("no %s", name)
		}
	}

	var ids []string
	for i := range 5 {
		ids = append(ids, b.sim.AddTransaction(simulator.NewTransaction{Description: fmt.Sprintf("Metric %d", i), AmountBaseUnits: -100}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	must(t, b.sim.WaitDeliveries(ctx))
	events := map[string]bool{}
	for _, id := range ids {
		events[eventOf(t, m, id)] = true
	}
	waitApplied(t, applied, events)
	m.Metrics.Refused("bad signature")
	m.Schedule.Run(context.Background(), false)

	after := scrape(t, m)
	for _, c := range []struct {
		name   string
		labels []string
		min    float64
	}{
		{"bankmirror_webhook_events_received_total", nil, 5},
		{"bankmirror_webhook_events_applied_total", nil, 5},
		{"bankmirror_bank_requests_total", []string{"code", "200"}, 5},
		{"bankmirror_sync_run_duration_seconds", []string{"kind", "incremental", "result", "ok"}, 1},
		{"bankmirror_webhook_requests_refused_total", []string{"reason", "bad signature"}, 1},
	} {
		if d := value(after, c.name, c.labels...) - max(value(before, c.name, c.labels...), 0); d < c.min {
			t.Errorf("%s%v moved by %v, want at least %v", c.name, c.labels, d, c.min)
		}
	}
	n := mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM transactions")
	if v := value(after, "bankmirror_transactions"); v != float64(n) {
		t.Errorf("bankmirror_transactions = %v, want %d", v, n)
	}
	if v := value(after, "bankmirror_webhook_events_pending"); v != 0 {
		t.Errorf("pending = %v, want 0", v)
	}
	if v := value(after, "bankmirror_last_successful_sync_timestamp_seconds", "kind", "incremental"); v < float64(time.Now().Add(-time.Minute).Unix()) {
		t.Errorf("last incremental sync at %v, want within the minute", v)
	}
	if v := value(after, "bankmirror_ready"); v != 1 {
		t.Errorf("bankmirror_ready = %v", v)
	}
	if code, body := adminGet(t, m, "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("healthz = %d %q", code, body)
	}
	// The public listener serves no health or metrics.
	for _, path := range []string{"/readyz", "/metrics"} {
		resp, err := http.Get(m.URL() + path)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("public listener answers %s", path)
		}
	}
}

// notifications reads sd_notify datagrams sent to a socket.
type notifications struct {
	conn *net.UnixConn
}

func listenNotify(t *testing.T) *notifications {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	t.Setenv("NOTIFY_SOCKET", path)
	return &notifications{conn: conn}
}

// await reads datagrams until one satisfies ok, and returns it; every one
// read is passed to seen.
func (n *notifications) await(t *testing.T, what string, ok func(string) bool, seen func(string)) string {
	t.Helper()
	buf := make([]byte, 4096)
	must(t, n.conn.SetReadDeadline(time.Now().Add(60*time.Second)))
	for {
		k, _, err := n.conn.ReadFromUnix(buf)
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		msg := string(buf[:k])
		if seen != nil {
			seen(msg)
		}
		if ok(msg) {
			return msg
		}
	}
}

// Under systemd the watchdog is fed only after a passing write probe, and
// the one-line state follows what happens: an unwritable mirror stops the
// feeding and says so; writable again, the feeding resumes.
func TestWatchdogFollowsTheWriteProbe(t *testing.T) {
	n := listenNotify(t)
	t.Setenv("WATCHDOG_USEC", "400000") // a probe every 200ms
	t.Setenv("WATCHDOG_PID", "")
	b := newBank(t, 50)
	cfg := testConfig(t, b)
	m, _ := startMain(t, cfg)
	n.await(t, "the status line", func(s string) bool {
		return strings.HasPrefix(s, "STATUS=mirroring: 50 transactions, last sync ") && strings.HasSuffix(s, ", 0 pending")
	}, nil)
	n.await(t, "a watchdog ping", func(s string) bool { return s == "WATCHDOG=1" }, nil)

	undo := readOnly(t, cfg.DB)
	n.await(t, "the status line of an unwritable mirror", func(s string) bool {
		return strings.HasPrefix(s, "STATUS=database not writable: ")
	}, nil)
	// Two more background probes fail (the line does not change).
	for range 2 {
		last := m.Health.Last().At
		poll(t, nil, 30*time.Second, "a background probe", func() bool { return m.Health.Last().At.After(last) })
	}
	if code, _ := adminGet(t, m, "/readyz"); code != http.StatusServiceUnavailable {
		t.Fatalf("readyz = %d while unwritable", code)
	}
	undo()
	// Datagrams keep their order: a probe that fed the watchdog while the
	// mirror was unwritable would show as a ping before the recovery's.
	pings := 0
	n.await(t, "the status line after the recovery", func(s string) bool { return strings.HasPrefix(s, "STATUS=mirroring: ") },
		func(s string) {
			if s == "WATCHDOG=1" {
				pings++
			}
		})
	if pings != 1 {
		t.Errorf("%d watchdog pings from the failure to the recovery, want only the recovery's", pings)
	}
}
