package admin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Server is the admin listener's HTTP server, bound before it serves so
// that an address in use fails at start.
type Server struct {
	srv  *http.Server
	url  string
	done chan struct{}
	err  error
}

// Listen binds addr and serves h on it.
func Listen(ctx context.Context, addr string, h http.Handler) (*Server, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("admin listener on %s: %w", addr, err)
	}
	s := &Server{
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 5 * time.Second,
			ReadTimeout:       10 * time.Second,
			// A /readyz waits for the write probe (10 s at most).
			WriteTimeout:   30 * time.Second,
			IdleTimeout:    60 * time.Second,
			MaxHeaderBytes: 16 << 10,
		},
		url:  "http://" + ln.Addr().String(),
		done: make(chan struct{}),
	}
	go func() {
		s.err = s.srv.Serve(ln)
		close(s.done)
	}()
	return s, nil
}

// URL is the listener's base URL.
func (s *Server) URL() string { return s.url }

// Close stops the server, waiting up to 2 s for requests in flight.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
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
		return fmt.Errorf("stop admin listener: %w", err)
	}
	return nil
}
