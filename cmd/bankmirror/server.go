package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/bankmirror/bankmirror/internal/receiver"
)

// server is an HTTP server bound before it serves, so address errors
// surface at once and ":0" works, with all four timeouts set. Both the
// daemon and the demo's simulated bank run on one.
type server struct {
	srv      *http.Server
	baseURL  string
	stopped  chan struct{} // closed when Serve has returned
	serveErr error         // Serve's error, set before stopped is closed
}

func startServer(ctx context.Context, addr string, h http.Handler, wrap ...func(net.Listener) net.Listener) (*server, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	for _, w := range wrap {
		ln = w(ln)
	}
	s := &server{
		srv:     receiver.NewServer(h),
		baseURL: "http://" + ln.Addr().String(),
		stopped: make(chan struct{}),
	}
	go func() {
		s.serveErr = s.srv.Serve(ln)
		close(s.stopped)
	}()
	return s, nil
}

// shutdown stops accepting and waits up to 5s for requests in flight; then
// it cuts the connections still open (one that never sent a request, a
// stuck client: a sender retries what it got no answer for). It returns
// the serve loop's error if that failed for another reason.
func (s *server) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	<-s.stopped
	if !errors.Is(s.serveErr, http.ErrServerClosed) {
		err = errors.Join(err, s.serveErr)
	}
	if err != nil {
		return fmt.Errorf("stop http server: %w", err)
	}
	return nil
}
