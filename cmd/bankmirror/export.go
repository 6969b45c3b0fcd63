package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/export"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// exportUsage is a refused export: exit code 2, its own message.
type exportUsage struct{ error }

func (e exportUsage) Is(target error) bool { return target == cli.ErrUsage }

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

func (a *app) exportCommand() *cli.Command {
	fs := newFlags("export")
	format := fs.String("format", "", "the format, `csv|json|xlsx` (json: JSON lines); default: from -o's extension, else csv")
	var views stringList
	fs.Var(&views, "view", "`NAME` of a view to export (default v_ledger, the columns a spreadsheet needs; v_transactions has them all); repeat it for xlsx, one sheet per view")
	var f export.Filter
	fs.StringVar(&f.Since, "since", "", "from this `DATE`: a day (YYYY-MM-DD, in BANKMIRROR_TIMEZONE), a month (YYYY-MM) or an RFC 3339 time, inclusive")
	fs.StringVar(&f.Until, "until", "", "up to this `DATE` (a day, month or time), inclusive")
	fs.StringVar(&f.Account, "account", "", "only this account, by `ID|NAME` (the name ignoring case)")
	fs.StringVar(&f.Category, "category", "", "only this category or parent category, by `ID|NAME` (the name ignoring case)")
	fs.StringVar(&f.Tag, "tag", "", "only transactions with this tag `LABEL`")
	fs.StringVar(&f.Status, "status", "", "only transactions in this status: `HELD|SETTLED`")
	out := fs.String("o", "", "output `FILE`, written whole or not at all, mode 0600 (default: standard output; required for xlsx)")
	list := fs.Bool("list", false, "list the exportable views and their columns, then exit")
	return &cli.Command{Name: "export", Flags: fs,
		Synopsis: "[--format csv|json|xlsx] [--view NAME]... [--since DATE] [--until DATE] " +
			"[--account ID|NAME] [--category ID|NAME] [--tag LABEL] [--status HELD|SETTLED] [-o FILE] | --list",
		Summary: "write a view as CSV, JSON lines or XLSX (read-only; --list shows the views)",
		Run: a.configured(func(ctx context.Context, _ []string) error {
			if *out == "-" {
				*out = ""
			}
			fmtVal, err := export.FormatFor(*format, *out)
			if err != nil {
				return exportUsage{err}
			}
			if fmtVal == export.XLSX && *out == "" && !*list {
				return exportUsage{errors.New("xlsx is written to a file: give -o FILE.xlsx")}
			}
			// BANKMIRROR_TIMEZONE, validated with the rest of the configuration:
			// the zone of the mirror's *_local, *_date and *_month columns.
			loc := a.cfg.Location
			// Lstat: a symbolic link there, even dangling, is for the store to refuse by name.
			if _, err := os.Lstat(a.cfg.DB); err != nil {
				return fmt.Errorf("no mirror at %s (set BANKMIRROR_DB, or run `bankmirror sync --full` first): %w", a.cfg.DB, err)
			}
			db, err := store.OpenReadOnlyDB(ctx, a.cfg.DB)
			if err != nil {
				return err
			}
			defer db.Close()
			if *list {
				return listViews(ctx, a.stdout, db)
			}
			req := export.Request{Format: fmtVal, Views: views, Filter: f, Location: loc}
			if *out != "" {
				if err := checkOutputDir(*out, "give -o a FILE in a directory that user can write, or leave -o out and redirect the output (> FILE: your shell writes it, as you)"); err != nil {
					return err
				}
				req.TmpDir = filepath.Dir(*out)
			}
			plan, err := export.Prepare(ctx, db, req)
			if err != nil {
				if export.IsInvalid(err) {
					return exportUsage{err}
				}
				return err
			}
			if *out == "" {
				_, err := plan.Write(ctx, db, a.stdout)
				return err
			}
			if st, err := os.Stat(*out); err == nil && !st.Mode().IsRegular() {
				return exportUsage{fmt.Errorf("-o %s exists and is not a regular file", *out)}
			}
			if fmtVal == export.XLSX {
				defer export.LimitXLSXMemory(a.environ["GOMEMLIMIT"] != "")()
			}
			start := time.Now()
			var res export.Result
			err = export.WriteFile(*out, func(w io.Writer) error {
				var err error
				res, err = plan.Write(ctx, db, w)
				return err
			})
			if err != nil {
				return err
			}
			what := strings.Join(views, ", ")
			if what == "" {
				what = export.DefaultView
			}
			fmt.Fprintf(a.stderr, "exported %d rows of %s to %s (%s) in %s\n", res.Rows, textsafe.Line(what), textsafe.Line(*out), fmtVal, time.Since(start).Round(time.Millisecond))
			return nil
		})}
}

// listViews prints each exportable view with its columns and their kinds.
func listViews(ctx context.Context, w io.Writer, db export.Queryer) error {
	views, err := export.Views(ctx, db)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, v := range views {
		plan, err := export.Prepare(ctx, db, export.Request{Format: export.CSV, Views: []string{v}})
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\n", v)
		for _, c := range plan.Columns(0) {
			fmt.Fprintf(tw, "  %s\t%s\n", c.Name, c.Kind)
		}
	}
	return tw.Flush()
}
