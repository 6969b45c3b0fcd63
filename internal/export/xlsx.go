package export

import (
	"archive/zip"
	"compress/flate"
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// XLSX is written by excelize's streaming writer: each row goes to the
// sheet's XML as it is read (excelize spills it to a temporary file past
// 16 MB), and the workbook is compressed straight into w at the end,
// never held in memory whole (excelize's own WriteTo would build the
// whole zip in a buffer, so the zip writer is ours).

// XLSXMemoryLimit is the soft memory limit (runtime/debug.SetMemoryLimit)
// that `bankmirror export` sets for an XLSX export when GOMEMLIMIT is not
// set. excelize's stream writer keeps up to 16 MiB of a sheet's XML in
// one buffer (17 MiB with presizeStreamBuffer), live throughout, and Go's
// default pacing (GOGC=100) would let the heap reach twice what is live:
// the limit keeps it near what is live (docs/performance.md, under Export,
// has the peak RSS it gives). The feed serves no XLSX and never sets it.
const XLSXMemoryLimit = 36 << 20

// LimitXLSXMemory sets XLSXMemoryLimit as the Go runtime's soft memory
// limit, unless userLimit says the user set GOMEMLIMIT (which the runtime
// follows instead); restore puts the previous limit back.
func LimitXLSXMemory(userLimit bool) (restore func()) {
	if userLimit {
		return func() {}
	}
	prev := debug.SetMemoryLimit(XLSXMemoryLimit)
	return func() { debug.SetMemoryLimit(prev) }
}

// maxSheetRows is a sheet's row limit in Excel and LibreOffice, the
// header included; a view with more rows continues on "NAME (2)".
const maxSheetRows = 1048576

// sampleRows are read before a sheet is started, to fit its column widths
// and refine its columns' kinds.
const sampleRows = 100

const (
	minColWidth = 6
	maxColWidth = 60
)

// Number formats. Dates are real dates (serial numbers) shown as ISO;
// timestamps are in the customer's zone.
const (
	fmtDate      = "yyyy-mm-dd"
	fmtMonth     = "yyyy-mm"
	fmtTimestamp = "yyyy-mm-dd hh:mm:ss"
	// fmtHomeMoney is the format of amounts in the bank's own currency
	// (AUD) or of unknown currency.
	fmtHomeMoney = `"$"#,##0.00;-"$"#,##0.00`
	homeCurrency = "AUD"
)

// styles are the workbook's cell styles, created once.
type styles struct {
	f                                       *excelize.File
	header, date, month, timestamp, integer int
	money                                   map[string]int // by currency code
}

func newStyles(f *excelize.File) (*styles, error) {
	s := &styles{f: f, money: map[string]int{}}
	var err error
	mk := func(st *excelize.Style) int {
		if err != nil {
			return 0
		}
		var id int
		id, err = f.NewStyle(st)
		return id
	}
	custom := func(format string) *excelize.Style { return &excelize.Style{CustomNumFmt: &format} }
	s.header = mk(&excelize.Style{Font: &excelize.Font{Bold: true},
		Border: []excelize.Border{{Type: "bottom", Color: "000000", Style: 1}}})
	s.date = mk(custom(fmtDate))
	s.month = mk(custom(fmtMonth))
	s.timestamp = mk(custom(fmtTimestamp))
	s.integer = mk(&excelize.Style{NumFmt: 1}) // 0
	if err != nil {
		return nil, fmt.Errorf("xlsx styles: %w", err)
	}
	return s, nil
}

// moneyStyle is the currency format of an amount in currency code (an
// ISO 4217 code; anything else gets the home format).
func (s *styles) moneyStyle(code string) (int, error) {
	if !isCurrencyCode(code) {
		code = homeCurrency
	}
	if id, ok := s.money[code]; ok {
		return id, nil
	}
	format := fmtHomeMoney
	if code != homeCurrency {
		format = fmt.Sprintf(`[$%[1]s] #,##0.00;-[$%[1]s] #,##0.00`, code)
	}
	id, err := s.f.NewStyle(&excelize.Style{CustomNumFmt: &format})
	if err != nil {
		return 0, fmt.Errorf("xlsx currency style %s: %w", code, err)
	}
	s.money[code] = id
	return id, nil
}

func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := range 3 {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// writeXLSX writes every view of p as a sheet (or several, past Excel's
// row limit) of one workbook.
func writeXLSX(ctx context.Context, q driver.QueryerContext, p *Plan, w io.Writer) (Result, error) {
	var res Result
	f := excelize.NewFile(excelize.Options{TmpDir: p.req.TmpDir})
	defer func() { _ = f.Close() }() // removes the spill files
	zw := zip.NewWriter(w)
	// The sheets' XML is large and repetitive: the fastest deflate level
	// compresses it nearly as well, several times faster. The zip writer
	// compresses one entry at a time, closing each before the next: one
	// compressor (a megabyte of state) serves them all.
	fw, err := flate.NewWriter(io.Discard, flate.BestSpeed)
	if err != nil {
		return res, fmt.Errorf("xlsx: %w", err)
	}
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		fw.Reset(out)
		return fw, nil
	})
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return zw })
	st, err := newStyles(f)
	if err != nil {
		return res, err
	}
	sw := &sheetWriter{f: f, st: st, loc: p.req.Location, used: map[string]bool{}}
	for i := range p.views {
		src, err := p.views[i].open(ctx, q)
		if err != nil {
			return res, err
		}
		err = sw.writeView(ctx, src)
		src.close()
		res.Rows += src.count
		if err != nil {
			return res, err
		}
	}
	res.Sheets = sw.sheets
	// The first sheet is the active one already; SetActiveSheet would
	// read every streamed sheet back into memory.
	// Write compresses into zw (and so w) and closes it; the buffer it
	// would have filled stays empty.
	if err := f.Write(io.Discard); err != nil {
		return res, fmt.Errorf("xlsx: write: %w", err)
	}
	return res, nil
}

