package export_test

import (
	"archive/zip"
	"context"
	"database/sql"
	"io"
	"math"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/bankmirror/bankmirror/internal/export"
)

var xlsxViews = []string{"v_transactions", "v_ledger", "v_monthly_spending", "v_monthly_income", "v_daily_balances", "v_history", "v_test_generic"}

// writeXLSX exports views to a file in a temporary directory.
func writeXLSX(t testing.TB, db *sql.DB, views ...string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "mirror.xlsx")
	p, err := export.Prepare(context.Background(), db, export.Request{Format: export.XLSX, Views: views, Location: melbourne, TmpDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	err = export.WriteFile(path, func(w io.Writer) error {
		_, err := p.Write(context.Background(), db, w)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// localTime is a view's timestamp as the sheet shows it: in the
// customer's zone.
func localTime(t testing.TB, s string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("timestamp %q: %v", s, err)
	}
	return ts.In(melbourne)
}

// sheetSerial is the spreadsheet serial of a wall clock.
func sheetSerial(t time.Time) float64 {
	wall := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	return float64(wall.Unix()-time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).Unix())/86400 + float64(wall.Nanosecond())/86400e9
}

// Column kinds of the test views, by name, as a reader must find them:
// timestamps (RFC 3339 with an offset, shown in the customer's zone),
// local times ('YYYY-MM-DD HH:MM:SS' already in that zone, shown as they
// are), local dates, months (dates shown yyyy-mm), amounts and 0/1 flags.
// Epochs, counts and base units are plain numbers.
var (
	timestampCols = []string{"created_at", "settled_at", "observed_at"}
	localCols     = []string{"created_local", "settled_local", "observed_local"}
	dateCols      = []string{"created_date", "settled_date", "observed_date", "date"}
	monthCols     = []string{"month", "created_month", "settled_month", "observed_month"}
	moneyCols     = []string{"amount", "foreign_amount", "foreign_amount_value", "total_spent", "hold_amount",
		"hold_foreign_amount", "round_up_amount", "cashback_amount", "spent", "refunded", "total_income", "balance"}
	boolCols = []string{"is_transfer", "is_refund", "is_interest", "offsets_spending", "excluded_from_spending", "household_transfer", "is_categorizable", "is_observed", "is_live"}
)

// isDateLike: a column shown as a date or a date and time.
func isDateLike(name string) bool {
	return slices.Contains(timestampCols, name) || slices.Contains(localCols, name) ||
		slices.Contains(dateCols, name) || slices.Contains(monthCols, name)
}

// TestXLSXTypedCells opens the workbook with excelize and checks every
// cell of every sheet against the view: dates are date cells (serial
// numbers with a date format) in the customer's zone, amounts numbers
// with a currency format, flags booleans, text text; the header is frozen,
// the sheet has an autofilter over all its rows, and columns are sized.
func TestXLSXTypedCells(t *testing.T) {
	db := openMirror(t)
	path := writeXLSX(t, db, xlsxViews...)
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetList(); !slices.Equal(got, xlsxViews) {
		t.Fatalf("sheets %v, want %v", got, xlsxViews)
	}
	names := f.GetDefinedName()
	for _, view := range xlsxViews {
		t.Run(view, func(t *testing.T) {
			cols, rows := viewRows(t, db, "SELECT * FROM "+view)
			raw, err := f.GetRows(view, excelize.Options{RawCellValue: true})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(raw[0], cols) {
				t.Fatalf("header %v, want %v", raw[0], cols)
			}
			if len(raw)-1 != len(rows) {
				t.Fatalf("%d rows, view has %d", len(raw)-1, len(rows))
			}
			checked := map[string]bool{}
			for i, row := range rows {
				for j, v := range row {
					name := cols[j]
					cell, _ := excelize.CoordinatesToCellName(j+1, i+2)
					got := ""
					if j < len(raw[i+1]) {
						got = raw[i+1][j]
					}
					if v == nil {
						if got != "" {
							t.Errorf("%s %s: %q, want empty", cell, name, got)
						}
						continue
					}
					want, kind := expectedCell(t, name, v)
					if kind == "number" || kind == "money" || kind == "date" {
						g, err := strconv.ParseFloat(got, 64)
						w, _ := strconv.ParseFloat(want, 64)
						if err != nil || math.Abs(g-w) > 1e-6 {
							t.Errorf("%s %s: %q, want %s (%s)", cell, name, got, want, kind)
						}
					} else if got != want {
						t.Errorf("%s %s: %q, want %q (%s)", cell, name, got, want, kind)
					}
					if !checked[name] {
						checked[name] = true
						checkCellType(t, f, view, cell, name, kind, v)
					}
				}
			}
			panes, err := f.GetPanes(view)
			if err != nil || !panes.Freeze || panes.YSplit != 1 || panes.TopLeftCell != "A2" {
				t.Errorf("panes %+v (%v), want the header row frozen", panes, err)
			}
			last, _ := excelize.CoordinatesToCellName(len(cols), len(rows)+1, true)
			wantFilter := "'" + view + "'!$A$1:" + last
			if !slices.ContainsFunc(names, func(d excelize.DefinedName) bool {
				return d.Name == "_xlnm._FilterDatabase" && d.Scope == view && d.RefersTo == wantFilter
			}) {
				t.Errorf("no autofilter %s in %+v", wantFilter, names)
			}
			// excelize writes the range with $ (absolute), as Excel reads it.
			if xml := strings.ReplaceAll(sheetXML(t, path, f, view), "$", ""); !strings.Contains(xml, `<autoFilter ref="A1:`+strings.ReplaceAll(last, "$", "")+`"`) {
				t.Errorf("sheet XML has no autoFilter over A1:%s", last)
			}
			if cols[0] == "id" {
				if w, _ := f.GetColWidth(view, "A"); w < 36 { // uuids
					t.Errorf("column A (id) width %v, want at least 36", w)
				}
			}
		})
	}
}

// expectedCell is the raw value a cell must hold for view value v, and
// what kind of cell it must be.
func expectedCell(t testing.TB, name string, v any) (string, string) {
	switch {
	case slices.Contains(timestampCols, name):
		return strconv.FormatFloat(sheetSerial(localTime(t, v.(string))), 'f', -1, 64), "date"
	case slices.Contains(localCols, name):
		// The wall clock as it is: no zone conversion.
		d, err := time.Parse(time.DateTime, v.(string))
		if err != nil {
			t.Fatalf("%s %q: %v", name, v, err)
		}
		return strconv.FormatFloat(sheetSerial(d), 'f', -1, 64), "date"
	case slices.Contains(dateCols, name):
		d, _ := time.Parse("2006-01-02", v.(string))
		return strconv.FormatFloat(sheetSerial(d), 'f', -1, 64), "date"
	case slices.Contains(monthCols, name):
		d, _ := time.Parse("2006-01", v.(string))
		return strconv.FormatFloat(sheetSerial(d), 'f', -1, 64), "date"
	case slices.Contains(moneyCols, name):
		switch v := v.(type) {
		case float64:
			return strconv.FormatFloat(v, 'f', -1, 64), "money"
		case string:
			return v, "money"
		}
	case slices.Contains(boolCols, name):
		return strconv.FormatInt(v.(int64), 10), "bool"
	}
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10), "number"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), "number"
	case string:
		return v, "text"
	}
	t.Fatalf("%s: unexpected %T", name, v)
	return "", ""
}

