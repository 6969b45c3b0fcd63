package main

import (
	"context"
	"net/http/httptest"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// childEnv, set to "1", makes the test binary run bankmirror instead of the
// tests: `<test binary> -- <command> [args]` behaves like `bankmirror
// <command> [args]`. Tests use it to run the real daemon as a subprocess
// they can kill (see crash_test.go).
const childEnv = "BANKMIRROR_TEST_MAIN"

// childArgsMarker separates the test binary's own arguments from the
// bankmirror command line.
const childArgsMarker = "--"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(childMain())
	}
	os.Exit(m.Run())
}

// childMain is main() for a re-executed test binary: the same signal
// handling, with the arguments after the marker.
func childMain() int {
	args := os.Args[1:]
	if i := slices.Index(args, childArgsMarker); i >= 0 {
		args = args[i+1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	env := environ()
	delete(env, childEnv)
	code := run(ctx, args, env, os.Stdout, os.Stderr)
	stop()
	return code
}

// ampleBudget is the bank's hourly budget in tests: the daemon follows the
// X-RateLimit-Remaining it reports, as with the real bank.
const ampleBudget = 1_000_000

// newBankWith is newBank with explicit simulator options.
func newBankWith(t testing.TB, opts simulator.Options) *bankEnv {
	t.Helper()
	if opts.RateLimit.Limit == 0 {
		// Like the real bank, report X-RateLimit-Remaining, with headroom.
		opts.RateLimit = simulator.RateLimit{Limit: ampleBudget, Bucket: time.Hour}
	}
	sim := simulator.New(opts)
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(func() { sim.Close(); srv.Close() })
	api := srv.URL + "/api/v1"
	return &bankEnv{sim: sim, apiURL: api, client: bank.New(api, sim.Token(), bank.WithHourlyBudget(0))}
}
