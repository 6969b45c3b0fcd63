package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/demo"
	"github.com/bankmirror/bankmirror/internal/household"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

func (a *app) demoCommand() *cli.Command {
	fs := newFlags("demo")
	o := demoOptions{}
	fs.StringVar(&o.db, "db", "bankmirror-demo.db", "`PATH` of the mirror to write (a demo mirror there is replaced; any other file is refused)")
	fs.IntVar(&o.n, "transactions", 5000, "`N` transactions in the simulated bank (a household's shared among the people and their joint account, one each at least)")
	fs.Uint64Var(&o.seed, "seed", 1, "`SEED` of the simulated bank's data")
	fs.BoolVar(&o.live, "live", true, "after the sync, register webhooks and show live events being applied (--live=false: not)")
	fs.StringVar(&o.people, "people", "alex,sam", "the customers' `NAMES`, comma-separated: two or more are a household sharing a 2Up joint account; one name (--people me) is a single customer")
	return &cli.Command{Name: "demo", Synopsis: "[--db PATH] [--transactions N] [--seed SEED] [--live=false] [--people NAMES]", Flags: fs,
		Summary: "mirror the built-in simulated bank (a household: alex and sam) into ./bankmirror-demo.db and show a summary",
		Run:     a.configured(func(ctx context.Context, _ []string) error { return a.demo(ctx, o) })}
}

// demoOptions are the demo's flags.
type demoOptions struct {
	db     string
	n      int
	seed   uint64
	live   bool
	people string
}

// demoPollInterval is how often the demo's daemon polls the joint
// account: a second, so that a joint purchase shows within the demo
// (BANKMIRROR_POLL_INTERVAL's default is 5m).
const demoPollInterval = time.Second