// checkCellType checks a cell's type and number format, and the value as
// the reader shows it formatted.
func checkCellType(t testing.TB, f *excelize.File, sheet, cell, name, kind string, v any) {
	t.Helper()
	typ, err := f.GetCellType(sheet, cell)
	if err != nil {
		t.Fatal(err)
	}
	styleID, _ := f.GetCellStyle(sheet, cell)
	style, _ := f.GetStyle(styleID)
	numFmt := ""
	if style != nil && style.CustomNumFmt != nil {
		numFmt = *style.CustomNumFmt
	}
	shown, _ := f.GetCellValue(sheet, cell)
	switch kind {
	case "date":
		withTime := slices.Contains(timestampCols, name) || slices.Contains(localCols, name)
		want := map[bool]string{true: "yyyy-mm-dd hh:mm:ss", false: "yyyy-mm-dd"}[withTime]
		wantShown, orShown := "", ""
		switch {
		case slices.Contains(timestampCols, name):
			lt := localTime(t, v.(string))
			wantShown = lt.Format("2006-01-02 15:04:05")
			// LibreOffice shows hh:mm:ss truncated (its test checks
			// every cell); excelize rounds a fraction of a second (the
			// mirror's own stamps have microseconds) to the nearest.
			orShown = lt.Round(time.Second).Format("2006-01-02 15:04:05")
		case slices.Contains(monthCols, name):
			want, wantShown = "yyyy-mm", v.(string)
		default:
			wantShown = v.(string)
		}
		if orShown == "" {
			orShown = wantShown
		}
		if typ != excelize.CellTypeUnset || numFmt != want || (shown != wantShown && shown != orShown) {
			t.Errorf("%s %s: type %v format %q shown %q; want a number with format %q shown %q", cell, name, typ, numFmt, shown, want, wantShown)
		}
	case "money":
		if typ != excelize.CellTypeUnset || !strings.Contains(numFmt, "#,##0.00") || !strings.ContainsAny(numFmt, "$") {
			t.Errorf("%s %s: type %v format %q; want a number with a currency format", cell, name, typ, numFmt)
		}
	case "bool":
		if typ != excelize.CellTypeBool {
			t.Errorf("%s %s: type %v, want a boolean", cell, name, typ)
		}
	case "number":
		if typ != excelize.CellTypeUnset {
			t.Errorf("%s %s: type %v, want a number", cell, name, typ)
		}
	case "text":
		if typ != excelize.CellTypeInlineString {
			t.Errorf("%s %s: type %v, want a string", cell, name, typ)
		}
	}
}