// sheetWriter writes views as sheets of one workbook.
type sheetWriter struct {
	f      *excelize.File
	st     *styles
	loc    *time.Location
	sheets []string
	used   map[string]bool

	// the sheet being written
	cur   *excelize.StreamWriter
	name  string
	row   int
	cols  []Column
	vals  []any           // the row handed to SetRow: pointers into cells
	cells []excelize.Cell // the row's typed cells
}

// writeView writes the rows of src on a new sheet named after the view.
func (w *sheetWriter) writeView(ctx context.Context, src *source) error {
	var sample [][]driver.Value
	for len(sample) < sampleRows && src.next(ctx) {
		sample = append(sample, slices.Clone(src.vals))
	}
	if src.err != nil {
		return src.err
	}
	w.cols = refineKinds(src.cols, sample)
	w.vals = make([]any, len(w.cols))
	w.cells = make([]excelize.Cell, len(w.cols))
	widths := fitWidths(w.cols, sample)
	base := sheetName(src.view)
	if err := w.startSheet(base, widths); err != nil {
		return err
	}
	part := 1
	write := func(vals []driver.Value) error {
		if w.row == maxSheetRows {
			if err := w.finishSheet(); err != nil {
				return err
			}
			part++
			suffix := fmt.Sprintf(" (%d)", part)
			if err := w.startSheet(truncateRunes(base, 31-len(suffix))+suffix, widths); err != nil {
				return err
			}
		}
		return w.writeRow(vals)
	}
	for _, vals := range sample {
		if err := write(vals); err != nil {
			return err
		}
	}
	for src.next(ctx) {
		if err := write(src.vals); err != nil {
			return err
		}
	}
	if src.err != nil {
		return src.err
	}
	return w.finishSheet()
}

// startSheet adds a sheet with the columns' widths, a bold header row
// frozen above the rest.
func (w *sheetWriter) startSheet(name string, widths []float64) error {
	for i, base := 2, name; w.used[strings.ToLower(name)]; i++ {
		suffix := fmt.Sprintf("~%d", i)
		name = truncateRunes(base, 31-len(suffix)) + suffix
	}
	w.used[strings.ToLower(name)] = true
	var err error
	if len(w.sheets) == 0 {
		err = w.f.SetSheetName(w.f.GetSheetName(0), name)
	} else {
		_, err = w.f.NewSheet(name)
	}
	if err != nil {
		return fmt.Errorf("xlsx sheet %s: %w", name, err)
	}
	w.sheets = append(w.sheets, name)
	sw, err := w.f.NewStreamWriter(name)
	if err != nil {
		return fmt.Errorf("xlsx sheet %s: %w", name, err)
	}
	presizeStreamBuffer(sw)
	for i, width := range widths {
		if err := sw.SetColWidth(i+1, i+1, width); err != nil {
			return fmt.Errorf("xlsx sheet %s: %w", name, err)
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft",
		Selection: []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}}}); err != nil {
		return fmt.Errorf("xlsx sheet %s: %w", name, err)
	}
	header := make([]any, len(w.cols))
	for i, c := range w.cols {
		header[i] = excelize.Cell{StyleID: w.st.header, Value: c.Name}
	}
	if err := sw.SetRow("A1", header); err != nil {
		return fmt.Errorf("xlsx sheet %s: %w", name, err)
	}
	w.cur, w.name, w.row = sw, name, 1
	return nil
}