func (a *app) demo(ctx context.Context, o demoOptions) error {
	if o.n < 0 {
		return fmt.Errorf("%w: --transactions must not be negative", cli.ErrUsage)
	}
	people := strings.Split(o.people, ",")
	if err := simulator.CheckPeople(people); err != nil {
		return fmt.Errorf("%w: --people: %w", cli.ErrUsage, err)
	}
	several := len(people) > 1
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

	// The real bank's budget: 1,000 requests an hour per token, reported
	// in X-RateLimit-Remaining, which the daemon follows.
	simOpts := simulator.Options{Seed: o.seed, Transactions: o.n,
		WebhookRetryBase: 50 * time.Millisecond, WebhookRetryMax: time.Second,
		RateLimit: simulator.RateLimit{Limit: 1000, Bucket: time.Hour}}
	if several {
		simOpts.People = people
		simOpts.Transactions, simOpts.JointTransactions = demo.Split(o.n, len(people))
	}
	simOpts.Empty = o.n == 0 // Transactions 0 is the simulator's default
	sim := simulator.New(simOpts)
	defer sim.Close()
	srv, err := startServer(ctx, "127.0.0.1:0", sim.Handler())
	if err != nil {
		return err
	}
	defer func() { _ = srv.Shutdown(shutdownGrace) }()
	apiURL := srv.URL() + "/api/v1"
	if several {
		fmt.Fprintf(a.stdout, "Simulated bank with %d transactions at %s: a household, %s, each with their own token and accounts, sharing a 2Up joint account\n",
			o.n, apiURL, strings.Join(people, " and "))
	} else {
		fmt.Fprintf(a.stdout, "Simulated bank with %d transactions at %s\n", o.n, apiURL)
	}

	// The daemon itself, on a free loopback port, with every person's
	// token; it runs a full sync at start because the mirror is empty.
	// Its rules, channels and alerts are only those given explicitly.
	cfg, _ := withoutSystemRules(a.cfg)
	cfg.APIURL, cfg.Token, cfg.DB, cfg.Listen = apiURL, sim.Token(), o.db, "127.0.0.1:0"
	cfg.SyncSchedule, cfg.ReconcileSchedule = "@every 1000h", "@every 1000h"
	cfg.AdminListen = config.AdminOff // the demo serves no one but itself
	cfg.PollInterval = 0
	if several && o.live {
		cfg.PollInterval = demoPollInterval
	}
	m := NewDaemon(cfg, a.log)
	if several {
		for _, p := range sim.People() {
			m.People = append(m.People, household.Person{Name: p.Name, Token: p.Token})
		}
	} else {
		m.People = []household.Person{{Name: people[0], Token: sim.Token()}}
	}
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
	loc := cfg.Location
	if err := printSummary(ctx, a.stdout, m.Store, time.Now().In(loc)); err != nil {
		return err
	}
	if o.live {
		live := demoLive
		if several {
			live = demoHouseholdLive
		}
		if err := live(ctx, a, m, sim, ev); err != nil {
			return err
		}
	}
	if several {
		h, err := demo.ReadHousehold(ctx, m.Store.Reader(), time.Now().In(loc))
		if err != nil {
			return err
		}
		printHousehold(a.stdout, h)
	}
	fmt.Fprintf(a.stdout, `
The mirror is a plain SQLite file. Try:
  sqlite3 -header %[1]s "SELECT created_local, description, amount, category_path, (SELECT group_concat(value, ', ') FROM json_each(tags_json)) AS tags FROM v_transactions ORDER BY created_epoch DESC LIMIT 10"
  sqlite3 -header %[1]s "SELECT month, parent_category, round(sum(total_spent), 2) AS spent FROM v_monthly_spending GROUP BY 1, 2 ORDER BY 1 DESC, 3 DESC LIMIT 12"
  sqlite3 -header %[1]s "SELECT observed_local, change, description, amount FROM v_history ORDER BY seq DESC LIMIT 10"
`, shellQuote(o.db))
	if several {
		fmt.Fprintf(a.stdout, `What a couple asks (more in docs/queries.md):
  sqlite3 -header %[1]s "SELECT month, person, round(sum(total_spent), 2) AS spent, round(sum(household_transfers), 2) AS paid_to_each_other FROM v_monthly_spending_by_person GROUP BY 1, 2 ORDER BY 1 DESC, 2 LIMIT 6"
  sqlite3 -header %[1]s "SELECT created_local, coalesce(person, performing_customer) AS who, description, amount FROM v_transactions WHERE ownership_type = 'JOINT' ORDER BY created_epoch DESC LIMIT 10"
  sqlite3 -header %[1]s "SELECT created_local, person, account_name, description, amount, message FROM v_transactions WHERE household_transfer ORDER BY created_epoch DESC LIMIT 6"
`, shellQuote(o.db))
	}
	fmt.Fprintf(a.stdout, `
Or see it in the browser, with the dashboard:
  BANKMIRROR_DB=%[1]s bankmirror ui
`, shellQuote(o.db))
	return nil
}

// demoLive registers a webhook with the simulated bank, makes a few
// seconds of activity and shows each event arriving and being applied.
func demoLive(ctx context.Context, a *app, m *Daemon, sim *simulator.Bank, ev *eventPrinter) error {
	if err := registerDemoWebhooks(ctx, a, m, ev); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, "  making some activity...")
	var coffee, deposit, fuel string
	steps := []demo.Step{
		{What: "card purchase at a café, held", Do: func() error {
			coffee = sim.AddTransaction(simulator.NewTransaction{Description: "Seven Seeds", AmountBaseUnits: -520, Held: true, CategoryID: "restaurants-and-cafes"})
			return nil
		}},
		{What: "groceries, settled at once", Do: func() error {
			sim.AddTransaction(simulator.NewTransaction{Description: "Woolworths", AmountBaseUnits: -8745, CategoryID: "groceries"})
			return nil
		}},
		{What: "hotel deposit, held", Do: func() error {
			deposit = sim.AddTransaction(simulator.NewTransaction{Description: "Hotel deposit", AmountBaseUnits: -20000, Held: true})
			return nil
		}},
		{What: "the café purchase settles", Do: func() error { return sim.Settle(coffee) }},
		{What: "the hotel deposit is returned (the hold is deleted)", Do: func() error { return sim.Delete(deposit) }},
		{What: "fuel, held", Do: func() error {
			fuel = sim.AddTransaction(simulator.NewTransaction{Description: "Ampol", AmountBaseUnits: -6010, Held: true, CategoryID: "fuel"})
			return nil
		}},
		{What: "the fuel hold settles the rare way: DELETED, then CREATED under a new id", Do: func() error {
			_, err := sim.SettleAsReplacement(fuel)
			return err
		}},
	}
	if err := demoSteps(ctx, a, steps); err != nil {
		return err
	}
	return demoEventsApplied(ctx, a, m, sim, ev)
}

