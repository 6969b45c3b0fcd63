package actual

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/feeds/actual/actualtest"
)

// The tests share one sync-server (actualtest.Start); it ends with them.
func TestMain(m *testing.M) {
	code := m.Run()
	actualtest.Stop()
	os.Exit(code)
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

// openSession opens a session on dir, closed (if still open) when the
// test ends.
func openSession(t *testing.T, srv *actualtest.Server, dir, budget string) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sess, err := New(Config{Node: srv.Node()}).Open(ctx, srv.Target(t, dir, budget))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	ss := sess.(*session)
	t.Cleanup(func() { _ = ss.c.kill() })
	return ss
}
