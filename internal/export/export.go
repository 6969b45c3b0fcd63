package export

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Format is an output format.
type Format string

// The formats.
const (
	CSV  Format = "csv"  // RFC 4180: UTF-8, a header row, CRLF line ends
	JSON Format = "json" // JSON lines: one object per row
	XLSX Format = "xlsx" // one sheet per view, typed cells
)

// ParseFormat reads csv, json (or jsonl, ndjson) or xlsx.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "csv":
		return CSV, nil
	case "json", "jsonl", "ndjson":
		return JSON, nil
	case "xlsx":
		return XLSX, nil
	}
	return "", invalidf("unknown format %q: use csv, json or xlsx", s)
}

// Request is what to export.
type Request struct {
	Format Format
	// Views to export (v_transactions when empty); several only for XLSX,
	// one sheet each.
	Views  []string
	Filter Filter
	// Location is the customer's zone: days given to Since and Until are
	// its days, and XLSX shows timestamps in it. Default UTC.
	Location *time.Location
	// TmpDir holds the XLSX writer's spill files (the sheets' XML, about
	// 1 GB for a million transactions) until they are compressed into
	// the output: best on the output's file system. Default: the system's.
	TmpDir string
}

// DefaultView is exported when the request names none.
const DefaultView = "v_transactions"

// Plan is a request checked against the mirror: the views exist and the
// filters apply to them. Nothing has been written yet.
type Plan struct {
	req   Request
	views []viewPlan
}

type viewPlan struct {
	name string
	cols []Column
	sql  string
	args []any
}

// Prepare checks req against the mirror read through db, without writing
// anything: an unknown format or view, a filter a view cannot apply or a
// malformed value is an error wrapping ErrInvalid.
func Prepare(ctx context.Context, db Queryer, req Request) (*Plan, error) {
	switch req.Format {
	case CSV, JSON, XLSX:
	default:
		return nil, invalidf("unknown format %q: use csv, json or xlsx", req.Format)
	}
	if len(req.Views) == 0 {
		req.Views = []string{DefaultView}
	}
	if len(req.Views) > 1 && req.Format != XLSX {
		return nil, invalidf("%s holds one view, %d were given: export them one by one, or as xlsx (one sheet each)", req.Format, len(req.Views))
	}
	if req.Location == nil {
		req.Location = time.UTC
	}
	p := &Plan{req: req}
	for _, v := range req.Views {
		if slices.ContainsFunc(p.views, func(vp viewPlan) bool { return vp.name == v }) {
			return nil, invalidf("view %s given twice", v)
		}
		cols, err := describe(ctx, db, v)
		if err != nil {
			return nil, err
		}
		where, args, err := req.Filter.where(v, cols, req.Location)
		if err != nil {
			return nil, err
		}
		p.views = append(p.views, viewPlan{name: v, cols: cols, sql: "SELECT * FROM " + quoteIdent(v) + where, args: args})
	}
	return p, nil
}

// Format is the plan's output format.
func (p *Plan) Format() Format { return p.req.Format }

// Columns are the columns of the plan's i-th view.
func (p *Plan) Columns(i int) []Column { return slices.Clone(p.views[i].cols) }

// Result is what an export wrote.
type Result struct {
	Rows   int64    // data rows, all views together
	Sheets []string // XLSX: the sheets written
}

// Write runs the plan, streaming the rows to w. All views are read in one
// transaction, so that the sheets of an XLSX agree with each other.
func (p *Plan) Write(ctx context.Context, db *sql.DB, w io.Writer) (res Result, err error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return res, fmt.Errorf("export: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	switch p.req.Format {
	case CSV, JSON:
		src, err := p.views[0].open(ctx, tx)
		if err != nil {
			return res, err
		}
		defer src.close()
		if p.req.Format == CSV {
			res.Rows, err = writeCSV(ctx, src, w)
		} else {
			res.Rows, err = writeJSON(ctx, src, w)
		}
		return res, err
	}
	return writeXLSX(ctx, tx, p, w)
}

// source streams one view's rows: one row in memory at a time.
type source struct {
	view  string
	cols  []Column
	rows  *sql.Rows
	vals  []any // the current row
	ptrs  []any
	count int64
	err   error
}

func (vp *viewPlan) open(ctx context.Context, q Queryer) (*source, error) {
	rows, err := q.QueryContext(ctx, vp.sql, vp.args...)
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", vp.name, err)
	}
	names, err := rows.Columns()
	if err != nil {
		rows.Close()
		return nil, fmt.Errorf("export %s: %w", vp.name, err)
	}
	if len(names) != len(vp.cols) {
		rows.Close()
		return nil, fmt.Errorf("export %s: the view changed while the export began (%d columns, then %d)", vp.name, len(vp.cols), len(names))
	}
	s := &source{view: vp.name, cols: vp.cols, rows: rows, vals: make([]any, len(names)), ptrs: make([]any, len(names))}
	for i := range s.vals {
		s.ptrs[i] = &s.vals[i]
	}
	return s, nil
}

// checkEvery is how many rows go by between checks of the context.
const checkEvery = 4096

// next reads the next row into vals; false at the end or on an error
// (then err is set).
func (s *source) next(ctx context.Context) bool {
	if s.err != nil {
		return false
	}
	if s.count%checkEvery == 0 {
		if err := ctx.Err(); err != nil {
			s.err = fmt.Errorf("export %s: %w", s.view, err)
			return false
		}
	}
	if !s.rows.Next() {
		if err := s.rows.Err(); err != nil {
			s.err = fmt.Errorf("export %s: %w", s.view, err)
		}
		return false
	}
	if err := s.rows.Scan(s.ptrs...); err != nil {
		s.err = fmt.Errorf("export %s: %w", s.view, err)
		return false
	}
	s.count++
	return true
}

func (s *source) close() { _ = s.rows.Close() }

// IsInvalid reports whether err is a refused request (a usage error)
// rather than a failure to read or write.
func IsInvalid(err error) bool { return errors.Is(err, ErrInvalid) }
