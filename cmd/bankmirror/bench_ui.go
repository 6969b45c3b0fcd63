package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/bankmirror/bankmirror/internal/bench"
	"github.com/bankmirror/bankmirror/internal/cli"
)

// benchUIMode measures the dashboard (bench.UI): the overview and
// searches served by a real `bankmirror ui` on a generated mirror or a
// given one, by the client's and the server's time, beside bare queries
// of the same aggregates.
func (a *app) benchUIMode() *cli.Command {
	fs := newFlags("bench ui")
	var o bench.UIOptions
	fs.IntVar(&o.Transactions, "transactions", 100000, "transactions in the generated mirror")
	fs.IntVar(&o.Rounds, "rounds", 3, "rounds of (overviews, searches)")
	fs.IntVar(&o.Requests, "requests", 20, "overviews a round (each beside its bare queries); every word is searched once a round")
	fs.StringVar(&o.Dir, "dir", "", "directory `DIR` for the mirror (default: a temporary one)")
	fs.StringVar(&o.Mirror, "mirror", "", "measure the existing mirror at `PATH` (only read) instead of a generated one")
	words := fs.String("words", "", "comma-separated `WORDS` to search (default: the generated mirror's ten)")
	fs.StringVar(&o.UIBinary, "ui-binary", "", "the bankmirror `BINARY` that serves the dashboard (default: this one), to compare another build in the same run")
	fs.IntVar(&o.Warmups, "warmups", 0, "rounds made before the measured ones, not counted")
	return &cli.Command{Name: "ui", Flags: fs,
		Synopsis: "[--transactions N | --mirror PATH] [--words WORDS] [--warmups N] [--ui-binary BINARY] [--rounds N] [--requests N] [--dir DIR]",
		Summary:  "the dashboard's overview and search on a generated mirror (100,000 rows) or a given one, by client and server time, against bare queries of the same aggregates",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			if o.Rounds < 1 || o.Transactions < 1 || o.Requests < 1 || o.Warmups < 0 {
				return fmt.Errorf("%w: --rounds, --requests and --transactions must be positive, --warmups not negative", cli.ErrUsage)
			}
			for _, w := range strings.Split(*words, ",") {
				if w = strings.TrimSpace(w); w != "" {
					o.Words = append(o.Words, w)
				}
			}
			o.Location = a.cfg.Location
			return bench.UI(ctx, a.benchEnv(), o)
		})}
}
