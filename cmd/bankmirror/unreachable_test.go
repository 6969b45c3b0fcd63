package main

import (
	"bufio"
	"encoding/json"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// stoppedBank is the API URL of a bank that is down: a loopback port
// nothing listens on.
func stoppedBank(t *testing.T) string {
	t.Helper()
	return "http://" + freeLoopbackAddr(t) + "/api/v1"
}

// hangingBank is the API URL of a bank that accepts connections and never
// answers.
func hangingBank(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	done := make(chan struct{})
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
			close(done)
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return "http://" + ln.Addr().String() + "/api/v1"
}

// With the bank down or silent, ping gives up by its deadline with one
// line saying so, and none of the retries' warnings.
func TestCLIPingUnreachableBank(t *testing.T) {
	old := pingTimeout
	pingTimeout = 300 * time.Millisecond
	t.Cleanup(func() { pingTimeout = old })
	for name, url := range map[string]string{"stopped": stoppedBank(t), "silent": hangingBank(t)} {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{"BANKMIRROR_API_URL": url, "BANKMIRROR_TOKEN": cliToken,
				"BANKMIRROR_DB": filepath.Join(t.TempDir(), "m.db"), "BANKMIRROR_LOG_FORMAT": "json"}
			r := runCLI(t, env, "ping")
			wantCode(t, r, 1)
			want := "bankmirror: ping " + url + ": the bank or the network failed (gave up within 300ms): "
			if r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, want) {
				t.Errorf("want one line starting %q:\n%s", want, r)
			}
			cause := map[string]string{"stopped": "connection refused", "silent": "no answer in time"}[name]
			if !strings.HasSuffix(r.stderr, cause+"\n") {
				t.Errorf("the cause (%s) is not said:\n%s", cause, r)
			}
			noLeak(t, r, cliToken)
		})
	}
}

// After syncs that could not reach the bank, status is DEGRADED and says
// since when, in the customer's zone; status --json has the outage; the
// next successful sync clears it.
func TestCLIStatusAfterBankUnreachable(t *testing.T) {
	b := newTokenBank(t, 100, cliToken)
	db := filepath.Join(t.TempDir(), "mirror.db")
	env := cliEnv(b, db)
	wantCode(t, runCLI(t, env, "sync", "--full"), 0)

	// Syncs against the bank, stopped (fast retries: the daemon's pace is
	// not under test here).
	st, err := store.Open(t.Context(), db)
	must(t, err)
	down := bank.New(stoppedBank(t), cliToken, bank.WithHourlyBudget(0),
		bank.WithBackoff(time.Millisecond, 4*time.Millisecond), bank.WithMaxAttempts(2))
	for range 2 {
		if _, err := replica.New(down, st, zerolog.Nop(), replica.Options{}).Incremental(t.Context()); !bank.Outage(err) {
			t.Fatalf("sync against a stopped bank: %v", err)
		}
	}
	must(t, st.Close())

	r := runCLI(t, env, "status")
	wantCode(t, r, 1)
	first, _, _ := strings.Cut(r.stdout, "\n")
	if !regexp.MustCompile(`^DEGRADED: .*bank: the last 2 syncs could not reach the bank, since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+1[01]:00 \(\d+s ago\): dial tcp 127\.0\.0\.1:\d+: connect: connection refused`).MatchString(first) {
		t.Errorf("first line: %q", first)
	}
	line := regexp.MustCompile(`(?m)^bank: UNREACHABLE by the last 2 syncs, since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+1[01]:00 \(\d+s ago\): dial tcp .*connection refused$`)
	if !line.MatchString(r.stdout) {
		t.Errorf("no bank line in the customer's zone:\n%s", r)
	}
	r = runCLI(t, env, "status", "--json")
	var got struct {
		BankOutage *replica.Outage `json:"bank_outage"`
		Checks     []struct{ Name, Level string }
	}
	must(t, json.Unmarshal([]byte(r.stdout), &got))
	if o := got.BankOutage; o == nil || o.Syncs != 2 || o.Since.IsZero() || !strings.Contains(o.LastError, "connection refused") {
		t.Errorf("status --json bank_outage = %+v", got.BankOutage)
	}

	// The bank is back: the next sync clears it.
	wantCode(t, runCLI(t, env, "sync"), 0)
	r = runCLI(t, env, "status")
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "bank: ") || strings.Contains(sc.Text(), "could not reach the bank") {
			t.Errorf("status after a good sync still says %q", sc.Text())
		}
	}
}
