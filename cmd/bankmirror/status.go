package main

import (
	"context"
	"fmt"
	"os"
	"text/tabwriter"
)

func cmdPing(ctx context.Context, a *app, args []string) error {
	if err := a.flags("ping", "").ParseNone(args); err != nil {
		return err
	}
	if err := a.cfg.requireToken(); err != nil {
		return err
	}
	p, err := a.client(a.cfg.APIURL, a.cfg.Token, a.cfg.RequestsPerHour).Ping(ctx)
	if err != nil {
		return fmt.Errorf("ping %s: %w", a.cfg.APIURL, err)
	}
	fmt.Fprintf(a.stdout, "token accepted by %s: customer %s %s\n", a.cfg.APIURL, p.ID, p.StatusEmoji)
	return nil
}

func cmdStatus(ctx context.Context, a *app, args []string) error {
	if err := a.flags("status", "").ParseNone(args); err != nil {
		return err
	}
	if _, err := os.Stat(a.cfg.DB); err != nil {
		return fmt.Errorf("no mirror at %s (set BANKMIRROR_DB, or run `bankmirror sync --full` first): %w", a.cfg.DB, err)
	}
	st, err := a.openStore(ctx, a.cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	stats, err := st.Stats(ctx)
	if err != nil {
		return err
	}
	runs, err := st.RecentRuns(ctx, 5)
	if err != nil {
		return err
	}
	w := a.stdout
	fmt.Fprintf(w, "mirror: %s\n", a.cfg.DB)
	fmt.Fprintf(w, "rows: %d accounts, %d transactions (%d HELD), %d categories, %d tags, %d attachments, %d history rows\n",
		stats.Accounts, stats.Transactions, stats.Held, stats.Categories, stats.Tags, stats.Attachments, stats.History)
	if stats.OldestHeld != nil {
		fmt.Fprintf(w, "oldest HELD: %s (created %s)\n", *stats.OldestHeldID, *stats.OldestHeld)
	} else {
		fmt.Fprintln(w, "oldest HELD: none")
	}
	inbox, err := st.InboxStats(ctx, a.cfg.EventMaxAttempts)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "webhook events: %d received, %d pending, %d stuck, %d recovered from delivery logs\n",
		inbox.Total, inbox.Pending, inbox.Stuck, inbox.Recovered)
	if inbox.Stuck > 0 {
		stuck, err := st.StuckEvents(ctx, a.cfg.EventMaxAttempts, 5)
		if err != nil {
			return err
		}
		for _, e := range stuck {
			fmt.Fprintf(w, "  stuck: %s %s transaction %s after %d attempts: %s\n", e.ID, e.EventType, e.TransactionID, e.Attempts, deref(e.LastError, ""))
		}
	}
	if len(runs) == 0 {
		fmt.Fprintln(w, "sync runs: none yet")
		return nil
	}
	fmt.Fprintln(w, "last sync runs:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tKIND\tSTARTED\tFINISHED\tSTATUS\tREQUESTS\tCHANGED\tDELETED\tERROR")
	for _, r := range runs {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", r.ID, r.Kind, r.StartedAt, deref(r.FinishedAt, "-"),
			r.Status, r.Requests, r.Upserted, r.Deleted, deref(r.Error, ""))
	}
	return tw.Flush()
}

func deref(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}
