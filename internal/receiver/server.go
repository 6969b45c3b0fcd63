package receiver

import (
	"fmt"
	"net"
	"net/http"
	"time"
)

// Server timeouts. The bank gives up on a callback after 30 s; a callback
// body is at most 1 MiB, so reading it takes well under ReadTimeout, and a
// handler waits at most ackTimeout (25 s) for its commit.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 15 * time.Second
	WriteTimeout      = 45 * time.Second // from the end of the headers: read + commit wait + write
	IdleTimeout       = 120 * time.Second
)

// NewServer returns an http.Server for h with all four timeouts set. Use it
// when mounting Handler beside other routes (/readyz, say); bind the
// listener yourself with net.Listen and run srv.Serve(ln).
func NewServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    64 << 10,
	}
}

// Listen binds addr (":0" picks a free port; ln.Addr() tells which) and
// returns the listener and a server for Handler with all four timeouts set.
// A port error surfaces here, at startup. The caller runs
// `go srv.Serve(ln)`, and on shutdown calls srv.Shutdown(ctx) before Close.
func (r *Receiver) Listen(addr string) (net.Listener, *http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	return ln, NewServer(r.Handler()), nil
}
