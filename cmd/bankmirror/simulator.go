package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/bankmirror/bankmirror/internal/simulator"
)

func cmdSimulator(ctx context.Context, a *app, args []string) error {
	fs := a.flags("simulator", "--listen ADDR [--token T] [--transactions N] [--seed S]")
	listen := fs.String("listen", "127.0.0.1:8081", "address to listen on")
	token := fs.String("token", "", "bearer token to accept (default: a random one, printed)")
	n := fs.Int("transactions", 2000, "number of seeded transactions")
	seed := fs.Uint64("seed", 1, "seed of the generated data")
	if err := fs.ParseNone(args); err != nil {
		return err
	}
	if *n < 0 {
		return fmt.Errorf("%w: --transactions must not be negative", errUsage)
	}
	sim := simulator.New(simulator.Options{Seed: *seed, Transactions: *n, Token: *token})
	srv, err := startServer(*listen, sim.Handler())
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "simulated bank listening\nBANKMIRROR_API_URL=%s\nBANKMIRROR_TOKEN=%s\n", srv.baseURL+"/api/v1", sim.Token())
	<-ctx.Done()
	return srv.shutdown()
}

// server is an HTTP server bound before it serves, so address errors
// surface at once and ":0" works.
type server struct {
	srv     *http.Server
	baseURL string
	done    chan error
}

func startServer(addr string, h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	s := &server{
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 5 * time.Second,
			ReadTimeout:       15 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       60 * time.Second,
		},
		baseURL: "http://" + ln.Addr().String(),
		done:    make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// shutdown stops accepting, waits up to 5s for requests in flight, and
// returns the serve loop's error if it failed for another reason.
func (s *server) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return fmt.Errorf("stop http server: %w", err)
	}
	return nil
}
