// Package httpserver runs an http.Server on a listener bound before it
// serves, so that an address in use fails at start and ":0" works, and
// stops it in order: a grace period for requests in flight, then the
// connections still open are cut. The daemon's public and admin
// listeners, the demo's and the simulator's banks all run on one.
package httpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

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
	s := &Server{name: name, srv: srv, url: "http://" + ln.Addr().String(), done: make(chan struct{})}
	go func() {
		s.err = srv.Serve(ln)
		close(s.done)
	}()
	return s, nil
}

// URL is the listener's base URL.
func (s *Server) URL() string { return s.url }

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
