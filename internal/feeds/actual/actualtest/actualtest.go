// Package actualtest runs the real Actual Budget for tests (package
// actualserver, with testing.TB): a sync-server on loopback shared by a
// package's tests or launched per test, and the person at Actual.
//
// Without the real Actual (the folder BANKMIRROR_TEST_ACTUAL_DIR names)
// a test is skipped with one line, except in CI (CI set), where its
// absence is a failure.
package actualtest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/actual/actualserver"
)

// Password is the test servers' password.
const Password = actualserver.Password

// DirVar names the folder of the real Actual.
const DirVar = actualserver.DirVar

// Budget is a budget the person made on the server.
type Budget = actualserver.Budget

// Row is a transaction as the person's client reads it back.
type Row = actualserver.Row

// LockedBuffer is a bytes.Buffer safe for concurrent writes and reads.
type LockedBuffer = actualserver.LockedBuffer

// CheckDir says what the folder dir lacks of the real Actual.
func CheckDir(dir string) error { return actualserver.CheckDir(dir) }

// Node is the node 22 of the folder dir (see [Dir]).
func Node(dir string) string { return actualserver.Node(dir) }

// Server is a real Actual sync-server on loopback, bootstrapped with
// [Password], with the test's helpers.
type Server struct {
	*actualserver.Server
}

// Dir is the folder of the real Actual (BANKMIRROR_TEST_ACTUAL_DIR); the
// test is skipped when it is missing, and fails when CI is set.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(DirVar)
	if err := CheckDir(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the real Actual is needed in CI (.ci/run runs .ci/install-actual.sh): %v", err)
		}
		t.Skipf("the real Actual is not installed (%v): run .ci/install-actual.sh and export what it prints", err)
	}
	return dir
}

// The tests of a package share one server (it takes seconds to start);
// each makes budgets of its own.
var shared struct {
	mu   sync.Mutex
	srv  *Server
	err  error
	stop func()
}

// Start returns the package's shared server, started on first use; the
// package's TestMain calls [Stop] after the tests.
func Start(t testing.TB) *Server {
	t.Helper()
	dir := Dir(t)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.srv == nil && shared.err == nil {
		shared.srv, shared.stop, shared.err = launch(dir)
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.srv
}

// Stop ends the shared server, if one was started.
func Stop() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.stop != nil {
		shared.stop()
		shared.stop = nil
	}
}

// Launch starts a server of the test's own, stopped when the test ends.
func Launch(t testing.TB) *Server {
	t.Helper()
	dir := Dir(t)
	srv, stop, err := launch(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return srv
}

// Down stops the server (its data kept), as an Actual server that is down
// for a while; Up starts it again on the same port.
func (s *Server) Down(t testing.TB) {
	t.Helper()
	s.Server.Down()
}

// Up starts the server again after Down.
func (s *Server) Up(t testing.TB) {
	t.Helper()
	if err := s.Server.Up(); err != nil {
		t.Fatal(err)
	}
}

// Person runs person.js with args (see its head for the commands) and
// decodes what it wrote into out.
func (s *Server) Person(t testing.TB, out any, args ...string) {
	t.Helper()
	if err := s.Run(t.Context(), t.TempDir(), out, args...); err != nil {
		t.Fatal(err)
	}
}

// Budget makes a budget with those accounts (open, on budget, empty).
func (s *Server) Budget(t testing.TB, name string, accounts ...string) Budget {
	t.Helper()
	var b Budget
	s.Person(t, &b, append([]string{"budget", name}, accounts...)...)
	if b.SyncID == "" || len(b.Accounts) != len(accounts) {
		t.Fatalf("budget %q: %+v", name, b)
	}
	return b
}

// Rows reads back every live transaction of the budget.
func (s *Server) Rows(t testing.TB, syncID string) []Row {
	t.Helper()
	var rows []Row
	s.Person(t, &rows, "rows", syncID)
	return rows
}

// SetCategory sets the category (made when missing) and notes of the row
// with that import id, as the person would.
func (s *Server) SetCategory(t testing.TB, syncID, importID, category, notes string) {
	t.Helper()
	var got struct{ ID string }
	s.Person(t, &got, "category", syncID, importID, category, notes)
}

// Delete deletes the row with that import id, as the person would.
func (s *Server) Delete(t testing.TB, syncID, importID string) {
	t.Helper()
	var got struct{ ID string }
	s.Person(t, &got, "delete", syncID, importID)
}

// FeedDir is a feed's directory with the test folder's @actual-app/api,
// as feeds setup would have installed it into dir (made when missing).
func (s *Server) FeedDir(t testing.TB, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(s.Dir, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Target is the target of a session with budget on the server, the
// feed's directory dir.
func (s *Server) Target(t testing.TB, dir, budget string) feeds.Target {
	return feeds.Target{Feed: "actual", URL: s.URL, Secret: Password, Budget: budget, Dir: dir, Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)}
}

// launch starts a server from the folder dir.
func launch(dir string) (*Server, func(), error) {
	srv, stop, err := actualserver.Launch(dir)
	if err != nil {
		return nil, nil, err
	}
	return &Server{Server: srv}, stop, nil
}
