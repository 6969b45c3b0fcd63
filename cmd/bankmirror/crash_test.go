//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// TestServeKilledLosesNoAcknowledgedEvent runs the real daemon as a
// subprocess, SIGKILLs it in the middle of a stream of webhook deliveries,
// restarts it on the same address, and checks the receiver's promise: an
// event the bank saw acknowledged (HTTP 200) is in the inbox, and is
// applied exactly once, whatever the moment of the crash.
func TestServeKilledLosesNoAcknowledgedEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills bankmirror subprocesses")
	}
	// The bank keeps retrying deliveries quickly for as long as the daemon
	// is down, and never gives up within the test.
	b := newBankWith(t, simulator.Options{Seed: 5, Transactions: 300, Token: "tok",
		WebhookRetryBase: 2 * time.Millisecond, WebhookRetryMax: 50 * time.Millisecond, WebhookMaxAttempts: 10000})
	out := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bankmirror output:\n%s", out.String())
		}
	})

	listen, adminListen := freeLoopbackAddr(t), freeLoopbackAddr(t)
	dbPath := filepath.Join(t.TempDir(), "mirror.db")
	env := childEnviron(map[string]string{
		"BANKMIRROR_ADMIN_LISTEN":       adminListen,
		"BANKMIRROR_API_URL":            b.apiURL,
		"BANKMIRROR_TOKEN":              b.sim.Token(),
		"BANKMIRROR_DB":                 dbPath,
		"BANKMIRROR_LISTEN":             listen,
		"BANKMIRROR_REQUESTS_PER_HOUR":  "0",
		"BANKMIRROR_SYNC_SCHEDULE":      "@every 1000h",
		"BANKMIRROR_RECONCILE_SCHEDULE": "@every 1000h",
		"BANKMIRROR_LOG_FORMAT":         "json",
		"BANKMIRROR_LOG_LEVEL":          "info",
	})
	base := "http://" + listen

	d := startChild(t, env, out, "serve")
	waitReady(t, d, "http://"+adminListen)
	// The daemon has migrated the file; share it (WAL) to inspect it and
	// to store the webhook's secret, which the daemon reads per request.
	st, err := store.Open(context.Background(), dbPath)
	must(t, err)
	t.Cleanup(func() { _ = st.Close() })
	db := st.Reader()
	poll(t, d, 20*time.Second, "the start-up sync", func() bool {
		return mirrortest.Int(t, db, "SELECT count(*) FROM sync_runs WHERE status = 'ok'") > 0
	})

	h, err := b.client.CreateWebhook(context.Background(), base+"/webhook", nil)
	must(t, err)
	must(t, st.SaveWebhook(context.Background(), store.Webhook{ID: h.ID, URL: h.URL, SecretKey: h.SecretKey, CreatedAt: h.CreatedAt}))

	gen := &activity{sim: b.sim, stop: make(chan struct{}), done: make(chan struct{})}
	go gen.run(t, 5*time.Millisecond, 3000)
	t.Cleanup(gen.halt)

	// Kill the daemon once deliveries are flowing, let events come while
	// it is down (the bank retries them), restart it on the same address;
	// a few times, to crash at different moments.
	const kills = 3
	var down int64
	for range kills {
		acked := countDeliveries(b.sim.DeliveryLog(h.ID), true)
		poll(t, d, 20*time.Second, "50 more acknowledged deliveries", func() bool {
			return countDeliveries(b.sim.DeliveryLog(h.ID), true) >= acked+50
		})
		must(t, d.cmd.Process.Kill())
		if err := d.wait(10 * time.Second); !killedBy(err, syscall.SIGKILL) {
			t.Fatalf("daemon did not die of SIGKILL: %v", err)
		}
		atKill := gen.ops.Load()
		poll(t, nil, 20*time.Second, "events while the daemon is down", func() bool {
			return gen.ops.Load() >= atKill+20 || gen.finished()
		})
		d = startChild(t, env, out, "serve")
		waitReady(t, d, "http://"+adminListen)
		down += gen.ops.Load() - atKill
	}
	atRestart := gen.ops.Load()
	poll(t, d, 20*time.Second, "events after the last restart", func() bool {
		return gen.ops.Load() >= atRestart+100 || gen.finished()
	})
	gen.halt()
	t.Logf("%d bank events, %d of them emitted while the daemon was down (killed %d times)", gen.ops.Load(), down, kills)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := b.sim.WaitDeliveries(ctx); err != nil {
		t.Fatalf("bank deliveries did not finish: %v", err)
	}
	logs := b.sim.DeliveryLog(h.ID)
	acked := map[string]bool{}
	for _, l := range logs {
		if l.DeliveryStatus == "DELIVERED" {
			acked[l.EventID] = true
		}
	}
	events := b.sim.Events()
	failed := countDeliveries(logs, false)
	t.Logf("%d delivery attempts, %d failed while the daemon was down or dying", len(logs), failed)
	if failed == 0 {
		t.Errorf("no delivery attempt failed: the daemon was never down while events were sent")
	}
	// Every event was eventually acknowledged (the bank never gave up).
	for _, e := range events {
		if !acked[e.ID] {
			t.Errorf("event %s (%s %s) was never acknowledged", e.ID, e.Type, e.TransactionID)
		}
	}

	// The key property: the receiver answers 200 only after the durable
	// commit, so every acknowledged event is in the inbox, crash or not.
	inbox := func() map[string]bool {
		ids := map[string]bool{}
		for _, id := range mirrortest.Strings(t, db, "SELECT id FROM webhook_events") {
			ids[id] = true
		}
		return ids
	}()
	var lost []string
	for id := range acked {
		if !inbox[id] {
			lost = append(lost, id)
		}
	}
	if len(lost) > 0 {
		slices.Sort(lost)
		t.Fatalf("%d of %d acknowledged events are not in the inbox, e.g. %v", len(lost), len(acked), lost[:min(len(lost), 5)])
	}
	if len(inbox) != len(acked) {
		t.Errorf("inbox holds %d events, the bank acknowledged %d", len(inbox), len(acked))
	}

	// ... and the restarted worker applies each of them, once.
	var pending []string
	if !eventually(t, d, 20*time.Second, "every acknowledged event to be processed", func() bool {
		pending = mirrortest.Strings(t, db, "SELECT id || ' ' || event_type || ' attempts=' || attempts || ' ' || coalesce(last_error, '') FROM webhook_events WHERE processed_at IS NULL ORDER BY id")
		return len(pending) == 0
	}) {
		t.Fatalf("%d acknowledged events never processed, e.g. %q", len(pending), pending[:min(len(pending), 5)])
	}
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM (SELECT id FROM webhook_events GROUP BY id HAVING count(*) > 1)"); n != 0 {
		t.Errorf("%d event ids stored more than once", n)
	}
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM (SELECT transaction_id FROM transaction_history WHERE change = 'created' GROUP BY 1 HAVING count(*) > 1)"); n != 0 {
		t.Errorf("%d transactions created more than once", n)
	}
	// With every event applied, the mirror already equals the bank.
	mirrortest.AssertEqualsTruth(t, b.sim, db, b.apiURL)

	// A graceful stop exits 0.
	must(t, d.cmd.Process.Signal(syscall.SIGTERM))
	if err := d.wait(15 * time.Second); err != nil {
		t.Fatalf("daemon stopped with SIGTERM: %v", err)
	}

	// One sync, as an operator would run after an outage, leaves the mirror
	// equal to the bank.
	s := startChild(t, env, out, "sync")
	if err := s.wait(30 * time.Second); err != nil {
		t.Fatalf("bankmirror sync: %v", err)
	}
	mirrortest.AssertEqualsTruth(t, b.sim, db, b.apiURL)
}

