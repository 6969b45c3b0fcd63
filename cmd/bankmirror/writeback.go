package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/textsafe"
	"github.com/bankmirror/bankmirror/internal/writeback"
)

// writebackFlags are the flags of categorize and tag add|remove.
type writebackFlags struct {
	from string
	skip bool
}

func newWritebackFlags(name, lines string) (*flag.FlagSet, *writebackFlags) {
	fs := newFlags(name)
	f := &writebackFlags{}
	fs.StringVar(&f.from, "from", "", "CSV `FILE` of "+lines)
	fs.BoolVar(&f.skip, "skip-invalid", false, "with --from: apply the valid lines when some are invalid (default: apply nothing)")
	return fs, f
}

// rows are the rows a command line names: those of --from FILE, or those
// pos makes, not both.
func (f *writebackFlags) rows(pos []string, want string, minArgs int, fromArgs func([]string) []writeback.Row) ([]writeback.Row, error) {
	switch {
	case f.from != "" && len(pos) > 0:
		return nil, fmt.Errorf("%w: give --from FILE or %s, not both", cli.ErrUsage, want)
	case f.from != "":
		return writeback.ReadFile(f.from)
	case len(pos) < minArgs:
		return nil, fmt.Errorf("%w: give %s, or --from FILE", cli.ErrUsage, want)
	}
	return fromArgs(pos), nil
}

// categorizeCommand sets or removes transactions' categories at the bank
// and in the mirror.
func (a *app) categorizeCommand() *cli.Command {
	fs, f := newWritebackFlags("categorize", "id,category lines (category none removes it)")
	return &cli.Command{Name: "categorize", Synopsis: "TX_ID CATEGORY|none | --from FILE [--skip-invalid]", Flags: fs, TakesArgs: true,
		Summary: "set or remove a transaction's category at the bank and in the mirror (--from FILE for many)",
		Detail:  "CATEGORY is a category's id or its name, ignoring case (bankmirror categories lists them); none removes the category.",
		Run: a.configured(func(ctx context.Context, pos []string) error {
			if f.from == "" && len(pos) > 2 {
				return fmt.Errorf("%w: categorize takes TX_ID and CATEGORY, got %d arguments", cli.ErrUsage, len(pos))
			}
			rows, err := f.rows(pos, "TX_ID and CATEGORY (or none)", 2, func(pos []string) []writeback.Row {
				return []writeback.Row{{TxID: pos[0], Value: pos[1]}}
			})
			if err != nil {
				return err
			}
			return a.writeBack(ctx, writeback.Categorize, rows, f.from != "", f.skip)
		})}
}

func (a *app) categoriesCommand() *cli.Command {
	return &cli.Command{Name: "categories", Summary: "list the mirror's categories: id, name and parent (what categorize accepts)",
		Run: a.configured(a.categories)}
}