// finishSheet puts an autofilter over the sheet's rows and ends it.
func (w *sheetWriter) finishSheet() error {
	last, err := excelize.CoordinatesToCellName(max(len(w.cols), 1), w.row)
	if err != nil {
		return fmt.Errorf("xlsx sheet %s: %w", w.name, err)
	}
	// The stream writer writes the sheet's autoFilter element at Flush;
	// AutoFilter sets it and the workbook's _FilterDatabase name.
	if len(w.cols) > 0 {
		if err := w.f.AutoFilter(w.name, "A1:"+last, nil); err != nil {
			return fmt.Errorf("xlsx sheet %s: autofilter: %w", w.name, err)
		}
	}
	if err := w.cur.Flush(); err != nil {
		return fmt.Errorf("xlsx sheet %s: %w", w.name, err)
	}
	return nil
}

func (w *sheetWriter) writeRow(vals []driver.Value) error {
	w.row++
	for i, v := range vals {
		style, value, err := w.cell(i, v, vals)
		if err != nil {
			return err
		}
		if value == nil {
			w.vals[i] = nil // no cell at all
			continue
		}
		w.cells[i] = excelize.Cell{StyleID: style, Value: value}
		w.vals[i] = &w.cells[i]
	}
	ref, err := excelize.CoordinatesToCellName(1, w.row)
	if err != nil {
		return fmt.Errorf("xlsx sheet %s: %w", w.name, err)
	}
	if err := w.cur.SetRow(ref, w.vals); err != nil {
		return fmt.Errorf("xlsx sheet %s row %d: %w", w.name, w.row, err)
	}
	return nil
}

// cell is the typed cell of value v of column i (row is the whole row,
// for an amount's currency). A value that does not fit its column's kind
// (a date column holding "n/a") is written as what it is.
func (w *sheetWriter) cell(i int, v any, row []driver.Value) (style int, value any, err error) {
	col := &w.cols[i]
	switch col.Kind {
	case KindDate, KindMonth, KindTimestamp, KindLocalTime:
		if t, ok := w.parseTime(col.Kind, v); ok {
			style := w.st.date
			switch col.Kind {
			case KindMonth:
				style = w.st.month
			case KindTimestamp, KindLocalTime:
				style = w.st.timestamp
			}
			return style, serial(t), nil
		}
	case KindMoney:
		if f, ok := number(v); ok {
			code := ""
			if col.Currency >= 0 {
				code, _ = row[col.Currency].(string)
			}
			style, err := w.st.moneyStyle(code)
			return style, f, err
		}
	case KindInteger:
		if n, ok := v.(int64); ok {
			return w.st.integer, n, nil
		}
	case KindBool:
		if n, ok := v.(int64); ok && (n == 0 || n == 1) {
			return 0, n == 1, nil
		}
	}
	switch v := v.(type) {
	case []byte:
		return 0, bytesText(v), nil
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, formatFloat(v), nil
		}
	case time.Time:
		if t, ok := w.parseTime(KindTimestamp, v); ok {
			return w.st.timestamp, serial(t), nil
		}
	}
	return 0, v, nil
}

// parseTime reads a date, month, timestamp or local time value;
// timestamps are moved to the customer's zone, since a spreadsheet's dates
// have none. Local times are in that zone already and stay as they are.
func (w *sheetWriter) parseTime(k Kind, v any) (time.Time, bool) {
	var t time.Time
	switch v := v.(type) {
	case time.Time:
		t = v
		if k == KindTimestamp {
			t = t.In(w.loc)
		}
	case string:
		var ok bool
		if t, ok = parseTimeText(k, v); !ok {
			return t, false
		}
		if k == KindTimestamp {
			t = t.In(w.loc)
		}
	default:
		return t, false
	}
	return t, t.Year() >= 1900 && t.Year() <= 9999
}

