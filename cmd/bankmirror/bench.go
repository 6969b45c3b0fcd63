package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/bench"
	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/export"
)

// benchCommand runs whole-system benchmarks (internal/bench), each beside
// a baseline measured in the same run; without a mode, the full-sync
// bench.
func (a *app) benchCommand() *cli.Command {
	return &cli.Command{Name: "bench", Default: "sync",
		Summary: "whole-system benchmarks against same-run baselines: sync, receiver, burst, idle, export, bucket, ui, household, rules, feeds",
		Commands: []*cli.Command{
			a.benchSyncMode(), a.benchReceiverMode(), a.benchBurstMode(), a.benchIdleMode(), a.benchSoakMode(), a.benchExportMode(),
			a.benchBucketMode(), a.benchUIMode(), a.benchHouseholdMode(), a.benchRulesMode(), a.benchBareMode(),
			a.benchFeedsMode(),
		}}
}

// benchChild returns the command running `bankmirror args...`: this very
// binary. Tests replace it, since their binary is not bankmirror.
var benchChild = func(ctx context.Context, args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own binary: %w", err)
	}
	return exec.CommandContext(ctx, exe, args...), nil //nolint:gosec // this very binary, run as the simulator
}

// benchEnv wires the benchmarks to this command: its output, environment
// and logger, and its own binary for child processes.
func (a *app) benchEnv() bench.Env {
	return bench.Env{Stdout: a.stdout, Stderr: a.stderr, Environ: a.environ, Log: a.log,
		Command: func(ctx context.Context, args ...string) (*exec.Cmd, error) { return benchChild(ctx, args...) },
	}
}

func (a *app) benchSyncMode() *cli.Command {
	fs := newFlags("bench sync")
	var o bench.SyncOptions
	fs.IntVar(&o.Transactions, "transactions", 100000, "transactions in the simulated bank")
	fs.IntVar(&o.Rounds, "rounds", 3, "rounds of (sync, baseline, reference client), alternated")
	fs.StringVar(&o.Dir, "dir", "", "directory `DIR` for the benchmark databases (default: a temporary one)")
	fs.DurationVar(&o.Stall, "stall", time.Minute, "give up when a sync makes no progress for this long (e.g. waiting for a request budget)")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the first sync to this `FILE` (that sync then runs in this process)")
	fs.StringVar(&o.MemLimit, "gomemlimit", "24MiB", "`GOMEMLIMIT` of each sync's process, as the systemd unit sets it for serve, which makes the first sync (off: none)")
	return &cli.Command{Name: "sync", Flags: fs,
		Synopsis: "[--transactions N] [--rounds N] [--dir DIR] [--stall DURATION] [--gomemlimit GOMEMLIMIT] [--cpuprofile FILE]",
		Summary:  "a full sync of the simulated bank (`bankmirror sync --full` in a child process) against decoding the same pages and inserting them with one prepared statement, and against a plain client",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			if o.Rounds < 1 || o.Transactions < 1 || o.Stall <= 0 {
				return fmt.Errorf("%w: --rounds, --transactions and --stall must be positive", cli.ErrUsage)
			}
			return bench.Sync(ctx, a.benchEnv(), o)
		})}
}

