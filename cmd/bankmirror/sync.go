package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/household"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

func (a *app) syncCommand() *cli.Command {
	fs := newFlags("sync")
	full := fs.Bool("full", false, "list everything and reconcile deletions (default: incremental)")
	noFeeds := fs.Bool("no-feeds", false, "do not push to the feeds of the feeds file after the sync")
	return &cli.Command{Name: "sync", Synopsis: "[--full] [--no-feeds]", Flags: fs,
		Summary: "one sync now: incremental, or --full for a complete reconciliation",
		Detail: `The summary line goes to stdout, the log to stderr (JSON lines unless stderr is
a terminal, where a live progress line shows too), so that a script keeps them apart:
  bankmirror sync >>sync-summaries.txt 2>>sync.log`,
		Run: a.configured(func(ctx context.Context, _ []string) error { return a.sync(ctx, *full, !*noFeeds) })}
}

func (a *app) sync(ctx context.Context, full, pushFeeds bool) error {
	people, err := a.members()
	if err != nil {
		return err
	}
	st, err := a.openStore(ctx, a.cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	res, h, err := runSync(ctx, a, st, people, full)
	if errors.Is(err, store.ErrSyncRunning) {
		return fmt.Errorf("another sync of %s is running (bankmirror serve's schedule?); try again when it ends", a.cfg.DB)
	}
	if err != nil {
		return err
	}
	printResult(a.stdout, res)
	var errs []error
	if a.cfg.AttachmentsDir != "" {
		r, err := daemon.NewReceipts(a.cfg, h, st, a.log, nil).Fetch(ctx)
		fmt.Fprintf(a.stdout, "receipts: %d saved, %d refused (see attachments.download_error)\n", r.Saved, r.Failed)
		if err != nil {
			errs = append(errs, fmt.Errorf("receipts: %w", err))
		}
	}
	if pushFeeds {
		errs = append(errs, a.pushAllFeeds(ctx, st))
	}
	return errors.Join(errs...)
}

// pushAllFeeds pushes to every feed of the feeds file after a sync,
// printing a line each; a feed that fails is said and the others go on.
func (a *app) pushAllFeeds(ctx context.Context, st *store.Store) error {
	if a.daemonConfig().FeedsFile == "" {
		return nil // a simulated bank, fed only to a feeds file named, as serve does
	}
	f, err := a.readFeeds(true)
	if err != nil {
		return fmt.Errorf("feeds: %w", err)
	}
	e := a.feedEngine(st, f)
	var errs []error
	for i := range f.Feeds {
		fd := &f.Feeds[i]
		rep, err := e.Push(ctx, fd, feeds.PushOptions{})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(a.stdout, "feed %s: %d created, %d updated, %d deleted\n", fd.Name, rep.Created, rep.Updated, rep.Deleted)
	}
	return errors.Join(errs...)
}

// runSync runs one sync of every person with a live progress line when
// stderr is a terminal.
func runSync(ctx context.Context, a *app, st *store.Store, people []config.Person, full bool) (replica.Result, *household.Household, error) {
	opts := replica.Options{Overlap: a.cfg.SyncOverlap}
	var pl *progressLine
	if a.statusLine != nil {
		pl = &progressLine{line: a.statusLine}
		opts.OnProgress = pl.show
	}
	h := daemon.NewHousehold(a.cfg, st, a.log, daemon.HouseholdOptions{Sync: opts, Client: clientOptions})
	if err := h.SetPeople(ctx, daemon.HouseholdPeople(people)); err != nil {
		return replica.Result{}, h, err
	}
	stopWatch := func() {}
	if pl != nil {
		// While the bank's budget holds the sync back no page arrives:
		// say so, with the time it resumes.
		tctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); pl.watchBudget(tctx, h.Primary().Budget) }()
		stopWatch = func() { cancel(); <-done }
	}
	var res replica.Result
	var err error
	if full {
		res, err = h.Full(ctx)
	} else {
		res, err = h.Incremental(ctx)
	}
	stopWatch()
	pl.done()
	return res, h, err
}

func printResult(w io.Writer, r replica.Result) {
	resumed := ""
	if r.Resumed {
		resumed = " (resumed)"
	}
	fmt.Fprintf(w, "%s sync%s: %d transactions listed, %d rows changed, %d deleted, %d requests, %s\n",
		r.Kind, resumed, r.Listed, r.Upserted, r.Deleted, r.Requests, r.Duration.Round(time.Millisecond))
}

// progressLine shows a sync's progress as the status line of a terminal.
type progressLine struct {
	mu   sync.Mutex
	line *statusLine
	last time.Time
	pr   replica.Progress
}

func (p *progressLine) show(pr replica.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pr = pr
	if now := time.Now(); now.Sub(p.last) >= 100*time.Millisecond {
		p.last = now
		p.draw("")
	}
}

// draw writes the line; p.mu is held.
func (p *progressLine) draw(extra string) {
	pr := p.pr
	line := fmt.Sprintf("%s sync: %s, %s, %.0f tx/s", pr.Kind, plural(pr.Pages, "page"), plural(pr.Transactions, "transaction"), pr.Rate())
	if pr.Covered >= 0 && pr.Pages > 0 {
		line += fmt.Sprintf(", %.0f%% of the dates", 100*pr.Covered)
	}
	if pr.ETA > 0 {
		line += ", about " + pr.ETA.Round(time.Second).String() + " left"
	}
	p.line.set(line + extra)
}

// watchBudget redraws the line every second while the bank's budget holds
// the sync back.
func (p *progressLine) watchBudget(ctx context.Context, budget func() bank.BudgetState) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		b := budget()
		if !b.Waiting {
			continue
		}
		extra := fmt.Sprintf("; waiting for the bank's budget until %s (%s)", b.WaitUntil.Local().Format("15:04:05 MST"), b.WaitReason)
		if b.Known {
			extra += fmt.Sprintf(", %d left", b.Remaining)
		}
		p.mu.Lock()
		p.draw(extra)
		p.mu.Unlock()
	}
}

func (p *progressLine) done() {
	if p == nil {
		return
	}
	p.line.clear()
}
