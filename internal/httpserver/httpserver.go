// Package httpserver runs an http.Server on a listener bound before it
// serves, so that an address in use fails at start and ":0" works, and
// stops it in order: a grace period for requests in flight, then the
// connections still open are cut. The daemon's public and admin
// listeners, the demo's and the simulator's banks all run on one. New
// makes a server with the limits a listener strangers can reach needs,
// LimitListener caps its connections and PerSourceLimit those of one
// source.
package httpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"
)

// Limits of a server made by New. The bank gives up on a webhook delivery
// after 30 s; the receiver sets its body's own read deadline (5 s by
// default) and waits at most 25 s for its commit. These bound the rest.
const (
	// ReadHeaderTimeout bounds a request's line and headers, from the
	// first byte (a connection that sends nothing is closed after it).
	ReadHeaderTimeout = 5 * time.Second
	// BodyTimeout bounds a request's body on a server made by New, from
	// the end of its headers: the forms and deliveries these servers take
	// are a few KiB at most, sent right behind their headers, so a body
	// still arriving after it is a client holding its connection. A
	// handler may set its own read deadline (the receiver does).
	BodyTimeout = 2 * time.Second
	// ReadTimeout bounds headers and body together, the outer bound when a
	// body deadline cannot be set.
	ReadTimeout = 10 * time.Second
	// WriteTimeout runs from the end of the headers: body, commit wait,
	// answer.
	WriteTimeout = 45 * time.Second
	// IdleTimeout bounds a kept-alive connection between requests; only
	// the bank's deliveries keep theirs (the receiver closes a refused
	// one's).
	IdleTimeout = 120 * time.Second
	// MaxHeaderBytes bounds a request's headers. The bank sends a handful;
	// a proxy or tunnel in front adds a few more (forwarding and tracing
	// headers), well under 8 KiB. Go allows 4 KiB over it.
	MaxHeaderBytes = 8 << 10
	// DefaultMaxConns is how many connections LimitListener lets a
	// listener hold at once when given no other number.
	DefaultMaxConns = 1024
)

// New returns an http.Server for h with all four timeouts, the header
// limit and BodyTimeout set, for a listener strangers can reach. Run it
// with Start.
func New(h http.Handler) *http.Server {
	return newServer(h, BodyTimeout)
}

// newServer is New with a body deadline of its own (tests).
func newServer(h http.Handler, bodyTimeout time.Duration) *http.Server {
	return &http.Server{
		Handler:           watchBodies(h, bodyTimeout),
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		// "OPTIONS *" goes to h like any request (the receiver answers
		// 404), rather than a 200 from net/http.
		DisableGeneralOptionsHandler: true,
	}
}

// Server is a running http.Server.
type Server struct {
	name string
	srv  *http.Server
	url  string
	done chan struct{} // closed when Serve has returned
	err  error         // Serve's error, set before done is closed
}

// Start binds addr, passes the listener through wrap (a connection
// limit), and serves srv on it. name says which server in errors.
func Start(ctx context.Context, name, addr string, srv *http.Server, wrap ...func(net.Listener) net.Listener) (*Server, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", name, addr, err)
	}
	for _, w := range wrap {
		ln = w(ln)
	}
	if l, ok := ln.(*limitListener); ok {
		// LimitListener closes quiet and slow connections at its cap: it
		// learns which are quiet from the server, and which are still
		// reading a body from New's handler, which finds the connection
		// in the request's context.
		l.hook()
		next := srv.ConnState
		srv.ConnState = func(c net.Conn, s http.ConnState) {
			l.connState(c, s)
			if next != nil {
				next(c, s)
			}
		}
		nextCtx := srv.ConnContext
		srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
			if lc, ok := c.(*limitConn); ok && lc.l == l {
				ctx = context.WithValue(ctx, connKey{}, lc)
			}
			if nextCtx != nil {
				ctx = nextCtx(ctx, c)
			}
			return ctx
		}
	}
	s := &Server{name: name, srv: srv, url: "http://" + ln.Addr().String(), done: make(chan struct{})}
	go func() {
		s.err = srv.Serve(ln)
		close(s.done)
	}()
	return s, nil
}

// URL is the listener's base URL.
func (s *Server) URL() string { return s.url }

// LocalURL is URL for a link to open on this machine: an unspecified host
// ("0.0.0.0", "[::]", which a browser cannot open) becomes 127.0.0.1.
func (s *Server) LocalURL() string {
	host, port, err := net.SplitHostPort(strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		return s.url
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsUnspecified() {
		return "http://" + net.JoinHostPort("127.0.0.1", port)
	}
	return s.url
}

// Stopped is closed when the server stopped serving; Err then says why.
func (s *Server) Stopped() <-chan struct{} { return s.done }

// Err is Serve's error, once Stopped is closed.
func (s *Server) Err() error { return s.err }

// Shutdown stops accepting and waits up to grace for requests in flight;
// then it cuts the connections still open (one that never sent a request,
// a stuck client). It returns the serve loop's error if that failed for
// another reason.
func (s *Server) Shutdown(grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	<-s.done
	if !errors.Is(s.err, http.ErrServerClosed) {
		err = errors.Join(err, s.err)
	}
	if err != nil {
		return fmt.Errorf("stop %s: %w", s.name, err)
	}
	return nil
}
