package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/apps"
	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/statustext"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// feedsCommand lists, sets up, previews, pushes and checks the feeds
// (BANKMIRROR_FEEDS_FILE).
func (a *app) feedsCommand() *cli.Command {
	preview := newFlags("feeds preview")
	previewSince := preview.String("since", "", "look at every transaction created on or after `DATE` (YYYY-MM-DD), not only what changed since the last push")
	push := newFlags("feeds push")
	pushSince := push.String("since", "", "push every transaction created on or after `DATE` (YYYY-MM-DD) again, not only what changed since the last push")
	restore := push.String("restore", "", "put back the row of bank transaction `ID` that the person deleted in the app")
	return &cli.Command{Name: "feeds", Summary: "feed the budgeting apps of the feeds file (BANKMIRROR_FEEDS_FILE): Actual Budget, YNAB",
		Detail: "serve feeds each app continuously and sync pushes after it mirrors; these commands look and act now. The format and each app's set-up: docs/feeds.md.",
		Commands: []*cli.Command{
			{Name: "list", Summary: "list the feeds of the feeds file, without secrets",
				Run: a.configured(func(ctx context.Context, _ []string) error { return a.feedsList() })},
			{Name: "status", Summary: "say where each feed stands: last push, pending, errors, last check",
				Run: a.configured(func(ctx context.Context, _ []string) error { return a.feedsStatus(ctx) })},
			{Name: "setup", Synopsis: "NAME", TakesArgs: true, Summary: "make a feed ready: install Actual's client for an actual feed, check the app's budget and accounts",
				Run: a.configured(func(ctx context.Context, args []string) error { return a.feedsSetup(ctx, args) })},
			{Name: "preview", Synopsis: "NAME [--since DATE]", TakesArgs: true, Flags: preview,
				Summary: "show what the next push would change in the app, changing nothing",
				Run: a.configured(func(ctx context.Context, args []string) error {
					return a.feedsPush(ctx, args, feeds.PushOptions{Since: *previewSince, DryRun: true})
				})},
			{Name: "push", Synopsis: "NAME [--since DATE] [--restore ID]", TakesArgs: true, Flags: push,
				Summary: "push to the app now, resumably",
				Run: a.configured(func(ctx context.Context, args []string) error {
					opts := feeds.PushOptions{Since: *pushSince}
					if *restore != "" {
						opts.Restore = []string{*restore}
					}
					return a.feedsPush(ctx, args, opts)
				})},
			{Name: "check", Synopsis: "NAME", TakesArgs: true, Summary: "read the app and compare it with the mirror; exit 1 on any difference",
				Run: a.configured(func(ctx context.Context, args []string) error { return a.feedsCheck(ctx, args) })},
			{Name: "serve", Summary: "feed every app continuously, as serve does (bankmirror-feeds.service, beside `serve --no-feeds`)",
				Run: a.configured(func(ctx context.Context, _ []string) error { return a.feedsServe(ctx) })},
		}}
}

