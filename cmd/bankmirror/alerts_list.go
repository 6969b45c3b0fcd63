package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/bankmirror/bankmirror/internal/statustext"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// alertsList prints each channel's counts, then the newest alerts: when
// each was made, its state and, for one not sent, why (the last error, the
// next try, what it waits for); times by the commands' clock.
func (a *app) alertsList(ctx context.Context) error {
	st, err := a.openExistingReadOnly(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	counts, err := st.AlertCountsByChannel(ctx)
	if err != nil {
		return err
	}
	recent, err := st.RecentAlerts(ctx, 20)
	if err != nil {
		return err
	}
	c := statustext.NewClock(a.cfg.Location)
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHANNEL\tSENT\tPENDING\tFAILED")
	for _, n := range counts {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", n.Channel, n.Sent, n.Pending, n.Failed)
	}
	fmt.Fprintln(tw, "\nCREATED\tCHANNEL\tKIND\tSTATE\tTITLE\tWHY")
	now := time.Now()
	for _, al := range recent {
		state, why := alertState(c, al, now)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Stamp(al.CreatedAt), al.Channel, al.Kind, state, textsafe.Cut(al.Title, 50), why)
	}
	return tw.Flush()
}

// alertState is an alert's state (sent, failed or pending) and what
// explains it at now: when it was sent; the attempts and the last error
// of a failed one; for a pending one, its last error and next try, or the
// time it waits for (quiet hours, the channel's rate limit), or that it is
// due.
func alertState(c statustext.Clock, al store.Alert, now time.Time) (state, why string) {
	cause := textsafe.Cut(al.Error, 80)
	switch {
	case al.SentAt != "":
		return "sent", "sent " + c.Stamp(al.SentAt) + attemptsNote(al.Attempts)
	case al.FailedAt != "":
		return "failed", fmt.Sprintf("gave up %s after %s: %s", c.Stamp(al.FailedAt), plural(al.Attempts, "attempt"), cause)
	}
	next, err := time.Parse(time.RFC3339Nano, al.NotBefore)
	waits := err == nil && next.After(now)
	switch {
	case al.Attempts > 0 && waits:
		return "pending", fmt.Sprintf("%s failed (%s); next try %s", plural(al.Attempts, "attempt"), cause, c.At(next))
	case al.Attempts > 0:
		return "pending", fmt.Sprintf("%s failed (%s); next try due now: the running daemon sends it", plural(al.Attempts, "attempt"), cause)
	case waits:
		return "pending", "not before " + c.At(next) + ": quiet hours or the channel's rate limit"
	default:
		return "pending", "due now: the running daemon sends it (is it running? bankmirror status)"
	}
}

// attemptsNote is ", at attempt N" when an alert took more than one.
func attemptsNote(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(", at attempt %d", n)
}
