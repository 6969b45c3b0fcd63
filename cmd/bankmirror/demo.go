package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/demo"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

func (a *app) demoCommand() *cli.Command {
	fs := newFlags("demo")
	o := demoOptions{}
	fs.StringVar(&o.db, "db", "bankmirror-demo.db", "`PATH` of the mirror to write (a demo mirror there is replaced; any other file is refused)")
	fs.IntVar(&o.n, "transactions", 5000, "`N` transactions in the simulated bank")
	fs.Uint64Var(&o.seed, "seed", 1, "`SEED` of the simulated bank's data")
	fs.BoolVar(&o.live, "live", true, "after the sync, register a webhook and show live events being applied (--live=false: not)")
	return &cli.Command{Name: "demo", Synopsis: "[--db PATH] [--transactions N] [--seed SEED] [--live=false]", Flags: fs,
		Summary: "mirror the built-in simulated bank into ./bankmirror-demo.db and show a summary",
		Run:     a.configured(func(ctx context.Context, _ []string) error { return a.demo(ctx, o) })}
}

// demoOptions are the demo's flags.
type demoOptions struct {
	db   string
	n    int
	seed uint64
	live bool
}

func (a *app) demo(ctx context.Context, o demoOptions) error {
	if o.n < 0 {
		return fmt.Errorf("%w: --transactions must not be negative", errUsage)
	}
	// The demo's mirror belongs to this run's simulated bank: start afresh,
	// but never over a real mirror or any other file.
	if err := demo.CheckReplaceable(ctx, o.db); err != nil {
		return err
	}
	if err := store.RemoveMirror(o.db); err != nil {
		return fmt.Errorf("remove old demo mirror: %w", err)
	}
	if err := markDemo(ctx, o.db); err != nil {
		return err
	}

	// The real bank's budget: 1,000 requests an hour, reported in
	// X-RateLimit-Remaining, which the daemon follows.
	sim := simulator.New(simulator.Options{Seed: o.seed, Transactions: o.n,
		WebhookRetryBase: 50 * time.Millisecond, WebhookRetryMax: time.Second,
		RateLimit: simulator.RateLimit{Limit: 1000, Bucket: time.Hour}})
	defer sim.Close()
	srv, err := startServer(ctx, "127.0.0.1:0", sim.Handler())
	if err != nil {
		return err
	}
	defer func() { _ = srv.Shutdown(shutdownGrace) }()
	apiURL := srv.URL() + "/api/v1"
	fmt.Fprintf(a.stdout, "Simulated bank with %d transactions at %s\n", o.n, apiURL)

	// The daemon itself, on a free loopback port; it runs a full sync at
	// start because the mirror is empty.
	cfg := a.cfg
	cfg.APIURL, cfg.Token, cfg.DB, cfg.Listen = apiURL, sim.Token(), o.db, "127.0.0.1:0"
	cfg.SyncSchedule, cfg.ReconcileSchedule = "@every 1000h", "@every 1000h"
	cfg.AdminListen = adminOff // the demo serves no one but itself
	m := NewDaemon(cfg, a.log)
	var pl *progressLine
	if a.statusLine != nil {
		pl = &progressLine{line: a.statusLine}
		m.SyncProgress = pl.show
	}
	ev := newEventPrinter(a.stdout)
	m.OnEventsStored, m.OnEventApplied = ev.stored, ev.applied
	if err := m.Open(ctx); err != nil {
		_ = m.Close()
		return err
	}
	defer m.Close()
	<-m.InitialSyncDone
	pl.done()
	runs, err := m.Store.RecentRuns(ctx, 1)
	if err != nil {
		return err
	}
	if len(runs) == 0 || runs[0].Status != store.RunOK {
		return fmt.Errorf("the initial sync did not succeed: %+v", runs)
	}
	r := runs[0]
	fmt.Fprintf(a.stdout, "full sync: %d rows changed, %d requests (run %d)\n", r.Upserted, r.Requests, r.ID)
	loc, err := loadZone(cfg.Timezone)
	if err != nil {
		return err
	}
	if err := printSummary(ctx, a.stdout, m.Store, time.Now().In(loc)); err != nil {
		return err
	}
	if o.live {
		if err := demoLive(ctx, a, m, sim, ev); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.stdout, `
The mirror is a plain SQLite file. Try:
  sqlite3 -header %[1]s "SELECT created_local, description, amount, category_path, (SELECT group_concat(value, ', ') FROM json_each(tags_json)) AS tags FROM v_transactions ORDER BY created_epoch DESC LIMIT 10"
  sqlite3 -header %[1]s "SELECT month, parent_category, round(sum(total_spent), 2) AS spent FROM v_monthly_spending GROUP BY 1, 2 ORDER BY 1 DESC, 3 DESC LIMIT 12"
  sqlite3 -header %[1]s "SELECT observed_local, change, description, amount FROM v_history ORDER BY seq DESC LIMIT 10"

Or see it in the browser, with the dashboard:
  BANKMIRROR_DB=%[1]s bankmirror ui
`, shellQuote(o.db))
	return nil
}

