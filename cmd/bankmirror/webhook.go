package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

func (a *app) webhookCommand() *cli.Command {
	// Each subcommand opens the mirror and the bank only once its
	// arguments are known to be good, so that a usage error creates no file.
	with := func(fn func(ctx context.Context, w *webhookCmd, args []string) error) func(context.Context, []string) error {
		return a.configured(func(ctx context.Context, args []string) error {
			w := &webhookCmd{app: a}
			defer w.close()
			return fn(ctx, w, args)
		})
	}
	withID := func(name string, fn func(w *webhookCmd, ctx context.Context, id string) error) func(context.Context, []string) error {
		return with(func(ctx context.Context, w *webhookCmd, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("%w: webhook %s takes one webhook id", errUsage, name)
			}
			if err := w.open(ctx); err != nil {
				return err
			}
			return fn(w, ctx, args[0])
		})
	}
	register := newFlags("webhook register")
	url := register.String("url", "", "public `URL` of this daemon's webhook endpoint (http or https, at most 300 characters)")
	desc := register.String("description", "", "description `D` shown by the bank (at most 64 characters)")
	logs := newFlags("webhook logs")
	limit := logs.Int("limit", 20, "how many entries (`N`) to show")
	return &cli.Command{Name: "webhook", Summary: "register, list, delete, ping, rotate webhooks and read their delivery logs",
		Commands: []*cli.Command{
			{Name: "register", Synopsis: "--url URL [--description D]", Flags: register,
				Summary: "create a webhook at the bank; its secret is kept beside the mirror",
				Run: with(func(ctx context.Context, w *webhookCmd, _ []string) error {
					return w.register(ctx, *url, *desc)
				})},
			{Name: "list", Summary: "the bank's webhooks",
				Run: with(func(ctx context.Context, w *webhookCmd, _ []string) error { return w.list(ctx) })},
			{Name: "delete", Synopsis: "ID", TakesArgs: true, Summary: "delete a webhook at the bank",
				Run: withID("delete", (*webhookCmd).delete)},
			{Name: "ping", Synopsis: "ID", TakesArgs: true, Summary: "ask the bank to send a PING event",
				Run: withID("ping", (*webhookCmd).ping)},
			{Name: "logs", Synopsis: "ID [--limit N]", TakesArgs: true, Flags: logs,
				Summary: "the bank's delivery log of a webhook, newest first",
				Run:     withID("logs", func(w *webhookCmd, ctx context.Context, id string) error { return w.logs(ctx, id, *limit) })},
			{Name: "rotate", Synopsis: "ID", TakesArgs: true, Summary: "replace a webhook by a new one with a new secret",
				Detail: "The new webhook is created for the same URL and its secret kept before the old one is deleted: deliveries signed with either secret are accepted throughout, and with the old one for an hour after.",
				Run:    withID("rotate", (*webhookCmd).rotate)},
		}}
}

type webhookCmd struct {
	*app
	st     *store.Store
	bank   *bank.Client
	hooks  *webhooks.Manager
	opened bool // st was opened here and is closed by close
}

// open connects to the mirror and the bank, once the arguments are known to
// be good, so that a usage error creates no file.
func (w *webhookCmd) open(ctx context.Context) error {
	if w.st != nil {
		return nil
	}
	if err := w.cfg.requireToken(); err != nil {
		return err
	}
	st, err := w.openStore(ctx, w.cfg.DB)
	if err != nil {
		return err
	}
	w.use(st, w.client(w.cfg.APIURL, w.cfg.Token, w.cfg.RequestsPerHour))
	w.opened = true
	return nil
}

// use makes w work on st and the bank client b (opened elsewhere, as in
// tests with a running daemon).
func (w *webhookCmd) use(st *store.Store, b *bank.Client) {
	w.st, w.bank = st, b
	w.hooks = webhooks.New(b, st, replica.NewHealer(b, st, w.log, replica.HealerOptions{}), w.log)
}

func (w *webhookCmd) close() {
	if w.opened {
		_ = w.st.Close()
	}
}

// reportOrphans names the bank's webhooks whose secret this mirror does
// not hold, after a registration that may have created one.
func (w *webhookCmd) reportOrphans(err error) {
	var oe *webhooks.OrphanError
	if !errors.As(err, &oe) {
		return
	}
	for _, id := range oe.Orphans {
		fmt.Fprintf(w.stderr, "bankmirror: the bank has webhook %s for %s whose secret this mirror does not hold; "+
			"if the failed request created it, delete it: bankmirror webhook delete %s\n", id, oe.URL, id)
	}
}

func (w *webhookCmd) register(ctx context.Context, url, desc string) error {
	if url == "" {
		return fmt.Errorf("%w: --url is required", errUsage)
	}
	var d *string
	if desc != "" {
		d = &desc
	}
	if err := w.open(ctx); err != nil {
		return err
	}
	hook, err := w.hooks.Register(ctx, url, d)
	if err != nil {
		w.reportOrphans(err)
		return err
	}
	fmt.Fprintf(w.stdout, "registered webhook %s for %s; its secret is stored in %s\n", hook.ID, hook.URL, store.SecretsPath(w.st.Path()))
	return nil
}

func (w *webhookCmd) list(ctx context.Context) error {
	if err := w.open(ctx); err != nil {
		return err
	}
	hooks, err := w.hooks.List(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tURL\tDESCRIPTION\tCREATED\tSECRET STORED")
	for _, h := range hooks {
		stored := "no"
		if h.SecretStored {
			stored = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", h.ID, h.URL, deref(h.Description, ""), h.CreatedAt, stored)
	}
	return tw.Flush()
}

func (w *webhookCmd) delete(ctx context.Context, id string) error {
	existed, err := w.hooks.Delete(ctx, id)
	if err != nil {
		return err
	}
	if !existed {
		fmt.Fprintf(w.stdout, "webhook %s did not exist at the bank; forgotten locally\n", id)
		return nil
	}
	fmt.Fprintf(w.stdout, "deleted webhook %s\n", id)
	return nil
}

func (w *webhookCmd) ping(ctx context.Context, id string) error {
	ev, err := w.bank.PingWebhook(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(w.stdout, "PING event %s sent to webhook %s\n", ev.ID, id)
	return nil
}

func (w *webhookCmd) logs(ctx context.Context, id string, limit int) error {
	tw := tabwriter.NewWriter(w.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CREATED\tSTATUS\tCODE\tEVENT")
	shown := 0
	for page, err := range bank.Pages(ctx, w.bank.WebhookLogsURL(id), w.bank.WebhookLogsPage) {
		if err != nil {
			return err
		}
		for _, l := range page.Data {
			if shown == limit {
				break
			}
			code := "-"
			if l.StatusCode != nil {
				code = fmt.Sprint(*l.StatusCode)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.CreatedAt, l.DeliveryStatus, code, l.EventID)
			shown++
		}
		if shown >= limit {
			break
		}
	}
	return tw.Flush()
}

func (w *webhookCmd) rotate(ctx context.Context, id string) error {
	r, err := w.hooks.Rotate(ctx, id)
	if r.Recovered > 0 {
		fmt.Fprintf(w.stdout, "recovered %d undelivered events of webhook %s into the inbox\n", r.Recovered, id)
	}
	if err != nil {
		w.reportOrphans(err)
		return err
	}
	fmt.Fprintf(w.stdout, "rotated webhook %s -> %s for %s\n", id, r.New.ID, r.New.URL)
	return nil
}
