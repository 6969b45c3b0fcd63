package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/ptr"
	"github.com/bankmirror/bankmirror/internal/statustext"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

func (a *app) webhookCommand() *cli.Command {
	// Each subcommand opens the mirror and the bank only once its
	// arguments are known to be good, so that a usage error creates no file.
	with := func(person *string, fn func(ctx context.Context, w *webhookCmd, args []string) error) func(context.Context, []string) error {
		return a.configured(func(ctx context.Context, args []string) error {
			w := &webhookCmd{app: a, person: *person}
			defer w.close()
			return fn(ctx, w, args)
		})
	}
	withID := func(name string, person *string, fn func(w *webhookCmd, ctx context.Context, id string) error) func(context.Context, []string) error {
		return with(person, func(ctx context.Context, w *webhookCmd, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("%w: webhook %s takes one webhook id", cli.ErrUsage, name)
			}
			if err := w.open(ctx); err != nil {
				return err
			}
			return fn(w, ctx, args[0])
		})
	}
	// personFlag adds --person to a subcommand's flags.
	personFlag := func(fs *flag.FlagSet, what string) *string {
		return fs.String("person", "", "only the webhooks of the person `NAME` ("+what+"; default: every person)")
	}
	register := newFlags("webhook register")
	url := register.String("url", "", "public `URL` of this daemon's webhook endpoint (http or https, at most 300 characters)")
	desc := register.String("description", "", "description `D` shown by the bank (at most 64 characters)")
	registerPerson := personFlag(register, "register through their token only")
	list := newFlags("webhook list")
	listPerson := personFlag(list, "listed through their token")
	logs := newFlags("webhook logs")
	limit := logs.Int("limit", 20, "how many entries (`N`) to show")
	logsPerson := personFlag(logs, "whose token reads the log")
	idFlags := func(name string) (*flag.FlagSet, *string) {
		fs := newFlags("webhook " + name)
		return fs, personFlag(fs, "whose token the webhook is looked for with")
	}
	deleteFlags, deletePerson := idFlags("delete")
	pingFlags, pingPerson := idFlags("ping")
	rotateFlags, rotatePerson := idFlags("rotate")
	return &cli.Command{Name: "webhook", Summary: "register, list, delete, ping, rotate webhooks and read their delivery logs",
		Detail: "A household registers one webhook per person, through each person's token: the bank sends a token's events to that token's webhooks only. Each takes --person NAME to act on one person's webhooks; without it, every person's.",
		Commands: []*cli.Command{
			{Name: "register", Synopsis: "--url URL [--description D] [--person NAME]", Flags: register,
				Summary: "create a webhook at the bank for each person; each secret is kept beside the mirror",
				Run: with(registerPerson, func(ctx context.Context, w *webhookCmd, _ []string) error {
					return w.register(ctx, *url, *desc)
				})},
			{Name: "list", Synopsis: "[--person NAME]", Flags: list, Summary: "the bank's webhooks, each person's",
				Run: with(listPerson, func(ctx context.Context, w *webhookCmd, _ []string) error { return w.list(ctx) })},
			{Name: "delete", Synopsis: "ID [--person NAME]", TakesArgs: true, Flags: deleteFlags, Summary: "delete a webhook at the bank",
				Run: withID("delete", deletePerson, (*webhookCmd).delete)},
			{Name: "ping", Synopsis: "ID [--person NAME]", TakesArgs: true, Flags: pingFlags, Summary: "ask the bank to send a PING event",
				Run: withID("ping", pingPerson, (*webhookCmd).ping)},
			{Name: "logs", Synopsis: "ID [--limit N] [--person NAME]", TakesArgs: true, Flags: logs,
				Summary: "the bank's delivery log of a webhook, newest first",
				Run:     withID("logs", logsPerson, func(w *webhookCmd, ctx context.Context, id string) error { return w.logs(ctx, id, *limit) })},
			{Name: "rotate", Synopsis: "ID [--person NAME]", TakesArgs: true, Flags: rotateFlags, Summary: "replace a webhook by a new one with a new secret",
				Detail: "The new webhook is created for the same URL, through the same person's token, and its secret kept before the old one is deleted: deliveries signed with either secret are accepted throughout, and with the old one for an hour after (one that arrives in the few milliseconds the daemon takes to see the new secret may be answered 401 or 503; the bank delivers it again).",
				Run:    withID("rotate", rotatePerson, (*webhookCmd).rotate)},
		}}
}

type webhookCmd struct {
	*app
	person string // --person: "" for every person
	st     *store.Store
	// hooks are the managers of the people acted on (--person), each
	// through their token's client, clients[i].
	hooks   webhooks.Household
	clients map[string]*bank.Client
	opened  bool // st was opened here and is closed by close
}

// open connects to the mirror and the bank, once the arguments are known to
// be good, so that a usage error creates no file.
func (w *webhookCmd) open(ctx context.Context) error {
	if w.st != nil {
		return nil
	}
	people, err := w.members()
	if err != nil {
		return err
	}
	st, err := w.openStore(ctx, w.cfg.DB)
	if err != nil {
		return err
	}
	w.opened = true
	return w.useAll(st, daemon.PersonClients(w.cfg, people, w.log, clientOptions("")))
}

