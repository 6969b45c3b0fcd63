package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/procinfo"
	"github.com/bankmirror/bankmirror/internal/store"
)

// IdleOptions are bench idle's settings.
type IdleOptions struct {
	Transactions int           // in the simulated bank, backfilled by the daemon's start-up sync
	Idle         time.Duration // the daemon sits idle after the backfill before its RSS is read
	Ticks        int           // schedule ticks to count the requests of
	MemLimit     string        // GOMEMLIMIT of the daemon ("off": none)
	Dir          string        // for the mirror; "" makes a temporary one
	// Alerts also measures serve without a rules file and with one that
	// has a channel of each kind, on the same mirror (idleAlerts).
	Alerts bool
}

// Idle measures what the daemon costs while nothing happens at the bank:
// `bankmirror serve` (the real binary, in a child process, with the
// defaults and a registered webhook) backfills N transactions from the
// simulated bank, then sits idle. Reported: its RSS through the idle
// period (as the kernel counts it, /proc/PID/status; nothing forces the
// child to return memory), and the bank requests of an idle hour, counted
// by the bank itself over K ticks of a short schedule and scaled to the
// configured schedule (one tick is one incremental sync plus the heal
// that follows it). With Alerts, what an alert channel adds in between
// (idleAlerts).
func Idle(ctx context.Context, env Env, o IdleOptions) error {
	sim, done, err := env.setup(ctx, &o.Dir, o.Transactions)
	if err != nil {
		return err
	}
	defer done()
	listen, admin, err := freeAddrs()
	if err != nil {
		return err
	}
	db := filepath.Join(o.Dir, "idle.db")
	cfg, user, err := env.config(map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token, "DB": db,
		"LISTEN": listen, "ADMIN_LISTEN": admin})
	if err != nil {
		return err
	}
	set := map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token, "DB": db,
		"LISTEN": listen, "ADMIN_LISTEN": admin, "LOG_LEVEL": "warn"}
	vars := benchChildEnv(env.Environ, user, set, o.MemLimit)
	w := env.Stdout
	fmt.Fprintf(w, "bench idle: bankmirror serve (child process) backfills %d simulated transactions, then idles %s; GOMEMLIMIT=%s\n", o.Transactions, o.Idle, o.MemLimit)
	fmt.Fprintln(w, settingsLine(user))
	alertsFlag := ""
	if o.Alerts {
		alertsFlag = " --alerts"
	}
	fmt.Fprintf(w, "repeat: bankmirror bench idle --transactions %d --idle %s --ticks %d --gomemlimit %s%s\n", o.Transactions, o.Idle, o.Ticks, o.MemLimit, alertsFlag)

	// A registered webhook, as a real deployment has: each tick's heal
	// reads its delivery logs.
	if out, err := env.runChild(ctx, vars, "webhook", "register", "--url", "http://"+listen+cfg.WebhookPath); err != nil {
		return fmt.Errorf("register a webhook: %w: %s", err, out)
	}

	start := time.Now()
	d, err := env.startServeChild(ctx, vars)
	if err != nil {
		return err
	}
	defer d.stop()
	if err := waitHTTP(ctx, "http://"+admin+"/readyz", 30*time.Minute, d); err != nil {
		return fmt.Errorf("backfill: %w", err)
	}
	backfill := time.Since(start)
	st, err := store.OpenReadOnly(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	runs, err := st.RecentRuns(ctx, 1)
	if err != nil || len(runs) == 0 {
		return fmt.Errorf("backfill run: %v", err)
	}
	fmt.Fprintf(w, "backfill: %d transactions in %.1fs, %d requests; peak RSS %.1f MiB\n", o.Transactions, backfill.Seconds(), runs[0].Requests, pidMiB(d.pid(), "VmHWM"))

	var samples []float64
	deadline := time.Now().Add(o.Idle)
	t := time.NewTicker(time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
			samples = append(samples, pidMiB(d.pid(), "VmRSS"))
		}
	}
	t.Stop()
	rss := samples[len(samples)-1]
	fmt.Fprintf(w, "idle RSS: %.1f MiB after %s idle (right after the backfill %.1f MiB, lowest %.1f MiB; of the last: %.1f MiB anonymous, %.1f MiB file-backed); target at most 40 MiB\n",
		rss, o.Idle, samples[0], slices.Min(samples), pidMiB(d.pid(), "RssAnon"), pidMiB(d.pid(), "RssFile"))
	d.stop()
	if o.Alerts {
		if err := env.idleAlerts(ctx, o, sim, set, admin); err != nil {
			return err
		}
	}

	// Requests per tick: the same daemon (same mirror, same webhook) on a
	// short schedule, counted by the bank between the ends of sync runs.
	const every = 3 * time.Second
	vars = benchChildEnv(env.Environ, user, map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token, "DB": db,
		"LISTEN": listen, "ADMIN_LISTEN": admin, "LOG_LEVEL": "warn", "SYNC_SCHEDULE": "@every " + every.String()}, o.MemLimit)
	d, err = env.startServeChild(ctx, vars)
	if err != nil {
		return err
	}
	defer d.stop()
	count := func() (int64, error) {
		var n int64
		err := st.Reader().QueryRowContext(ctx, "SELECT count(*) FROM sync_runs WHERE finished_at IS NOT NULL").Scan(&n)
		return n, err
	}
	waitRuns := func(target int64) error {
		for {
			c, err := count()
			if err != nil || c >= target {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
			if d.exited() {
				return fmt.Errorf("the daemon exited")
			}
		}
	}
	c0, err := count()
	if err != nil {
		return err
	}
	// The start-up sync, then one tick to settle.
	if err := waitRuns(c0 + 2); err != nil {
		return err
	}
	before, err := sim.requestCounts(ctx)
	if err != nil {
		return err
	}
	if err := waitRuns(c0 + 2 + int64(o.Ticks)); err != nil {
		return err
	}
	after, err := sim.requestCounts(ctx)
	if err != nil {
		return err
	}
	diff, total := requestDiff(before, after)
	perTick := float64(total) / float64(o.Ticks)
	perHour, err := ticksPerHour(cfg.SyncSchedule)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "requests per tick (incremental sync + heal of 1 webhook): %.1f over %d ticks (%s)\n", perTick, o.Ticks, formatCounts(diff))
	fmt.Fprintf(w, "idle hour: %.0f ticks/hour (BANKMIRROR_SYNC_SCHEDULE=%q) x %.1f = %.0f requests; target at most 10\n",
		perHour, cfg.SyncSchedule, perTick, perHour*perTick)
	fmt.Fprintf(w, "plus, once a day (BANKMIRROR_RECONCILE_SCHEDULE=%q), the full reconciliation: %d requests for %d transactions (the backfill's count)\n",
		cfg.ReconcileSchedule, runs[0].Requests, o.Transactions)
	return nil
}

