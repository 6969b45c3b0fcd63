package demo

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

// Options are the demo's settings: the command's flags and
// configuration.
type Options struct {
	// DB is the mirror to write; a demo mirror there is replaced, any other
	// file refused.
	DB string
	// Transactions are in the simulated bank (a household's shared among
	// the people and their joint account); Seed seeds its data.
	Transactions int
	Seed         uint64
	// Live registers webhooks after the sync and shows live events.
	Live bool
	// People are the customers: two or more are a household sharing a
	// joint account (checked by simulator.CheckPeople).
	People []string
	// Config is the daemon's configuration, without the system's rules
	// and feeds files; the demo sets the bank, the mirror, the listener
	// and the schedules.
	Config config.Config
	Log    zerolog.Logger
	Stdout io.Writer
	// OnProgress, if set, is given the start-up sync's progress;
	// ProgressDone, if set, is called when it ends.
	OnProgress   func(replica.Progress)
	ProgressDone func()
}

// run is what the demo's steps write to and log with.
type run struct {
	w   io.Writer
	log zerolog.Logger
}

// shutdownGrace is how long the simulated bank's server waits for requests
// in flight when the demo ends.
const shutdownGrace = 5 * time.Second

// pollInterval is how often the demo's daemon polls the joint
// account: a second, so that a joint purchase shows within the demo
// (BANKMIRROR_POLL_INTERVAL's default is 5m).
const pollInterval = time.Second

// Run runs the demo: it mirrors a simulated bank of o.Transactions (a
// household when o.People names several) into a fresh mirror at o.DB with
// the daemon itself (internal/daemon), prints a summary read back from the
// mirror and, with o.Live, shows live events being applied.
func Run(ctx context.Context, o Options) error {
	a := &run{w: o.Stdout, log: o.Log}
	people := o.People
	several := len(people) > 1
	// The demo's mirror belongs to this run's simulated bank: start afresh,
	// but never over a real mirror or any other file.
	if err := CheckReplaceable(ctx, o.DB); err != nil {
		return err
	}
	if err := store.RemoveMirror(o.DB); err != nil {
		return fmt.Errorf("remove old demo mirror: %w", err)
	}
	if err := markDemo(ctx, o.DB); err != nil {
		return err
	}

	// The real bank's budget: 1,000 requests an hour per token, reported
	// in X-RateLimit-Remaining, which the daemon follows.
	simOpts := simulator.Options{Seed: o.Seed, Transactions: o.Transactions,
		WebhookRetryBase: 50 * time.Millisecond, WebhookRetryMax: time.Second,
		RateLimit: simulator.RateLimit{Limit: 1000, Bucket: time.Hour}}
	if several {
		simOpts.People = people
		simOpts.Transactions, simOpts.JointTransactions = Split(o.Transactions, len(people))
	}
	simOpts.Empty = o.Transactions == 0 // Transactions 0 is the simulator's default
	sim := simulator.New(simOpts)
	defer sim.Close()
	srv, err := httpserver.Start(ctx, "http server", "127.0.0.1:0", httpserver.New(sim.Handler()))
	if err != nil {
		return err
	}
	defer func() { _ = srv.Shutdown(shutdownGrace) }()
	apiURL := srv.URL() + "/api/v1"
	if several {
		fmt.Fprintf(a.w, "Simulated bank with %d transactions at %s: a household, %s, each with their own token and accounts, sharing a 2Up joint account\n",
			o.Transactions, apiURL, strings.Join(people, " and "))
	} else {
		fmt.Fprintf(a.w, "Simulated bank with %d transactions at %s\n", o.Transactions, apiURL)
	}

	// The daemon itself, on a free loopback port, with every person's
	// token; it runs a full sync at start because the mirror is empty.
	// Its rules, channels and alerts are only those given explicitly.
	cfg := o.Config
	cfg.APIURL, cfg.Token, cfg.DB, cfg.Listen = apiURL, sim.Token(), o.DB, "127.0.0.1:0"
	cfg.SyncSchedule, cfg.ReconcileSchedule = "@every 1000h", "@every 1000h"
	cfg.AdminListen = config.AdminOff // the demo serves no one but itself
	cfg.PollInterval = 0
	if several && o.Live {
		cfg.PollInterval = pollInterval
	}
	d := daemon.New(cfg, a.log)
	if several {
		for _, p := range sim.People() {
			d.People = append(d.People, config.Person{Name: p.Name, Token: p.Token})
		}
	} else {
		d.People = []config.Person{{Name: people[0], Token: sim.Token()}}
	}
	d.SyncProgress = o.OnProgress
	ev := newEventPrinter(a.w)
	d.OnEventsStored, d.OnEventApplied = ev.stored, ev.applied
	if err := d.Open(ctx); err != nil {
		_ = d.Close()
		return err
	}
	defer d.Close()
	<-d.InitialSyncDone
	if o.ProgressDone != nil {
		o.ProgressDone()
	}
	runs, err := d.Store.RecentRuns(ctx, 1)
	if err != nil {
		return err
	}
	if len(runs) == 0 || runs[0].Status != store.RunOK {
		return fmt.Errorf("the initial sync did not succeed: %+v", runs)
	}
	r := runs[0]
	fmt.Fprintf(a.w, "full sync: %d rows changed, %d requests (run %d)\n", r.Upserted, r.Requests, r.ID)
	loc := cfg.Location
	if err := printSummary(ctx, a.w, d.Store, time.Now().In(loc)); err != nil {
		return err
	}
	if o.Live {
		live := liveCustomer
		if several {
			live = liveHousehold
		}
		if err := live(ctx, a, d, sim, ev); err != nil {
			return err
		}
	}
	if several {
		h, err := ReadHousehold(ctx, d.Store.Reader(), time.Now().In(loc))
		if err != nil {
			return err
		}
		printHousehold(a.w, h)
	}
	fmt.Fprintf(a.w, `
The mirror is a plain SQLite file. Try:
  sqlite3 -header %[1]s "SELECT created_local, description, amount, category_path, (SELECT group_concat(value, ', ') FROM json_each(tags_json)) AS tags FROM v_transactions ORDER BY created_epoch DESC LIMIT 10"
  sqlite3 -header %[1]s "SELECT month, parent_category, round(sum(total_spent), 2) AS spent FROM v_monthly_spending GROUP BY 1, 2 ORDER BY 1 DESC, 3 DESC LIMIT 12"
  sqlite3 -header %[1]s "SELECT observed_local, change, description, amount FROM v_history ORDER BY seq DESC LIMIT 10"
`, shellQuote(o.DB))
	if several {
		fmt.Fprintf(a.w, `What a couple asks (more in docs/queries.md):
  sqlite3 -header %[1]s "SELECT month, person, round(sum(total_spent), 2) AS spent, round(sum(household_transfers), 2) AS paid_to_each_other FROM v_monthly_spending_by_person GROUP BY 1, 2 ORDER BY 1 DESC, 2 LIMIT 6"
  sqlite3 -header %[1]s "SELECT created_local, coalesce(person, performing_customer) AS who, description, amount FROM v_transactions WHERE ownership_type = 'JOINT' ORDER BY created_epoch DESC LIMIT 10"
  sqlite3 -header %[1]s "SELECT created_local, person, account_name, description, amount, message FROM v_transactions WHERE household_transfer ORDER BY created_epoch DESC LIMIT 6"
`, shellQuote(o.DB))
	}
	fmt.Fprintf(a.w, `
Or see it in the browser, with the dashboard:
  BANKMIRROR_DB=%[1]s bankmirror ui
`, shellQuote(o.DB))
	return nil
}

