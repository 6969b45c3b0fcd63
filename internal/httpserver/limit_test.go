package httpserver

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// limitRig is a server on loopback behind LimitListener(n), started by
// Start, that reports every connection turning new or idle, answers "ok"
// and, on /block, waits for unblock first. A request with a body reports
// on bodies when its handler starts reading it, and has it read whole
// before anything else (its deadline is an hour: only the listener closes
// a slow one).
type limitRig struct {
	l       *limitListener
	addr    string
	states  chan http.ConnState
	entered chan struct{}
	unblock chan struct{}
	bodies  chan struct{}
}

func newLimitRig(t *testing.T, n int) *limitRig {
	t.Helper()
	r := &limitRig{states: make(chan http.ConnState, 4096), entered: make(chan struct{}, 16), unblock: make(chan struct{}),
		bodies: make(chan struct{}, 16)}
	srv := newServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.ContentLength != 0 {
			r.bodies <- struct{}{}
			if _, err := io.ReadAll(req.Body); err != nil {
				return
			}
		}
		if req.URL.Path == "/block" {
			r.entered <- struct{}{}
			<-r.unblock
		}
		_, _ = io.WriteString(w, "ok")
	}), time.Hour)
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

// post sends a POST of body on c, keeping it alive, and returns the
// answer's body.
func post(t *testing.T, c net.Conn, body string) (string, error) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(within))
	defer c.SetDeadline(time.Time{})
	if _, err := fmt.Fprintf(c, "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n%s", len(body), body); err != nil {
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

// trickler opens a connection that sends a POST's headers and the first
// byte of its 1,000-byte body, then a byte every 50 ms until the test
// ends, and waits for the server to start reading the body.
func (r *limitRig) trickler(t *testing.T) net.Conn {
	t.Helper()
	c := r.dial(t)
	if _, err := io.WriteString(c, "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := io.WriteString(c, " "); err != nil {
					return
				}
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	select {
	case <-r.bodies:
	case <-time.After(within):
		t.Fatalf("the server did not start reading a body within %s", within)
	}
	return c
}

// At the cap, with every slot held by a connection trickling its body, a
// genuine request is served: the connection reading its body the longest
// is closed to make room, the other tricklers stay open.
func TestLimitListenerClosesTheSlowestBodyAtTheCap(t *testing.T) {
	const n = 4
	r := newLimitRig(t, n)
	var slow []net.Conn
	for range n {
		slow = append(slow, r.trickler(t))
	}
	if readers, cut := r.l.bodyCounts(); readers != n || cut != 0 {
		t.Fatalf("%d reading a body, %d closed; want %d, 0", readers, cut, n)
	}
	if body, err := post(t, r.dial(t), `{"genuine":true}`); err != nil || body != "ok" {
		t.Fatalf("a genuine request among %d slow bodies at the cap: %q, %v", n, body, err)
	}
	if readers, cut := r.l.bodyCounts(); readers != n-1 || cut != 1 {
		t.Errorf("%d reading a body, %d closed; want %d, 1", readers, cut, n-1)
	}
	if _, _, reaped := r.l.counts(); reaped != 0 {
		t.Errorf("%d quiet connections closed, there were none", reaped)
	}
	if !closedByServer(slow[0]) {
		t.Error("the connection reading its body the longest is still open")
	}
	for i, c := range slow[1:] {
		if closedByServer(c) {
			t.Errorf("slow connection %d closed, only the slowest should be", i+2)
		}
	}
}

// A quiet connection goes before one reading a body: at the cap with one
// of each, the idle one is closed for a new request.
func TestLimitListenerClosesQuietBeforeSlow(t *testing.T) {
	r := newLimitRig(t, 2)
	slow := r.trickler(t)
	idle := r.dial(t)
	if body, err := get(t, idle, "/static"); err != nil || body != "ok" {
		t.Fatalf("request under the cap: %q, %v", body, err)
	}
	r.wait(t, http.StateIdle)
	if body, err := get(t, r.dial(t), "/page"); err != nil || body != "ok" {
		t.Fatalf("a new request at the cap: %q, %v", body, err)
	}
	_, _, reaped := r.l.counts()
	if _, cut := r.l.bodyCounts(); reaped != 1 || cut != 0 {
		t.Errorf("%d quiet and %d slow connections closed, want 1 and 0", reaped, cut)
	}
	if !closedByServer(idle) {
		t.Error("the idle connection is still open")
	}
	if closedByServer(slow) {
		t.Error("the slow connection was closed before the idle one")
	}
}

// A connection whose body has been read is busy, not slow: it is never
// closed to make room, even while its handler still works.
func TestLimitListenerKeepsARequestWhoseBodyIsRead(t *testing.T) {
	r := newLimitRig(t, 1)
	c := r.dial(t)
	answer := make(chan string, 1)
	go func() {
		_ = c.SetDeadline(time.Now().Add(within))
		_, _ = io.WriteString(c, "POST /block HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\nok")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			answer <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answer <- string(b)
	}()
	<-r.entered
	waiting := make(chan string, 1)
	go func() {
		c, err := (&net.Dialer{Timeout: within}).DialContext(t.Context(), "tcp", r.addr)
		if err != nil {
			waiting <- err.Error()
			return
		}
		defer c.Close()
		body, err := get(t, c, "/page")
		if err != nil {
			body = err.Error()
		}
		waiting <- body
	}()
	// The body was read before /block was entered: nothing is reading.
	if readers, cut := r.l.bodyCounts(); readers != 0 || cut != 0 {
		t.Errorf("%d reading a body, %d closed; want 0, 0", readers, cut)
	}
	close(r.unblock)
	if body := <-answer; body != "ok" {
		t.Errorf("the busy request got %q, want its answer", body)
	}
	if body := <-waiting; body != "ok" {
		t.Errorf("the request over the cap got %q once the slot freed", body)
	}
}
