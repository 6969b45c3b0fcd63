package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/feeds/actual/actualserver"
	"github.com/bankmirror/bankmirror/internal/procinfo"
	"github.com/bankmirror/bankmirror/internal/store"
)

// FeedsOptions are bench feeds' settings.
type FeedsOptions struct {
	Apps         []string // "actual", "ynab", in the order measured
	Transactions int      // in the simulated bank, pushed first
	Purchases    int      // made one at a time with serve running, timed to visible in the app
	Dir          string   // for the mirrors and the apps' files; "" makes a temporary one
}

// FeedApps is the apps --app names: actual, ynab, or both (YNAB first).
func FeedApps(app string) ([]string, bool) {
	switch app {
	case "both":
		return []string{"ynab", "actual"}, true
	case "actual", "ynab":
		return []string{app}, true
	}
	return nil, false
}

// Figures of bench feeds that are settings, not measurements.
const (
	// feedsMemLimit is the daemon's GOMEMLIMIT, as the systemd unit sets it.
	feedsMemLimit = "24MiB"
	// feedsSettle is how long serve runs after its round's last purchase
	// before its RSS is read.
	feedsSettle = 10 * time.Second
	// feedsVisibleLimit is how long a purchase may take to reach the app
	// before the bench says the feed did not catch up.
	feedsVisibleLimit = 15 * time.Minute
	// feedsRounds are the rounds of (serve --no-feeds, serve with the
	// feed), alternated.
	feedsRounds = 2
)

