package receiver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// Server limits. The bank gives up on a callback after 30 s. A handler sets
// its body's own read deadline (Config.BodyTimeout, 5 s by default) and
// waits at most ackTimeout (25 s) for its commit; these bound the rest.
const (
	// ReadHeaderTimeout bounds a request's line and headers, from the
	// first byte (a connection that sends nothing is closed after it).
	ReadHeaderTimeout = 5 * time.Second
	// ReadTimeout bounds headers and body together when a handler sets no
	// deadline of its own: ReadHeaderTimeout plus DefaultBodyTimeout.
	ReadTimeout = ReadHeaderTimeout + DefaultBodyTimeout
	// WriteTimeout runs from the end of the headers: body, commit wait,
	// answer.
	WriteTimeout = 45 * time.Second
	// IdleTimeout bounds a kept-alive connection between requests; only
	// the bank's deliveries keep theirs (a refused one is closed).
	IdleTimeout = 120 * time.Second
	// MaxHeaderBytes bounds a request's headers. The bank sends a handful;
	// a proxy or tunnel in front adds a few more (forwarding and tracing
	// headers), well under 8 KiB. Go allows 4 KiB over it.
	MaxHeaderBytes = 8 << 10
)

// NewServer returns an http.Server for h with all four timeouts and the
// header limit set. Use it when mounting Handler beside other routes; bind
// the listener yourself with net.Listen and run srv.Serve(ln).
func NewServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		// "OPTIONS *" goes to h like any request (a 404 from Handler),
		// rather than a 200 from net/http.
		DisableGeneralOptionsHandler: true,
	}
}

// LimitListener caps the connections ln holds at once at n
// (DefaultMaxConns when n <= 0): each costs a goroutine and buffers, and
// strangers can open many. Connections beyond it wait in the kernel's
// backlog until one closes (the body deadline closes a stalled one).
func LimitListener(ln net.Listener, n int) net.Listener {
	if n <= 0 {
		n = DefaultMaxConns
	}
	return netutil.LimitListener(ln, n)
}

// Listen binds addr (":0" picks a free port; ln.Addr() tells which) and
// returns the listener and a server for Handler with all four timeouts set.
// A port error surfaces here, at startup. The caller runs
// `go srv.Serve(ln)`, and on shutdown calls srv.Shutdown(ctx) before Close.
func (r *Receiver) Listen(ctx context.Context, addr string) (net.Listener, *http.Server, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	return ln, NewServer(r.Handler()), nil
}
