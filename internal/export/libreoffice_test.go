package export_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/bankmirror/bankmirror/internal/export"
)

// soffice runs LibreOffice headless in dir with a profile of its own (so
// that runs never share a lock), failing the test on an error. Without
// LibreOffice the test is skipped, except in CI (CI set), where .ci/run
// installs it and its absence is a failure.
func soffice(t *testing.T, dir string, args ...string) {
	t.Helper()
	bin, err := exec.LookPath("soffice")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("soffice not found in CI: .ci/run installs libreoffice-calc-nogui: %v", err)
		}
		t.Skip("LibreOffice (soffice) is not installed; apt-get install libreoffice-calc-nogui")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	profile := "file://" + filepath.Join(t.TempDir(), "lo-profile")
	cmd := exec.CommandContext(ctx, bin, append([]string{"-env:UserInstallation=" + profile, "--headless", "--norestore", "--nolockcheck"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("soffice %v: %v\n%s", args, err, out)
	}
}

// loCSVFilter writes UTF-8 CSV, cells as shown, every sheet to a file of
// its own (NAME-SHEET.csv): the options of LibreOffice's CSV filter in
// order (separator, quote, charset 76 = UTF-8, first line, cell formats,
// language, quoted as text, detect special numbers, save as shown, export
// formulas, remove spaces, sheet -1 = all).
const loCSVFilter = `csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1`

// TestLibreOfficeReadsXLSX converts the workbook to CSV with LibreOffice
// and checks every sheet against the views: the same rows, text, numbers,
// and dates and timestamps shown as the customer's local dates and times.
func TestLibreOfficeReadsXLSX(t *testing.T) {
	db := openMirror(t)
	path := writeXLSX(t, db, xlsxViews...)
	dir := filepath.Dir(path)
	soffice(t, dir, "--convert-to", loCSVFilter, "--outdir", dir, path)
	for _, view := range xlsxViews {
		t.Run(view, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, "mirror-"+view+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			recs := parseCSV(t, b)
			cols, rows := viewRows(t, db, "SELECT * FROM "+view)
			if !slices.Equal(recs[0], cols) {
				t.Fatalf("header %v, want %v", recs[0], cols)
			}
			if len(recs)-1 != len(rows) {
				t.Fatalf("LibreOffice read %d rows, the view has %d", len(recs)-1, len(rows))
			}
			dates := 0
			for i, row := range rows {
				for j, v := range row {
					got, want := recs[i+1][j], shownByLibreOffice(t, cols[j], v)
					if slices.Contains(moneyCols, cols[j]) && v != nil {
						got = moneyDigits(got)
					}
					if got != want {
						t.Errorf("row %d %s: LibreOffice shows %q, want %q (view: %v)", i+1, cols[j], got, want, v)
					}
					if v != nil && isDateLike(cols[j]) {
						dates++
					}
				}
			}
			if dates == 0 {
				t.Error("no dates compared")
			}
		})
	}
}

// shownByLibreOffice is how a view's value shows in LibreOffice's CSV.
// Local times, dates and months show as the view holds them.
func shownByLibreOffice(t testing.TB, name string, v any) string {
	if v == nil {
		return ""
	}
	switch {
	case slices.Contains(timestampCols, name):
		return localTime(t, v.(string)).Format("2006-01-02 15:04:05")
	case slices.Contains(moneyCols, name):
		f, _ := strconv.ParseFloat(fmt.Sprint(v), 64)
		return strconv.FormatFloat(f, 'f', 2, 64)
	case slices.Contains(boolCols, name):
		return map[int64]string{0: "FALSE", 1: "TRUE"}[v.(int64)]
	}
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return v.(string)
}

// moneyDigits strips a shown amount to its number: the currency symbol or
// code and thousands separators go, the sign and the decimals stay.
func moneyDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return -1
	}, s)
}

// TestLibreOfficeReadsCSV imports the CSV export with LibreOffice (as
// UTF-8 CSV) and checks it read the same rows and fields: quoting of
// commas, quotes and newlines, UTF-8 text, and no formula run from a
// merchant's text.
func TestLibreOfficeReadsCSV(t *testing.T) {
	db := openMirror(t)
	dir := t.TempDir()
	out, _ := run(t, db, export.Request{Format: export.CSV, Views: []string{"v_transactions"}})
	src := filepath.Join(dir, "tx.csv")
	if err := os.WriteFile(src, out, 0o600); err != nil {
		t.Fatal(err)
	}
	soffice(t, dir, "--infilter=CSV:44,34,76,1", "--convert-to", "xlsx", "--outdir", dir, src)
	f, err := excelize.OpenFile(filepath.Join(dir, "tx.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet := f.GetSheetName(0)
	got, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	recs := parseCSV(t, out)
	if len(got) != len(recs) {
		t.Fatalf("LibreOffice read %d rows, the CSV has %d", len(got), len(recs))
	}
	for _, name := range []string{"id", "account_name", "description", "note", "tags", "raw_text"} {
		j := colIndex(t, recs[0], name)
		for i := range recs {
			g := ""
			if j < len(got[i]) {
				g = got[i][j]
			}
			want := recs[i][j]
			if name == "description" && strings.HasPrefix(want, "'=") {
				// LibreOffice keeps the defusing apostrophe as text;
				// what matters is that no formula ran.
				if formula, _ := f.GetCellFormula(sheet, cellName(j, i)); formula != "" || !strings.Contains(g, "HYPERLINK") {
					t.Errorf("row %d description: %q formula %q: the defused text became a formula or was lost", i, g, formula)
				}
				continue
			}
			if g != want {
				t.Errorf("row %d %s: LibreOffice read %q, the CSV has %q", i, name, g, want)
			}
		}
	}
}

func cellName(col, row int) string {
	s, _ := excelize.CoordinatesToCellName(col+1, row+1)
	return s
}
