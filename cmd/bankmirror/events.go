package main

import (
	"context"
	"fmt"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/ptr"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// eventsCommand lists webhook events that ran out of attempts and
// requeues them: `events retry` with no id requeues every stuck event.
func (a *app) eventsCommand() *cli.Command {
	return &cli.Command{Name: "events", Summary: "list webhook events that ran out of attempts (stuck), or requeue them (retry)",
		Commands: []*cli.Command{
			{Name: "stuck", Summary: "list webhook events that ran out of attempts, with their last error",
				Run: a.configured(func(ctx context.Context, _ []string) error { return a.stuckEvents(ctx) })},
			{Name: "retry", Synopsis: "[EVENT_ID...]", TakesArgs: true,
				Summary: "requeue stuck webhook events (all, or the ids given) with fresh attempts",
				Run:     a.configured(a.retryEvents)},
		}}
}

func (a *app) retryEvents(ctx context.Context, ids []string) error {
	st, err := a.openExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := st.RetryEvents(ctx, a.cfg.EventMaxAttempts, ids)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "requeued %d stuck webhook events; the daemon applies them within a minute\n", n)
	if len(ids) > 0 && int(n) < len(ids) {
		return fmt.Errorf("%d of the given ids are not stuck events", len(ids)-int(n))
	}
	return nil
}

func (a *app) stuckEvents(ctx context.Context) error {
	st, err := a.openExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	stuck, err := st.StuckEvents(ctx, a.cfg.EventMaxAttempts, 1000)
	if err != nil {
		return err
	}
	for _, e := range stuck {
		fmt.Fprintf(a.stdout, "%s\t%s\t%s\t%d attempts\t%s\n", textsafe.Line(e.ID), textsafe.Line(e.EventType), textsafe.Line(e.TransactionID),
			e.Attempts, textsafe.Line(ptr.Value(e.LastError)))
	}
	fmt.Fprintf(a.stdout, "%d stuck webhook events\n", len(stuck))
	return nil
}