// sheetXML reads a sheet's XML from the workbook file.
func sheetXML(t testing.TB, path string, f *excelize.File, sheet string) string {
	t.Helper()
	idx, _ := f.GetSheetIndex(sheet)
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	rc, err := zr.Open("xl/worksheets/sheet" + strconv.Itoa(idx+1) + ".xml")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestXLSXForeignCurrency: an amount in another currency carries its own
// code in its format.
func TestXLSXForeignCurrency(t *testing.T) {
	db := openMirror(t)
	path := writeXLSX(t, db, "v_test_generic")
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cols, rows := viewRows(t, db, "SELECT * FROM v_test_generic")
	fa, fc := colIndex(t, cols, "foreign_amount"), colIndex(t, cols, "foreign_currency")
	for i, r := range rows {
		code, ok := r[fc].(string)
		if !ok || code == "AUD" {
			continue
		}
		cell, _ := excelize.CoordinatesToCellName(fa+1, i+2)
		id, _ := f.GetCellStyle("v_test_generic", cell)
		st, _ := f.GetStyle(id)
		if st == nil || st.CustomNumFmt == nil || !strings.Contains(*st.CustomNumFmt, "[$"+code+"]") {
			t.Errorf("%s: foreign amount in %s has format %v", cell, code, st)
		}
		return
	}
	t.Fatal("no foreign amount in the test data")
}

// LimitXLSXMemory sets the XLSX limit and restores the previous one, and
// leaves a user's GOMEMLIMIT alone.
func TestLimitXLSXMemory(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	restore := export.LimitXLSXMemory(false)
	if got := debug.SetMemoryLimit(-1); got != export.XLSXMemoryLimit {
		t.Errorf("limit while exporting = %d, want %d", got, export.XLSXMemoryLimit)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Errorf("limit after = %d, want the previous %d", got, prev)
	}
	export.LimitXLSXMemory(true)()
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Errorf("limit with the user's GOMEMLIMIT = %d, want %d untouched", got, prev)
	}
}
