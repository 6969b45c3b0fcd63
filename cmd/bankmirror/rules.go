package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/bankmirror/bankmirror/internal/alerts"
	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
	"github.com/bankmirror/bankmirror/internal/writeback"
)

// rulesCommand checks, previews and applies the rules file.
func (a *app) rulesCommand() *cli.Command {
	preview := newFlags("rules preview")
	previewSince := preview.String("since", "", "only transactions created on or after `DATE` (YYYY-MM-DD, the customer's zone)")
	apply := newFlags("rules apply")
	applySince := apply.String("since", "", "apply to transactions created on or after `DATE` (YYYY-MM-DD; required)")
	applyWrite := apply.Bool("write-back", false, "write the categories and tags to the bank too (without it, the mirror records what the rules decided and the mirror-only settings)")
	return &cli.Command{Name: "rules", Summary: "check, preview and apply the rules file (BANKMIRROR_RULES_FILE)",
		Detail: "Rules set categories and tags as transactions arrive and write them back to the bank; serve applies them. These commands work on the mirror's history. The format: docs/rules.md.",
		Commands: []*cli.Command{
			{Name: "check", Summary: "validate the rules file and list each rule with how many mirrored transactions it matches",
				Run: a.configured(func(ctx context.Context, _ []string) error { return a.rulesCheck(ctx) })},
			{Name: "preview", Synopsis: "[--since DATE]", Flags: preview,
				Summary: "show, as a table, exactly what applying the rules would change",
				Run:     a.configured(func(ctx context.Context, _ []string) error { return a.rulesPreview(ctx, *previewSince) })},
			{Name: "apply", Synopsis: "--since DATE [--write-back]", Flags: apply,
				Summary: "apply the rules to history, resumably; --write-back sends the changes to the bank within the budget",
				Run: a.configured(func(ctx context.Context, _ []string) error {
					return a.rulesApply(ctx, *applySince, *applyWrite)
				})},
		}}
}

// loadRules reads the rules file against the mirror's categories, and
// checks its alerts and channels.
func (a *app) loadRules(ctx context.Context, st *store.Store) (*rules.Set, error) {
	return rules.Load(ctx, a.cfg.RulesFile, rules.Options{Zone: a.cfg.Location, Categories: st, CheckChannel: alerts.CheckChannel})
}

// rulesEngine is an engine over st with writer (nil: none).
func (a *app) rulesEngine(st *store.Store, set *rules.Set, writer rules.Writer) *rules.Engine {
	return rules.NewEngine(st, writer, set, a.cfg.Location, a.log)
}

// readRules opens the mirror read-only and loads the rules file against
// it; close closes the mirror.
func (a *app) readRules(ctx context.Context) (st *store.Store, set *rules.Set, err error) {
	if st, err = a.openExistingReadOnly(ctx); err != nil {
		return nil, nil, err
	}
	if set, err = a.loadRules(ctx, st); err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, set, nil
}

