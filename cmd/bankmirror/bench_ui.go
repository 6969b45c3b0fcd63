package main

import (
	"context"
	"fmt"

	"github.com/bankmirror/bankmirror/internal/bench"
	"github.com/bankmirror/bankmirror/internal/cli"
)

// benchUIMode measures the dashboard (bench.UI): the overview and
// searches served by a real `bankmirror ui` on a generated mirror, by the
// server's time, beside bare queries of the same aggregates.
func (a *app) benchUIMode() *cli.Command {
	fs := newFlags("bench ui")
	var o bench.UIOptions
	fs.IntVar(&o.Transactions, "transactions", 100000, "transactions in the generated mirror")
	fs.IntVar(&o.Rounds, "rounds", 3, "rounds of (overviews, searches)")
	fs.IntVar(&o.Requests, "requests", 20, "overviews a round (each beside its bare queries); every word is searched once a round")
	fs.StringVar(&o.Dir, "dir", "", "directory `DIR` for the mirror (default: a temporary one)")
	return &cli.Command{Name: "ui", Flags: fs,
		Synopsis: "[--transactions N] [--rounds N] [--requests N] [--dir DIR]",
		Summary:  "the dashboard's overview and search on a generated mirror (100,000 rows), by server time, against bare queries of the same aggregates",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			if o.Rounds < 1 || o.Transactions < 1 || o.Requests < 1 {
				return fmt.Errorf("%w: --rounds, --requests and --transactions must be positive", cli.ErrUsage)
			}
			o.Location = a.cfg.Location
			return bench.UI(ctx, a.benchEnv(), o)
		})}
}
