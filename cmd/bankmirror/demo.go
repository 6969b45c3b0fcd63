package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/demo"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

func (a *app) demoCommand() *cli.Command {
	fs := newFlags("demo")
	var o demo.Options
	people := ""
	fs.StringVar(&o.DB, "db", "bankmirror-demo.db", "`PATH` of the mirror to write (a demo mirror there is replaced; any other file is refused)")
	fs.IntVar(&o.Transactions, "transactions", 5000, "`N` transactions in the simulated bank (a household's shared among the people and their joint account, one each at least)")
	fs.Uint64Var(&o.Seed, "seed", 1, "`SEED` of the simulated bank's data")
	fs.BoolVar(&o.Live, "live", true, "after the sync, register webhooks and show live events being applied (--live=false: not)")
	fs.StringVar(&people, "people", "alex,sam", "the customers' `NAMES`, comma-separated: two or more are a household sharing a 2Up joint account; one name (--people me) is a single customer")
	return &cli.Command{Name: "demo", Synopsis: "[--db PATH] [--transactions N] [--seed SEED] [--live=false] [--people NAMES]", Flags: fs,
		Summary: "mirror the built-in simulated bank (a household: alex and sam) into ./bankmirror-demo.db and show a summary",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			o.People = strings.Split(people, ",")
			return a.demo(ctx, o)
		})}
}

// demo checks the flags and runs the demo (internal/demo) with the
// configuration, without the system's rules and feeds files, and a
// progress line on a terminal.
func (a *app) demo(ctx context.Context, o demo.Options) error {
	if o.Transactions < 0 {
		return fmt.Errorf("%w: --transactions must not be negative", cli.ErrUsage)
	}
	if err := simulator.CheckPeople(o.People); err != nil {
		return fmt.Errorf("%w: --people: %w", cli.ErrUsage, err)
	}
	o.Config, _ = withoutSystemRules(a.cfg)
	o.Log, o.Stdout = a.log, a.stdout
	if a.statusLine != nil {
		pl := &progressLine{line: a.statusLine}
		o.OnProgress, o.ProgressDone = pl.show, pl.done
	}
	return demo.Run(ctx, o)
}