// use makes w work on st and the bank client b (opened elsewhere, as in
// tests with a running daemon), a household of one.
func (w *webhookCmd) use(st *store.Store, b *bank.Client) {
	_ = w.useAll(st, []daemon.PersonClient{{Name: "", Client: b}})
}

// useAll makes w work on st and each person's client; with --person, on
// that person's only.
func (w *webhookCmd) useAll(st *store.Store, people []daemon.PersonClient) error {
	w.st, w.clients = st, map[string]*bank.Client{}
	for _, p := range people {
		w.clients[p.Name] = p.Client
	}
	hooks, err := daemon.Webhooks(st, people, w.log).Only(w.person)
	if err != nil {
		return fmt.Errorf("%w: --person: %w", cli.ErrUsage, err)
	}
	w.hooks = hooks
	return nil
}

func (w *webhookCmd) close() {
	if w.opened {
		_ = w.st.Close()
	}
}

// owner is the manager of webhook id and its person's client.
func (w *webhookCmd) owner(ctx context.Context, id string) (*webhooks.Manager, *bank.Client, error) {
	m, err := w.hooks.Owner(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return m, w.clients[m.Person()], nil
}

// whose is " (NAME's)" in a household of several people, else "".
func (w *webhookCmd) whose(person string) string {
	if len(w.clients) < 2 || person == "" {
		return ""
	}
	return " (" + person + "'s)"
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
			"if the failed request created it, delete it: bankmirror webhook delete %s\n", textsafe.Line(id), textsafe.Line(oe.URL), shellQuote(textsafe.Line(id)))
	}
}

func (w *webhookCmd) register(ctx context.Context, url, desc string) error {
	if url == "" {
		return fmt.Errorf("%w: --url is required", cli.ErrUsage)
	}
	var d *string
	if desc != "" {
		d = &desc
	}
	if err := w.open(ctx); err != nil {
		return err
	}
	done, err := w.hooks.Register(ctx, url, d)
	for _, r := range done {
		if r.Err != nil {
			w.reportOrphans(r.Err)
			continue
		}
		fmt.Fprintf(w.stdout, "registered webhook %s%s for %s; its secret is stored in %s\n", textsafe.Line(r.Hook.ID), w.whose(r.Person), textsafe.Line(r.Hook.URL), store.SecretsPath(w.st.Path()))
	}
	return err
}

func (w *webhookCmd) list(ctx context.Context) error {
	if err := w.open(ctx); err != nil {
		return err
	}
	hooks, err := w.hooks.List(ctx)
	c := statustext.NewClock(w.cfg.Location)
	tw := tabwriter.NewWriter(w.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPERSON\tURL\tDESCRIPTION\tCREATED\tSECRET STORED")
	for _, h := range hooks {
		stored := "no"
		if h.SecretStored {
			stored = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", textsafe.Line(h.ID), cmp.Or(h.Person, "-"), textsafe.Line(h.URL),
			textsafe.Line(ptr.Value(h.Description)), c.Stamp(h.CreatedAt), stored)
	}
	if ferr := tw.Flush(); err == nil {
		err = ferr
	}
	return err
}

func (w *webhookCmd) delete(ctx context.Context, id string) error {
	m, _, err := w.owner(ctx, id)
	if errors.Is(err, bank.ErrNotFound) {
		m, err = w.hooks[0], nil // forget it locally, as the bank did
	}
	if err != nil {
		return err
	}
	existed, err := m.Delete(ctx, id)
	if err != nil {
		return err
	}
	if !existed {
		fmt.Fprintf(w.stdout, "webhook %s did not exist at the bank; forgotten locally\n", id)
		return nil
	}
	fmt.Fprintf(w.stdout, "deleted webhook %s%s\n", id, w.whose(m.Person()))
	return nil
}

func (w *webhookCmd) ping(ctx context.Context, id string) error {
	_, c, err := w.owner(ctx, id)
	if err != nil {
		return err
	}
	ev, err := c.PingWebhook(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(w.stdout, "PING event %s sent to webhook %s\n", ev.ID, id)
	return nil
}

func (w *webhookCmd) logs(ctx context.Context, id string, limit int) error {
	_, c, err := w.owner(ctx, id)
	if err != nil {
		return err
	}
	clk := statustext.NewClock(w.cfg.Location)
	tw := tabwriter.NewWriter(w.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CREATED\tSTATUS\tCODE\tEVENT")
	shown := 0
	for page, err := range bank.Pages(ctx, c.WebhookLogsURL(id), c.WebhookLogsPage) {
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
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", clk.Stamp(l.CreatedAt), textsafe.Line(l.DeliveryStatus), code, textsafe.Line(l.EventID))
			shown++
		}
		if shown >= limit {
			break
		}
	}
	return tw.Flush()
}

func (w *webhookCmd) rotate(ctx context.Context, id string) error {
	m, _, err := w.owner(ctx, id)
	if err != nil {
		return err
	}
	r, err := m.Rotate(ctx, id)
	if r.Recovered > 0 {
		fmt.Fprintf(w.stdout, "recovered %d undelivered events of webhook %s into the inbox\n", r.Recovered, id)
	}
	if err != nil {
		w.reportOrphans(err)
		return err
	}
	fmt.Fprintf(w.stdout, "rotated webhook %s -> %s%s for %s\n", id, textsafe.Line(r.New.ID), w.whose(m.Person()), textsafe.Line(r.New.URL))
	return nil
}
