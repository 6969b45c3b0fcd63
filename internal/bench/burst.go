package bench

import (
	"context"
	"database/sql"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/store"
)

// BurstOptions are bench burst's settings.
type BurstOptions struct {
	Events       int           // deliveries in the burst, duplicates included
	Transactions int           // in the simulated bank before the burst
	Duration     time.Duration // the bank takes to make the burst's changes
	Timeout      time.Duration // to wait for an exact mirror after the last delivery
	Seed         uint64        // of the burst's choices
	Dir          string        // for the mirror; "" makes a temporary one
	Restarts     int           // kill -9 of the daemon during the burst (BurstRestarts)
}

// Burst sends the daemon (as serve runs it, default settings, in this
// process) a burst of real webhook deliveries from the simulated bank in a
// child process, which has ample rate-limit headroom: new purchases
// (mostly held), settlements, settlements by DELETED+CREATED and deleted
// holds, with duplicated deliveries and every batch reordered. It reports
// the bank requests the daemon used (the bank's own record) against the
// baseline of one GET per distinct transaction the events reference, and
// the time from the last event stored to a mirror equal to the bank's
// truth.
func Burst(ctx context.Context, env Env, o BurstOptions) error {
	sim, done, err := env.setup(ctx, &o.Dir, o.Transactions, "--webhook-retry", "200ms,2s,20")
	if err != nil {
		return err
	}
	defer done()
	set := map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token, "LISTEN": "127.0.0.1:0", "ADMIN_LISTEN": "127.0.0.1:0", "DB": filepath.Join(o.Dir, "burst.db")}
	cfg, user, err := env.config(set)
	if err != nil {
		return err
	}
	plan := newBurstPlan(o.Events, o.Seed)
	w := env.Stdout
	fmt.Fprintf(w, "bench burst: %d changes making %d events (%s) over %s, %.0f%% delivered twice, every batch reordered; bank of %d transactions in a child process with %s requests/hour of headroom\n",
		plan.ops(), plan.events(), plan, o.Duration, 100*plan.duplicate(o.Events), o.Transactions, benchHeadroom[1])
	fmt.Fprintln(w, settingsLine(user))
	fmt.Fprintf(w, "repeat: bankmirror bench burst --events %d --transactions %d --duration %s --seed %d\n", o.Events, o.Transactions, o.Duration, o.Seed)

	var lastStored, lastApplied atomic.Int64
	d := daemon.New(cfg, env.Log)
	d.OnEventsStored = func([]string) { lastStored.Store(time.Now().UnixNano()) }
	d.OnEventApplied = func(store.InboxEvent, store.Change) { lastApplied.Store(time.Now().UnixNano()) }
	if err := openDaemon(ctx, d); err != nil {
		return err
	}
	defer d.Close()
	<-d.InitialSyncDone
	hook, err := d.Bank.CreateWebhook(ctx, d.URL()+cfg.WebhookPath, nil)
	if err != nil {
		return fmt.Errorf("register the webhook: %w", err)
	}
	if err := d.Store.SaveWebhook(ctx, store.Webhook{ID: hook.ID, URL: hook.URL, SecretKey: hook.SecretKey, CreatedAt: hook.CreatedAt}); err != nil {
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
	resetPeakRSS()

	start := time.Now()
	if err := plan.run(ctx, sim, o.Duration); err != nil {
		return err
	}
	changed := time.Since(start)
	if err := sim.deliverAll(ctx, o.Timeout); err != nil {
		return err
	}
	delivered := time.Now()
	last := time.Unix(0, lastStored.Load())
	deliveryPeak := procMiB("VmHWM")

	// Poll the mirror against the bank's truth. The mirror changes only
	// when the worker applies an event, so once it is exact it has been
	// since the last apply before the check.
	var conv time.Duration
	var diff string
	exact := false
	for deadline := delivered.Add(o.Timeout); ; {
		appliedBefore := lastApplied.Load()
		diff, err = mirrorDiff(ctx, sim, d.Store.Reader())
		if err != nil {
			return err
		}
		now := time.Now()
		if diff == "" {
			exact = true
			at := now
			if lastApplied.Load() == appliedBefore {
				at = time.Unix(0, max(appliedBefore, lastStored.Load()))
			}
			conv = max(at.Sub(last), 0)
			break
		}
		if now.After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	peak := procMiB("VmHWM")
	after, err := sim.requestCounts(ctx)
	if err != nil {
		return err
	}
	used, total := requestDiff(before, after)

	st, err := burstStats(ctx, sim, hook.ID)
	if err != nil {
		return err
	}
	var pending int
	_ = d.Store.Reader().QueryRowContext(ctx, "SELECT count(*) FROM webhook_events WHERE processed_at IS NULL").Scan(&pending)
	// Balances are not part of the exactness above: the daemon refreshes
	// them after applying events, on its own time.
	var balances string
	for deadline := time.Now().Add(o.Timeout); ; time.Sleep(20 * time.Millisecond) {
		if balances, err = balanceDiff(ctx, sim, d.Store.Reader()); err != nil {
			return err
		}
		if balances == "" {
			balances = fmt.Sprintf("equal to the bank's %.0f ms after the last event", benchMs(time.Since(last)))
			break
		}
		if time.Now().After(deadline) {
			balances += fmt.Sprintf(" %s after the last event", o.Timeout)
			break
		}
	}

	fmt.Fprintf(w, "burst: changes made in %.1fs; %d events (%s) delivered %d times (%d duplicates, %d attempts not answered 200) over %.1fs; the last new event stored %.0f ms before the bank had nothing left to deliver\n",
		changed.Seconds(), st.events, formatCounts(st.byType), st.delivered, st.duplicates, st.failed,
		delivered.Sub(start).Seconds(), benchMs(delivered.Sub(last)))
	result := fmt.Sprintf("%.0f ms", benchMs(conv))
	if !exact {
		result = fmt.Sprintf("NOT exact %s after the last delivery: %s; %d events still pending in the inbox", o.Timeout, diff, pending)
	}
	fmt.Fprintf(w, "\n| events (deliveries) | transactions referenced | baseline: 1 GET each | bank requests used | ratio | target | exact mirror after last event | peak RSS (to the last delivery) |\n|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| %d (%d) | %d | %d | %d | %.0f%% | <= 25%%, <= 2 s | %s | %.0f MiB (%.0f MiB) |\n\n",
		st.events, st.delivered, st.distinct, st.distinct, total, 100*float64(total)/float64(st.distinct), result, peak, deliveryPeak)
	fmt.Fprintf(w, "requests by route: %s\n", cmpOrString(formatCounts(used), "none"))
	fmt.Fprintf(w, "account balances: %s\n", balances)
	fmt.Fprintln(w, "peak RSS: this process's VmHWM from the burst's start to the exact mirror, with the harness's exactness checks (each parses the whole bank); in brackets up to the last delivery")
	return nil
}

// deliverAll has the bank deliver what it holds back, and waits up to
// timeout until it has nothing left to deliver.
func (s *benchSim) deliverAll(ctx context.Context, timeout time.Duration) error {
	if err := s.control(ctx, http.MethodPost, "/deliveries/flush", nil, nil); err != nil {
		return err
	}
	if err := s.control(ctx, http.MethodPost, "/deliveries/wait", map[string]string{"timeout": timeout.String()}, nil); err != nil {
		return fmt.Errorf("the bank could not deliver the burst: %w", err)
	}
	return nil
}

func cmpOrString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// burstPlan is how many changes of each kind the burst makes.
type burstPlan struct {
	held, settledNew, settle, replace, remove int
	rng                                       *mrand.Rand
}

// newBurstPlan sizes a burst of about target deliveries (duplicates
// included): per 1,500, 555 held purchases and 180 settled ones; of the
// holds, 375 settled, 60 settled by DELETED+CREATED and 75 deleted.
func newBurstPlan(target int, seed uint64) *burstPlan {
	f := func(x float64) int { return max(int(x*float64(target)/1500+0.5), 1) }
	return &burstPlan{held: f(555), settledNew: f(180), settle: f(375), replace: f(60), remove: f(75),
		rng: mrand.New(mrand.NewPCG(seed, 0xb0257))}
}

func (p *burstPlan) ops() int { return p.held + p.settledNew + p.settle + p.replace + p.remove }

func (p *burstPlan) events() int { return p.held + p.settledNew + p.settle + 2*p.replace + p.remove }

// duplicate is the share of events delivered twice to reach target.
func (p *burstPlan) duplicate(target int) float64 {
	return min(max(float64(target-p.events())/float64(p.events()), 0), 1)
}

func (p *burstPlan) String() string {
	return fmt.Sprintf("%d held and %d settled purchases; %d settlements, %d by DELETED+CREATED, %d deleted holds",
		p.held, p.settledNew, p.settle, p.replace, p.remove)
}

// run makes the changes through the control API, paced evenly over d in
// a random order (a hold is settled or deleted only after it was made),
// flushing the held deliveries every 250 ms so each batch arrives
// shuffled.
func (p *burstPlan) run(ctx context.Context, sim *benchSim, d time.Duration) error {
	return p.runHook(ctx, sim, d, nil)
}

// runHook is run, calling after(n) once the n-th change is made.
func (p *burstPlan) runHook(ctx context.Context, sim *benchSim, d time.Duration, after func(n int) error) error {
	left := map[string]int{"held": p.held, "settled": p.settledNew, "settle": p.settle, "replace": p.replace, "remove": p.remove}
	kinds := []string{"held", "settled", "settle", "replace", "remove"}
	var holds []string
	total := p.ops()
	start := time.Now()
	lastFlush := start
	for i := range total {
		if wait := time.Until(start.Add(d * time.Duration(i) / time.Duration(total))); wait > 0 {
			time.Sleep(wait)
		}
		if time.Since(lastFlush) >= 250*time.Millisecond {
			if err := sim.control(ctx, http.MethodPost, "/deliveries/flush", nil, nil); err != nil {
				return err
			}
			lastFlush = time.Now()
		}
		// Pick a kind in proportion to what is left; the follow-ups of
		// holds need a hold (making holds first if none is left).
		weight := 0
		for _, k := range kinds {
			if k == "held" || k == "settled" || len(holds) > 0 {
				weight += left[k]
			}
		}
		kind := ""
		for x := p.rng.IntN(max(weight, 1)); kind == ""; {
			for _, k := range kinds {
				if k != "held" && k != "settled" && len(holds) == 0 {
					continue
				}
				if x < left[k] {
					kind = k
					break
				}
				x -= left[k]
			}
			if kind == "" {
				kind = "held"
			}
		}
		left[kind]--
		var err error
		switch kind {
		case "held", "settled":
			var out struct {
				IDs []string `json:"ids"`
			}
			in := map[string]any{"description": fmt.Sprintf("Burst %d", i), "amountBaseUnits": -(100 + p.rng.IntN(20000)), "held": kind == "held"}
			if err = sim.control(ctx, http.MethodPost, "/transactions", in, &out); err == nil && kind == "held" {
				holds = append(holds, out.IDs...)
			}
		default:
			j := p.rng.IntN(len(holds))
			id := holds[j]
			holds = slices.Delete(holds, j, j+1)
			switch kind {
			case "settle":
				err = sim.control(ctx, http.MethodPost, "/transactions/"+id+"/settle", map[string]bool{}, nil)
			case "replace":
				err = sim.control(ctx, http.MethodPost, "/transactions/"+id+"/settle", map[string]bool{"replace": true}, nil)
			case "remove":
				err = sim.control(ctx, http.MethodDelete, "/transactions/"+id, nil, nil)
			}
		}
		if err != nil {
			return fmt.Errorf("burst: %w", err)
		}
		if after != nil {
			if err := after(i + 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// burstFigures are the bank's record of the burst.
type burstFigures struct {
	events, distinct, delivered, duplicates, failed int
	byType                                          map[string]int64
}

// burstStats reads the events and delivery attempts of webhook hookID.
func burstStats(ctx context.Context, sim *benchSim, hookID string) (burstFigures, error) {
	var evs struct {
		Data []struct {
			Type          string `json:"eventType"`
			TransactionID string `json:"transactionId"`
			WebhookID     string `json:"webhookId"`
		} `json:"data"`
	}
	if err := sim.control(ctx, http.MethodGet, "/events", nil, &evs); err != nil {
		return burstFigures{}, err
	}
	f := burstFigures{byType: map[string]int64{}}
	txs := map[string]bool{}
	for _, e := range evs.Data {
		if e.WebhookID != hookID || e.TransactionID == "" {
			continue
		}
		f.events++
		f.byType[e.Type]++
		txs[e.TransactionID] = true
	}
	f.distinct = len(txs)
	var dels struct {
		Data []struct {
			Duplicate      bool   `json:"duplicate"`
			DeliveryStatus string `json:"deliveryStatus"`
		} `json:"data"`
	}
	if err := sim.control(ctx, http.MethodGet, "/deliveries?webhook="+hookID, nil, &dels); err != nil {
		return f, err
	}
	for _, d := range dels.Data {
		switch {
		case d.DeliveryStatus != "DELIVERED":
			f.failed++
		case d.Duplicate:
			f.duplicates++
			f.delivered++
		default:
			f.delivered++
		}
	}
	return f, nil
}

// mirrorDiff compares the mirror's transactions with the bank's truth
// (mirrortest.CompareTransactions): the same ids, each row's raw JSON byte
// for byte as the bank renders it now, and the same tags. It returns ""
// when they are equal, else a short description of the differences.
func mirrorDiff(ctx context.Context, sim *benchSim, db *sql.DB) (string, error) {
	txs, err := sim.transactions(ctx)
	if err != nil {
		return "", err
	}
	truth := make([]mirrortest.Rendering, len(txs))
	for i, t := range txs {
		truth[i] = mirrortest.Rendering{ID: t.ID, Raw: t.raw}
	}
	m, err := mirrortest.CompareTransactions(ctx, db, truth)
	if err != nil {
		return "", err
	}
	return m.String(), nil
}

// balanceDiff compares the accounts, balances included, with the bank's
// (mirrortest.CompareAccounts).
func balanceDiff(ctx context.Context, sim *benchSim, db *sql.DB) (string, error) {
	accounts, err := sim.accounts(ctx)
	if err != nil {
		return "", err
	}
	diffs, err := mirrortest.CompareAccounts(ctx, db, accounts)
	if err != nil {
		return "", err
	}
	if len(diffs) == 0 {
		return "", nil
	}
	return fmt.Sprintf("%d of %d NOT equal to the bank's", len(diffs), len(accounts)), nil
}