// demoHouseholdLive registers a webhook per person, makes a few seconds
// of the household's activity (internal/demo) and shows each event
// arriving and being applied, and the poll bringing the joint account's
// purchase, for which the bank sends no event.
func demoHouseholdLive(ctx context.Context, a *app, m *Daemon, sim *simulator.Bank, ev *eventPrinter) error {
	if err := registerDemoWebhooks(ctx, a, m, ev); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "  the 2Up joint account gets no webhook events from the bank: the daemon polls it every %s here (BANKMIRROR_POLL_INTERVAL, 5m by default)\n", demoPollInterval)
	names := make([]string, 0, len(sim.People()))
	for _, p := range sim.People() {
		names = append(names, p.Name)
	}
	act, err := demo.HouseholdActivity(sim, names)
	if err != nil {
		return err
	}
	// The joint purchase is watched for from the moment it is made: no
	// event announces it, the poll brings it.
	wctx, cancel := context.WithTimeout(ctx, 10*demoPollInterval+10*time.Second)
	defer cancel()
	polled := make(chan error, 1)
	var arrived time.Time
	for i, s := range act.Steps {
		if !s.Joint {
			continue
		}
		do := s.Do
		act.Steps[i].Do = func() error {
			if err := do(); err != nil {
				return err
			}
			go func() {
				err := demo.WaitMirrored(wctx, m.Store.Reader(), act.JointPurchase, 10*time.Millisecond)
				arrived = time.Now()
				polled <- err
			}()
			return nil
		}
	}
	fmt.Fprintln(a.stdout, "  making some activity...")
	if err := demoSteps(ctx, a, act.Steps); err != nil {
		return err
	}
	if err := demoEventsApplied(ctx, a, m, sim, ev); err != nil {
		return err
	}
	if err := <-polled; err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Poll: %s's 2Up purchase (tx %s...) reached the mirror %.1f s after the bank made it, with no event.\n",
		act.JointBy, short(act.JointPurchase), arrived.Sub(act.JointAt).Seconds())
	return nil
}

// registerDemoWebhooks registers a webhook for the daemon through each
// person's token, as `bankmirror webhook register` does.
func registerDemoWebhooks(ctx context.Context, a *app, m *Daemon, ev *eventPrinter) error {
	url := m.URL() + m.Config.WebhookPath
	var all webhooks.Household
	for _, name := range m.Household.People() {
		all = append(all, webhooks.NewFor(name, m.Household.Client(name), m.Store, m.Healer, a.log))
	}
	done, err := all.Register(ctx, url, ptr("bankmirror demo"))
	if err != nil {
		return err
	}
	if len(done) == 1 {
		fmt.Fprintf(a.stdout, "\nLive: webhook %s registered for %s\n", done[0].Hook.ID, url)
		return nil
	}
	fmt.Fprintf(a.stdout, "\nLive: a webhook per person registered for %s, each through that person's token:\n", url)
	for _, r := range done {
		fmt.Fprintf(a.stdout, "  %s: webhook %s\n", r.Person, r.Hook.ID)
		ev.whose(r.Hook.ID, r.Person)
	}
	return nil
}

