package bench

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
)

// BurstRestarts is Burst with the daemon killed (SIGKILL, as a crash or
// the OOM killer does) o.Restarts times during the burst, evenly spread
// over its changes, and restarted at once: `bankmirror serve` in a child
// process, with the default settings, on the same address, so the bank's
// retries of the deliveries that failed meanwhile reach the new process.
// It reports the bank requests used by every process, start-up syncs
// included, against one GET per transaction the events name.
func BurstRestarts(ctx context.Context, env Env, o BurstOptions) error {
	sim, done, err := env.setup(ctx, &o.Dir, o.Transactions, "--webhook-retry", "200ms,2s,20")
	if err != nil {
		return err
	}
	defer done()
	listen, admin, err := freeAddrs()
	if err != nil {
		return err
	}
	db := filepath.Join(o.Dir, "burst.db")
	set := map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token, "LISTEN": listen, "ADMIN_LISTEN": admin, "DB": db}
	cfg, user, err := env.config(set)
	if err != nil {
		return err
	}
	plan := newBurstPlan(o.Events, o.Seed)
	w := env.Stdout
	fmt.Fprintf(w, "bench burst: %d changes making %d events (%s) over %s, %.0f%% delivered twice, every batch reordered; the daemon killed (SIGKILL) %d times during it and restarted at once; bank of %d transactions in a child process with %s requests/hour of headroom\n",
		plan.ops(), plan.events(), plan, o.Duration, 100*plan.duplicate(o.Events), o.Restarts, o.Transactions, benchHeadroom[1])
	fmt.Fprintln(w, settingsLine(user))
	fmt.Fprintf(w, "repeat: bankmirror bench burst --events %d --transactions %d --duration %s --seed %d --restarts %d\n", o.Events, o.Transactions, o.Duration, o.Seed, o.Restarts)

	// The mirror a running daemon has: synced, its webhook registered.
	if err := syncTemplate(ctx, env.Log, cfg, db); err != nil {
		return err
	}
	hook, err := daemonClient(cfg, env.Log).CreateWebhook(ctx, "http://"+listen+cfg.WebhookPath, nil)
	if err != nil {
		return fmt.Errorf("register the webhook: %w", err)
	}
	if err := saveWebhook(ctx, db, store.Webhook{ID: hook.ID, URL: hook.URL, SecretKey: hook.SecretKey, CreatedAt: hook.CreatedAt}); err != nil {
		return err
	}
	ro, err := store.OpenReadOnlyDB(ctx, db)
	if err != nil {
		return err
	}
	defer ro.Close()

	var synced int
	if err := ro.QueryRowContext(ctx, "SELECT count(*) FROM sync_runs WHERE status = ?", store.RunOK).Scan(&synced); err != nil {
		return fmt.Errorf("read sync runs: %w", err)
	}
	vars := benchChildEnv(env.Environ, user, map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token, "DB": db,
		"LISTEN": listen, "ADMIN_LISTEN": admin, "LOG_LEVEL": "warn"}, "24MiB")
	child, err := env.startServeChild(ctx, vars)
	if err != nil {
		return err
	}
	defer func() { child.stop() }()
	if err := waitStartupSync(ctx, ro, child, synced); err != nil {
		return err
	}
	faults := map[string]any{"duplicate": plan.duplicate(o.Events), "duplicateCopies": 1, "reorder": true}
	if err := sim.control(ctx, http.MethodPut, "/webhook-faults", faults, nil); err != nil {
		return err
	}
	before, err := sim.requestCounts(ctx)
	if err != nil {
		return err
	}

	start := time.Now()
	var kills []time.Duration
	total := plan.ops()
	next := 1
	restart := func(n int) error {
		if next > o.Restarts || n < next*total/(o.Restarts+1) {
			return nil
		}
		next++
		kills = append(kills, time.Since(start))
		child.kill()
		var err error
		child, err = env.startServeChild(ctx, vars)
		return err
	}
	if err := plan.runHook(ctx, sim, o.Duration, restart); err != nil {
		return err
	}
	changed := time.Since(start)
	if err := sim.deliverAll(ctx, o.Timeout); err != nil {
		return err
	}
	delivered := time.Now()

	var diff string
	exact := false
	var conv time.Duration
	for deadline := delivered.Add(o.Timeout); ; time.Sleep(20 * time.Millisecond) {
		var pending int
		if err := ro.QueryRowContext(ctx, "SELECT count(*) FROM webhook_events WHERE processed_at IS NULL").Scan(&pending); err != nil {
			return fmt.Errorf("read the inbox: %w", err)
		}
		if pending == 0 {
			if diff, err = mirrorDiff(ctx, sim, ro); err != nil {
				return err
			}
			if diff == "" {
				exact, conv = true, time.Since(delivered)
				break
			}
		}
		if time.Now().After(deadline) || child.exited() {
			if diff == "" {
				diff = fmt.Sprintf("%d events pending", pending)
			}
			break
		}
	}
	// The balance refresh follows the last apply; give it its second.
	balances := ""
	for deadline := time.Now().Add(o.Timeout); ; time.Sleep(20 * time.Millisecond) {
		if balances, err = balanceDiff(ctx, sim, ro); err != nil {
			return err
		}
		if balances == "" || time.Now().After(deadline) {
			break
		}
	}
	if balances == "" {
		balances = "equal to the bank's"
	}
	after, err := sim.requestCounts(ctx)
	if err != nil {
		return err
	}
	used, requests := requestDiff(before, after)
	st, err := burstStats(ctx, sim, hook.ID)
	if err != nil {
		return err
	}
	var syncs int
	_ = ro.QueryRowContext(ctx, "SELECT count(*) FROM sync_runs").Scan(&syncs)

	fmt.Fprintf(w, "burst: changes made in %.1fs, the daemon killed at %s; %d events (%s) delivered %d times (%d duplicates, %d attempts not answered 200) over %.1fs\n",
		changed.Seconds(), formatDurations(kills), st.events, formatCounts(st.byType), st.delivered, st.duplicates, st.failed, delivered.Sub(start).Seconds())
	result := fmt.Sprintf("%.0f ms after the bank had nothing left to deliver", benchMs(conv))
	if !exact {
		result = fmt.Sprintf("NOT exact %s after the last delivery: %s", o.Timeout, diff)
	}
	fmt.Fprintf(w, "\n| events (deliveries) | restarts | transactions referenced | baseline: 1 GET each | bank requests used | per transaction | exact mirror | balances |\n|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| %d (%d) | %d (kill -9) | %d | %d | %d | %.2f | %s | %s |\n\n",
		st.events, st.delivered, o.Restarts, st.distinct, st.distinct, requests, float64(requests)/float64(st.distinct), result, balances)
	fmt.Fprintf(w, "requests by route: %s\n", cmpOrString(formatCounts(used), "none"))
	fmt.Fprintf(w, "every process's requests count, their start-up syncs included (%d sync runs in the mirror, the first before the burst)\n", syncs)
	return nil
}

// waitStartupSync waits until the mirror at ro records more than before
// successful sync runs, or the daemon exits.
func waitStartupSync(ctx context.Context, ro *sql.DB, child *serveChild, before int) error {
	for {
		var n int
		err := ro.QueryRowContext(ctx, "SELECT count(*) FROM sync_runs WHERE status = ?", store.RunOK).Scan(&n)
		if err == nil && n > before {
			return nil
		}
		if child.exited() {
			return fmt.Errorf("the daemon exited before its start-up sync finished")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// saveWebhook records a registered webhook (and its secret) in the mirror
// at path, as `bankmirror webhook register` does.
func saveWebhook(ctx context.Context, path string, h store.Webhook) error {
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	if err := st.SaveWebhook(ctx, h); err != nil {
		st.Close()
		return err
	}
	return st.Close()
}

// formatDurations is "1.0s, 2.1s".
func formatDurations(ds []time.Duration) string {
	s := ""
	for i, d := range ds {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.1fs", d.Seconds())
	}
	return s
}
