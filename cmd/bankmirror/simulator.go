package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/simulator"
	ynabfake "github.com/bankmirror/bankmirror/internal/simulator/ynab"
)

func (a *app) simulatorCommand() *cli.Command {
	fs := newFlags("simulator")
	listen := fs.String("listen", "127.0.0.1:8081", "`ADDR` to listen on (host:port)")
	token := fs.String("token", "", "bearer `TOKEN` to accept (default: a random one, printed); with --people, NAME=TOKEN,... for any of them")
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
	people := fs.String("people", "", "a household of these `NAMES` (comma-separated, e.g. alex,sam): a token, customer id, own accounts and webhooks each, one 2Up joint account shared")
	jointTx := fs.Int("joint-transactions", -1, "`N` seeded transactions on the household's joint account (default: --transactions / 5)")
	jointWebhooks := fs.Bool("joint-webhooks", false, "send the joint account's webhook events, which the real bank does not (up-banking/api#142)")
	withYNAB := fs.Bool("ynab", false, "also serve a fake of YNAB's API under /ynab/v1, with a plan \"Household\" (printed: its URL and token)")
	return &cli.Command{Name: "simulator", Flags: fs,
		Synopsis: "[--listen ADDR] [--token TOKEN] [--control-token TOKEN] [--transactions N] [--seed SEED] [--now TIME] " +
			"[--public-url URL] [--live RATE] [--webhook-retry BASE,MAX,ATTEMPTS] [--signature-header NAME] " +
			"[--rate-limit N] [--rate-bucket DURATION] [--rate-offset DURATION] [--rate-retry-after] " +
			"[--people NAMES] [--joint-transactions N] [--joint-webhooks] [--ynab]",
		Summary: "run the simulated bank on a local address",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			opts, every, err := simulatorOptions(simulatorFlags{n: *n, now: *now, live: *live, webhookRetry: *webhookRetry,
				sigHeader: *sigHeader, rateLimit: *rateLimit, rateBucket: *rateBucket, rateOffset: *rateOffset,
				people: *people, token: *token, jointTx: jointTx, jointWebhooks: *jointWebhooks})
			if err != nil {
				return fmt.Errorf("%w: %w", cli.ErrUsage, err)
			}
			opts.Seed, opts.ControlToken, opts.PublicURL = *seed, *controlToken, *publicURL
			opts.RateLimit.RetryAfter = *retryAfter
			sim := simulator.New(opts)
			defer sim.Close()
			h := sim.Handler()
			var yf *ynabfake.Fake
			if *withYNAB {
				if yf, h, err = ynabfake.Beside(h, opts.Now); err != nil {
					return err
				}
			}
			srv, err := startServer(ctx, *listen, h)
			if err != nil {
				return err
			}
			sim.Prerender(srv.URL() + "/api/v1")
			sim.SetLive(every)
			fmt.Fprintf(a.stdout, "simulated bank listening\nBANKMIRROR_SIM_CONTROL_URL=%s\nBANKMIRROR_SIM_CONTROL_TOKEN=%s\nBANKMIRROR_API_URL=%s\n",
				srv.URL()+"/_sim", sim.ControlToken(), srv.URL()+"/api/v1")
			if yf != nil {
				fmt.Fprintf(a.stdout, "BANKMIRROR_YNAB_URL=%s\nBANKMIRROR_YNAB_TOKEN=%s\n", srv.URL()+ynabfake.Prefix+"/v1", yf.Token())
			}
			if len(opts.People) == 0 {
				fmt.Fprintf(a.stdout, "BANKMIRROR_TOKEN=%s\n", sim.Token())
			} else {
				// One line per person, the token of the person NAME as
				// BANKMIRROR_TOKEN_NAME, after the list of names.
				fmt.Fprintf(a.stdout, "BANKMIRROR_PEOPLE=%s\n", strings.Join(opts.People, ","))
				for _, p := range sim.People() {
					fmt.Fprintf(a.stdout, "BANKMIRROR_TOKEN_%s=%s\n", p.Name, p.Token)
				}
			}
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

	token         string // --token: one token, or NAME=TOKEN,... with people
	people        string // --people NAMES, comma-separated
	jointTx       *int   // --joint-transactions; nil or < 0 = the default
	jointWebhooks bool
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
	if err := householdOptions(&opts, f); err != nil {
		return opts, 0, err
	}
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

// householdOptions sets the people, their tokens and the joint account's
// options from --people, --token, --joint-transactions and
// --joint-webhooks.
func householdOptions(opts *simulator.Options, f simulatorFlags) error {
	given := f.jointTx != nil && *f.jointTx >= 0
	if f.people == "" {
		if given || f.jointWebhooks {
			return fmt.Errorf("--joint-transactions and --joint-webhooks need --people")
		}
		opts.Token = f.token
		return nil
	}
	opts.People = strings.Split(f.people, ",")
	if err := simulator.CheckPeople(opts.People); err != nil {
		return fmt.Errorf("--people: %w", err)
	}
	opts.JointWebhooks = f.jointWebhooks
	switch {
	case given && *f.jointTx == 0:
		opts.JointTransactions = -1 // none
	case given:
		opts.JointTransactions = *f.jointTx
	}
	if f.token == "" {
		return nil
	}
	opts.Tokens = map[string]string{}
	for _, pair := range strings.Split(f.token, ",") {
		name, tok, ok := strings.Cut(pair, "=")
		if !ok || tok == "" || !slices.Contains(opts.People, name) || opts.Tokens[name] != "" {
			return fmt.Errorf("--token with --people: want NAME=TOKEN,... for names of --people, got %q", pair)
		}
		opts.Tokens[name] = tok
	}
	return nil
}
