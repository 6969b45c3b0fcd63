package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/sync"
)

func cmdSync(ctx context.Context, a *app, args []string) error {
	fs := a.flags("sync", "[--full]")
	full := fs.Bool("full", false, "list everything and reconcile deletions (default: incremental)")
	if err := fs.ParseNone(args); err != nil {
		return err
	}
	if err := a.cfg.requireToken(); err != nil {
		return err
	}
	st, err := a.openStore(ctx, a.cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	client := a.client(a.cfg.APIURL, a.cfg.Token, a.cfg.RequestsPerHour)
	res, err := runSync(ctx, a, client, st, *full)
	if errors.Is(err, store.ErrSyncRunning) {
		return fmt.Errorf("another sync of %s is running (bankmirror serve's schedule?); try again when it ends", a.cfg.DB)
	}
	if err != nil {
		return err
	}
	printResult(a.stdout, res)
	return nil
}

// runSync runs one sync with a live progress line when stderr is a terminal.
func runSync(ctx context.Context, a *app, client sync.Bank, st *store.Store, full bool) (sync.Result, error) {
	opts := sync.Options{Overlap: a.cfg.SyncOverlap}
	var pl *progressLine
	if isTerminal(a.stderr) {
		pl = &progressLine{w: a.stderr}
		opts.OnProgress = pl.show
	}
	s := sync.New(client, st, a.log, opts)
	var res sync.Result
	var err error
	if full {
		res, err = s.Full(ctx)
	} else {
		res, err = s.Incremental(ctx)
	}
	pl.done()
	return res, err
}

func printResult(w io.Writer, r sync.Result) {
	resumed := ""
	if r.Resumed {
		resumed = " (resumed)"
	}
	fmt.Fprintf(w, "%s sync%s: %d transactions listed, %d rows changed, %d deleted, %d requests, %s\n",
		r.Kind, resumed, r.Listed, r.Upserted, r.Deleted, r.Requests, r.Duration.Round(time.Millisecond))
}

// progressLine redraws one status line on a terminal.
type progressLine struct {
	w     io.Writer
	last  time.Time
	shown bool
}

func (p *progressLine) show(pr sync.Progress) {
	if now := time.Now(); now.Sub(p.last) >= 100*time.Millisecond {
		p.last = now
		p.shown = true
		fmt.Fprintf(p.w, "\r\033[K%s sync: %d pages, %d transactions, %.0f tx/s", pr.Kind, pr.Pages, pr.Transactions, pr.Rate())
	}
}

func (p *progressLine) done() {
	if p != nil && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