func (a *app) benchReceiverMode() *cli.Command {
	fs := newFlags("bench receiver")
	var o bench.ReceiverOptions
	fs.IntVar(&o.Transactions, "transactions", 5000, "transactions in the simulated bank (the events reference them)")
	fs.IntVar(&o.Events, "events", 5000, "signed events sent per round")
	fs.IntVar(&o.Rounds, "rounds", 3, "rounds of (bare, daemon), alternated, per concurrency")
	levels := fs.String("concurrency", "1,16,128", "`LEVELS` of concurrent senders, comma-separated")
	fs.DurationVar(&o.CatchUp, "catch-up", 30*time.Second, "how long to wait after the last acknowledgement for the worker to apply every event")
	fs.StringVar(&o.Dir, "dir", "", "directory `DIR` for the benchmark databases (default: a temporary one)")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the rounds (this process: the load generator) to this `FILE`")
	fs.StringVar(&o.MemLimit, "gomemlimit", "24MiB", "`GOMEMLIMIT` of the daemon, as the systemd unit sets it (off: none)")
	return &cli.Command{Name: "receiver", Flags: fs,
		Synopsis: "[--transactions N] [--events N] [--rounds N] [--concurrency LEVELS] [--catch-up DURATION] [--dir DIR]",
		Summary:  "acknowledgements per second of the daemon, its worker applying the events, against a bare handler that only checks signatures",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			o.Concurrency = nil
			for _, f := range strings.Split(*levels, ",") {
				c, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil || c < 1 {
					return fmt.Errorf("%w: --concurrency %q: want positive integers separated by commas", cli.ErrUsage, *levels)
				}
				o.Concurrency = append(o.Concurrency, c)
			}
			if o.Transactions < 1 || o.Events < 1 || o.Rounds < 1 || o.CatchUp <= 0 {
				return fmt.Errorf("%w: --transactions, --events, --rounds and --catch-up must be positive", cli.ErrUsage)
			}
			return bench.Receiver(ctx, a.benchEnv(), o)
		})}
}

func (a *app) benchFeedsMode() *cli.Command {
	fs := newFlags("bench feeds")
	var o bench.FeedsOptions
	apps := fs.String("app", "both", "the app fed, `actual|ynab|both`: the real Actual (of BANKMIRROR_TEST_ACTUAL_DIR), the simulator's fake YNAB, or both")
	fs.IntVar(&o.Transactions, "transactions", 10000, "transactions in the simulated bank, pushed first")
	fs.IntVar(&o.Purchases, "purchases", 20, "purchases made one at a time with serve running, timed to visible in the app")
	fs.StringVar(&o.Dir, "dir", "", "directory `DIR` for the mirrors and the apps' files (default: a temporary one)")
	var wrap bench.NodeWrapOptions
	fs.StringVar(&wrap.Usage, "node-wrap", "", "run as the bench's stand-in for node, appending its use to `FILE` (the bench runs this itself)")
	fs.StringVar(&wrap.Node, "node", "", "the real `NODE` the stand-in runs")
	drop := fs.String("drop", "", "`VARS` the stand-in does not pass to node, comma-separated")
	return &cli.Command{Name: "feeds", Flags: fs, TakesArgs: true,
		Synopsis: "[--app actual|ynab|both] [--transactions N] [--purchases N] [--dir DIR]",
		Summary:  "the feeds, whole: a first push to Actual and YNAB against a sync of the same history, a purchase by webhook to visible in the app, serve's RSS with and without a feed",
		Run: func(ctx context.Context, args []string) error {
			if wrap.Usage != "" {
				wrap.Args, wrap.Drop = args, strings.Split(*drop, ",")
				code, err := bench.NodeWrap(wrap)
				if err == nil && code != 0 {
					err = &exitCode{code}
				}
				return err
			}
			return a.configured(func(ctx context.Context, args []string) error {
				var ok bool
				if o.Apps, ok = bench.FeedApps(*apps); !ok || len(args) > 0 || o.Transactions < 1 || o.Purchases < 1 {
					return fmt.Errorf("%w: --app actual, ynab or both, --transactions and --purchases positive, and no arguments", cli.ErrUsage)
				}
				return bench.Feeds(ctx, a.benchEnv(), o)
			})(ctx, args)
		}}
}

func (a *app) benchBareMode() *cli.Command {
	fs := newFlags("bench bare")
	path := fs.String("path", "/webhook", "the webhook `PATH` it checks signatures on")
	return &cli.Command{Name: "bare", Flags: fs,
		Synopsis: "[--path PATH]",
		Summary:  "serve bench receiver's baseline until interrupted: a handler that checks signatures (secret in " + bench.BareSecretVar + ") and answers 200",
		Run: func(ctx context.Context, _ []string) error {
			return bench.Bare(ctx, a.benchEnv(), *path)
		}}
}

