package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/sync"
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
	if err := printReport(ctx, w, st); err != nil {
		return err
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

// printReport shows what the running daemon last reported: the bank's
// request budget, a paused worker, a sync in progress with its ETA.
func printReport(ctx context.Context, w io.Writer, st *store.Store) error {
	var r sync.Report
	at, ok, err := st.GetState(ctx, sync.ReportKey, &r)
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintln(w, "daemon: no report yet (bankmirror serve has not run on this mirror)")
		return nil
	}
	age := time.Since(at).Round(time.Second)
	fmt.Fprintf(w, "daemon: last report %s ago (pid %d)\n", age, r.PID)
	b := r.Budget
	switch {
	case b.Waiting:
		fmt.Fprintf(w, "bank budget: WAITING until %s: %s", b.WaitUntil.Local().Format("15:04:05"), b.WaitReason)
		if b.Known {
			fmt.Fprintf(w, " (%d requests left)", b.Remaining)
		}
		fmt.Fprintln(w)
	case b.Known:
		fmt.Fprintf(w, "bank budget: %d requests left (reported by the bank %s ago; %d kept for webhook refetches)\n",
			b.Remaining, time.Since(b.ObservedAt).Round(time.Second), b.Reserve)
	default:
		fmt.Fprintln(w, "bank budget: not reported by the bank yet")
	}
	if r.Worker.Paused {
		fmt.Fprintf(w, "webhook worker: PAUSED, retrying at %s: %s\n", r.Worker.PausedUntil.Local().Format("15:04:05"), r.Worker.PauseCause)
	}
	if p := r.Sync; p != nil {
		fmt.Fprintf(w, "sync in progress: %s, %d pages, %d transactions", p.Kind, p.Pages, p.Transactions)
		if p.Covered >= 0 {
			fmt.Fprintf(w, ", %.0f%% of the date range", 100*p.Covered)
		}
		if p.ETA > 0 {
			fmt.Fprintf(w, ", about %s left", p.ETA.Round(time.Second))
		}
		fmt.Fprintln(w)
	}
	return nil
}
