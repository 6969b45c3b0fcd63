package bench

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"
)

// SoakOptions are bench soak's settings.
type SoakOptions struct {
	Transactions int           // in the simulated bank, backfilled by the daemon's start-up sync
	Duration     time.Duration // of the soak, the start-up sync included
	Warmup       time.Duration // after each start, not counted
	Live         string        // the bank's pace of changes (simulator --live), each with its webhook events
	SyncEvery    time.Duration // the daemon's schedule (BANKMIRROR_SYNC_SCHEDULE=@every)
	MemLimit     string        // GOMEMLIMIT of the daemon ("off": none)
	Dir          string        // for the mirror; "" makes a temporary one
	// Feed feeds the simulator's fake YNAB (a feeds file with one ynab
	// feed); Alerts adds a rules file alerting every purchase to an http
	// channel served by this process.
	Feed, Alerts bool
	// Binary, if set, is the bankmirror binary that runs the daemon and
	// bench bare (another build, e.g. main's, as the baseline); the
	// simulator stays this one.
	Binary string
}

// Soak measures what the daemon holds while it works as it does in a
// real deployment: `bankmirror serve` (the real binary, in a child
// process, with a registered webhook) backfills N transactions, then the
// simulated bank makes changes at a steady pace (purchases, settlements,
// refunds, deleted holds), each delivered as webhook events, while the
// schedule runs incremental syncs and heals; halfway, the daemon is
// killed (SIGKILL, as a crash or the OOM killer) and started again.
// Its RSS (/proc/PID/status) is read every second; reported are the
// median and the maximum after each start's warm-up, beside the same
// run's `bankmirror bench bare` (the same binary serving a handler that
// only checks signatures): what the binary and the Go runtime cost before
// bankmirror holds anything.
func Soak(ctx context.Context, env Env, o SoakOptions) error {
	simArgs := []string{"--live", o.Live, "--webhook-retry", "200ms,2s,20"}
	if o.Feed {
		simArgs = append(simArgs, "--ynab")
	}
	sim, done, err := env.setup(ctx, &o.Dir, o.Transactions, simArgs...)
	if err != nil {
		return err
	}
	defer done()
	listen, admin, err := freeAddrs()
	if err != nil {
		return err
	}
	denv := env
	if o.Binary != "" {
		// Run as installed, as this binary's children are (installCopy).
		path, err := installCopy(o.Binary, o.Dir, "bankmirror-installed-other")
		if err != nil {
			return err
		}
		defer os.Remove(path)
		denv.Command = func(ctx context.Context, args ...string) (*exec.Cmd, error) {
			return exec.CommandContext(ctx, path, args...), nil //nolint:gosec // a copy of the binary the user named
		}
	}
	db := filepath.Join(o.Dir, "soak.db")
	set := map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token, "DB": db, "LISTEN": listen, "ADMIN_LISTEN": admin,
		"LOG_LEVEL": "warn", "SYNC_SCHEDULE": "@every " + o.SyncEvery.String()}
	var alerted atomic.Int64
	if o.Alerts {
		url, stop, err := serve(ctx, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			alerted.Add(1)
		}))
		if err != nil {
			return err
		}
		defer stop()
		set["RULES_FILE"] = filepath.Join(o.Dir, "rules.toml")
		rules := fmt.Sprintf("[[rule]]\nname = \"every purchase\"\nwhen = 'amount < 0'\nnotify = [\"hook\"]\n\n[channel.hook]\nurl = %q\nper_hour = 100000\n", url+"/hook")
		if err := os.WriteFile(set["RULES_FILE"], []byte(rules), 0o600); err != nil {
			return err
		}
	}
	if o.Feed {
		token := filepath.Join(o.Dir, "ynab-token")
		if err := os.WriteFile(token, []byte(sim.ynabToken), 0o600); err != nil {
			return err
		}
		set["FEEDS_FILE"] = filepath.Join(o.Dir, "feeds.toml")
		feeds := fmt.Sprintf("[[feed]]\nname = \"ynab\"\nkind = \"ynab\"\nurl = %q\ntoken_file = %q\nbudget = \"Household\"\n\n[feed.accounts]\n\"Spending\" = \"Spending\"\n", sim.ynabURL, token)
		if err := os.WriteFile(set["FEEDS_FILE"], []byte(feeds), 0o600); err != nil {
			return err
		}
	}
	cfg, user, err := env.config(set)
	if err != nil {
		return err
	}
	vars := benchChildEnv(env.Environ, user, set, o.MemLimit)
	w := env.Stdout
	with := ""
	if o.Feed {
		with += ", a YNAB feed (the simulator's fake YNAB)"
	}
	if o.Alerts {
		with += ", a rule alerting every purchase to an http channel"
	}
	fmt.Fprintf(w, "bench soak: bankmirror serve (child process) backfills %d simulated transactions, then the bank changes at %s with webhook events, a sync every %s%s, one kill -9 and restart halfway; %s in all, %s of warm-up after each start not counted; GOMEMLIMIT=%s\n",
		o.Transactions, o.Live, o.SyncEvery, with, o.Duration, o.Warmup, o.MemLimit)
	if o.Binary != "" {
		fmt.Fprintf(w, "the daemon and bench bare: %s, run from a copy written as a package install writes it\n", o.Binary)
	}
	fmt.Fprintln(w, settingsLine(user))
	fmt.Fprintf(w, "repeat: bankmirror bench soak --transactions %d --duration %s --warmup %s --live %s --sync-every %s --gomemlimit %s --feed=%t --alerts=%t\n",
		o.Transactions, o.Duration, o.Warmup, o.Live, o.SyncEvery, o.MemLimit, o.Feed, o.Alerts)

	if out, err := denv.runChild(ctx, vars, "webhook", "register", "--url", "http://"+listen+cfg.WebhookPath); err != nil {
		return fmt.Errorf("register a webhook: %w: %s", err, out)
	}
	secret := make([]byte, 16)
	_, _ = rand.Read(secret)
	bare, err := denv.startBare(ctx, cfg.WebhookPath, hex.EncodeToString(secret))
	if err != nil {
		return err
	}
	defer bare.stop()

	var d *serveChild
	start := func() error {
		var err error
		if d, err = denv.startServeChild(ctx, vars); err != nil {
			return err
		}
		return waitHTTP(ctx, "http://"+admin+"/readyz", 30*time.Minute, d)
	}
	begin := time.Now()
	if err := start(); err != nil {
		return fmt.Errorf("backfill: %w", err)
	}
	defer func() { d.stop() }()
	fmt.Fprintf(w, "backfill: %d transactions in %.1fs; peak RSS %.1f MiB\n", o.Transactions, time.Since(begin).Seconds(), pidMiB(d.pid(), "VmHWM"))

	type sample struct{ rss, anon, file, bare float64 }
	var samples []sample
	peak := 0.0
	countFrom := time.Now().Add(o.Warmup)
	restartAt, restarted := begin.Add(o.Duration/2), false
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for time.Since(begin) < o.Duration {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		if d.exited() {
			return fmt.Errorf("the daemon exited")
		}
		if !restarted && time.Now().After(restartAt) {
			restarted = true
			peak = max(peak, pidMiB(d.pid(), "VmHWM"))
			d.kill()
			if err := start(); err != nil {
				return fmt.Errorf("restart: %w", err)
			}
			countFrom = time.Now().Add(o.Warmup)
			continue
		}
		if time.Now().Before(countFrom) {
			continue
		}
		samples = append(samples, sample{rss: pidMiB(d.pid(), "VmRSS"), anon: pidMiB(d.pid(), "RssAnon"),
			file: pidMiB(d.pid(), "RssFile"), bare: pidMiB(bare.pid(), "VmRSS")})
	}
	peak = max(peak, pidMiB(d.pid(), "VmHWM"))
	if len(samples) == 0 {
		return fmt.Errorf("no samples after the warm-up: give a longer --duration or a shorter --warmup")
	}
	slices.SortFunc(samples, func(a, b sample) int { return cmp.Compare(a.rss, b.rss) })
	med, top := samples[len(samples)/2], samples[len(samples)-1]
	bares := make([]float64, len(samples))
	for i, s := range samples {
		bares[i] = s.bare
	}
	events, attempts, err := sim.webhookEvents(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n| steady RSS (median) | max | of the median: anonymous, file-backed | bench bare's RSS (median) | peak (VmHWM) | samples | webhook events (delivery attempts) | target |\n|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| **%.1f MiB** | %.1f MiB | %.1f + %.1f MiB | %.1f MiB | %.1f MiB | %d | %d (%d) | at most 40 MiB |\n",
		med.rss, top.rss, med.anon, med.file, median(bares), peak, len(samples), events, attempts)
	if o.Alerts {
		fmt.Fprintf(w, "alerts received by the channel: %d\n", alerted.Load())
	}
	return nil
}

// webhookEvents counts the events the bank sent to its webhooks, and the
// delivery attempts (retries included).
func (s *benchSim) webhookEvents(ctx context.Context) (events, attempts int, err error) {
	var out struct {
		Data []struct {
			EventID string `json:"eventId"`
		} `json:"data"`
	}
	if err := s.control(ctx, http.MethodGet, "/deliveries", nil, &out); err != nil {
		return 0, 0, fmt.Errorf("deliveries: %w", err)
	}
	seen := map[string]bool{}
	for _, d := range out.Data {
		seen[d.EventID] = true
	}
	return len(seen), len(out.Data), nil
}
