package httpserver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// limitRig is a server on loopback behind LimitListener(n), started by
// Start, that reports every connection turning new or idle, answers "ok"
// and, on /block, waits for unblock first.
type limitRig struct {
	l       *limitListener
	addr    string
	states  chan http.ConnState
	entered chan struct{}
	unblock chan struct{}
}

func newLimitRig(t *testing.T, n int) *limitRig {
	t.Helper()
	r := &limitRig{states: make(chan http.ConnState, 4096), entered: make(chan struct{}, 16), unblock: make(chan struct{})}
	srv := New(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/block" {
			r.entered <- struct{}{}
			<-r.unblock
		}
		_, _ = io.WriteString(w, "ok")
	}))
	srv.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew || s == http.StateIdle {
			r.states <- s
		}
	}
	s, err := Start(t.Context(), "test", "127.0.0.1:0", srv, func(ln net.Listener) net.Listener {
		l := LimitListener(n)(ln)
		r.l = l.(*limitListener)
		return l
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(within) })
	r.addr = s.URL()[len("http://"):]
	return r
}

// wait waits for the server to report a connection in state s.
func (r *limitRig) wait(t *testing.T, s http.ConnState) {
	t.Helper()
	for {
		select {
		case got := <-r.states:
			if got == s {
				return
			}
		case <-time.After(within):
			t.Fatalf("no connection turned %s within %s", s, within)
		}
	}
}

// dial opens a connection, closed at the end of the test.
func (r *limitRig) dial(t *testing.T) net.Conn {
	t.Helper()
	c, err := (&net.Dialer{Timeout: within}).DialContext(t.Context(), "tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// get sends GET path on c, keeping it alive, and returns the answer's body.
func get(t *testing.T, c net.Conn, path string) (string, error) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(within))
	defer c.SetDeadline(time.Time{})
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		return "", err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// closedByServer reports whether the server closed c: a read finds the end
// of the stream (or a reset) at once, where an open connection with
// nothing to read times out.
func closedByServer(c net.Conn) bool {
	_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && (!errors.As(err, &ne) || !ne.Timeout())
}

// At the cap, idle keep-alive connections (one request each, as a flood of
// static requests leaves them) do not delay a new one: the one idle the
// longest is closed and the new request is served; the others stay open.
func TestLimitListenerClosesTheIdlestConnectionAtTheCap(t *testing.T) {
	const n = 4
	r := newLimitRig(t, n)
	var idle []net.Conn
	for range n {
		c := r.dial(t)
		if body, err := get(t, c, "/static"); err != nil || body != "ok" {
			t.Fatalf("request under the cap: %q, %v", body, err)
		}
		r.wait(t, http.StateIdle)
		idle = append(idle, c)
	}
	if open, quiet, reaped := r.l.counts(); open != n || quiet != n || reaped != 0 {
		t.Fatalf("%d open, %d quiet, %d closed; want %d, %d, 0", open, quiet, reaped, n, n)
	}

	page := r.dial(t)
	if body, err := get(t, page, "/page"); err != nil || body != "ok" {
		t.Fatalf("a new request at the cap: %q, %v", body, err)
	}
	r.wait(t, http.StateIdle)
	if open, quiet, reaped := r.l.counts(); open != n || quiet != n || reaped != 1 {
		t.Errorf("%d open, %d quiet, %d closed; want %d, %d, 1", open, quiet, reaped, n, n)
	}
	if !closedByServer(idle[0]) {
		t.Error("the connection idle the longest is still open")
	}
	for i, c := range idle[1:] {
		if closedByServer(c) {
			t.Errorf("idle connection %d closed, only the idlest should be", i+2)
		}
	}
	// The page's connection, kept alive, serves the next request.
	if body, err := get(t, page, "/page"); err != nil || body != "ok" {
		t.Errorf("the page's connection: %q, %v", body, err)
	}
}

// Connections accepted that send nothing are quiet too: at the cap the
// oldest silent one is closed for a request (ReadHeaderTimeout would only
// close them seconds later).
func TestLimitListenerClosesASilentConnectionAtTheCap(t *testing.T) {
	const n = 3
	r := newLimitRig(t, n)
	var silent []net.Conn
	for range n {
		silent = append(silent, r.dial(t))
		r.wait(t, http.StateNew)
	}
	if body, err := get(t, r.dial(t), "/delivery"); err != nil || body != "ok" {
		t.Fatalf("a request at the cap: %q, %v", body, err)
	}
	if _, _, reaped := r.l.counts(); reaped != 1 {
		t.Errorf("%d connections closed, want 1", reaped)
	}
	if !closedByServer(silent[0]) {
		t.Error("the oldest silent connection is still open")
	}
}

// A connection whose request is being served is never closed to make
// room: at the cap with every slot busy, a new request waits until one
// frees, and every request gets its whole answer.
func TestLimitListenerNeverClosesABusyConnection(t *testing.T) {
	const n = 2
	r := newLimitRig(t, n)
	busy := make(chan string, n)
	for range n {
		c := r.dial(t)
		go func() {
			body, err := get(t, c, "/block")
			if err != nil {
				body = err.Error()
			}
			busy <- body
		}()
		<-r.entered
	}
	third := make(chan string, 1)
	go func() {
		c, err := (&net.Dialer{Timeout: within}).DialContext(t.Context(), "tcp", r.addr)
		if err != nil {
			third <- err.Error()
			return
		}
		defer c.Close()
		body, err := get(t, c, "/page")
		if err != nil {
			body = err.Error()
		}
		third <- body
	}()
	if _, _, reaped := r.l.counts(); reaped != 0 {
		t.Errorf("%d busy connections closed", reaped)
	}
	close(r.unblock)
	for range n {
		if body := <-busy; body != "ok" {
			t.Errorf("a busy request got %q, want its answer", body)
		}
	}
	if body := <-third; body != "ok" {
		t.Errorf("the request over the cap got %q once a slot freed", body)
	}
}
