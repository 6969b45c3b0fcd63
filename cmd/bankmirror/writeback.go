package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bankmirror/bankmirror/internal/writeback"
)

const (
	categorizeUsage = "TX_ID CATEGORY_ID|none | --from FILE [--skip-invalid]"
	tagUsage        = "add|remove TX_ID LABEL... | add|remove --from FILE [--skip-invalid]"
)

// cmdCategorize sets or removes transactions' categories at the bank and
// in the mirror.
func cmdCategorize(ctx context.Context, a *app, args []string) error {
	fs := a.flags("categorize", categorizeUsage)
	from := fs.String("from", "", "CSV `FILE` of id,category lines (category none removes it)")
	skip := fs.Bool("skip-invalid", false, "with --from: apply the valid lines when some are invalid (default: apply nothing)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var rows []writeback.Row
	switch {
	case *from != "" && fs.NArg() > 0:
		return fmt.Errorf("%w: categorize takes --from FILE or TX_ID CATEGORY_ID, not both", errUsage)
	case *from != "":
		var err error
		if rows, err = readRows(*from); err != nil {
			return err
		}
	case fs.NArg() != 2:
		fs.Usage()
		return fmt.Errorf("%w: categorize needs TX_ID and CATEGORY_ID (or none)", errUsage)
	default:
		rows = []writeback.Row{{TxID: fs.Arg(0), Value: fs.Arg(1)}}
	}
	return a.writeBack(ctx, writeback.Categorize, rows, *from != "", *skip)
}

// cmdTag adds or removes tag labels at the bank and in the mirror.
func cmdTag(ctx context.Context, a *app, args []string) error {
	fs := a.flags("tag", tagUsage)
	from := fs.String("from", "", "CSV `FILE` of id,tag lines (several lines per id make one request)")
	skip := fs.Bool("skip-invalid", false, "with --from: apply the valid lines when some are invalid (default: apply nothing)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("%w: tag needs a subcommand: add or remove", errUsage)
	}
	var op writeback.Op
	switch fs.Arg(0) {
	case "add":
		op = writeback.AddTags
	case "remove":
		op = writeback.RemoveTags
	default:
		return fmt.Errorf("%w: unknown tag subcommand %q (want add or remove)", errUsage, fs.Arg(0))
	}
	rest := fs.Args()[1:]
	var rows []writeback.Row
	switch {
	case *from != "" && len(rest) > 0:
		return fmt.Errorf("%w: tag %s takes --from FILE or TX_ID LABEL..., not both", errUsage, fs.Arg(0))
	case *from != "":
		var err error
		if rows, err = readRows(*from); err != nil {
			return err
		}
	case len(rest) < 2:
		fs.Usage()
		return fmt.Errorf("%w: tag %s needs TX_ID and at least one LABEL", errUsage, fs.Arg(0))
	default:
		for _, l := range rest[1:] {
			rows = append(rows, writeback.Row{TxID: rest[0], Value: l})
		}
	}
	return a.writeBack(ctx, op, rows, *from != "", *skip)
}

func readRows(path string) ([]writeback.Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	rows, err := writeback.ParseCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s has no rows", path)
	}
	return rows, nil
}