// readFeeds reads the feeds file; secrets too when withSecrets.
func (a *app) readFeeds(withSecrets bool) (*feeds.File, error) {
	f, err := feeds.Read(a.cfg.FeedsFile, !a.cfg.FeedsFileSet)
	if err != nil {
		return nil, err
	}
	if withSecrets {
		if err := f.ReadSecrets(a.environ["CREDENTIALS_DIRECTORY"]); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// feedNamed reads the feeds file with secrets and finds the feed args
// names.
func (a *app) feedNamed(args []string) (*feeds.File, *feeds.Feed, error) {
	if len(args) != 1 {
		return nil, nil, fmt.Errorf("%w: name one feed", cli.ErrUsage)
	}
	f, err := a.readFeeds(true)
	if err != nil {
		return nil, nil, err
	}
	fd := f.Feed(args[0])
	if fd == nil {
		names := f.Names()
		if len(names) == 0 {
			return nil, nil, fmt.Errorf("no feed %q: %s has no feeds", args[0], f.Path)
		}
		return nil, nil, fmt.Errorf("no feed %q in %s (its feeds: %s)", args[0], f.Path, strings.Join(names, ", "))
	}
	return f, fd, nil
}

// openFeed reads the feeds file with secrets, finds the feed args names
// and opens the mirror, for push, check and setup: the engine over the
// mirror, the feed, and the store to close.
func (a *app) openFeed(ctx context.Context, args []string) (*feeds.Engine, *feeds.Feed, *store.Store, error) {
	f, fd, err := a.feedNamed(args)
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := a.openExistingStore(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	return a.feedEngine(st, f), fd, st, nil
}

// feedEngine is an engine over st feeding f.
func (a *app) feedEngine(st *store.Store, f *feeds.File) *feeds.Engine {
	return daemon.NewFeedEngine(a.cfg, st, f, a.log)
}

func (a *app) feedsList() error {
	f, err := a.readFeeds(false)
	if err != nil {
		return err
	}
	if len(f.Feeds) == 0 {
		fmt.Fprintf(a.stdout, "no feeds (%s)\n", f.Path)
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tURL\tBUDGET\tSINCE\tACCOUNTS")
	for _, fd := range f.Feeds {
		var acc []string
		for _, k := range fd.Accounts {
			acc = append(acc, k.Key+" → "+k.App)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", fd.Name, fd.Kind, orDash(fd.URL), textsafe.Line(fd.Budget),
			orDash(fd.Since), textsafe.Line(strings.Join(acc, "; ")))
	}
	return tw.Flush()
}

func (a *app) feedsStatus(ctx context.Context) error {
	f, err := a.readFeeds(false)
	if err != nil {
		return err
	}
	if len(f.Feeds) == 0 {
		fmt.Fprintf(a.stdout, "no feeds (%s)\n", f.Path)
		return nil
	}
	st, err := a.openExistingReadOnly(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	list, err := st.FeedStatuses(ctx, f.Names())
	if err != nil {
		return err
	}
	c := statustext.NewClock(a.cfg.Location)
	when := func(stamp string) string { return c.Stamp(orDash(stamp)) }
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FEED\tROWS\tPENDING\tLAST PUSH\tLAST CHECK\tERROR")
	for _, s := range list {
		errText := "-"
		if s.LastError != "" {
			errText = textsafe.Cut(s.LastError, 300) + " (failing since " + when(s.FailingSince) + ", next try " + when(s.NextAttemptAt) + ")"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", s.Feed, s.Rows, s.Pending, when(s.LastPushAt), when(s.LastCheckAt), errText)
	}
	return tw.Flush()
}

func (a *app) feedsPush(ctx context.Context, args []string, opts feeds.PushOptions) error {
	if err := checkDate(opts.Since); err != nil {
		return err
	}
	e, fd, st, err := a.openFeed(ctx, args)
	if err != nil {
		return err
	}
	defer st.Close()
	if !opts.DryRun {
		e.Progress = func(feed string, done, left int64) {
			if left > 0 {
				fmt.Fprintf(a.stderr, "%s: %d history rows handled, %d to go\n", feed, done, left)
			}
		}
	}
	rep, err := e.Push(ctx, fd, opts)
	if err != nil {
		// A push that failed says only what it did before.
		if !opts.DryRun && rep.Changed() {
			fmt.Fprintf(a.stdout, "%s pushed before it failed: %s\n", fd.Name, rep.Summary())
		}
		return err
	}
	if opts.DryRun {
		tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ACTION\tDATE\tAMOUNT\tACCOUNT\tPAYEE\tTRANSACTION")
		for _, l := range rep.Lines {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l.Action, l.Date, money.Format(l.Amount, ""), textsafe.Line(orDash(l.Account)),
				textsafe.Cut(l.Payee, 40), l.TransactionID)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	verb := "pushed"
	if opts.DryRun {
		verb = "would push"
	}
	fmt.Fprintf(a.stdout, "%s %s: %s\n", fd.Name, verb, rep.Summary())
	return nil
}

// checkShown is how many differences of each kind check prints.
const checkShown = 5

func (a *app) feedsCheck(ctx context.Context, args []string) error {
	e, fd, st, err := a.openFeed(ctx, args)
	if err != nil {
		return err
	}
	defer st.Close()
	res, err := e.Check(ctx, fd)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: %d bank transactions fed, %d rows in the app: %s\n", fd.Name, res.Fed, res.Rows, res.Summary())
	first, more := res.First(checkShown)
	for _, fi := range first {
		fmt.Fprintf(a.stdout, "  %s %s %s\n", fi.Kind, fi.TransactionID, textsafe.Cut(fi.Detail, 100))
	}
	for _, k := range slices.Sorted(maps.Keys(more)) {
		fmt.Fprintf(a.stdout, "  … and %d more %s\n", more[k], k)
	}
	if len(res.Findings) > 0 {
		return &exitCode{1}
	}
	return nil
}

func (a *app) feedsSetup(ctx context.Context, args []string) error {
	e, fd, st, err := a.openFeed(ctx, args)
	if err != nil {
		return err
	}
	defer st.Close()
	said, err := apps.Setup(ctx, daemon.AppPrograms(a.cfg), fd, e.Target(fd))
	if said != "" {
		fmt.Fprintln(a.stdout, said)
	}
	if err != nil {
		return err
	}
	rep, err := e.Push(ctx, fd, feeds.PushOptions{DryRun: true})
	if err == nil && len(rep.Lines) == 0 && rep.Summary() == (feeds.Report{}).Summary() {
		// Nothing to push: the dry run did not open the app, a check does.
		var res feeds.CheckResult
		if res, err = e.Check(ctx, fd); err == nil {
			fmt.Fprintf(a.stdout, "%s is ready: the app's budget and accounts are found; nothing to push (check: %s)\n", fd.Name, res.Summary())
			return nil
		}
	}
	if err != nil {
		var u *feeds.Unavailable
		if errors.As(err, &u) {
			return err
		}
		if fd.Kind == "actual" {
			return fmt.Errorf("feed %s: its client is installed, but the feed is not ready: %w", fd.Name, err)
		}
		return fmt.Errorf("feed %s is not ready: %w", fd.Name, err)
	}
	fmt.Fprintf(a.stdout, "%s is ready: the app's budget and accounts are found; the first push creates %d rows\n", fd.Name, rep.Created)
	return nil
}

// feedsServe feeds every app of the feeds file until ctx ends, reading
// the file again on SIGHUP (daemon.ServeFeeds).
func (a *app) feedsServe(ctx context.Context) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	return daemon.ServeFeeds(ctx, a.cfg, a.environ, a.openExistingStore, a.log, hup)
}
