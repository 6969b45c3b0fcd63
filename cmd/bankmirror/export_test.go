package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/bankmirror/bankmirror/internal/bench/synthetic"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/store"
)

// syntheticMirror is a mirror of n generated transactions in a temporary
// directory, closed; it returns its path.
func syntheticMirror(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mirror.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := synthetic.Fill(context.Background(), st, n, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// dirNames lists a directory's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestCLIExport: stdout and -o give the same CSV; the file is 0600 and
// whole; the format follows -o's extension; several views make an XLSX
// with a sheet each.
func TestCLIExport(t *testing.T) {
	db := syntheticMirror(t, 300)
	env := map[string]string{"BANKMIRROR_DB": db, "BANKMIRROR_LOG_FORMAT": "json"}
	r := runCLI(t, env, "export", "--status", "held")
	wantCode(t, r, 0)
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+6 || recs[0][0] != "created_date" { // one in 50 is HELD; v_ledger by default
		t.Fatalf("%d records, want a header and the 6 HELD transactions:\n%s", len(recs), r.stdout)
	}
	out := filepath.Join(t.TempDir(), "held.csv")
	r = runCLI(t, env, "export", "--status", "held", "-o", out)
	wantCode(t, r, 0)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != recs2CSV(t, recs) {
		t.Errorf("-o wrote something else than stdout")
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if !strings.Contains(r.stderr, "exported 6 rows of v_ledger to "+out) {
		t.Errorf("no summary on stderr: %s", r)
	}

	x := filepath.Join(filepath.Dir(out), "all.xlsx")
	r = runCLI(t, env, "export", "--view", "v_transactions", "--view", "v_monthly_spending", "-o", x)
	wantCode(t, r, 0)
	f, err := excelize.OpenFile(x)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetList(); !slices.Equal(got, []string{"v_transactions", "v_monthly_spending"}) {
		t.Errorf("sheets %v", got)
	}
	rows, err := f.GetRows("v_transactions")
	if err != nil || len(rows) != 301 {
		t.Errorf("%d rows (%v), want a header and 300", len(rows), err)
	}
	if names := dirNames(t, filepath.Dir(out)); !slices.Equal(names, []string{"all.xlsx", "held.csv"}) {
		t.Errorf("files left beside the exports: %v", names)
	}

	r = runCLI(t, env, "export", "--list")
	wantCode(t, r, 0)
	for _, want := range []string{"v_transactions", "created_at", "timestamp", "amount", "money", "v_monthly_spending"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--list lacks %q:\n%s", want, r.stdout)
		}
	}
}

func recs2CSV(t *testing.T, recs [][]string) string {
	t.Helper()
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	if err := w.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestCLIExportRefusals: a bad request exits 2 with a clear message and
// leaves no file.
func TestCLIExportRefusals(t *testing.T) {
	db := syntheticMirror(t, 20)
	env := map[string]string{"BANKMIRROR_DB": db, "BANKMIRROR_LOG_FORMAT": "json"}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown view", []string{"--view", "v_nope", "-o", out}, `no view "v_nope" in the mirror; exportable views: `},
		{"a table", []string{"--view", "webhooks", "-o", out}, `no view "webhooks"`},
		{"unknown format", []string{"--format", "pdf", "-o", out}, `unknown format "pdf"`},
		{"xlsx to stdout", []string{"--format", "xlsx"}, "give -o FILE.xlsx"},
		{"filter the view lacks", []string{"--view", "v_monthly_spending", "--status", "HELD", "-o", out}, "view v_monthly_spending has no status column"},
		{"bad date", []string{"--until", "2026-13-01", "-o", out}, `--until "2026-13-01": not a date`},
		{"two views in csv", []string{"--view", "v_transactions", "--view", "v_monthly_spending", "-o", out}, "csv holds one view"},
		{"stray argument", []string{"v_transactions"}, "takes no arguments"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, env, append([]string{"export"}, c.args...)...)
			wantCode(t, r, 2)
			if !strings.Contains(r.stderr, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, r)
			}
			if c.name == "unknown view" {
				// The list grows with the mirror's views: it names these.
				for _, v := range []string{"v_transactions", "v_monthly_spending"} {
					if !strings.Contains(r.stderr, v) {
						t.Errorf("the views listed lack %s:\n%s", v, r)
					}
				}
			}
			if names := dirNames(t, dir); len(names) != 0 {
				t.Errorf("files left: %v", names)
			}
		})
	}
	r := runCLI(t, map[string]string{"BANKMIRROR_DB": filepath.Join(dir, "none.db")}, "export")
	wantCode(t, r, 1)
	if !strings.Contains(r.stderr, "no mirror at") {
		t.Errorf("missing mirror: %s", r)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("a missing mirror was created: %v", names)
	}
}