// writeBack runs the rows and prints what happened: each step of a batch
// as it is done, then a summary.
func (a *app) writeBack(ctx context.Context, op writeback.Op, rows []writeback.Row, batch, skipInvalid bool) error {
	if err := a.cfg.requireToken(); err != nil {
		return err
	}
	st, err := a.openExistingStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	client := a.client(a.cfg.APIURL, a.cfg.Token, a.cfg.RequestsPerHour)
	w := writeback.New(client, st, a.log)
	opts := writeback.Options{SkipInvalid: skipInvalid}
	if batch {
		opts.Progress = func(done, total int, r writeback.Result) {
			fmt.Fprintf(a.stdout, "[%d/%d] %s\n", done, total, describeResult(op, r))
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
		return &reportedError{err}
	}
	for _, s := range rep.Unchanged {
		fmt.Fprintf(a.stdout, "%s: %s; nothing sent\n", subject(s), already(op, s))
	}
	if !batch {
		for _, r := range rep.Results {
			out := a.stdout
			if r.Status != writeback.Applied || r.MirrorErr != nil {
				out = a.stderr
			}
			fmt.Fprintln(out, describeResult(op, r))
		}
	} else {
		printWritebackSummary(a.stdout, rep)
	}
	if err != nil {
		return err
	}
	return outcome(rep)
}

// outcome is the error (exit code 1) for a run that did not do all it was
// asked: the details are printed already.
func outcome(rep writeback.Report) error {
	var bad []string
	if n := rep.Count(writeback.Refused); n > 0 {
		bad = append(bad, fmt.Sprintf("%d refused by the bank", n))
	}
	if n := rep.Count(writeback.Failed); n > 0 {
		bad = append(bad, fmt.Sprintf("%d failed", n))
	}
	if n := rep.Count(writeback.NotAttempted); n > 0 {
		bad = append(bad, fmt.Sprintf("%d not attempted", n))
	}
	if n := rep.Unmirrored(); n > 0 {
		bad = append(bad, fmt.Sprintf("%d applied but not yet in the mirror (the next sync brings them)", n))
	}
	if n := len(rep.Invalid); n > 0 {
		bad = append(bad, fmt.Sprintf("%d invalid lines skipped", n))
	}
	if len(bad) == 0 {
		return nil
	}
	return &reportedError{errors.New(strings.Join(bad, ", "))}
}

func printWritebackSummary(w io.Writer, rep writeback.Report) {
	fmt.Fprintf(w, "%s: %d lines: %d applied, %d already so, %d refused by the bank, %d failed, %d not attempted, %d invalid\n",
		rep.Op, rep.Rows, rep.Count(writeback.Applied), len(rep.Unchanged), rep.Count(writeback.Refused),
		rep.Count(writeback.Failed), rep.Count(writeback.NotAttempted), len(rep.Invalid))
	for _, r := range rep.Results {
		if r.Status == writeback.Refused || r.Status == writeback.Failed {
			fmt.Fprintf(w, "  %s\n", describeResult(rep.Op, r))
		}
	}
}

// subject names a step's transaction, and its lines in a file.
func subject(s writeback.Step) string {
	var b strings.Builder
	if len(s.Lines) > 0 && s.Lines[0] > 0 {
		b.WriteString("line")
		if len(s.Lines) > 1 {
			b.WriteString("s")
		}
		for i, l := range s.Lines {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %d", l)
		}
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s %q", s.TxID, s.Description)
	return b.String()
}

// change describes what a step asks of the bank.
func change(op writeback.Op, s writeback.Step) string {
	switch op {
	case writeback.Categorize:
		return fmt.Sprintf("category %s -> %s", orNone(s.Before), orNone(s.Category))
	case writeback.AddTags:
		return "add tags " + quoteAll(s.Labels)
	default:
		return "remove tags " + quoteAll(s.Labels)
	}
}

// already says why a step needs no request.
func already(op writeback.Op, s writeback.Step) string {
	switch op {
	case writeback.Categorize:
		return "category is already " + orNone(s.Category)
	case writeback.AddTags:
		return "already has those tags"
	default:
		return "has none of those tags"
	}
}

func describeResult(op writeback.Op, r writeback.Result) string {
	line := subject(r.Step) + ": " + change(op, r.Step) + ": "
	switch r.Status {
	case writeback.Applied:
		line += "applied"
		switch {
		case r.MirrorErr != nil:
			line += fmt.Sprintf("; the mirror is not updated yet (%v); the next sync brings it", r.MirrorErr)
		case r.Recorded:
			line += "; mirror updated (transaction_history keeps the previous version)"
		default:
			line += "; mirror already had it"
		}
		if m := r.Mismatch(op); m != "" {
			line += "; but " + m
		}
	case writeback.Refused:
		line += "refused by the bank: " + writeback.BankDetail(r.Err) + "; nothing changed"
	case writeback.Failed:
		line += fmt.Sprintf("failed: %v", r.Err)
	default:
		line += "not attempted"
	}
	return line
}

func orNone(c string) string {
	if c == "" {
		return writeback.None
	}
	return c
}

func quoteAll(ls []string) string {
	q := make([]string, len(ls))
	for i, l := range ls {
		q[i] = fmt.Sprintf("%q", l)
	}
	return strings.Join(q, ", ")
}