func (a *app) benchBurstMode() *cli.Command {
	fs := newFlags("bench burst")
	var o bench.BurstOptions
	fs.IntVar(&o.Events, "events", 1500, "deliveries in the burst, duplicates included (about 0.53 transactions per delivery)")
	fs.IntVar(&o.Transactions, "transactions", 2000, "transactions in the simulated bank before the burst")
	fs.DurationVar(&o.Duration, "duration", 3*time.Second, "how long the bank takes to make the burst's changes")
	fs.DurationVar(&o.Timeout, "timeout", time.Minute, "how long to wait for an exact mirror after the last delivery")
	fs.Uint64Var(&o.Seed, "seed", 1, "`SEED` of the burst's choices")
	fs.StringVar(&o.Dir, "dir", "", "directory `DIR` for the mirror (default: a temporary one)")
	fs.IntVar(&o.Restarts, "restarts", 0, "kill -9 the daemon `N` times during the burst, restarting it at once (it then runs as bankmirror serve in a child process)")
	return &cli.Command{Name: "burst", Flags: fs,
		Synopsis: "[--events N] [--transactions N] [--duration DURATION] [--timeout DURATION] [--seed SEED] [--restarts N] [--dir DIR]",
		Summary:  "a burst of webhook events with duplicates and reorders: bank requests used and time to an exact mirror",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			if o.Events < 20 || o.Transactions < 0 || o.Duration < 0 || o.Timeout <= 0 || o.Restarts < 0 {
				return fmt.Errorf("%w: --events must be at least 20, --timeout positive, --restarts not negative", cli.ErrUsage)
			}
			if o.Restarts > 0 {
				return bench.BurstRestarts(ctx, a.benchEnv(), o)
			}
			return bench.Burst(ctx, a.benchEnv(), o)
		})}
}

func (a *app) benchRulesMode() *cli.Command {
	fs := newFlags("bench rules")
	var o bench.RulesOptions
	fs.IntVar(&o.Transactions, "transactions", 100_000, "transactions in the simulated bank, matched and applied")
	fs.IntVar(&o.Rules, "rules", 200, "rules in the generated rules file")
	fs.IntVar(&o.Purchases, "purchases", 100, "purchases made one at a time for the latency on arrival")
	fs.StringVar(&o.Dir, "dir", "", "directory `DIR` for the mirrors (default: a temporary one)")
	return &cli.Command{Name: "rules", Flags: fs,
		Synopsis: "[--transactions N] [--rules N] [--purchases N] [--dir DIR]",
		Summary:  "the rules file: matching over the mirror, requests of rules apply per change, latency added on arrival",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			if o.Transactions < 1 || o.Rules < 8 || o.Purchases < 1 {
				return fmt.Errorf("%w: --transactions and --purchases must be positive, --rules at least 8", cli.ErrUsage)
			}
			return bench.Rules(ctx, a.benchEnv(), o)
		})}
}