// liveCustomer registers a webhook with the simulated bank, makes a few
// seconds of activity and shows each event arriving and being applied.
func liveCustomer(ctx context.Context, a *run, d *daemon.Daemon, sim *simulator.Bank, ev *eventPrinter) error {
	if err := registerWebhooks(ctx, a, d, ev); err != nil {
		return err
	}
	fmt.Fprintln(a.w, "  making some activity...")
	var coffee, deposit, fuel string
	steps := []Step{
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
	if err := makeSteps(ctx, a, steps); err != nil {
		return err
	}
	return eventsApplied(ctx, a, d, sim, ev)
}

// liveHousehold registers a webhook per person, makes a few seconds
// of the household's activity (internal/demo) and shows each event
// arriving and being applied, and the poll bringing the joint account's
// purchase, for which the bank sends no event.
func liveHousehold(ctx context.Context, a *run, d *daemon.Daemon, sim *simulator.Bank, ev *eventPrinter) error {
	if err := registerWebhooks(ctx, a, d, ev); err != nil {
		return err
	}
	fmt.Fprintf(a.w, "  the 2Up joint account gets no webhook events from the bank: the daemon polls it every %s here (BANKMIRROR_POLL_INTERVAL, 5m by default)\n", pollInterval)
	names := make([]string, 0, len(sim.People()))
	for _, p := range sim.People() {
		names = append(names, p.Name)
	}
	act, err := HouseholdActivity(sim, names)
	if err != nil {
		return err
	}
	// The joint purchase is watched for from the moment it is made: no
	// event announces it, the poll brings it.
	wctx, cancel := context.WithTimeout(ctx, 10*pollInterval+10*time.Second)
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
				err := WaitMirrored(wctx, d.Store.Reader(), act.JointPurchase, 10*time.Millisecond)
				arrived = time.Now()
				polled <- err
			}()
			return nil
		}
	}
	fmt.Fprintln(a.w, "  making some activity...")
	if err := makeSteps(ctx, a, act.Steps); err != nil {
		return err
	}
	if err := eventsApplied(ctx, a, d, sim, ev); err != nil {
		return err
	}
	if err := <-polled; err != nil {
		return err
	}
	fmt.Fprintf(a.w, "Poll: %s's 2Up purchase (tx %s...) reached the mirror %.1f s after the bank made it, with no event.\n",
		act.JointBy, short(act.JointPurchase), arrived.Sub(act.JointAt).Seconds())
	return nil
}