// TestCLIExportTimezone: --since and --until take days in
// BANKMIRROR_TIMEZONE (the configuration's zone, whatever zone the mirror's
// local columns were computed in) and select by instant: the rows are
// exactly those created on that day in that zone; a zone that is not an
// IANA name is refused before anything is read.
func TestCLIExportTimezone(t *testing.T) {
	db := syntheticMirror(t, 300) // created 08:15-12:00 UTC on 1 March 2026; the mirror's zone is Melbourne's
	for _, zone := range []string{"Pacific/Honolulu", "Asia/Tokyo"} {
		t.Run(zone, func(t *testing.T) {
			loc, err := time.LoadLocation(zone)
			must(t, err)
			env := map[string]string{"BANKMIRROR_DB": db, "BANKMIRROR_LOG_FORMAT": "json", "BANKMIRROR_TIMEZONE": zone}
			all := runCLI(t, env, "export", "--view", "v_transactions")
			wantCode(t, all, 0)
			day := runCLI(t, env, "export", "--view", "v_transactions", "--since", "2026-03-01", "--until", "2026-03-01")
			wantCode(t, day, 0)
			recs, err := csv.NewReader(strings.NewReader(all.stdout)).ReadAll()
			must(t, err)
			created := slices.Index(recs[0], "created_at")
			want := [][]string{recs[0]}
			for _, r := range recs[1:] {
				at, err := time.Parse(time.RFC3339, r[created])
				must(t, err)
				if at.In(loc).Format(time.DateOnly) == "2026-03-01" {
					want = append(want, r)
				}
			}
			if len(want) < 2 || len(want) == len(recs) && zone != "Asia/Tokyo" {
				t.Fatalf("%d of %d rows on the day: the test would prove nothing", len(want)-1, len(recs)-1)
			}
			got, err := csv.NewReader(strings.NewReader(day.stdout)).ReadAll()
			must(t, err)
			// The view has no order: the filter may read it by the
			// created_epoch index.
			byID := func(a, b []string) int { return strings.Compare(a[0], b[0]) }
			slices.SortFunc(got[1:], byID)
			slices.SortFunc(want[1:], byID)
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("--since = --until = 2026-03-01 in %s: %d rows, want the %d rows created that day there", zone, len(got)-1, len(want)-1)
			}
		})
	}
	r := runCLI(t, map[string]string{"BANKMIRROR_DB": db, "BANKMIRROR_TIMEZONE": "+10:00"}, "export")
	wantCode(t, r, 2)
	if !strings.Contains(r.stderr, "BANKMIRROR_TIMEZONE") || r.stdout != "" {
		t.Errorf("a bad zone: %s", r)
	}
}

// TestConfigExportToken: the feed's token comes from the variable or its
// file, is checked for length and never printed.
func TestConfigExportToken(t *testing.T) {
	const tok = "export-token-SHOULD-NOT-APPEAR"
	file := filepath.Join(t.TempDir(), "tok")
	must(t, os.WriteFile(file, []byte(tok+"\n"), 0o600))
	c, err := config.Load(map[string]string{"BANKMIRROR_EXPORT_TOKEN_FILE": file})
	if err != nil || c.ExportToken != tok || c.ExportTokenFile != "" {
		t.Fatalf("token %q file field %q: %v", c.ExportToken, c.ExportTokenFile, err)
	}
	r := runCLI(t, map[string]string{"BANKMIRROR_EXPORT_TOKEN": "short"}, "config")
	wantCode(t, r, 2)
	if !strings.Contains(r.stderr, "BANKMIRROR_EXPORT_TOKEN") || strings.Contains(r.stderr, "short\"") {
		t.Errorf("short token: %s", r)
	}
	// An obviously weak token is refused, naming the variable it came from
	// and not the token.
	weak := filepath.Join(t.TempDir(), "weak")
	must(t, os.WriteFile(weak, []byte("aaaaaaaaaaaaaaaa\n"), 0o600))
	for name, val := range map[string]string{"BANKMIRROR_EXPORT_TOKEN": "aaaaaaaaaaaaaaaa", "BANKMIRROR_EXPORT_TOKEN_FILE": weak} {
		r = runCLI(t, map[string]string{name: val}, "config")
		wantCode(t, r, 2)
		noLeak(t, r, "aaaaaaaaaaaaaaaa")
		if !strings.Contains(r.stderr, "invalid "+name+": the token is too weak: it has 1 different characters") {
			t.Errorf("weak token in %s: %s", name, r)
		}
	}
	r = runCLI(t, map[string]string{"BANKMIRROR_EXPORT_TOKEN_FILE": file}, "config")
	wantCode(t, r, 0)
	noLeak(t, r, tok)
	// One line, naming the file the token came from.
	wantConfigLines(t, r.stdout, map[string]string{"BANKMIRROR_EXPORT_TOKEN": "(from BANKMIRROR_EXPORT_TOKEN_FILE=" + file + ", redacted)"})
	if strings.Contains(r.stdout, "\nBANKMIRROR_EXPORT_TOKEN_FILE") {
		t.Errorf("BANKMIRROR_EXPORT_TOKEN_FILE listed separately:\n%s", r.stdout)
	}
}
