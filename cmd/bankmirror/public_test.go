//go:build linux

package main

import (
	"bytes"
	"context"
	"io"
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

	"github.com/bankmirror/bankmirror/internal/procinfo"
	"github.com/bankmirror/bankmirror/internal/receiver"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// TestPublicEndpointUnderAttack runs the real daemon, built as it ships
// (no race detector, no test code), and sends it what a stranger could: at
// least 500 unsigned 1 MiB POSTs at concurrency 256. Meanwhile the bank
// pings the webhook; that genuine delivery must be answered 200 on its
// first attempt. The daemon's peak RSS (VmHWM) must stay under 100 MiB,
// without GOMEMLIMIT, and its log must hold a few lines about the flood,
// not one per request.
func TestPublicEndpointUnderAttack(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bankmirror and floods it")
	}
	const (
		flood       = 500
		concurrency = 256
		maxPeakMiB  = 100
	)
	exe := buildBankmirror(t)
	// The bank's retries are far apart: a first attempt that failed would
	// still be failed when the test looks.
	b := newBankWith(t, simulator.Options{Seed: 11, Transactions: 50, Token: "tok",
		WebhookRetryBase: time.Hour, WebhookRetryMax: time.Hour, WebhookMaxAttempts: 2})
	listen := freeLoopbackAddr(t)
	base := "http://" + listen
	ctx := context.Background()
	hook, err := b.client.CreateWebhook(ctx, base+"/webhook", nil)
	must(t, err)

	env := slices.DeleteFunc(childEnviron(map[string]string{
		"BANKMIRROR_API_URL":            b.apiURL,
		"BANKMIRROR_TOKEN":              b.sim.Token(),
		"BANKMIRROR_DB":                 filepath.Join(t.TempDir(), "mirror.db"),
		"BANKMIRROR_LISTEN":             listen,
		"BANKMIRROR_ADMIN_LISTEN":       "127.0.0.1:0",  // not the default 8082, which the user's own daemon may hold
		"BANKMIRROR_WEBHOOK_SECRET":     hook.SecretKey, // a webhook made elsewhere
		"BANKMIRROR_REQUESTS_PER_HOUR":  "0",
		"BANKMIRROR_SYNC_SCHEDULE":      "@every 1000h",
		"BANKMIRROR_RECONCILE_SCHEDULE": "@every 1000h",
		"BANKMIRROR_LOG_FORMAT":         "json",
		"BANKMIRROR_LOG_LEVEL":          "info",
	}), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == childEnv || k == "GOMEMLIMIT" || k == "GOGC" || k == "GODEBUG"
	})
	out := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bankmirror output:\n%s", out.String())
		}
	})
	d := startProcess(t, exe, []string{"serve"}, env, out)
	// Serving: the webhook path answers (405 to a GET).
	probe := &http.Client{Timeout: time.Second}
	poll(t, d, 30*time.Second, "the webhook endpoint", func() bool {
		resp, err := probe.Get(base + "/webhook")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusMethodNotAllowed
	})
	before := daemonMiB(t, d, "VmRSS")

	body := bytes.Repeat([]byte("x"), 1<<20)
	tr := &http.Transport{MaxConnsPerHost: concurrency, MaxIdleConnsPerHost: concurrency}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	var (
		started, answered atomic.Int64
		mu                sync.Mutex
		statuses          = map[int]int{}
		transportErrors   int
		genuineDone       = make(chan struct{})
		wg                sync.WaitGroup
	)
	finished := func() bool {
		select {
		case <-genuineDone:
			return true
		default:
			return false
		}
	}
	for range concurrency {
		wg.Go(func() {
			// At least flood requests, and on until the genuine delivery
			// is through, so that it lands in the middle of the flood.
			for n := started.Add(1); n <= flood || !finished(); n = started.Add(1) {
				if n > 50*flood {
					return
				}
				req, err := http.NewRequest(http.MethodPost, base+"/webhook", bytes.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				mu.Lock()
				if err != nil {
					// The daemon answers 401 and closes without reading the
					// body: a client still writing may see a reset instead.
					transportErrors++
				} else {
					statuses[resp.StatusCode]++
				}
				mu.Unlock()
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				answered.Add(1)
			}
		})
	}

	// A third into the flood, the bank pings the webhook.
	poll(t, d, time.Minute, "the flood to be under way", func() bool { return answered.Load() >= flood/3 })
	ping, err := b.client.PingWebhook(ctx, hook.ID)
	must(t, err)
	var first *simulator.DeliveryLogInfo
	poll(t, d, time.Minute, "the ping's first delivery attempt", func() bool {
		for _, l := range b.sim.DeliveryLog(hook.ID) {
			if l.EventID == ping.ID && l.Attempt == 1 {
				first = &l
				return true
			}
		}
		return false
	})
	close(genuineDone)
	wg.Wait()

	peak := daemonMiB(t, d, "VmHWM")
	mu.Lock()
	t.Logf("%d unsigned 1 MiB POSTs at concurrency %d: answers %v, %d transport errors; daemon RSS %.1f MiB before, peak %.1f MiB",
		answered.Load(), concurrency, statuses, transportErrors, before, peak)
	if statuses[http.StatusOK] != 0 || statuses[http.StatusUnauthorized] == 0 ||
		statuses[http.StatusUnauthorized]+transportErrors != int(answered.Load()) {
		t.Errorf("answers %v and %d transport errors for %d requests: want 401s only", statuses, transportErrors, answered.Load())
	}
	mu.Unlock()
	if answered.Load() < flood {
		t.Errorf("only %d requests sent", answered.Load())
	}
	if first.DeliveryStatus != "DELIVERED" || first.Response == nil || first.Response.StatusCode != http.StatusOK {
		t.Errorf("the genuine ping during the flood: %s %+v, want DELIVERED with 200", first.DeliveryStatus, first.Response)
	}
	if peak >= maxPeakMiB {
		t.Errorf("daemon peak RSS %.1f MiB, want under %d MiB", peak, maxPeakMiB)
	}

	must(t, d.cmd.Process.Signal(syscall.SIGTERM))
	if err := d.wait(30 * time.Second); err != nil {
		t.Fatalf("daemon stopped with SIGTERM: %v", err)
	}
	// The flood is in the log as a few lines: the first refusal, then
	// counts (here one summary at shutdown).
	var refusalLines []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "webhook request") {
			refusalLines = append(refusalLines, l)
		}
	}
	t.Logf("%d log lines about refused requests", len(refusalLines))
	if len(refusalLines) == 0 || len(refusalLines) > 5 {
		t.Errorf("%d log lines about refused requests, want 1 to 5:\n%s", len(refusalLines), strings.Join(refusalLines, "\n"))
	}
	if !strings.Contains(out.String(), `"`+receiver.ReasonSignatureMissing+`":`) {
		t.Errorf("no summary with a count of %s in the log", receiver.ReasonSignatureMissing)
	}
}

// buildBankmirror builds the bankmirror binary as it ships, into a
// temporary directory.
func buildBankmirror(t *testing.T) string {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build bankmirror with")
	}
	exe := filepath.Join(t.TempDir(), "bankmirror")
	cmd := exec.Command(gotool, "build", "-tags", "sqlite_fts5", "-o", exe, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return exe
}

// daemonMiB reads a kB field (VmRSS, VmHWM) of the daemon's /proc/PID/status.
func daemonMiB(t *testing.T, d *child, field string) float64 {
	t.Helper()
	mib, err := procinfo.StatusMiB(procinfo.StatusPath(d.cmd.Process.Pid), field)
	if err != nil {
		t.Fatal(err)
	}
	return mib
}
