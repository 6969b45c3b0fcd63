//go:build linux

package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// readyz asks a daemon's admin listener.
func readyz(t *testing.T, admin string) (int, string) {
	t.Helper()
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Get(admin + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The real daemon in a child process: a disk that refuses every write
// (RLIMIT_FSIZE of 1 byte set on the running process: each write past the
// first byte of any file fails with EFBIG, as on a full disk) fails /readyz
// within a second and recovers when lifted; a revoked token fails it after
// the sync that SIGHUP starts, and a new token file with SIGHUP brings it
// back.
func TestServeChildFullDiskAndSIGHUP(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a bankmirror subprocess")
	}
	b := newBankWith(t, simulator.Options{Seed: 7, Transactions: 200, Token: "tok-1"})
	out := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bankmirror output:\n%s", out.String())
		}
	})
	dir := t.TempDir()
	tokenFile, dbPath := filepath.Join(dir, "token"), filepath.Join(dir, "mirror.db")
	must(t, os.WriteFile(tokenFile, []byte("tok-1\n"), 0o600))
	adminAddr := freeLoopbackAddr(t)
	admin := "http://" + adminAddr
	env := childEnviron(map[string]string{
		"BANKMIRROR_API_URL":            b.apiURL,
		"BANKMIRROR_TOKEN_FILE":         tokenFile,
		"BANKMIRROR_DB":                 dbPath,
		"BANKMIRROR_LISTEN":             freeLoopbackAddr(t),
		"BANKMIRROR_ADMIN_LISTEN":       adminAddr,
		"BANKMIRROR_REQUESTS_PER_HOUR":  "0",
		"BANKMIRROR_SYNC_SCHEDULE":      "@every 1000h",
		"BANKMIRROR_RECONCILE_SCHEDULE": "@every 1000h",
		"BANKMIRROR_LOG_FORMAT":         "json",
	})
	d := startChild(t, env, out, "serve")
	waitReady(t, d, admin)
	pid := d.cmd.Process.Pid

	// The disk refuses writes: /readyz fails as soon as the last probe's
	// result is older than its reuse window (a second).
	var old unix.Rlimit
	must(t, unix.Prlimit(pid, unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: 1, Max: unix.RLIM_INFINITY}, &old))
	poll(t, d, 30*time.Second, "readyz to fail on the database", func() bool {
		code, body := readyz(t, admin)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "FAIL  database")
	})
	must(t, unix.Prlimit(pid, unix.RLIMIT_FSIZE, &old, nil))
	poll(t, d, 30*time.Second, "readyz after writes are allowed again", func() bool {
		code, _ := readyz(t, admin)
		return code == http.StatusOK
	})

	st, err := store.OpenReadOnly(context.Background(), dbPath)
	must(t, err)
	t.Cleanup(func() { _ = st.Close() })
	okRuns := func() int {
		return mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM sync_runs WHERE status = 'ok'")
	}
	runs := okRuns()

	// A revoked token: the sync SIGHUP starts is refused.
	b.sim.RevokeToken()
	must(t, d.cmd.Process.Signal(syscall.SIGHUP))
	poll(t, d, 30*time.Second, "readyz to fail on the token", func() bool {
		code, body := readyz(t, admin)
		return code == http.StatusServiceUnavailable && strings.Contains(body, "FAIL  token")
	})
	// A new token in the file, and SIGHUP: ready, and a sync succeeds.
	b.sim.RotateToken("tok-2")
	must(t, os.WriteFile(tokenFile, []byte("tok-2\n"), 0o600))
	must(t, d.cmd.Process.Signal(syscall.SIGHUP))
	poll(t, d, 30*time.Second, "a successful sync with the new token", func() bool { return okRuns() > runs })
	if code, body := readyz(t, admin); code != http.StatusOK {
		t.Errorf("readyz after the new token = %d:\n%s", code, body)
	}
	if n := strings.Count(out.String(), "the bank rejected the token (401)"); n != 1 {
		t.Errorf("the rejected token was logged %d times, want once", n)
	}

	must(t, d.cmd.Process.Signal(syscall.SIGTERM))
	if err := d.wait(30 * time.Second); err != nil {
		t.Errorf("daemon exit: %v", err)
	}
}