// Feeds measures the feeds as a household runs them, every part a child
// process of this binary with the default settings (the bank's request
// budget on, the simulated bank reporting ample headroom), app by app:
//
//  1. the first push of the simulated bank's history (`bankmirror feeds
//     push NAME` after `sync --no-feeds`): wall time beside the sync's,
//     the CPU and peak RSS of bankmirror and of its Node children apart
//     (Actual), the requests the app received (counted by a proxy in
//     front of it), then `feeds check NAME`;
//  2. a purchase by webhook to visible in the app: `bankmirror serve` with
//     the feed, the simulated bank delivering signed webhooks, purchases
//     one at a time, each timed until another client of the app sees its
//     row (Actual: a second @actual-app/api client syncing; YNAB: a GET of
//     the fake's transactions after each write the feed made);
//  3. serve's RSS with and without the feed (`serve --no-feeds`, the same
//     mirror and purchases), alternated, and the Node processes' apart.
//
// Actual is the real sync-server and @actual-app/api of the folder
// BANKMIRROR_TEST_ACTUAL_DIR names; YNAB is the fake `bankmirror
// simulator --ynab` serves.
func Feeds(ctx context.Context, env Env, o FeedsOptions) error {
	actualDir := env.Environ[actualserver.DirVar]
	if slices.Contains(o.Apps, "actual") {
		if err := actualserver.CheckDir(actualDir); err != nil {
			return fmt.Errorf("bench feeds --app actual needs the real Actual (.ci/install-actual.sh): %w", err)
		}
	}
	cleanup, err := benchDir(&o.Dir)
	if err != nil {
		return err
	}
	defer cleanup()
	user := feedsUserSettings(env.Environ)
	w := env.Stdout
	fmt.Fprintf(w, "bench feeds: %s; a first push of %d simulated transactions; %d purchases one at a time by webhook to serve with the feed, timed to visible in the app, and as many to serve --no-feeds, alternated in %d rounds, for the daemon's RSS with and without the feed (GOMEMLIMIT=%s); every part a child process of this binary\n",
		strings.Join(o.Apps, " then "), o.Transactions, o.Purchases, feedsRounds, feedsMemLimit)
	fmt.Fprintln(w, settingsLine(user))
	fmt.Fprintf(w, "repeat: bankmirror bench feeds --app %s --transactions %d --purchases %d\n", appFlag(o.Apps), o.Transactions, o.Purchases)
	for _, name := range o.Apps {
		fb := &feedsBench{env: env, o: o, user: user, name: name, dir: filepath.Join(o.Dir, name), actualDir: actualDir}
		err := fb.run(ctx)
		fb.close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// appFlag is --app's value for apps.
func appFlag(apps []string) string {
	if len(apps) == 2 {
		return "both"
	}
	return apps[0]
}

// feedsUserSettings are the BANKMIRROR_* variables the user set that the
// children get as they are (the bench sets where the bank, the mirror,
// the listeners, the feeds file and node are).
func feedsUserSettings(environ map[string]string) []string {
	own := append(slices.Clone(benchOwnVars), "FEEDS_FILE", "NODE", "LOG_LEVEL", "LOG_FORMAT")
	var user []string
	for k, v := range environ {
		name, ok := strings.CutPrefix(k, config.Prefix)
		if !ok || slices.Contains(own, name) || strings.HasPrefix(name, "SIM_") || strings.HasPrefix(name, "TEST_") {
			continue
		}
		user = append(user, k+"="+v)
	}
	slices.Sort(user)
	return user
}

// feedsBench is one app's run.
type feedsBench struct {
	env       Env
	o         FeedsOptions
	user      []string
	name      string // the app, and the feed's name
	dir       string
	actualDir string

	sim    *benchSim
	proxy  *countingProxy
	db     string
	file   string // the feeds file
	node   string // the stand-in for node (Actual), "" for none
	usage  string // the stand-in's usage file
	server *actualserver.Server
	reader appReader
	stops  []func()
}

// appReader is another client of the app.
type appReader interface {
	// mark notes where the app stands, so that seen finds what comes
	// after.
	mark(ctx context.Context) error
	// seen returns once the client sees the row of bank transaction id.
	seen(ctx context.Context, id string) error
}

func (fb *feedsBench) close() {
	for i := len(fb.stops) - 1; i >= 0; i-- {
		fb.stops[i]()
	}
}

func (fb *feedsBench) run(ctx context.Context) error {
	if err := os.MkdirAll(fb.dir, 0o700); err != nil {
		return err
	}
	var extra []string
	if fb.name == "ynab" {
		extra = append(extra, "--ynab")
	}
	sim, err := fb.env.startSim(ctx, fb.o.Transactions, extra...)
	if err != nil {
		return err
	}
	fb.sim = sim
	fb.stops = append(fb.stops, sim.stop)
	fb.db = filepath.Join(fb.dir, "mirror.db")
	fb.file = filepath.Join(fb.dir, "feeds.toml")
	fb.usage = filepath.Join(fb.dir, "node-usage.jsonl")
	accounts, err := sim.accounts(ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, a := range accounts {
		names = append(names, a.DisplayName)
	}
	switch fb.name {
	case "actual":
		err = fb.prepareActual(ctx, names)
	default:
		err = fb.prepareYNAB(ctx, names)
	}
	if err != nil {
		return err
	}
	if err := fb.firstPush(ctx); err != nil {
		return err
	}
	return fb.serveRounds(ctx)
}

// vars are a child's environment: the user's settings and the bench's.
func (fb *feedsBench) vars(set map[string]string) []string {
	all := map[string]string{"API_URL": fb.sim.apiURL, "TOKEN": fb.sim.token, "DB": fb.db, "FEEDS_FILE": fb.file, "LOG_LEVEL": "warn"}
	if fb.node != "" {
		all["NODE"] = fb.node
	}
	for k, v := range set {
		all[k] = v
	}
	return benchChildEnv(fb.env.Environ, fb.user, all, feedsMemLimit)
}

// feedsFile writes the feeds file: one feed, named as the app, of the
// accounts given (bank display name = app account name).
func (fb *feedsBench) feedsFile(kind, url, secretKey, secret, budget string, accounts []string) error {
	secretFile := fb.name + "-secret"
	if err := os.WriteFile(filepath.Join(fb.dir, secretFile), []byte(secret), 0o600); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[[feed]]\nname = %q\nkind = %q\nurl = %q\n%s = %q\nbudget = %q\n\n[feed.accounts]\n", fb.name, kind, url, secretKey, secretFile, budget)
	for _, a := range accounts {
		fmt.Fprintf(&b, "%q = %q\n", a, a)
	}
	return os.WriteFile(fb.file, []byte(b.String()), 0o600)
}

// firstPush is part 1: sync --no-feeds (the baseline), then feeds push,
// then feeds check.
func (fb *feedsBench) firstPush(ctx context.Context) error {
	w := fb.env.Stdout
	base, err := fb.env.timedChild(ctx, fb.vars(nil), "sync", "--no-feeds")
	if err != nil {
		return fmt.Errorf("sync --no-feeds: %w", err)
	}
	req0, _ := fb.proxy.count()
	var serverCPU0 time.Duration
	if fb.server != nil {
		serverCPU0 = procinfo.CPU(fb.server.PID())
	}
	push, err := fb.env.timedChild(ctx, fb.vars(nil), "feeds", "push", fb.name)
	if err != nil {
		return fmt.Errorf("feeds push: %w", err)
	}
	req1, _ := fb.proxy.count()
	pushed := firstLine(push.stdout, fb.name+" pushed: ")
	if pushed == "" {
		return fmt.Errorf("feeds push printed no summary: %s", push.stdout)
	}
	created, _ := strconv.Atoi(strings.Fields(strings.TrimPrefix(pushed, fb.name+" pushed: "))[0])
	requests := req1 - req0
	fmt.Fprintf(w, "%s first push: %s\n", fb.name, strings.TrimPrefix(pushed, fb.name+" "))
	fmt.Fprintf(w, "%s first push: %d transactions in %.1f s wall; baseline sync --no-feeds of the same history %.1f s wall (%.1f s CPU); ratio %.1fx\n",
		fb.name, created, push.wall.Seconds(), base.wall.Seconds(), base.cpu.Seconds(), push.wall.Seconds()/base.wall.Seconds())
	switch fb.name {
	case "actual":
		uses, err := readNodeUse(fb.usage, 0)
		if err != nil {
			return err
		}
		n := summarizeNode(uses)
		own := push.cpu - n.cpu - n.standIn
		fmt.Fprintf(w, "actual first push: CPU bankmirror %.1f s, Node %.1f s (%d sessions, each a node process: peak RSS max %.0f MiB, median %.0f MiB), Actual's sync-server %.1f s; bankmirror peak RSS %.1f MiB (sampled)\n",
			own.Seconds(), n.cpu.Seconds(), n.sessions, n.maxRSS, n.medianRSS, (procinfo.CPU(fb.server.PID()) - serverCPU0).Seconds(), push.peak)
		fmt.Fprintf(w, "actual first push: %d HTTP requests to the sync-server (%.1f per 1,000 transactions)\n",
			requests, perThousand(requests, created))
	default:
		fmt.Fprintf(w, "ynab first push: CPU bankmirror %.1f s; peak RSS %.1f MiB\n", push.cpu.Seconds(), push.maxRSS)
		fmt.Fprintf(w, "ynab first push: %d requests to YNAB (%.1f per 1,000 transactions; target at most 5)\n",
			requests, perThousand(requests, created))
	}
	return fb.check(ctx, "after the first push")
}

// check runs feeds check and prints its verdict.
func (fb *feedsBench) check(ctx context.Context, when string) error {
	out, err := fb.env.runChild(ctx, fb.vars(nil), "feeds", "check", fb.name)
	line := firstLine(out, fb.name+": ")
	if line == "" {
		return fmt.Errorf("feeds check: %w: %s", err, out)
	}
	fmt.Fprintf(fb.env.Stdout, "%s check %s: %s\n", fb.name, when, strings.TrimPrefix(line, fb.name+": "))
	return nil
}

func perThousand(n int64, of int) float64 { return 1000 * float64(n) / float64(max(of, 1)) }

// firstLine is the first line of out starting with prefix, "" when none.
func firstLine(out, prefix string) string {
	for line := range strings.SplitSeq(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// nodeSummary sums the node processes of client sessions.
type nodeSummary struct {
	sessions          int
	cpu, standIn      time.Duration
	maxRSS, medianRSS float64
}

func summarizeNode(uses []nodeUse) nodeSummary {
	var s nodeSummary
	var rss []float64
	for _, u := range uses {
		if u.Script != "bankmirror-actual.cjs" {
			continue
		}
		s.sessions++
		s.cpu += time.Duration(u.CPU * float64(time.Second))
		s.standIn += time.Duration(u.StandIn * float64(time.Second))
		rss = append(rss, u.MaxRSS)
	}
	if len(rss) > 0 {
		s.maxRSS, s.medianRSS = slices.Max(rss), median(rss)
	}
	return s
}

// serveRounds are parts 2 and 3: rounds of serve --no-feeds then serve
// with the feed, each making its share of the purchases; the RSS of each
// after its last purchase.
func (fb *feedsBench) serveRounds(ctx context.Context) error {
	w := fb.env.Stdout
	listen, admin, err := freeAddrs()
	if err != nil {
		return err
	}
	path := fb.env.Environ[config.Prefix+"WEBHOOK_PATH"]
	if path == "" {
		path = "/webhook"
	}
	if out, err := fb.env.runChild(ctx, fb.vars(map[string]string{"LISTEN": listen}), "webhook", "register", "--url", "http://"+listen+path); err != nil {
		return fmt.Errorf("register a webhook: %w: %s", err, out)
	}
	st, err := store.OpenReadOnly(ctx, fb.db)
	if err != nil {
		return err
	}
	defer st.Close()
	vars := fb.vars(map[string]string{"LISTEN": listen, "ADMIN_LISTEN": admin})
	var latencies, mirrored []time.Duration
	var without, with []float64
	var withAnon, withoutAnon []float64
	var serveNode []nodeUse
	made := 0
	for round := 1; round <= feedsRounds; round++ {
		n := fb.o.Purchases / feedsRounds
		if round <= fb.o.Purchases%feedsRounds {
			n++
		}
		// Without the feed: serve --no-feeds on a copy of the mirror as
		// it stands (serve --no-feeds forgets every feed's place in the
		// history), the purchases reaching the mirror only.
		rss, anon, cursorBefore, cursorAfter, ids, err := fb.withoutFeed(ctx, round, listen, admin, &made, n)
		if err != nil {
			return fmt.Errorf("round %d, serve --no-feeds: %w", round, err)
		}
		without, withoutAnon = append(without, rss), append(withoutAnon, anon)
		before, err := readNodeUse(fb.usage, 0)
		if err != nil {
			return err
		}
		var lat []time.Duration
		var catchUp time.Duration
		rss, anon, err = fb.serveRound(ctx, vars, admin, true, func(ctx context.Context) error {
			// The purchases of serve --no-feeds reach the app first, so
			// that each timed purchase waits for no round but its own.
			start := time.Now()
			for _, id := range ids {
				if err := waitMirrored(ctx, st, id); err != nil {
					return err
				}
			}
			if err := waitCaughtUp(ctx, st, fb.name); err != nil {
				return err
			}
			catchUp = time.Since(start)
			for range n {
				made++
				if err := fb.reader.mark(ctx); err != nil {
					return err
				}
				start := time.Now()
				id, err := fb.sim.purchase(ctx, fmt.Sprintf("Bench purchase %d", made), -1000-int64(made))
				if err != nil {
					return err
				}
				// In the mirror first (the webhook's way), then in the
				// app: the reader is asked once the feed can have it.
				if err := waitMirrored(ctx, st, id); err != nil {
					return err
				}
				mirrored = append(mirrored, time.Since(start))
				vctx, cancel := context.WithTimeout(ctx, feedsVisibleLimit)
				err = fb.reader.seen(vctx, id)
				cancel()
				if err != nil {
					return fmt.Errorf("purchase %s not visible in the app within %s (the feed did not catch up): %w", id, feedsVisibleLimit, err)
				}
				lat = append(lat, time.Since(start))
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("round %d, serve with the feed: %w", round, err)
		}
		with, withAnon = append(with, rss), append(withAnon, anon)
		latencies = append(latencies, lat...)
		uses, err := readNodeUse(fb.usage, len(before))
		if err != nil {
			return err
		}
		serveNode = append(serveNode, uses...)
		fmt.Fprintf(w, "%s round %d: %d purchases to each daemon; serve --no-feeds RSS %.1f MiB (%.1f anonymous); serve with the feed RSS %.1f MiB (%.1f anonymous); in the copy serve --no-feeds ran on, the feed's cursor was %d before and %d after; serve with the feed had the other daemon's purchases in the app %.1f s after it was ready, and ran %d Node sessions in all\n",
			fb.name, round, n, without[len(without)-1], withoutAnon[len(withoutAnon)-1], rss, anon, cursorBefore, cursorAfter, catchUp.Seconds(), summarizeNode(uses).sessions)
	}
	if len(latencies) > 0 {
		slices.Sort(latencies)
		target := ""
		if fb.name == "actual" {
			target = "; target p50 at most 10 s"
		}
		slices.Sort(mirrored)
		fmt.Fprintf(w, "%s purchase by webhook to visible in the app (%s): %d purchases, p50 %.1f s, max %.1f s%s; of which by webhook to the mirror: p50 %.2f s, max %.2f s\n",
			fb.name, fb.readerWhat(), len(latencies), benchPercentile(latencies, 50).Seconds(), latencies[len(latencies)-1].Seconds(), target,
			benchPercentile(mirrored, 50).Seconds(), mirrored[len(mirrored)-1].Seconds())
	}
	fmt.Fprintf(w, "%s daemon RSS (bankmirror serve, GOMEMLIMIT=%s, %s after its last purchase; medians of %d rounds): without the feed %.1f MiB, with the feed %.1f MiB (%+.1f MiB); anonymous %.1f and %.1f MiB\n",
		fb.name, feedsMemLimit, feedsSettle, feedsRounds, median(without), median(with), median(with)-median(without), median(withoutAnon), median(withAnon))
	if fb.name == "actual" {
		n := summarizeNode(serveNode)
		fmt.Fprintf(w, "actual Node processes of serve (a process per session, apart from the daemon): %d sessions, peak RSS max %.0f MiB, median %.0f MiB; CPU %.1f s in all\n",
			n.sessions, n.maxRSS, n.medianRSS, n.cpu.Seconds())
	}
	return fb.check(ctx, "after the purchases")
}

// withoutFeed runs serve --no-feeds on a copy of the mirror and makes n
// purchases, each waited for in that mirror; it returns the daemon's RSS
// and anonymous RSS, the feed's cursor in the copy before and after, and
// the purchases.
func (fb *feedsBench) withoutFeed(ctx context.Context, round int, listen, admin string, made *int, n int) (
	rss, anon float64, before, after int64, ids []string, err error) {
	db := filepath.Join(fb.dir, fmt.Sprintf("no-feeds-%d.db", round))
	// The mirror, its WAL and its secrets (the webhook's, kept beside it).
	files := []string{"", "-wal", ".secrets"}
	defer func() {
		removeDB(db)
		_ = os.Remove(db + ".secrets")
	}()
	for _, suffix := range files {
		if err := copyFile(db+suffix, fb.db+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, 0, 0, 0, nil, err
		}
	}
	st, err := store.OpenReadOnly(ctx, db)
	if err != nil {
		return 0, 0, 0, 0, nil, err
	}
	defer st.Close()
	if before, err = feedCursor(ctx, st, fb.name); err != nil {
		return 0, 0, 0, 0, nil, err
	}
	vars := fb.vars(map[string]string{"LISTEN": listen, "ADMIN_LISTEN": admin, "DB": db})
	rss, anon, err = fb.serveRound(ctx, vars, admin, false, func(ctx context.Context) error {
		for range n {
			*made++
			id, err := fb.sim.purchase(ctx, fmt.Sprintf("Bench purchase %d", *made), -1000-int64(*made))
			if err != nil {
				return err
			}
			if err := waitMirrored(ctx, st, id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return 0, 0, 0, 0, nil, err
	}
	after, err = feedCursor(ctx, st, fb.name)
	return rss, anon, before, after, ids, err
}

func (fb *feedsBench) readerWhat() string {
	if fb.name == "actual" {
		return "a second @actual-app/api client syncing with the server sees the imported_id"
	}
	return "a GET of the fake's transactions, after each write of the feed, sees the import_id"
}

// serveRound runs serve (with the feed or --no-feeds) until it is ready,
// runs work, lets it settle, and reads its RSS and anonymous RSS.
func (fb *feedsBench) serveRound(ctx context.Context, vars []string, admin string, withFeed bool,
	work func(context.Context) error) (rss, anon float64, err error) {
	var args []string
	if !withFeed {
		args = append(args, "--no-feeds")
	}
	m, err := fb.env.serveSettled(ctx, vars, admin, feedsSettle, func(ctx context.Context, _ *serveChild) error { return work(ctx) }, args...)
	return m.rss, m.anon, err
}

// waitMirrored waits until the mirror has transaction id.
func waitMirrored(ctx context.Context, st *store.Store, id string) error {
	deadline := time.Now().Add(feedsVisibleLimit)
	for {
		txs, err := st.FeedTransactions(ctx, []string{id})
		if err != nil {
			return err
		}
		if len(txs) > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("purchase %s not in the mirror within %s", id, feedsVisibleLimit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// feedCursor is the feed's place in the history (0: none).
func feedCursor(ctx context.Context, st *store.Store, feed string) (int64, error) {
	sts, err := st.FeedStatuses(ctx, []string{feed})
	if err != nil {
		return 0, err
	}
	return sts[0].Cursor, nil
}

// waitCaughtUp waits until the feed has pushed the whole history.
func waitCaughtUp(ctx context.Context, st *store.Store, feed string) error {
	deadline := time.Now().Add(feedsVisibleLimit)
	for {
		last, err := st.LastHistorySeq(ctx)
		if err != nil {
			return err
		}
		sts, err := st.FeedStatuses(ctx, []string{feed})
		if err != nil {
			return err
		}
		if s := sts[0]; s.Cursor >= last && s.Pending == 0 {
			return nil
		} else if time.Now().After(deadline) {
			return fmt.Errorf("the feed did not catch up within %s: at %d of %d in the history, %d pending, last error %q",
				feedsVisibleLimit, s.Cursor, last, s.Pending, s.LastError)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// childRun is what a child process used.
type childRun struct {
	stdout string
	wall   time.Duration
	cpu    time.Duration // user + system, its waited-for children's included
	maxRSS float64       // MiB, the peak of it and its waited-for children
	peak   float64       // MiB, its own peak RSS, sampled (VmHWM)
}

// timedChild runs `bankmirror args...` to completion, timing it and
// sampling its own peak RSS.
func (env Env) timedChild(ctx context.Context, vars []string, args ...string) (childRun, error) {
	cmd, err := env.Command(ctx, args...)
	if err != nil {
		return childRun{}, err
	}
	cmd.Env = append(cmd.Env, vars...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return childRun{}, fmt.Errorf("start %s: %w", args[0], err)
	}
	var r childRun
	var mu sync.Mutex
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if v := pidMiB(cmd.Process.Pid, "VmHWM"); v > 0 {
				mu.Lock()
				r.peak = max(r.peak, v)
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	<-sampled
	r.wall = time.Since(start)
	r.stdout = stdout.String()
	if err != nil {
		return r, fmt.Errorf("%w\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), lastLines(stderr.String(), 30))
	}
	ps := cmd.ProcessState
	r.cpu, r.maxRSS = ps.UserTime()+ps.SystemTime(), maxRSSMiB(ps)
	return r, nil
}

// lastLines is s's last n lines.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