// categories lists the mirrored categories; it opens the mirror
// read-only, so it works beside the daemon.
func (a *app) categories(ctx context.Context, _ []string) error {
	st, err := a.openExistingReadOnly(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	tree, err := st.CategoryTree(ctx)
	if err != nil {
		return err
	}
	if len(tree) == 0 {
		return fmt.Errorf("the mirror %s has no categories yet (run `bankmirror sync` first)", a.cfg.DB)
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPARENT")
	for _, c := range writeback.ListCategories(tree) {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", textsafe.Line(c.ID), textsafe.Line(c.Name), textsafe.Line(cmp.Or(c.ParentID, "-")))
	}
	return tw.Flush()
}

// tagCommand adds or removes tag labels at the bank and in the mirror.
func (a *app) tagCommand() *cli.Command {
	sub := func(name string, op writeback.Op, summary string) *cli.Command {
		fs, f := newWritebackFlags("tag "+name, "id,tag lines (several lines per id make one request)")
		return &cli.Command{Name: name, Synopsis: "TX_ID LABEL... | --from FILE [--skip-invalid]", Flags: fs, TakesArgs: true, Summary: summary,
			Run: a.configured(func(ctx context.Context, pos []string) error {
				rows, err := f.rows(pos, "TX_ID and at least one LABEL", 2, func(pos []string) []writeback.Row {
					var rows []writeback.Row
					for _, l := range pos[1:] {
						rows = append(rows, writeback.Row{TxID: pos[0], Value: l})
					}
					return rows
				})
				if err != nil {
					return err
				}
				return a.writeBack(ctx, op, rows, f.from != "", f.skip)
			})}
	}
	return &cli.Command{Name: "tag", Summary: "add or remove a transaction's tags at the bank and in the mirror (--from FILE for many)",
		Commands: []*cli.Command{
			sub("add", writeback.AddTags, "add tags to a transaction at the bank and in the mirror"),
			sub("remove", writeback.RemoveTags, "remove tags from a transaction at the bank and in the mirror"),
		}}
}

// writeBack runs the rows and prints what happened: each step of a batch
// as it is done, then a summary.
func (a *app) writeBack(ctx context.Context, op writeback.Op, rows []writeback.Row, batch, skipInvalid bool) error {
	through, err := a.householdWriters()
	if err != nil {
		return err
	}
	st, err := a.openExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	// Each change goes through the token of a person who sees its account.
	w := writeback.NewHousehold(through, st, a.log)
	opts := writeback.Options{SkipInvalid: skipInvalid}
	if batch {
		opts.Progress = func(done, total int, r writeback.Result) {
			fmt.Fprintf(a.stdout, "[%d/%d] %s\n", done, total, r.Describe(op))
		}
	}
	rep, err := w.Run(ctx, op, rows, opts)
	if len(rep.Invalid) > 0 {
		head := "refused before contacting the bank:"
		if skipInvalid {
			head = "skipped, invalid:"
		}
		fmt.Fprintln(a.stderr, head)
		for _, v := range rep.Invalid {
			fmt.Fprintf(a.stderr, "  %s\n", v.Error())
		}
	}
	if errors.Is(err, writeback.ErrInvalid) {
		if batch {
			return fmt.Errorf("%d of %d lines invalid; nothing was sent to the bank (fix them, or pass --skip-invalid)", len(rep.Invalid), rep.Rows)
		}
		return &cli.ShownError{Err: err}
	}
	for _, s := range rep.Unchanged {
		fmt.Fprintf(a.stdout, "%s: %s; nothing sent\n", s.Subject(), s.Already(op))
	}
	if !batch {
		for _, r := range rep.Results {
			out := a.stdout
			if r.Status != writeback.Applied || r.MirrorErr != nil {
				out = a.stderr
			}
			fmt.Fprintln(out, r.Describe(op))
		}
	} else {
		printWritebackSummary(a.stdout, rep)
	}
	if err != nil {
		return err
	}
	return writebackOutcome(rep)
}

// writebackOutcome is the error (exit code 1) for a run that did not do
// all it was asked: the details are printed already.
func writebackOutcome(rep writeback.Report) error {
	if short := rep.Shortfall(); short != "" {
		return &cli.ShownError{Err: errors.New(short)}
	}
	return nil
}

func printWritebackSummary(w io.Writer, rep writeback.Report) {
	fmt.Fprintf(w, "%s: %d lines: %d applied, %d already so, %d refused by the bank, %d failed, %d not attempted, %d invalid\n",
		rep.Op, rep.Rows, rep.Count(writeback.Applied), len(rep.Unchanged), rep.Count(writeback.Refused),
		rep.Count(writeback.Failed), rep.Count(writeback.NotAttempted), len(rep.Invalid))
	for _, r := range rep.Results {
		if r.Status == writeback.Refused || r.Status == writeback.Failed {
			fmt.Fprintf(w, "  %s\n", r.Describe(rep.Op))
		}
	}
}
