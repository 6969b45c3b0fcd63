package export

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"path/filepath"
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

// FormatFor is the format named (ParseFormat), or without a name the one
// output file's extension names, else CSV.
func FormatFor(name, output string) (Format, error) {
	if name == "" {
		name = "csv"
		if ext := strings.TrimPrefix(filepath.Ext(output), "."); ext != "" {
			if _, err := ParseFormat(ext); err == nil {
				name = ext
			}
		}
	}
	return ParseFormat(name)
}

// Request is what to export.
type Request struct {
	Format Format
	// Views to export (DefaultView when empty); several only for XLSX,
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
const DefaultView = "v_ledger"

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
// transaction, so that the sheets of an XLSX agree with each other. The
// rows are read through the driver's own connection (sql.Conn.Raw), as
// the driver returns their values: database/sql's Scan would convert and
// copy every value of every row once more.
func (p *Plan) Write(ctx context.Context, db *sql.DB, w io.Writer) (res Result, err error) {
	err = readTx(ctx, db, func(q driver.QueryerContext) error {
		res, err = p.write(ctx, q, w)
		return err
	})
	return res, err
}

// Drain reads every row of the plan's first view as Write reads them, and
// writes nothing: the baseline `bankmirror bench export` measures the
// exports against.
func (p *Plan) Drain(ctx context.Context, db *sql.DB) (n int64, err error) {
	vp := p.views[0]
	err = readTx(ctx, db, func(q driver.QueryerContext) error {
		rows, err := q.QueryContext(ctx, vp.sql, namedArgs(vp.args))
		if err != nil {
			return fmt.Errorf("export %s: %w", vp.name, err)
		}
		defer rows.Close()
		dest := make([]driver.Value, len(rows.Columns()))
		for {
			if err := rows.Next(dest); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return fmt.Errorf("export %s: %w", vp.name, err)
			}
			n++
		}
	})
	return n, err
}

// readTx runs f in a read transaction on one of db's connections, through
// the driver's own connection (sql.Conn.Raw).
func readTx(ctx context.Context, db *sql.DB, f func(q driver.QueryerContext) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("export: connect: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		q, ok := dc.(driverConn)
		if !ok {
			return fmt.Errorf("export: the driver's connection (%T) cannot run queries", dc)
		}
		tx, err := q.BeginTx(ctx, driver.TxOptions{ReadOnly: true})
		if err != nil {
			return fmt.Errorf("export: begin: %w", err)
		}
		defer func() { _ = tx.Rollback() }()
		return f(q)
	})
}

// namedArgs are a query's arguments as the driver takes them.
func namedArgs(args []any) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

// driverConn is what Write needs of the driver's connection.
type driverConn interface {
	driver.ConnBeginTx
	driver.QueryerContext
}

func (p *Plan) write(ctx context.Context, q driver.QueryerContext, w io.Writer) (res Result, err error) {
	switch p.req.Format {
	case CSV, JSON:
		src, err := p.views[0].open(ctx, q)
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
	return writeXLSX(ctx, q, p, w)
}

// source streams one view's rows. A goroutine of its own reads them
// (SQLite's work, through cgo) while the caller formats and writes the
// previous ones, handing rows over in small batches: memory stays a few
// batches whatever the row count.
type source struct {
	view  string
	cols  []Column
	vals  []driver.Value // the current row; valid until the next call to next
	count int64
	err   error

	rows  driver.Rows
	full  chan *batch // read batches, to the caller
	free  chan *batch // consumed batches, back to the reader
	stop  chan struct{}
	done  chan struct{} // closed when the reader has finished
	cur   *batch
	pos   int
	rerr  error // the reader's error, read after done
	ended bool
}

// batch is rows read and not yet consumed.
type batch struct {
	vals [][]driver.Value
	n    int
}

// batchRows is the number of rows handed over at once; batches is how
// many exist, so the reader runs at most two batches ahead.
const (
	batchRows = 256
	batches   = 3
)

func (vp *viewPlan) open(ctx context.Context, q driver.QueryerContext) (*source, error) {
	rows, err := q.QueryContext(ctx, vp.sql, namedArgs(vp.args))
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", vp.name, err)
	}
	names := rows.Columns()
	if len(names) != len(vp.cols) {
		_ = rows.Close()
		return nil, fmt.Errorf("export %s: the view changed while the export began (%d columns, then %d)", vp.name, len(vp.cols), len(names))
	}
	s := &source{view: vp.name, cols: vp.cols, rows: rows, full: make(chan *batch, batches), free: make(chan *batch, batches),
		stop: make(chan struct{}), done: make(chan struct{})}
	for range batches {
		b := &batch{vals: make([][]driver.Value, batchRows)}
		for i := range b.vals {
			b.vals[i] = make([]driver.Value, len(names))
		}
		s.free <- b
	}
	go s.read(ctx)
	return s, nil
}

// read is the reader goroutine: it fills free batches until the rows end,
// an error, or stop.
func (s *source) read(ctx context.Context) {
	defer close(s.done)
	defer close(s.full)
	var read int64
	for {
		var b *batch
		select {
		case b = <-s.free:
		case <-s.stop:
			return
		}
		b.n = 0
		for b.n < batchRows {
			if read%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					s.rerr = err
					break
				}
			}
			if err := s.rows.Next(b.vals[b.n]); err != nil {
				if !errors.Is(err, io.EOF) {
					s.rerr = err
				}
				break
			}
			b.n++
			read++
		}
		last := b.n < batchRows
		if b.n > 0 {
			select {
			case s.full <- b:
			case <-s.stop:
				return
			}
		}
		if last {
			return
		}
	}
}

// checkEvery is how many rows go by between checks of the context.
const checkEvery = 4096

// next makes the next row current in vals; false at the end or on an
// error (then err is set).
func (s *source) next(ctx context.Context) bool {
	if s.ended {
		return false
	}
	if s.cur != nil && s.pos < s.cur.n {
		s.vals = s.cur.vals[s.pos]
		s.pos++
		s.count++
		return true
	}
	if s.cur != nil {
		s.free <- s.cur // never blocks: there are only batches slots
		s.cur = nil
	}
	b, ok := <-s.full
	if !ok {
		s.ended = true
		<-s.done
		if s.rerr != nil {
			s.err = fmt.Errorf("export %s: %w", s.view, s.rerr)
		} else if err := ctx.Err(); err != nil {
			s.err = fmt.Errorf("export %s: %w", s.view, err)
		}
		return false
	}
	s.cur, s.pos = b, 0
	return s.next(ctx)
}

// close stops the reader and closes the rows.
func (s *source) close() {
	close(s.stop)
	<-s.done
	_ = s.rows.Close()
}

// IsInvalid reports whether err is a refused request (a usage error)
// rather than a failure to read or write.
func IsInvalid(err error) bool { return errors.Is(err, ErrInvalid) }