func (a *app) benchIdleMode() *cli.Command {
	fs := newFlags("bench idle")
	var o bench.IdleOptions
	fs.IntVar(&o.Transactions, "transactions", 100000, "transactions in the simulated bank, backfilled by the daemon's start-up sync")
	fs.DurationVar(&o.Idle, "idle", 2*time.Minute, "how long the daemon sits idle after the backfill before its RSS is read")
	fs.IntVar(&o.Ticks, "ticks", 10, "schedule ticks to count the requests of")
	fs.StringVar(&o.MemLimit, "gomemlimit", "24MiB", "`GOMEMLIMIT` of the daemon, as the systemd unit sets it (off: none)")
	fs.StringVar(&o.Dir, "dir", "", "directory `DIR` for the mirror (default: a temporary one)")
	fs.BoolVar(&o.Alerts, "alerts", false, "also serve's RSS without a rules file and with one alerting a purchase to ntfy, a webhook and email (servers on loopback run by the bench), on the same mirror")
	return &cli.Command{Name: "idle", Flags: fs,
		Synopsis: "[--transactions N] [--idle DURATION] [--ticks N] [--gomemlimit GOMEMLIMIT] [--alerts] [--dir DIR]",
		Summary:  "bankmirror serve after a backfill, left idle: its RSS, and the bank requests of an idle hour",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			if o.Transactions < 1 || o.Idle <= 0 || o.Ticks < 1 {
				return fmt.Errorf("%w: --transactions, --idle and --ticks must be positive", cli.ErrUsage)
			}
			return bench.Idle(ctx, a.benchEnv(), o)
		})}
}

func (a *app) benchSoakMode() *cli.Command {
	fs := newFlags("bench soak")
	var o bench.SoakOptions
	fs.IntVar(&o.Transactions, "transactions", 5000, "transactions in the simulated bank, backfilled by the daemon's start-up sync")
	fs.DurationVar(&o.Duration, "duration", 3*time.Minute, "how long the soak runs, the start-up sync included")
	fs.DurationVar(&o.Warmup, "warmup", 30*time.Second, "after each start of the daemon, not counted")
	fs.StringVar(&o.Live, "live", "30/m", "the bank's pace of changes, each with its webhook events (`RATE`: N/s, N/m or N/h)")
	fs.DurationVar(&o.SyncEvery, "sync-every", 20*time.Second, "the daemon's sync schedule (`DURATION` between incremental syncs and heals)")
	fs.StringVar(&o.MemLimit, "gomemlimit", "24MiB", "`GOMEMLIMIT` of the daemon, as the systemd unit sets it (off: none)")
	fs.BoolVar(&o.Feed, "feed", false, "also feed the simulator's fake YNAB (a feeds file with one ynab feed)")
	fs.BoolVar(&o.Alerts, "alerts", false, "also a rule alerting every purchase to an http channel")
	fs.StringVar(&o.Binary, "binary", "", "run the daemon and bench bare from this bankmirror `BINARY` (another build, as a baseline) instead of this one")
	fs.StringVar(&o.Dir, "dir", "", "directory `DIR` for the mirror (default: a temporary one)")
	return &cli.Command{Name: "soak", Flags: fs,
		Synopsis: "[--transactions N] [--duration DURATION] [--warmup DURATION] [--live RATE] [--sync-every DURATION] [--gomemlimit GOMEMLIMIT] [--feed] [--alerts] [--binary BINARY] [--dir DIR]",
		Summary:  "bankmirror serve at work (bank changes with webhook events, syncs, a kill -9 and restart): its steady RSS beside bench bare's",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			if o.Transactions < 1 || o.Duration <= 0 || o.Warmup < 0 || o.SyncEvery < time.Second {
				return fmt.Errorf("%w: --transactions and --duration must be positive, --warmup not negative, --sync-every at least 1s", cli.ErrUsage)
			}
			return bench.Soak(ctx, a.benchEnv(), o)
		})}
}

