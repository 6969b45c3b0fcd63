package main

import (
	"context"
	"fmt"
)

const eventsUsage = "stuck | retry [EVENT_ID...]"

// cmdEvents lists webhook events that ran out of attempts and requeues
// them: `events retry` with no id requeues every stuck event.
func cmdEvents(ctx context.Context, a *app, args []string) error {
	fs := a.flags("events", eventsUsage)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("%w: events needs a subcommand: %s", errUsage, eventsUsage)
	}
	sub, ids := fs.Arg(0), fs.Args()[1:]
	if sub != "stuck" && sub != "retry" {
		return fmt.Errorf("%w: unknown events subcommand %q (want %s)", errUsage, sub, eventsUsage)
	}
	if sub == "stuck" && len(ids) > 0 {
		return fmt.Errorf("%w: events stuck takes no arguments", errUsage)
	}
	st, err := a.openExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	maxAttempts := a.cfg.EventMaxAttempts
	if sub == "retry" {
		n, err := st.RetryEvents(ctx, maxAttempts, ids)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "requeued %d stuck webhook events; the daemon applies them within a minute\n", n)
		if len(ids) > 0 && int(n) < len(ids) {
			return fmt.Errorf("%d of the given ids are not stuck events", len(ids)-int(n))
		}
		return nil
	}
	stuck, err := st.StuckEvents(ctx, maxAttempts, 1000)
	if err != nil {
		return err
	}
	for _, e := range stuck {
		fmt.Fprintf(a.stdout, "%s\t%s\t%s\t%d attempts\t%s\n", e.ID, e.EventType, e.TransactionID, e.Attempts, deref(e.LastError, ""))
	}
	fmt.Fprintf(a.stdout, "%d stuck webhook events\n", len(stuck))
	return nil
}