func (a *app) rulesCheck(ctx context.Context) error {
	st, set, err := a.readRules(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	sum, err := a.rulesEngine(st, set, nil).Scan(ctx, "", 0, false, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: %s, %s, %s; %s\n", set.Path, plural(len(set.Rules), "rule"), plural(len(set.Channels), "channel"),
		plural(len(set.Alerts), "alert"), plural(sum.Transactions, "mirrored transaction"))
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LINE\tRULE\tMATCHES\tDOES")
	for _, r := range set.Rules {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\n", r.Line, textsafe.Cut(r.Name, 60), sum.Matches[r.Name], textsafe.Line(r.Describe()))
	}
	return tw.Flush()
}

func (a *app) rulesPreview(ctx context.Context, since string) error {
	if err := checkDate(since); err != nil {
		return err
	}
	st, set, err := a.readRules(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	var all []rules.Change
	sum, err := a.rulesEngine(st, set, nil).Scan(ctx, since, 0, true, func(changes []rules.Change, _ int, _ int64) error {
		all = append(all, changes...)
		return nil
	})
	if err != nil {
		return err
	}
	// The scan goes in the mirror's order; people read by date.
	slices.SortStableFunc(all, func(x, y rules.Change) int {
		return cmp.Or(cmp.Compare(x.Tx.CreatedAt, y.Tx.CreatedAt), cmp.Compare(x.Tx.ID, y.Tx.ID))
	})
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DATE\tWHO\tACCOUNT\tDESCRIPTION\tAMOUNT\tCHANGE\tRULE")
	for _, c := range all {
		for _, act := range c.Actions {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", dateOf(c.Tx.CreatedLocal), textsafe.Cut(orDash(rules.Who(c.Tx)), 16),
				textsafe.Cut(orDash(c.Tx.AccountName), 24), textsafe.Cut(c.Tx.Description, 40),
				formatMoney(c.Tx.AmountBaseUnits, c.Tx.Currency), rules.DescribeAction(c.Tx, act), textsafe.Cut(act.Rule, 40))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%d of %d transactions would change; %s\n", sum.Changed, sum.Transactions, writesSummary(sum))
	return nil
}

// writesSummary says what writing back takes: the changes at the bank,
// and what stays in the mirror only because the bank cannot take it.
func writesSummary(sum rules.ScanSummary) string {
	s := fmt.Sprintf("writing back takes %s at the bank (each a request and a refetch)", plural(sum.Requests, "write"))
	if sum.Local > 0 {
		s += fmt.Sprintf("; %d kept in the mirror only (tags the bank cannot take: on 2Up, or a 7th)", sum.Local)
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func dateOf(local string) string {
	if len(local) >= 10 {
		return local[:10]
	}
	return local
}

func checkDate(d string) error {
	if d == "" {
		return nil
	}
	if _, err := time.Parse("2006-01-02", d); err != nil {
		return fmt.Errorf("%w: --since %q: want a date, YYYY-MM-DD", cli.ErrUsage, d)
	}
	return nil
}

func (a *app) rulesApply(ctx context.Context, since string, writeBack bool) error {
	if since == "" {
		return fmt.Errorf("%w: rules apply needs --since DATE", cli.ErrUsage)
	}
	if err := checkDate(since); err != nil {
		return err
	}
	st, err := a.openExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	set, err := a.loadRules(ctx, st)
	if err != nil {
		return err
	}
	var writer rules.Writer
	if writeBack {
		people, err := a.householdWriters()
		if err != nil {
			return err
		}
		writer = writeback.NewHousehold(people, st, a.log)
	}
	e := a.rulesEngine(st, set, writer)
	plan, err := e.Scan(ctx, since, 0, writeBack, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%d of %d transactions since %s change", plan.Changed, plan.Transactions, since)
	if writeBack {
		fmt.Fprintf(a.stdout, "; %s to write back at the bank, about %d requests", plural(plan.Requests, "write"), 2*plan.Requests)
		if plan.Local > 0 {
			fmt.Fprintf(a.stdout, "; %d kept in the mirror only (tags the bank cannot take: on 2Up, or a 7th)", plan.Local)
		}
	}
	fmt.Fprintln(a.stdout)
	sum, err := e.Apply(ctx, since, writeBack, rules.StorePlace{Store: st}, func(p rules.ApplyProgress) {
		if a.statusLine != nil {
			a.statusLine.set(fmt.Sprintf("rules apply: %d transactions scanned, %d changed", p.Done, p.Changed))
		}
	})
	if a.statusLine != nil {
		a.statusLine.clear()
	}
	if err != nil {
		return err
	}
	if !writeBack {
		fmt.Fprintf(a.stdout, "recorded %d actions on %d transactions in the mirror; nothing was sent to the bank (--write-back sends it)\n", sum.Actions, sum.Changed)
		return nil
	}
	if err := e.Drain(ctx); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "applied %d actions on %d transactions; the write-backs are done or wait for their retry (see rule_applications)\n", sum.Actions, sum.Changed)
	return nil
}

// householdWriters are the household's people, each with a client of
// their own token, for write-back.
func (a *app) householdWriters() ([]writeback.Person, error) {
	people, err := a.members()
	if err != nil {
		return nil, err
	}
	return daemon.WritebackPeople(daemon.PersonClients(a.cfg, people, a.log, clientOptions(""))), nil
}

// alertsCommand tests channels and shows the outbox.
func (a *app) alertsCommand() *cli.Command {
	return &cli.Command{Name: "alerts", Summary: "send a test alert to a channel, and show the alerts sent, pending and failed",
		Commands: []*cli.Command{
			{Name: "test", Synopsis: "CHANNEL", TakesArgs: true, Summary: "send one test alert to a channel of the rules file, now",
				Run: a.configured(func(ctx context.Context, args []string) error {
					if len(args) != 1 {
						return fmt.Errorf("%w: alerts test needs CHANNEL", cli.ErrUsage)
					}
					return a.alertsTest(ctx, args[0])
				})},
			{Name: "list", Summary: "the newest alerts and each channel's counts",
				Run: a.configured(func(ctx context.Context, _ []string) error { return a.alertsList(ctx) })},
		}}
}

func (a *app) alertsTest(ctx context.Context, channel string) error {
	set, err := rules.Load(ctx, a.cfg.RulesFile, rules.Options{})
	if err != nil {
		return err
	}
	if _, ok := set.Channels[channel]; !ok {
		return fmt.Errorf("no [channel.%s] in %s", channel, set.Path)
	}
	d := alerts.NewDispatcher(nil, nil, a.log)
	if err := d.Configure(set, nil); err != nil {
		return err
	}
	m := alerts.Message{Kind: alerts.KindTest, Key: "test:" + time.Now().UTC().Format(time.RFC3339Nano),
		Title: "bankmirror test alert", Message: "This is a test alert from bankmirror: the channel " + channel + " works.",
		DashboardURL: set.AlertSettings.DashboardURL}
	if err := d.SendNow(ctx, channel, m); err != nil {
		return fmt.Errorf("channel %s: %w", channel, err)
	}
	fmt.Fprintf(a.stdout, "sent a test alert to %s\n", channel)
	return nil
}
