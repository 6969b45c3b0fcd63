package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

func (a *app) simulatorCommand() *cli.Command {
	fs := newFlags("simulator")
	listen := fs.String("listen", "127.0.0.1:8081", "`ADDR` to listen on (host:port)")
	token := fs.String("token", "", "bearer `TOKEN` to accept (default: a random one, printed)")
	controlToken := fs.String("control-token", "", "bearer `TOKEN` of the control API under /_sim/ (default: a random one, printed)")
	n := fs.Int("transactions", 2000, "`N` seeded transactions (0 = an empty bank)")
	seed := fs.Uint64("seed", 1, "`SEED` of the generated data")
	now := fs.String("now", "", "fixed clock `TIME`, RFC 3339 (with the same --seed every response is byte-identical from run to run)")
	publicURL := fs.String("public-url", "", "API base `URL` written into links, e.g. https://api.up.com.au/api/v1 (default: the address the client used)")
	live := fs.String("live", "", "changes over time at this `RATE`: new purchases, settlements, refunds, deleted holds, e.g. 10/m (N/s, N/m or N/h)")
	webhookRetry := fs.String("webhook-retry", "", "webhook retry schedule `BASE,MAX,ATTEMPTS`, e.g. 1s,10s,5 (default 30s,1h,8)")
	sigHeader := fs.String("signature-header", simulator.SignatureHeader,
		"header `NAME` webhook deliveries are signed in; the real bank (Up) uses "+simulator.UpSignatureHeader)
	rateLimit := fs.Int("rate-limit", 1000, "`N` requests per token per bucket, as the real bank (0 = no limit)")
	rateBucket := fs.Duration("rate-bucket", time.Hour, "`DURATION` of a rate-limit bucket, aligned to the bank's clock")
	rateOffset := fs.Duration("rate-offset", 0, "buckets start this `DURATION` past the clock's multiples of --rate-bucket (0, as the real bank: on the clock hour)")
	retryAfter := fs.Bool("rate-retry-after", false, "send Retry-After (seconds until the bucket ends) on a rate-limited 429")
	return &cli.Command{Name: "simulator", Flags: fs,
		Synopsis: "[--listen ADDR] [--token TOKEN] [--control-token TOKEN] [--transactions N] [--seed SEED] [--now TIME] " +
			"[--public-url URL] [--live RATE] [--webhook-retry BASE,MAX,ATTEMPTS] [--signature-header NAME] " +
			"[--rate-limit N] [--rate-bucket DURATION] [--rate-offset DURATION] [--rate-retry-after]",
		Summary: "run the simulated bank on a local address",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			opts, every, err := simulatorOptions(simulatorFlags{n: *n, now: *now, live: *live, webhookRetry: *webhookRetry,
				sigHeader: *sigHeader, rateLimit: *rateLimit, rateBucket: *rateBucket, rateOffset: *rateOffset})
			if err != nil {
				return fmt.Errorf("%w: %w", errUsage, err)
			}
			opts.Seed, opts.Token, opts.ControlToken, opts.PublicURL = *seed, *token, *controlToken, *publicURL
			opts.RateLimit.RetryAfter = *retryAfter
			sim := simulator.New(opts)
			defer sim.Close()
			srv, err := startServer(ctx, *listen, sim.Handler())
			if err != nil {
				return err
			}
			sim.Prerender(srv.URL() + "/api/v1")
			sim.SetLive(every)
			fmt.Fprintf(a.stdout, "simulated bank listening\nBANKMIRROR_SIM_CONTROL_URL=%s\nBANKMIRROR_SIM_CONTROL_TOKEN=%s\nBANKMIRROR_API_URL=%s\nBANKMIRROR_TOKEN=%s\n",
				srv.URL()+"/_sim", sim.ControlToken(), srv.URL()+"/api/v1", sim.Token())
			<-ctx.Done()
			return srv.Shutdown(shutdownGrace)
		})}
}

// simulatorFlags are the flags of the simulator command that need parsing.
type simulatorFlags struct {
	n            int
	now, live    string
	webhookRetry string
	sigHeader    string
	rateLimit    int
	rateBucket   time.Duration
	rateOffset   time.Duration
}

// simulatorOptions turns the flags into simulator options and the interval
// of --live (0 = off).
func simulatorOptions(f simulatorFlags) (simulator.Options, time.Duration, error) {
	var opts simulator.Options
	switch {
	case f.n < 0:
		return opts, 0, fmt.Errorf("--transactions must not be negative")
	case f.n == 0:
		opts.Empty = true
	default:
		opts.Transactions = f.n
	}
	if f.rateLimit < 0 || f.rateBucket <= 0 {
		return opts, 0, fmt.Errorf("--rate-limit must not be negative and --rate-bucket must be positive")
	}
	if f.rateOffset < 0 || f.rateOffset >= f.rateBucket {
		return opts, 0, fmt.Errorf("--rate-offset must be at least 0 and less than --rate-bucket (%s)", f.rateBucket)
	}
	opts.RateLimit = simulator.RateLimit{Limit: f.rateLimit, Bucket: f.rateBucket, Offset: f.rateOffset}
	if f.now != "" {
		at, err := time.Parse(time.RFC3339, f.now)
		if err != nil {
			return opts, 0, fmt.Errorf("--now: %w", err)
		}
		opts.Now = func() time.Time { return at }
	}
	if f.webhookRetry != "" {
		r, err := parseWebhookRetry(f.webhookRetry)
		if err != nil {
			return opts, 0, err
		}
		opts.WebhookRetryBase, opts.WebhookRetryMax, opts.WebhookMaxAttempts = r.Base, r.Max, r.Attempts
	}
	if f.sigHeader != "" && !httpguts.ValidHeaderFieldName(f.sigHeader) {
		return opts, 0, fmt.Errorf("--signature-header %q: not an HTTP header name", f.sigHeader)
	}
	opts.WebhookSignatureHeader = f.sigHeader
	var every time.Duration
	if f.live != "" {
		var err error
		if every, err = parseRate(f.live); err != nil {
			return opts, 0, err
		}
	}
	return opts, every, nil
}

// parseWebhookRetry parses BASE,MAX,ATTEMPTS, e.g. "1s,10s,5".
func parseWebhookRetry(s string) (simulator.WebhookRetry, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return simulator.WebhookRetry{}, fmt.Errorf("--webhook-retry %q: want BASE,MAX,ATTEMPTS", s)
	}
	base, err1 := time.ParseDuration(parts[0])
	maxWait, err2 := time.ParseDuration(parts[1])
	attempts, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || base <= 0 || maxWait < base || attempts < 1 {
		return simulator.WebhookRetry{}, fmt.Errorf("--webhook-retry %q: want positive BASE <= MAX and ATTEMPTS >= 1", s)
	}
	return simulator.WebhookRetry{Base: base, Max: maxWait, Attempts: attempts}, nil
}

// parseRate parses N/s, N/m or N/h into the interval between changes.
func parseRate(s string) (time.Duration, error) {
	num, unit, ok := strings.Cut(s, "/")
	per := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour}[unit]
	n, err := strconv.ParseFloat(num, 64)
	if !ok || per == 0 || err != nil || n <= 0 || n > 1000 {
		return 0, fmt.Errorf("--live %q: want N/s, N/m or N/h with 0 < N <= 1000", s)
	}
	return time.Duration(float64(per) / n), nil
}
