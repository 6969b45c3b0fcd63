package httpserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// within guards channel waits so that a bug fails the test instead of
// hanging it; it is never used to synchronise.
const within = 10 * time.Second

// New sets every timeout and the header limit, and leaves "OPTIONS *" to
// the handler.
func TestNewSetsLimits(t *testing.T) {
	srv := New(http.NotFoundHandler())
	if srv.ReadHeaderTimeout != ReadHeaderTimeout || srv.ReadTimeout != ReadTimeout ||
		srv.WriteTimeout != WriteTimeout || srv.IdleTimeout != IdleTimeout {
		t.Errorf("timeouts = %s %s %s %s, want %s %s %s %s", srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout,
			srv.IdleTimeout, ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout)
	}
	if srv.MaxHeaderBytes != MaxHeaderBytes {
		t.Errorf("MaxHeaderBytes = %d, want %d", srv.MaxHeaderBytes, MaxHeaderBytes)
	}
	if !srv.DisableGeneralOptionsHandler {
		t.Error(`"OPTIONS *" is answered by net/http, not the handler`)
	}
}

// Start binds before it serves: ":0" gets a free port, and a port in use
// fails at once. Shutdown stops the server.
func TestStartBindsBeforeServing(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "hello") })
	srv, err := Start(t.Context(), "test server", "127.0.0.1:0", New(h))
	if err != nil {
		t.Fatal(err)
	}
	addr := srv.URL()[len("http://"):]
	if _, err := Start(t.Context(), "second server", addr, New(h)); err == nil {
		t.Error("a second server on the same port started")
	}
	resp, err := (&http.Client{Timeout: within}).Get(srv.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello" {
		t.Errorf("body = %q", body)
	}
	if err := srv.Shutdown(within); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.Stopped():
	default:
		t.Error("Stopped not closed after Shutdown")
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("the listener still accepts after Shutdown")
	}
}

// LimitListener caps the connections: beyond the cap a connection waits in
// the backlog until one closes.
func TestLimitListenerCapsConnections(t *testing.T) {
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	limited := LimitListener(2)(ln)
	t.Cleanup(func() { _ = limited.Close() })
	accepted := make(chan net.Conn, 3)
	go func() {
		for {
			c, err := limited.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	for range 3 {
		c, err := (&net.Dialer{Timeout: within}).DialContext(context.Background(), "tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
	}
	first, second := <-accepted, <-accepted
	select {
	case c := <-accepted:
		t.Fatalf("a third connection was accepted while two were open: %v", c.RemoteAddr())
	default:
	}
	_ = first.Close()
	if c := <-accepted; c == nil {
		t.Error("the third connection was not accepted after one closed")
	}
	_ = second.Close()
}