// demoSteps makes steps at the bank, a moment apart.
func demoSteps(ctx context.Context, a *app, steps []demo.Step) error {
	for _, s := range steps {
		fmt.Fprintf(a.stdout, "  bank: %s\n", s.What)
		if err := s.Do(); err != nil {
			return fmt.Errorf("demo activity %q: %w", s.What, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(400 * time.Millisecond):
		}
	}
	return nil
}

// demoEventsApplied waits until the bank has delivered every event and
// the daemon has applied them, and says so.
func demoEventsApplied(ctx context.Context, a *app, m *Daemon, sim *simulator.Bank, ev *eventPrinter) error {
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

// printHousehold prints the household's month as the views tell it.
func printHousehold(w io.Writer, h demo.Household) {
	fmt.Fprintf(w, "\nThe household (%s) this month (%s):\n", strings.Join(h.People, ", "), h.Month)
	fmt.Fprintln(w, "  spending per person (v_monthly_spending_by_person):")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	for _, s := range h.Spending {
		paid := ""
		if s.ToOthers != 0 {
			paid = "  of which " + formatMoney(s.ToOthers, "AUD") + " paid to the other"
			if len(h.People) > 2 {
				paid += "s"
			}
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\n", s.Person, formatMoney(s.Spent, "AUD"), paid)
	}
	tw.Flush()
	fmt.Fprintln(w, "  who paid for what on 2Up (v_transactions.person):")
	if len(h.Joint) == 0 {
		fmt.Fprintln(w, "    nothing settled yet")
	}
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	for _, j := range h.Joint {
		fmt.Fprintf(tw, "    %s\t%s\t%s\t\n", j.Person, plural(j.Purchases, "purchase"), formatMoney(j.Spent, "AUD"))
	}
	tw.Flush()
	fmt.Fprintln(w, "  money between you, neither spending nor income for the household (v_transactions.household_transfer), the latest:")
	if len(h.Transfers) == 0 {
		fmt.Fprintln(w, "    none")
	}
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, t := range h.Transfers {
		fmt.Fprintf(tw, "    %s\t%s's %s\t%s\t%s\n", t.Created, t.Person, textsafe.Line(t.Account), textsafe.Line(t.Description), formatMoney(t.Amount, "AUD"))
	}
	tw.Flush()
}

// short is the start of an id, for the output.
func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
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
	person   map[string]string // webhook id -> person, in a household
	ackAt    map[string]time.Time
	nApplied int
	changed  chan struct{}
}

func newEventPrinter(w io.Writer) *eventPrinter {
	return &eventPrinter{w: w, person: map[string]string{}, ackAt: map[string]time.Time{}, changed: make(chan struct{}, 1)}
}

// whose names the person whose webhook id is.
func (p *eventPrinter) whose(id, person string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.person[id] = person
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
	label := "webhook:"
	if who := p.person[e.WebhookID]; who != "" {
		label = "webhook (" + who + "):"
	}
	fmt.Fprintf(p.w, "    %s %-19s tx %s... applied: %s%s\n", label, e.EventType, short(e.TransactionID), effect, after)
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
	rows, err := db.QueryContext(ctx, `SELECT coalesce(p.people, ''), a.display_name, a.account_type, a.ownership_type, a.balance_base_units, a.balance_currency,
		(SELECT count(*) FROM transactions t WHERE t.account_id = a.id)
		FROM accounts a LEFT JOIN v_account_people p ON p.account_id = a.id ORDER BY p.people_count, p.people, a.created_at`)
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	defer rows.Close()
	fmt.Fprintln(w, "\nAccounts:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for rows.Next() {
		var people, name, typ, own, currency string
		var bal int64
		var count int
		if err := rows.Scan(&people, &name, &typ, &own, &bal, &currency, &count); err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%d transactions\n", people, textsafe.Line(name), textsafe.Line(typ), textsafe.Line(own), formatMoney(bal, currency), count)
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
		fmt.Fprintf(tw, "  %s / %s\t%s\t%d\t\n", textsafe.Line(parent), textsafe.Line(cat), formatMoney(spent, "AUD"), count)
	}
	if err := rows2.Err(); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return tw.Flush()
}
