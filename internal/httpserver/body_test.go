package httpserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// serveBodies serves h on loopback on a server made as New makes it, with
// a body deadline of timeout and no outer ReadTimeout, so that only the
// body deadline can end a read.
func serveBodies(t *testing.T, h http.Handler, timeout time.Duration) string {
	t.Helper()
	srv := newServer(h, timeout)
	srv.ReadTimeout = 0
	s, err := Start(t.Context(), "test", "127.0.0.1:0", srv, LimitListener(4))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(0) })
	return s.URL()[len("http://"):]
}

// A body that stops arriving is cut at the body deadline: the handler's
// read fails with a timeout.
func TestBodyDeadline(t *testing.T) {
	errs := make(chan error, 1)
	addr := serveBodies(t, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		errs <- err
	}), 50*time.Millisecond)
	c, err := (&net.Dialer{Timeout: within}).DialContext(t.Context(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errs:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("reading a body that stopped: %v, want the deadline", err)
		}
	case <-time.After(within):
		t.Fatalf("a body that stopped was still read after %s", within)
	}
}

// The deadline ends with the body (net/http lifts it): a handler working
// longer than it after reading the body keeps its request's context and
// writes its answer.
func TestBodyDeadlineEndsWithTheBody(t *testing.T) {
	addr := serveBodies(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(300 * time.Millisecond): // slow work, not a synchronisation
		case <-r.Context().Done():
			http.Error(w, "canceled", http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "done")
	}), 30*time.Millisecond)
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/", strings.NewReader("form=1"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(b) != "done" {
		t.Errorf("after the body, slow work got %d %q, want 200 done", resp.StatusCode, b)
	}
}
