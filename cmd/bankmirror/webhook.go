package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/sync"
)

const webhookUsage = `Usage: bankmirror webhook <command>

Commands:
  register --url URL [--description D]   create a webhook at the bank; its secret is kept in the mirror
  list                                   the bank's webhooks
  delete ID                              delete a webhook at the bank
  ping ID                                ask the bank to send a PING event
  logs ID [--limit N]                    the bank's delivery log of a webhook, newest first
  rotate ID                              replace a webhook by a new one with a new secret
`

// maxWebhooks is the bank's limit on webhooks.
const maxWebhooks = 10

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
	w.st, w.opened = st, true
	w.bank = w.client(w.cfg.APIURL, w.cfg.Token, w.cfg.RequestsPerHour)
	return nil
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

// create makes a webhook at the bank and stores its secret at once. While
// it does, the daemon answers deliveries it cannot verify with 503 (retry)
// rather than 401, so none signed with the new secret is rejected.
func (w *webhookCmd) create(ctx context.Context, url string, desc *string) (bank.Webhook, error) {
	if err := w.st.BeginWebhookRegistration(ctx); err != nil {
		return bank.Webhook{}, err
	}
	defer func() {
		if err := w.st.EndWebhookRegistration(context.WithoutCancel(ctx)); err != nil {
			w.log.Warn().Err(err).Msg("end webhook registration")
		}
	}()
	hook, err := w.bank.CreateWebhook(ctx, url, desc)
	if errors.Is(err, bank.ErrUnprocessable) {
		if hooks, lerr := w.bank.Webhooks(ctx); lerr == nil && len(hooks) >= maxWebhooks {
			return hook, fmt.Errorf("the bank allows at most %d webhooks and you have %d: delete one first "+
				"(bankmirror webhook list, then bankmirror webhook delete ID)", maxWebhooks, len(hooks))
		}
	}
	if err != nil {
		var apiErr *bank.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode >= 500 {
			// The request may have reached the bank: a webhook it created
			// would deliver events signed with a secret nobody has.
			w.reportOrphans(context.WithoutCancel(ctx), url)
		}
		return hook, err
	}
	if err := w.st.SaveWebhook(ctx, store.Webhook{ID: hook.ID, URL: hook.URL, Description: hook.Description,
		SecretKey: hook.SecretKey, CreatedAt: hook.CreatedAt}); err != nil {
		// Without its secret the webhook is useless: take it back.
		if derr := w.bank.DeleteWebhook(context.WithoutCancel(ctx), hook.ID); derr != nil {
			return hook, fmt.Errorf("store secret of webhook %s: %w (and deleting it failed: %v)", hook.ID, err, derr)
		}
		return hook, fmt.Errorf("store secret of webhook %s (deleted it again): %w", hook.ID, err)
	}
	return hook, nil
}

// reportOrphans names the bank's webhooks for url whose secret the mirror
// does not hold.
func (w *webhookCmd) reportOrphans(ctx context.Context, url string) {
	hooks, err := w.bank.Webhooks(ctx)
	if err != nil {
		return
	}
	for _, h := range hooks {
		if h.URL != url {
			continue
		}
		if local, err := w.st.Webhook(ctx, h.ID); err == nil && local.DeletedAt == nil {
			continue
		}
		fmt.Fprintf(w.stderr, "bankmirror: the bank has webhook %s for %s whose secret this mirror does not hold; "+
			"if the failed request created it, delete it: bankmirror webhook delete %s\n", h.ID, url, h.ID)
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
	hook, err := w.create(ctx, *url, d)
	if err != nil {
		return err
	}
	fmt.Fprintf(w.stdout, "registered webhook %s for %s; its secret is stored in %s\n", hook.ID, hook.URL, w.st.Path())
	return nil
}

func (w *webhookCmd) list(ctx context.Context, args []string) error {
	if err := w.flags("webhook list", "").ParseNone(args); err != nil {
		return err
	}
	if err := w.open(ctx); err != nil {
		return err
	}
	hooks, err := w.bank.Webhooks(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tURL\tDESCRIPTION\tCREATED\tSECRET STORED")
	for _, h := range hooks {
		stored := "no"
		if local, err := w.st.Webhook(ctx, h.ID); err == nil && local.DeletedAt == nil {
			stored = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", h.ID, h.URL, deref(h.Description, ""), h.CreatedAt, stored)
	}
	return tw.Flush()
}

func (w *webhookCmd) delete(ctx context.Context, id string) error {
	err := w.bank.DeleteWebhook(ctx, id)
	if err != nil && !errors.Is(err, bank.ErrNotFound) {
		return err
	}
	if err := w.st.MarkWebhookDeleted(ctx, id); err != nil {
		return err
	}
	if err != nil {
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

// rotate follows the bank's procedure for a new secret: create a webhook
// with the same URL, keep its secret, then delete the old one. Both secrets
// verify deliveries throughout, and the old one for store.SecretGrace after.
func (w *webhookCmd) rotate(ctx context.Context, id string) error {
	old, err := w.bank.Webhook(ctx, id)
	if err != nil {
		return fmt.Errorf("rotate webhook %s: %w", id, err)
	}
	hook, err := w.create(ctx, old.URL, old.Description)
	if err != nil {
		return fmt.Errorf("rotate webhook %s: %w", id, err)
	}
	// Deliveries to the old webhook that failed stop being retried once it
	// is deleted: take its delivery log's events into the inbox first.
	if res, err := sync.NewHealer(w.bank, w.st, w.log).Heal(ctx); err != nil {
		w.log.Warn().Err(err).Msg("heal delivery logs before deleting the old webhook")
	} else if res.Recovered > 0 {
		fmt.Fprintf(w.stdout, "recovered %d undelivered events of webhook %s into the inbox\n", res.Recovered, id)
	}
	if err := w.bank.DeleteWebhook(ctx, id); err != nil && !errors.Is(err, bank.ErrNotFound) {
		return fmt.Errorf("rotate webhook %s: new webhook %s is live, but deleting the old one failed: %w", id, hook.ID, err)
	}
	if err := w.st.MarkWebhookDeleted(ctx, id); err != nil {
		return err
	}
	fmt.Fprintf(w.stdout, "rotated webhook %s -> %s for %s\n", id, hook.ID, hook.URL)
	return nil
}