// parseTimeText reads a YYYY-MM-DD date, a YYYY-MM month, an RFC 3339
// timestamp (or SQLite's own "YYYY-MM-DD HH:MM:SS", UTC), or a local
// "YYYY-MM-DD HH:MM:SS" (its wall clock, returned as if UTC).
func parseTimeText(k Kind, s string) (time.Time, bool) {
	var layouts []string
	switch k {
	case KindDate:
		layouts = []string{time.DateOnly}
	case KindMonth:
		layouts = []string{"2006-01"}
	case KindTimestamp:
		layouts = []string{time.RFC3339Nano, time.DateTime}
	case KindLocalTime:
		layouts = []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"}
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// excelEpoch is day 0 of spreadsheet serial dates (1900 date system, from
// 1900-03-01 on).
var excelEpoch = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).Unix()

// serial is t's wall clock as a spreadsheet date: days since 1899-12-30
// and the fraction of the day. A time of day is nudged up by 1e-10 day
// (9 µs): LibreOffice shows hh:mm:ss by truncating, and the double
// nearest to a whole second is below it as often as not (07:30:35 would
// show as 07:30:34).
func serial(t time.Time) float64 {
	y, m, d := t.Date()
	day := (time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() - excelEpoch) / 86400
	h, mi, s := t.Clock()
	micros := int64(h*3600+mi*60+s)*1e6 + int64(t.Nanosecond()/1e3)
	if micros == 0 {
		return float64(day)
	}
	return float64(day*86400e6+micros)/86400e6 + serialNudge
}

const serialNudge = 1e-10

// number reads an amount: a number, or decimal text (-12.50).
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, !math.IsInf(v, 0) && !math.IsNaN(v)
	case string:
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	return 0, false
}

// refineKinds returns cols with the kinds of expression columns (no
// declared type, no name convention) refined by their sampled values: text
// that is always a date or always a timestamp.
func refineKinds(cols []Column, sample [][]driver.Value) []Column {
	out := slices.Clone(cols)
	for i := range out {
		if out[i].Kind != KindText || out[i].DeclType != "" {
			continue
		}
		for _, k := range []Kind{KindDate, KindTimestamp} {
			seen, all := false, true
			for _, row := range sample {
				s, ok := row[i].(string)
				if row[i] == nil {
					continue
				}
				if _, parsed := parseTimeText(k, s); !ok || !parsed {
					all = false
					break
				}
				seen = true
			}
			if seen && all {
				out[i].Kind = k
				break
			}
		}
	}
	return out
}

// fitWidths sizes each column to its header and the widest sampled value
// as shown, within [minColWidth, maxColWidth] characters.
func fitWidths(cols []Column, sample [][]driver.Value) []float64 {
	widths := make([]float64, len(cols))
	for i, c := range cols {
		n := utf8.RuneCountInString(c.Name) + 2 // the filter button
		for _, row := range sample {
			n = max(n, shownWidth(c.Kind, row[i]))
		}
		widths[i] = float64(min(max(n+1, minColWidth), maxColWidth))
	}
	return widths
}

func shownWidth(k Kind, v any) int {
	if v == nil {
		return 0
	}
	switch k {
	case KindDate:
		return len("2006-01-02")
	case KindMonth:
		return len("2006-01")
	case KindTimestamp, KindLocalTime:
		return len("2006-01-02 15:04:05")
	case KindMoney:
		if f, ok := number(v); ok {
			digits := len(strconv.FormatFloat(math.Abs(f), 'f', 2, 64))
			return digits + (digits-4)/3 + 2 // separators, sign and symbol
		}
	}
	switch v := v.(type) {
	case string:
		return utf8.RuneCountInString(v)
	case []byte:
		return len(v)
	}
	return len(csvField(v))
}

// sheetName makes a view's name a valid sheet name: at most 31
// characters, none of : \ / ? * [ ] or an apostrophe.
func sheetName(view string) string {
	s := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`:\/?*[]'`, r) {
			return '_'
		}
		return r
	}, view)
	return truncateRunes(s, 31)
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
