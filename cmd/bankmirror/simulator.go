package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/simulator"
	ynabfake "github.com/bankmirror/bankmirror/internal/simulator/ynab"
)

// ynabSpec, when set, loads YNAB's API description for the fake YNAB of
// `simulator --ynab` to validate requests against. The daemon's build
// leaves it unset, so that the binary does not link the OpenAPI and JSON
// Schema libraries; a build with -tags ynabspec, and this package's
// tests, set it.
var ynabSpec func() (ynabfake.Spec, error)

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
	withYNAB := fs.Bool("ynab", false, "also serve a fake of YNAB's API under /ynab/v1, with a plan \"Household\" (printed: its URL and token); "+
		"requests are validated against YNAB's API description in a build with -tags ynabspec")
	return &cli.Command{Name: "simulator", Flags: fs,
		Synopsis: "[--listen ADDR] [--token TOKEN] [--control-token TOKEN] [--transactions N] [--seed SEED] [--now TIME] " +
			"[--public-url URL] [--live RATE] [--webhook-retry BASE,MAX,ATTEMPTS] [--signature-header NAME] " +
			"[--rate-limit N] [--rate-bucket DURATION] [--rate-offset DURATION] [--rate-retry-after] " +
			"[--people NAMES] [--joint-transactions N] [--joint-webhooks] [--ynab]",
		Summary: "run the simulated bank on a local address",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			opts, every, err := simulator.Flags{Transactions: *n, Now: *now, Live: *live, WebhookRetry: *webhookRetry,
				SignatureHeader: *sigHeader, RateLimit: *rateLimit, RateBucket: *rateBucket, RateOffset: *rateOffset,
				People: *people, Token: *token, JointTransactions: jointTx, JointWebhooks: *jointWebhooks}.Options()
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
				var spec ynabfake.Spec
				if ynabSpec != nil {
					if spec, err = ynabSpec(); err != nil {
						return err
					}
				}
				if yf, h, err = ynabfake.Beside(h, opts.Now, spec); err != nil {
					return err
				}
			}
			srv, err := httpserver.Start(ctx, "http server", *listen, httpserver.New(h))
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