// freeLoopbackAddr returns a loopback address that was free a moment ago,
// so that a restarted daemon can listen where the bank already delivers.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	must(t, ln.Close())
	return addr
}

// childEnviron is this process's environment without anything that
// configures bankmirror or systemd, plus vars and the re-exec switch. The
// listeners are on free ports unless vars names theirs: never the default
// ports, which the user's own daemon may hold.
func childEnviron(vars map[string]string) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "STATE_DIRECTORY":
			return true
		}
		return strings.HasPrefix(k, config.Prefix)
	})
	env = append(env, childEnv+"=1")
	for _, k := range []string{config.Prefix + "LISTEN", config.Prefix + "ADMIN_LISTEN"} {
		if _, ok := vars[k]; !ok {
			env = append(env, k+"=127.0.0.1:0")
		}
	}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

// child is a bankmirror subprocess (the test binary re-executed).
type child struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error // Wait's result, set before done is closed
}

// startChild runs `bankmirror args...` with env; its output goes to out.
// The test's cleanup kills it if it is still running.
func startChild(t *testing.T, env []string, out io.Writer, args ...string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return startProcess(t, exe, append([]string{childArgsMarker}, args...), env, out)
}

// startProcess runs exe with args and env; its output goes to out. The
// test's cleanup kills it if it is still running.
func startProcess(t *testing.T, exe string, args, env []string, out io.Writer) *child {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		if !c.exited() {
			_ = cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// wait waits for the process to exit and returns its error (nil for exit
// status 0); it kills the process if it is still running after timeout.
func (c *child) wait(timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-c.done:
		return c.err
	case <-t.C:
		_ = c.cmd.Process.Kill()
		<-c.done
		return fmt.Errorf("still running after %v (killed): %w", timeout, c.err)
	}
}

func killedBy(err error, sig syscall.Signal) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

// poll checks cond every 10ms until it holds, failing the test after
// timeout or, when c is not nil, as soon as that process exits.
func poll(t *testing.T, c *child, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !eventually(t, c, timeout, what, cond) {
		t.Fatalf("waiting for %s: timed out after %v", what, timeout)
	}
}

// eventually is poll reporting a timeout to the caller instead.
func eventually(t *testing.T, c *child, timeout time.Duration, what string, cond func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if c != nil && c.exited() {
			t.Fatalf("waiting for %s: bankmirror exited: %v", what, c.err)
		}
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// waitReady waits until the daemon whose admin listener is at base
// answers GET /readyz with 200.
func waitReady(t *testing.T, c *child, base string) {
	t.Helper()
	client := &http.Client{Timeout: time.Second}
	poll(t, c, 20*time.Second, "GET /readyz", func() bool {
		resp, err := client.Get(base + "/readyz")
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// countDeliveries counts the attempts that were acknowledged (or not).
func countDeliveries(logs []simulator.DeliveryLogInfo, delivered bool) int {
	n := 0
	for _, l := range logs {
		if (l.DeliveryStatus == "DELIVERED") == delivered {
			n++
		}
	}
	return n
}

// activity drives the bank: one create, settle or delete (one webhook
// event) per tick, until halted or max operations.
type activity struct {
	sim  *simulator.Bank
	ops  atomic.Int64 // operations done (= events emitted)
	stop chan struct{}
	once sync.Once
	done chan struct{}
}

func (a *activity) run(t *testing.T, every time.Duration, limit int) {
	defer close(a.done)
	rng := rand.New(rand.NewPCG(7, 11))
	tick := time.NewTicker(every)
	defer tick.Stop()
	var held []string // HELD transactions: the bank settles or deletes only those
	take := func() string {
		i := rng.IntN(len(held))
		id := held[i]
		held = slices.Delete(held, i, i+1)
		return id
	}
	for i := 0; i < limit; i++ {
		select {
		case <-a.stop:
			return
		case <-tick.C:
		}
		amount := -100 - int64(rng.IntN(10000))
		switch r := rng.IntN(20); {
		case r < 4 && len(held) > 0:
			if err := a.sim.Settle(take()); err != nil {
				t.Error(err)
			}
		case r < 7 && len(held) > 0:
			if err := a.sim.Delete(take()); err != nil {
				t.Error(err)
			}
		case r < 16:
			held = append(held, a.sim.AddTransaction(simulator.NewTransaction{
				Description: fmt.Sprintf("Hold %d", i), AmountBaseUnits: amount, Held: true}))
		default:
			a.sim.AddTransaction(simulator.NewTransaction{Description: fmt.Sprintf("Purchase %d", i), AmountBaseUnits: amount})
		}
		a.ops.Add(1)
	}
}

// halt stops the activity and waits for it; it is safe to call twice.
func (a *activity) halt() {
	a.once.Do(func() { close(a.stop) })
	<-a.done
}

func (a *activity) finished() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A `bankmirror sync --full` killed with SIGKILL halfway resumes where it
// stopped on the next run: no page refetched from the start, the lock died
// with the process, and the mirror ends equal to the bank.
func TestSyncKilledHalfwayResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bankmirror in subprocesses")
	}
	b := newBank(t, 3000)
	b.sim.SetFaults(simulator.Faults{Latency: 15 * time.Millisecond}) // ~30 pages: about half a second
	db := filepath.Join(t.TempDir(), "mirror.db")
	env := childEnviron(map[string]string{
		"BANKMIRROR_API_URL": b.apiURL, "BANKMIRROR_TOKEN": b.sim.Token(), "BANKMIRROR_DB": db,
		"BANKMIRROR_REQUESTS_PER_HOUR": "0", "BANKMIRROR_LOG_FORMAT": "json",
	})
	var out syncBuffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bankmirror output:\n%s", out.String())
		}
	})
	c := startChild(t, env, &out, "sync", "--full")
	pagesDone := func() int {
		st, err := store.Open(context.Background(), db)
		if err != nil {
			return 0
		}
		defer st.Close()
		var n int
		_ = st.Reader().QueryRow("SELECT pages FROM sync_state WHERE name = 'transactions'").Scan(&n)
		return n
	}
	poll(t, c, 30*time.Second, "a few stored pages", func() bool { return pagesDone() >= 3 })
	must(t, c.cmd.Process.Kill())
	if err := c.wait(10 * time.Second); !killedBy(err, syscall.SIGKILL) {
		t.Fatalf("child did not die of SIGKILL: %v", err)
	}
	stored := pagesDone()
	if stored >= 30 {
		t.Fatalf("the sync finished (%d pages) before it was killed", stored)
	}

	b.sim.SetFaults(simulator.Faults{})
	req0 := b.sim.Requests()
	c2 := startChild(t, env, &out, "sync", "--full")
	if err := c2.wait(60 * time.Second); err != nil {
		t.Fatalf("second sync: %v", err)
	}
	if !strings.Contains(out.String(), "full sync (resumed)") {
		t.Errorf("second sync did not resume")
	}
	// Resumed: it fetched fewer transaction pages than a whole listing (31).
	if n := b.sim.Requests() - req0; n >= 31+5 {
		t.Errorf("second sync made %d requests: it started over", n)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mirrortest.AssertEqualsTruth(t, b.sim, st.Reader(), b.apiURL)
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM sync_runs WHERE status = 'interrupted'"); n != 1 {
		t.Errorf("interrupted runs = %d, want 1 (the killed one)", n)
	}
}
