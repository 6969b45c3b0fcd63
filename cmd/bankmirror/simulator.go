package main

import (
	"context"
	"fmt"

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