// demoLive registers a webhook with the simulated bank, makes a few
// seconds of activity and shows each event arriving and being applied.
func demoLive(ctx context.Context, a *app, m *Daemon, sim *simulator.Bank, ev *eventPrinter) error {
	hook, err := webhooks.New(m.Bank, m.Store, m.Healer, a.log).Register(ctx, m.URL()+m.Config.WebhookPath, ptr("bankmirror demo"))
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\nLive: webhook %s registered for %s; making some activity...\n", hook.ID, hook.URL)
	step := func(what string, fn func() error) error {
		fmt.Fprintf(a.stdout, "  bank: %s\n", what)
		if err := fn(); err != nil {
			return fmt.Errorf("demo activity %q: %w", what, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(400 * time.Millisecond):
			return nil
		}
	}
	var coffee, deposit, fuel string
	steps := []struct {
		what string
		fn   func() error
	}{
		{"card purchase at a café, held", func() error {
			coffee = sim.AddTransaction(simulator.NewTransaction{Description: "Seven Seeds", AmountBaseUnits: -520, Held: true, CategoryID: "restaurants-and-cafes"})
			return nil
		}},
		{"groceries, settled at once", func() error {
			sim.AddTransaction(simulator.NewTransaction{Description: "Woolworths", AmountBaseUnits: -8745, CategoryID: "groceries"})
			return nil
		}},
		{"hotel deposit, held", func() error {
			deposit = sim.AddTransaction(simulator.NewTransaction{Description: "Hotel deposit", AmountBaseUnits: -20000, Held: true})
			return nil
		}},
		{"the café purchase settles", func() error { return sim.Settle(coffee) }},
		{"the hotel deposit is returned (the hold is deleted)", func() error { return sim.Delete(deposit) }},
		{"fuel, held", func() error {
			fuel = sim.AddTransaction(simulator.NewTransaction{Description: "Ampol", AmountBaseUnits: -6010, Held: true, CategoryID: "fuel"})
			return nil
		}},
		{"the fuel hold settles the rare way: DELETED, then CREATED under a new id", func() error {
			_, err := sim.SettleAsReplacement(fuel)
			return err
		}},
	}
	for _, s := range steps {
		if err := step(s.what, s.fn); err != nil {
			return err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := sim.WaitDeliveries(wctx); err != nil {
		return fmt.Errorf("wait for deliveries: %w", err)
	}
	if err := ev.waitAll(wctx, len(sim.Events())); err != nil {
		return err
	}
	st, err := m.Store.InboxStats(ctx, m.Config.EventMaxAttempts)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Live: %d events received and applied; %d pending.\n", st.Total, st.Pending)
	return nil
}

func ptr[T any](v T) *T { return &v }

// markDemo creates the demo's mirror and marks it as the demo's before
// anything else is written, so that the next demo may replace it.
func markDemo(ctx context.Context, path string) error {
	st, err := store.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("create demo mirror %s: %w", path, err)
	}
	if err := demo.Mark(ctx, st); err != nil {
		_ = st.Close()
		return err
	}
	return st.Close()
}

// eventPrinter shows webhook events as the daemon stores and applies them.
type eventPrinter struct {
	w        io.Writer
	mu       sync.Mutex
	ackAt    map[string]time.Time
	nApplied int
	changed  chan struct{}
}

func newEventPrinter(w io.Writer) *eventPrinter {
	return &eventPrinter{w: w, ackAt: map[string]time.Time{}, changed: make(chan struct{}, 1)}
}

func (p *eventPrinter) stored(ids []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range ids {
		p.ackAt[id] = time.Now()
	}
}

func (p *eventPrinter) applied(e store.InboxEvent, c store.Change) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nApplied++
	effect := string(c)
	if effect == "" {
		effect = "no change"
	}
	after := ""
	if t, ok := p.ackAt[e.ID]; ok {
		after = fmt.Sprintf(" %.1f ms after its acknowledgement", float64(time.Since(t).Microseconds())/1000)
	}
	tx := e.TransactionID
	if len(tx) > 8 {
		tx = tx[:8]
	}
	fmt.Fprintf(p.w, "    webhook: %-19s tx %s... applied: %s%s\n", e.EventType, tx, effect, after)
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

// waitAll waits until n events have been applied.
func (p *eventPrinter) waitAll(ctx context.Context, n int) error {
	for {
		p.mu.Lock()
		done := p.nApplied >= n
		p.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for events: %w", ctx.Err())
		case <-p.changed:
		}
	}
}

// printSummary prints accounts, transaction counts and this month's spending
// by category, read back from the mirror.
func printSummary(ctx context.Context, w io.Writer, st *store.Store, now time.Time) error {
	db := st.Reader()
	rows, err := db.QueryContext(ctx, `SELECT a.display_name, a.account_type, a.ownership_type, a.balance_base_units, a.balance_currency,
		(SELECT count(*) FROM transactions t WHERE t.account_id = a.id) FROM accounts a ORDER BY a.display_name`)
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	defer rows.Close()
	fmt.Fprintln(w, "\nAccounts:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for rows.Next() {
		var name, typ, own, currency string
		var bal int64
		var count int
		if err := rows.Scan(&name, &typ, &own, &bal, &currency, &count); err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d transactions\n", name, typ, own, formatMoney(bal, currency), count)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	tw.Flush()

	var total, held int
	if err := db.QueryRowContext(ctx, "SELECT count(*), count(*) FILTER (WHERE status = 'HELD') FROM transactions").Scan(&total, &held); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	fmt.Fprintf(w, "Transactions: %d (%d HELD)\n", total, held)

	month := now.Format("2006-01")
	// v_monthly_spending has a row per account: sum them per category.
	rows2, err := db.QueryContext(ctx, `SELECT parent_category, category, sum(total_spent_base_units) AS spent, sum(count)
		FROM v_monthly_spending WHERE month = ? GROUP BY parent_category, category ORDER BY spent DESC LIMIT 10`, month)
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	defer rows2.Close()
	fmt.Fprintf(w, "\nSpending this month (%s), top categories:\n", month)
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	for rows2.Next() {
		var parent, cat string
		var spent int64
		var count int
		if err := rows2.Scan(&parent, &cat, &spent, &count); err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		fmt.Fprintf(tw, "  %s / %s\t%s\t%d\t\n", parent, cat, formatMoney(spent, "AUD"), count)
	}
	if err := rows2.Err(); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return tw.Flush()
}