func (a *app) benchHouseholdMode() *cli.Command {
	fs := newFlags("bench household")
	var o bench.HouseholdOptions
	fs.IntVar(&o.Transactions, "transactions", 100000, "transactions on each person's own accounts")
	fs.IntVar(&o.Joint, "joint", 20000, "transactions on the joint account")
	fs.DurationVar(&o.Interval, "interval", 10*time.Second, "poll interval of the joint purchases' latency run")
	fs.IntVar(&o.Purchases, "purchases", 20, "joint purchases timed")
	fs.BoolVar(&o.Baseline, "baseline", true, "also a single customer's first sync of the same size")
	fs.StringVar(&o.Dir, "dir", "", "directory `DIR` for the mirrors (default: a temporary one)")
	return &cli.Command{Name: "household", Flags: fs,
		Synopsis: "[--transactions N] [--joint N] [--interval DURATION] [--purchases N] [--baseline=false] [--dir DIR]",
		Summary:  "a household of two with a joint account: the first sync's requests against the floor, an idle hour, joint purchase to mirror",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			if o.Transactions < 1 || o.Joint < 1 || o.Interval <= 0 || o.Purchases < 1 {
				return fmt.Errorf("%w: --transactions, --joint, --interval and --purchases must be positive", cli.ErrUsage)
			}
			return bench.Household(ctx, a.benchEnv(), o)
		})}
}

func (a *app) benchExportMode() *cli.Command {
	fs := newFlags("bench export")
	var o bench.ExportOptions
	fs.IntVar(&o.Transactions, "transactions", 1000000, "transactions in the generated mirror")
	fs.IntVar(&o.Rounds, "rounds", 3, "rounds of (baseline, CSV, XLSX)")
	fs.StringVar(&o.View, "view", export.DefaultView, "`NAME` of the view to export")
	fs.StringVar(&o.Dir, "dir", "", "directory `DIR` for the mirror and the exports (default: a temporary one)")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the rounds to this `FILE`")
	generate := fs.String("generate", "", "only generate the mirror at this `PATH` and exit (the bench runs this in a child process)")
	return &cli.Command{Name: "export", Flags: fs,
		Synopsis: "[--transactions N] [--rounds N] [--view NAME] [--dir DIR] [--cpuprofile FILE]",
		Summary:  "bankmirror export of a generated mirror (1,000,000 rows) to CSV and XLSX against a bare SELECT * of the view",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			if *generate != "" {
				return bench.GenerateExportMirror(ctx, *generate, o.Transactions)
			}
			if o.Rounds < 1 || o.Transactions < 1 {
				return fmt.Errorf("%w: --rounds and --transactions must be positive", cli.ErrUsage)
			}
			return bench.Export(ctx, a.benchEnv(), o)
		})}
}

func (a *app) benchBucketMode() *cli.Command {
	fs := newFlags("bench bucket")
	var o bench.BucketOptions
	fs.IntVar(&o.Transactions, "transactions", 25000, "transactions in the simulated bank (100 a page)")
	fs.IntVar(&o.Limit, "limit", 200, "requests per token per hourly bucket at the simulated bank")
	fs.DurationVar(&o.FirstBucket, "first-bucket", time.Minute, "the bank's first bucket ends this long after the daemon starts")
	fs.DurationVar(&o.PurchaseEvery, "purchase-every", 15*time.Second, "a live purchase at the bank this often until the start-up sync ends")
	fs.DurationVar(&o.Timeout, "timeout", 15*time.Minute, "give up when the mirror is not exact this long after the daemon starts")
	fs.StringVar(&o.Dir, "dir", "", "directory `DIR` for the mirror (default: a temporary one)")
	return &cli.Command{Name: "bucket", Flags: fs,
		Synopsis: "[--transactions N] [--limit N] [--first-bucket DURATION] [--purchase-every DURATION] [--timeout DURATION] [--dir DIR]",
		Summary: "a first sync across two of the bank's hourly buckets, the first ending a minute after the daemon starts: " +
			"when the daemon finds the second, time to an exact mirror, live purchases meanwhile (takes minutes)",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			if o.Transactions < 1 || o.Limit < 1 || o.FirstBucket <= 0 || o.FirstBucket >= time.Hour || o.PurchaseEvery <= 0 || o.Timeout <= 0 {
				return fmt.Errorf("%w: --transactions, --limit, --purchase-every and --timeout must be positive, --first-bucket within the hour", cli.ErrUsage)
			}
			return bench.Bucket(ctx, a.benchEnv(), o)
		})}
}
