package main

import (
	"context"
	"fmt"
	"time"

	"github.com/bankmirror/bankmirror/internal/simulator"
)

func cmdSimulator(ctx context.Context, a *app, args []string) error {
	fs := a.flags("simulator", "--listen ADDR [--token T] [--transactions N] [--seed S] [--rate-limit N] [--rate-bucket DUR]")
	listen := fs.String("listen", "127.0.0.1:8081", "address to listen on")
	token := fs.String("token", "", "bearer token to accept (default: a random one, printed)")
	n := fs.Int("transactions", 2000, "number of seeded transactions")
	seed := fs.Uint64("seed", 1, "seed of the generated data")
	rateLimit := fs.Int("rate-limit", 1000, "requests per token per bucket, as the real bank (0 = no limit)")
	rateBucket := fs.Duration("rate-bucket", time.Hour, "length of a rate-limit bucket, aligned to the bank's clock")
	retryAfter := fs.Bool("rate-retry-after", false, "send Retry-After (seconds until the bucket ends) on a rate-limited 429")
	if err := fs.ParseNone(args); err != nil {
		return err
	}
	if *n < 0 {
		return fmt.Errorf("%w: --transactions must not be negative", errUsage)
	}
	if *rateLimit < 0 || *rateBucket <= 0 {
		return fmt.Errorf("%w: --rate-limit must not be negative and --rate-bucket must be positive", errUsage)
	}
	sim := simulator.New(simulator.Options{Seed: *seed, Transactions: *n, Token: *token,
		RateLimit: simulator.RateLimit{Limit: *rateLimit, Bucket: *rateBucket, RetryAfter: *retryAfter}})
	srv, err := startServer(*listen, sim.Handler())
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "simulated bank listening\nBANKMIRROR_API_URL=%s\nBANKMIRROR_TOKEN=%s\n", srv.baseURL+"/api/v1", sim.Token())
	<-ctx.Done()
	return srv.shutdown()
}