// registerWebhooks registers a webhook for the daemon through each
// person's token, as `bankmirror webhook register` does.
func registerWebhooks(ctx context.Context, a *run, d *daemon.Daemon, ev *eventPrinter) error {
	url := d.URL() + d.Config.WebhookPath
	var all webhooks.Household
	for _, name := range d.Household.People() {
		all = append(all, webhooks.NewFor(name, d.Household.Client(name), d.Store, d.Healer, a.log))
	}
	done, err := all.Register(ctx, url, new("bankmirror demo"))
	if err != nil {
		return err
	}
	if len(done) == 1 {
		fmt.Fprintf(a.w, "\nLive: webhook %s registered for %s\n", done[0].Hook.ID, url)
		return nil
	}
	fmt.Fprintf(a.w, "\nLive: a webhook per person registered for %s, each through that person's token:\n", url)
	for _, r := range done {
		fmt.Fprintf(a.w, "  %s: webhook %s\n", r.Person, r.Hook.ID)
		ev.whose(r.Hook.ID, r.Person)
	}
	return nil
}

// makeSteps makes steps at the bank, a moment apart.
func makeSteps(ctx context.Context, a *run, steps []Step) error {
	for _, s := range steps {
		fmt.Fprintf(a.w, "  bank: %s\n", s.What)
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

// eventsApplied waits until the bank has delivered every event and
// the daemon has applied them, and says so.
func eventsApplied(ctx context.Context, a *run, d *daemon.Daemon, sim *simulator.Bank, ev *eventPrinter) error {
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := sim.WaitDeliveries(wctx); err != nil {
		return fmt.Errorf("wait for deliveries: %w", err)
	}
	if err := ev.waitAll(wctx, len(sim.Events())); err != nil {
		return err
	}
	st, err := d.Store.InboxStats(ctx, d.Config.EventMaxAttempts)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.w, "Live: %d events received and applied; %d pending.\n", st.Total, st.Pending)
	return nil
}

// printHousehold prints the household's month as the views tell it.
func printHousehold(w io.Writer, h Household) {
	fmt.Fprintf(w, "\nThe household (%s) this month (%s):\n", strings.Join(h.People, ", "), h.Month)
	fmt.Fprintln(w, "  spending per person (v_monthly_spending_by_person):")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	for _, s := range h.Spending {
		paid := ""
		if s.ToOthers != 0 {
			paid = "  of which " + money.Format(s.ToOthers, "AUD") + " paid to the other"
			if len(h.People) > 2 {
				paid += "s"
			}
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\n", s.Person, money.Format(s.Spent, "AUD"), paid)
	}
	tw.Flush()
	fmt.Fprintln(w, "  who paid for what on 2Up (v_transactions.person):")
	if len(h.Joint) == 0 {
		fmt.Fprintln(w, "    nothing settled yet")
	}
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	for _, j := range h.Joint {
		fmt.Fprintf(tw, "    %s\t%s\t%s\t\n", j.Person, purchases(j.Purchases), money.Format(j.Spent, "AUD"))
	}
	tw.Flush()
	fmt.Fprintln(w, "  money between you, neither spending nor income for the household (v_transactions.household_transfer), the latest:")
	if len(h.Transfers) == 0 {
		fmt.Fprintln(w, "    none")
	}
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, t := range h.Transfers {
		fmt.Fprintf(tw, "    %s\t%s's %s\t%s\t%s\n", t.Created, t.Person, textsafe.Line(t.Account), textsafe.Line(t.Description), money.Format(t.Amount, "AUD"))
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

// markDemo creates the demo's mirror and marks it as the demo's before
// anything else is written, so that the next demo may replace it.
func markDemo(ctx context.Context, path string) error {
	st, err := store.Open(ctx, path)
	if err != nil {
		return fmt.Errorf("create demo mirror %s: %w", path, err)
	}
	if err := Mark(ctx, st); err != nil {
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
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%d transactions\n", people, textsafe.Line(name), textsafe.Line(typ), textsafe.Line(own), money.Format(bal, currency), count)
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
		fmt.Fprintf(tw, "  %s / %s\t%s\t%d\t\n", textsafe.Line(parent), textsafe.Line(cat), money.Format(spent, "AUD"), count)
	}
	if err := rows2.Err(); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return tw.Flush()
}

// purchases is "1 purchase" or "n purchases".
func purchases(n int) string {
	if n == 1 {
		return "1 purchase"
	}
	return strconv.Itoa(n) + " purchases"
}

// shellQuote is s as a POSIX shell word, for a command line printed to be
// copied: as it is when it has only safe characters, else single-quoted.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
