package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/sync"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

const webhookUsage = `Usage: bankmirror webhook <command>

Commands:
  register --url URL [--description D]   create a webhook at the bank; its secret is kept beside the mirror
  list                                   the bank's webhooks
  delete ID                              delete a webhook at the bank
  ping ID                                ask the bank to send a PING event
  logs ID [--limit N]                    the bank's delivery log of a webhook, newest first
  rotate ID                              replace a webhook by a new one with a new secret
`

func cmdWebhook(ctx context.Context, a *app, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(a.stderr, webhookUsage)
		return errUsage
	}
	w := &webhookCmd{app: a}
	defer w.close()
	sub, rest := args[0], args[1:]
	switch sub {
	case "register":
		return w.register(ctx, rest)
	case "list":
		return w.list(ctx, rest)
	case "delete":
		return w.withID(ctx, "delete", rest, w.delete)
	case "ping":
		return w.withID(ctx, "ping", rest, w.ping)
	case "logs":
		return w.logs(ctx, rest)
	case "rotate":
		return w.withID(ctx, "rotate", rest, w.rotate)
	}
	fmt.Fprint(a.stderr, webhookUsage)
	return fmt.Errorf("%w: unknown webhook command %q", errUsage, sub)
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
	w.hooks = webhooks.New(b, st, sync.NewHealer(b, st, w.log), w.log)
}

func (w *webhookCmd) close() {
	if w.opened {
		_ = w.st.Close()
	}
}

func (w *webhookCmd) withID(ctx context.Context, name string, args []string, fn func(context.Context, string) error) error {
	fs := w.flags("webhook "+name, "ID")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: webhook %s takes one webhook id", errUsage, name)
	}
	if err := w.open(ctx); err != nil {
		return err
	}
	return fn(ctx, fs.Arg(0))
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

func (w *webhookCmd) register(ctx context.Context, args []string) error {
	fs := w.flags("webhook register", "--url URL [--description D]")
	url := fs.String("url", "", "public URL of this daemon's webhook endpoint (http or https, at most 300 characters)")
	desc := fs.String("description", "", "description shown by the bank (at most 64 characters)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *url == "" {
		fs.Usage()
		return fmt.Errorf("%w: --url is required", errUsage)
	}
	var d *string
	if *desc != "" {
		d = desc
	}
	if err := w.open(ctx); err != nil {
		return err
	}
	hook, err := w.hooks.Register(ctx, *url, d)
	if err != nil {
		w.reportOrphans(err)
		return err
	}
	fmt.Fprintf(w.stdout, "registered webhook %s for %s; its secret is stored in %s\n", hook.ID, hook.URL, store.SecretsPath(w.st.Path()))
	return nil
}

func (w *webhookCmd) list(ctx context.Context, args []string) error {
	if err := w.flags("webhook list", "").ParseNone(args); err != nil {
		return err
	}
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

func (w *webhookCmd) logs(ctx context.Context, args []string) error {
	fs := w.flags("webhook logs", "ID [--limit N]")
	limit := fs.Int("limit", 20, "how many entries to show")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: webhook logs takes one webhook id", errUsage)
	}
	if err := w.open(ctx); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CREATED\tSTATUS\tCODE\tEVENT")
	shown := 0
	for page, err := range bank.Pages(ctx, w.bank.WebhookLogsURL(fs.Arg(0)), w.bank.WebhookLogsPage) {
		if err != nil {
			return err
		}
		for _, l := range page.Data {
			if shown == *limit {
				break
			}
			code := "-"
			if l.StatusCode != nil {
				code = fmt.Sprint(*l.StatusCode)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.CreatedAt, l.DeliveryStatus, code, l.EventID)
			shown++
		}
		if shown >= *limit {
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