// ticksPerHour is how many times a cron schedule fires in an hour,
// counted over a day.
func ticksPerHour(spec string) (float64, error) {
	s, err := cron.ParseStandard(spec)
	if err != nil {
		return 0, fmt.Errorf("sync schedule: %w", err)
	}
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	for t := s.Next(from); t.Before(from.Add(24 * time.Hour)); t = s.Next(t) {
		n++
	}
	return float64(n) / 24, nil
}

// benchChildEnv is the environment of a bankmirror child: this process's,
// without BANKMIRROR_* and GOMEMLIMIT, plus the user's settings, set, and
// GOMEMLIMIT=memLimit unless "off".
func benchChildEnv(environ map[string]string, user []string, set map[string]string, memLimit string) []string {
	var env []string
	for k, v := range environ {
		if strings.HasPrefix(k, config.Prefix) || k == "GOMEMLIMIT" || k == "NOTIFY_SOCKET" || k == "WATCHDOG_USEC" {
			continue
		}
		env = append(env, k+"="+v)
	}
	env = append(env, user...)
	for k, v := range set {
		env = append(env, config.Prefix+k+"="+v)
	}
	if memLimit != "off" {
		env = append(env, "GOMEMLIMIT="+memLimit)
	}
	return env
}

// runChild runs `bankmirror args...` to completion, with vars added to
// its environment.
func (env Env) runChild(ctx context.Context, vars []string, args ...string) (string, error) {
	cmd, err := env.Command(ctx, args...)
	if err != nil {
		return "", err
	}
	cmd.Env = append(cmd.Env, vars...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

// serveChild is `bankmirror serve` in a child process.
type serveChild struct {
	cmd  interface{ Wait() error }
	proc *os.Process
	done chan struct{}
}

// startServeChild starts `bankmirror serve args...` with vars added to
// its environment.
func (env Env) startServeChild(ctx context.Context, vars []string, args ...string) (*serveChild, error) {
	cmd, err := env.Command(ctx, append([]string{"serve"}, args...)...)
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, vars...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start serve: %w", err)
	}
	c := &serveChild{cmd: cmd, proc: cmd.Process, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

func (c *serveChild) pid() int { return c.proc.Pid }

// serveMemory is what a serve child holds, in MiB: VmRSS, RssAnon,
// RssFile and VmHWM.
type serveMemory struct{ rss, anon, file, hwm float64 }

// serveSettled starts `bankmirror serve args...` with vars, waits until
// it is ready (its admin listener's /readyz), runs work, lets it settle
// for settle, reads its memory and stops it.
func (env Env) serveSettled(ctx context.Context, vars []string, admin string, settle time.Duration,
	work func(context.Context, *serveChild) error, args ...string) (serveMemory, error) {
	d, err := env.startServeChild(ctx, vars, args...)
	if err != nil {
		return serveMemory{}, err
	}
	defer d.stop()
	if err := waitHTTP(ctx, "http://"+admin+"/readyz", 10*time.Minute, d); err != nil {
		return serveMemory{}, err
	}
	if err := work(ctx, d); err != nil {
		return serveMemory{}, err
	}
	select {
	case <-ctx.Done():
		return serveMemory{}, ctx.Err()
	case <-d.done:
		return serveMemory{}, errors.New("serve exited")
	case <-time.After(settle):
	}
	p := d.pid()
	return serveMemory{rss: pidMiB(p, "VmRSS"), anon: pidMiB(p, "RssAnon"), file: pidMiB(p, "RssFile"), hwm: pidMiB(p, "VmHWM")}, nil
}

// kill kills the daemon (SIGKILL: no shutdown, as a crash) and waits for
// it to be gone.
func (c *serveChild) kill() {
	_ = c.proc.Kill()
	<-c.done
}

func (c *serveChild) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// stop asks the daemon to stop (SIGINT) and waits for it, killing it
// after childStopGrace.
func (c *serveChild) stop() {
	if c.exited() {
		return
	}
	_ = c.proc.Signal(os.Interrupt)
	select {
	case <-c.done:
	case <-time.After(childStopGrace):
		_ = c.proc.Kill()
		<-c.done
	}
}

// waitHTTP waits until url answers 200.
func waitHTTP(ctx context.Context, url string, limit time.Duration, c *serveChild) error {
	hc := &http.Client{Timeout: 30 * time.Second}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if c.exited() {
			return fmt.Errorf("the daemon exited")
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := hc.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s not 200 within %s", url, limit)
}

// freeAddrs returns two free loopback addresses.
func freeAddrs() (string, string, error) {
	var addrs []string
	for range 2 {
		ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
		if err != nil {
			return "", "", fmt.Errorf("free port: %w", err)
		}
		addrs = append(addrs, ln.Addr().String())
		defer ln.Close()
	}
	return addrs[0], addrs[1], nil
}

// pidMiB reads a memory figure (VmRSS, VmHWM, RssAnon) of process pid in
// MiB; 0 when it cannot.
func pidMiB(pid int, field string) float64 {
	mib, _ := procinfo.StatusMiB(procinfo.StatusPath(pid), field)
	return mib
}
