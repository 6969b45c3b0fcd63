package export_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/export"
)

// run exports req into memory.
func run(t testing.TB, db *sql.DB, req export.Request) ([]byte, export.Result) {
	t.Helper()
	if req.Location == nil {
		req.Location = melbourne
	}
	p, err := export.Prepare(context.Background(), db, req)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res, err := p.Write(context.Background(), db, &buf)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), res
}

// csvWant is a view's value as the CSV must show it.
func csvWant(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				return "'" + v
			}
		}
		return v
	}
	panic("unexpected value type in the test view")
}

func parseCSV(t testing.TB, b []byte) [][]string {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = 0 // every record as wide as the header
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestCSVEqualsView: the CSV of each view, parsed back with encoding/csv,
// is the view row by row: header, text, numbers with a '.' and no
// exponent or separators, empty for NULL; lines end CRLF.
func TestCSVEqualsView(t *testing.T) {
	db := openMirror(t)
	for _, view := range []string{"v_transactions", "v_ledger", "v_monthly_spending", "v_test_generic"} {
		t.Run(view, func(t *testing.T) {
			out, res := run(t, db, export.Request{Format: export.CSV, Views: []string{view}})
			cols, rows := viewRows(t, db, "SELECT * FROM "+view)
			recs := parseCSV(t, out)
			if !slices.Equal(recs[0], cols) {
				t.Fatalf("header %v, want %v", recs[0], cols)
			}
			if len(recs)-1 != len(rows) || res.Rows != int64(len(rows)) {
				t.Fatalf("%d records (result %d), view has %d rows", len(recs)-1, res.Rows, len(rows))
			}
			if !bytes.Contains(out, []byte("\r\n")) || bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) {
				t.Errorf("lines do not all end CRLF")
			}
			for i, row := range rows {
				for j, v := range row {
					got := recs[i+1][j]
					if f, ok := v.(float64); ok {
						g, err := strconv.ParseFloat(got, 64)
						if err != nil || g != f || strings.ContainsAny(got, "e,") {
							t.Errorf("row %d %s: %q, want %v", i, cols[j], got, f)
						}
						continue
					}
					if want := csvWant(v); got != want {
						t.Errorf("row %d %s: %q, want %q", i, cols[j], got, want)
					}
				}
			}
		})
	}
}

// TestCSVAwkwardValues: a formula-like text is defused with a leading
// apostrophe; newlines, quotes and commas survive the round trip.
func TestCSVAwkwardValues(t *testing.T) {
	db := openMirror(t)
	out, _ := run(t, db, export.Request{Format: export.CSV, Filter: export.Filter{Tag: commaTag}})
	recs := parseCSV(t, out)
	if len(recs) != 2 {
		t.Fatalf("--tag %q: %d rows, want the 1 transaction tagged so", commaTag, len(recs)-1)
	}
	get := func(name string) string { return recs[1][colIndex(t, recs[0], name)] }
	if get("id") != awkwardID || get("description") != "'"+awkwardDescription || get("note") != awkwardNote {
		t.Errorf("id %q description %q note %q", get("id"), get("description"), get("note"))
	}
	if !strings.Contains(get("tags"), commaTag) {
		t.Errorf("tags %q lack %q", get("tags"), commaTag)
	}
}

// TestJSONLinesEqualView: one object per line, keys in column order,
// numbers as numbers (amounts stored as text too, unrounded), flags as
// booleans, *_json embedded as JSON, NULL as null.
func TestJSONLinesEqualView(t *testing.T) {
	db := openMirror(t)
	for _, view := range []string{"v_transactions", "v_test_generic"} {
		t.Run(view, func(t *testing.T) {
			out, _ := run(t, db, export.Request{Format: export.JSON, Views: []string{view}})
			cols, rows := viewRows(t, db, "SELECT * FROM "+view)
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 1<<20)
			i := 0
			sawNumberText, sawBool, sawJSON := false, false, false
			for ; sc.Scan(); i++ {
				if i >= len(rows) {
					t.Fatalf("more lines than the view's %d rows", len(rows))
				}
				dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
				dec.UseNumber()
				var obj map[string]any
				if err := dec.Decode(&obj); err != nil {
					t.Fatalf("line %d: %v", i, err)
				}
				if keys := keyOrder(t, sc.Bytes()); !slices.Equal(keys, cols) {
					t.Fatalf("line %d keys %v, want %v", i, keys, cols)
				}
				for j, v := range rows[i] {
					got, name := obj[cols[j]], cols[j]
					switch v := v.(type) {
					case nil:
						if got != nil {
							t.Errorf("line %d %s: %v, want null", i, name, got)
						}
					case int64:
						if strings.HasPrefix(name, "is_") || slices.Contains(boolCols, name) {
							sawBool = true
							if got != (v == 1) {
								t.Errorf("line %d %s: %v, want %v", i, name, got, v == 1)
							}
						} else if got != json.Number(strconv.FormatInt(v, 10)) {
							t.Errorf("line %d %s: %v, want %d", i, name, got, v)
						}
					case float64:
						n, ok := got.(json.Number)
						f, err := n.Float64()
						if !ok || err != nil || f != v {
							t.Errorf("line %d %s: %v, want %v", i, name, got, v)
						}
					case string:
						switch name {
						case "tags_json":
							sawJSON = true
							var want, have any
							_ = json.Unmarshal([]byte(v), &want)
							b, _ := json.Marshal(got)
							_ = json.Unmarshal(b, &have)
							if _, isArray := got.([]any); !isArray || !equalJSON(want, have) {
								t.Errorf("line %d %s: %v, want the array %s", i, name, got, v)
							}
						case "foreign_amount_value", "foreign_amount":
							sawNumberText = true
							if got != json.Number(v) {
								t.Errorf("line %d %s: %v (%T), want the number %s", i, name, got, got, v)
							}
						default:
							if got != v {
								t.Errorf("line %d %s: %v, want %q", i, name, got, v)
							}
						}
					}
				}
			}
			if i != len(rows) {
				t.Errorf("%d lines, view has %d rows", i, len(rows))
			}
			if !sawNumberText || !sawBool || !sawJSON {
				t.Errorf("the data lacked a case: text amount %v, flag %v, JSON %v", sawNumberText, sawBool, sawJSON)
			}
		})
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// keyOrder lists an object's keys in the order written.
func keyOrder(t testing.TB, line []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", line)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestFilters: each filter selects exactly the rows a Go reading of the
// whole view selects.
func TestFilters(t *testing.T) {
	db := openMirror(t)
	cols, all := viewRows(t, db, "SELECT * FROM v_test_generic")
	at := func(row []any, name string) any { return row[colIndex(t, cols, name)] }
	created := func(row []any) time.Time {
		ts, err := time.Parse(time.RFC3339, at(row, "created_at").(string))
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	// A day and a month in the middle of the data.
	mid := created(all[len(all)/2]).In(melbourne)
	day := mid.Format("2006-01-02")
	dayStart := time.Date(mid.Year(), mid.Month(), mid.Day(), 0, 0, 0, 0, melbourne)
	acct, _ := at(all[0], "account_id").(string)
	acctName, _ := at(all[0], "account_name").(string)
	var parent string
	for _, r := range all {
		if p, ok := at(r, "parent_category_id").(string); ok {
			parent = p
			break
		}
	}
	cases := []struct {
		name string
		f    export.Filter
		keep func(row []any) bool
	}{
		{"since a day", export.Filter{Since: day}, func(r []any) bool { return !created(r).Before(dayStart) }},
		{"until a day", export.Filter{Until: day}, func(r []any) bool { return created(r).Before(dayStart.AddDate(0, 0, 1)) }},
		{"one month", export.Filter{Since: mid.Format("2006-01"), Until: mid.Format("2006-01")}, func(r []any) bool {
			return created(r).In(melbourne).Format("2006-01") == mid.Format("2006-01")
		}},
		{"status, any case", export.Filter{Status: "held"}, func(r []any) bool { return at(r, "status") == "HELD" }},
		{"account by id", export.Filter{Account: acct}, func(r []any) bool { return at(r, "account_id") == acct }},
		{"account by name, any case", export.Filter{Account: strings.ToUpper(acctName)}, func(r []any) bool { return at(r, "account_name") == acctName }},
		{"parent category", export.Filter{Category: parent}, func(r []any) bool {
			return at(r, "parent_category_id") == parent || at(r, "category_id") == parent
		}},
		{"tag with a comma (JSON array)", export.Filter{Tag: commaTag}, func(r []any) bool {
			var tags []string
			_ = json.Unmarshal([]byte(at(r, "tags_json").(string)), &tags)
			return slices.Contains(tags, commaTag)
		}},
		{"all together", export.Filter{Since: mid.AddDate(0, -1, 0).Format("2006-01-02"), Until: day, Status: "SETTLED", Account: acct},
			func(r []any) bool {
				c := created(r)
				return !c.Before(dayStart.AddDate(0, -1, 0)) && c.Before(dayStart.AddDate(0, 0, 1)) &&
					at(r, "status") == "SETTLED" && at(r, "account_id") == acct
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want []string
			for _, r := range all {
				if c.keep(r) {
					want = append(want, at(r, "id").(string))
				}
			}
			if len(want) == 0 || len(want) == len(all) {
				t.Fatalf("the filter keeps %d of %d rows: it would prove nothing", len(want), len(all))
			}
			out, _ := run(t, db, export.Request{Format: export.CSV, Views: []string{"v_test_generic"}, Filter: c.f})
			recs := parseCSV(t, out)
			var got []string
			for _, r := range recs[1:] {
				got = append(got, r[0])
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got %d rows, want %d", len(got), len(want))
			}
		})
	}
}

// TestDateFilterComparesInstants: on a timestamp column with mixed
// offsets, --since and --until compare instants, not text.
func TestDateFilterComparesInstants(t *testing.T) {
	db := openMirror(t)
	_, all := viewRows(t, db, "SELECT id, created_at FROM v_transactions")
	ts := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	// One row's own instant, written in another zone's offset: the row
	// is inside an inclusive bound given as that instant.
	pick := all[len(all)/3]
	instant := ts(pick[1].(string)).UTC().Format(time.RFC3339)
	out, _ := run(t, db, export.Request{Format: export.CSV, Views: []string{"v_transactions"}, Filter: export.Filter{Since: instant, Until: instant}})
	recs := parseCSV(t, out)
	var ids []string
	for _, r := range recs[1:] {
		ids = append(ids, r[0])
		if !ts(r[colIndex(t, recs[0], "created_at")]).Equal(ts(instant)) {
			t.Errorf("row %s created %s is not at %s", r[0], r[colIndex(t, recs[0], "created_at")], instant)
		}
	}
	if !slices.Contains(ids, pick[0].(string)) {
		t.Errorf("--since = --until = %s (the instant of %s, created %s) misses it: %v", instant, pick[0], pick[1], ids)
	}
}

// TestDateFilterSubsecondInstants: the mirror's own stamps (v_history's
// observed_at) have microseconds and its observed_epoch whole seconds: a
// bound given as such an instant selects by the instant itself, not by
// its second.
func TestDateFilterSubsecondInstants(t *testing.T) {
	db := openMirror(t)
	_, all := viewRows(t, db, "SELECT seq, observed_at FROM v_history")
	ts := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v }
	// The latest instant of a second that holds earlier ones too.
	bySecond := map[int64][]time.Time{}
	for _, r := range all {
		at := ts(r[1].(string))
		bySecond[at.Unix()] = append(bySecond[at.Unix()], at)
	}
	var pick time.Time
	for _, ats := range bySecond {
		last := slices.MaxFunc(ats, time.Time.Compare)
		if last.Nanosecond() > 0 && slices.ContainsFunc(ats, func(a time.Time) bool { return a.Before(last) }) {
			pick = last
			break
		}
	}
	if pick.IsZero() {
		t.Fatal("no second holds two instants: the test would prove nothing")
	}
	instant := pick.Format(time.RFC3339Nano)
	for _, f := range []export.Filter{{Since: instant, Until: instant}, {Since: instant, Until: pick.Add(time.Hour).Format(time.RFC3339Nano)}} {
		out, _ := run(t, db, export.Request{Format: export.CSV, Views: []string{"v_history"}, Filter: f})
		recs := parseCSV(t, out)
		col := colIndex(t, recs[0], "observed_at")
		var got, want []string
		for _, r := range recs[1:] {
			got = append(got, r[0])
		}
		for _, r := range all {
			at := ts(r[1].(string))
			if !at.Before(pick) && !at.After(ts(f.Until)) {
				want = append(want, strconv.FormatInt(r[0].(int64), 10))
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("--since %s --until %s: %d rows, want %d (the rows observed then)", f.Since, f.Until, len(got), len(want))
		}
		for _, r := range recs[1:] {
			if ts(r[col]).Before(pick) {
				t.Errorf("seq %s observed %s, before --since %s", r[0], r[col], instant)
			}
		}
	}
}

// TestRefusals: bad requests are refused before anything is written, with
// a message that says what is wrong.
func TestRefusals(t *testing.T) {
	db := openMirror(t)
	cases := []struct {
		name string
		req  export.Request
		want string
	}{
		{"unknown view", export.Request{Format: export.CSV, Views: []string{"v_nope"}}, `no view "v_nope"`},
		{"a table", export.Request{Format: export.CSV, Views: []string{"transactions"}}, `no view "transactions"`},
		{"SQL as a view name", export.Request{Format: export.CSV, Views: []string{`v_transactions; DROP TABLE accounts`}}, "no view"},
		{"unknown format", export.Request{Format: "pdf"}, `unknown format "pdf"`},
		{"two views in csv", export.Request{Format: export.CSV, Views: []string{"v_transactions", "v_monthly_spending"}}, "csv holds one view"},
		{"filter the view lacks", export.Request{Format: export.XLSX, Views: []string{"v_transactions", "v_monthly_spending"},
			Filter: export.Filter{Status: "SETTLED"}}, "view v_monthly_spending has no status column"},
		{"no category in daily balances", export.Request{Format: export.CSV, Views: []string{"v_daily_balances"},
			Filter: export.Filter{Category: "x"}}, "view v_daily_balances has no category column"},
		{"no date column", export.Request{Format: export.CSV, Views: []string{"v_monthly_spending"}, Filter: export.Filter{Tag: "x"}}, "no tag column"},
		{"bad date", export.Request{Format: export.CSV, Filter: export.Filter{Since: "yesterday"}}, `--since "yesterday": not a date`},
		{"since after until", export.Request{Format: export.CSV, Filter: export.Filter{Since: "2025-02-01", Until: "2025-01-01"}}, "is after --until"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := export.Prepare(context.Background(), db, c.req)
			if err == nil || !export.IsInvalid(err) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want an invalid-export error containing %q", err, c.want)
			}
		})
	}
	// The mirror is untouched by the attempt at SQL.
	if _, rows := viewRows(t, db, "SELECT count(*) FROM accounts"); rows[0][0].(int64) == 0 {
		t.Errorf("accounts emptied")
	}
}

// TestWriteFileAllOrNothing: a failed write leaves no file, and an
// existing file as it was; a good one is mode 0600.
func TestWriteFileAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := export.WriteFile(path, func(w io.Writer) error {
		_, _ = w.Write([]byte("half a file"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the old file became %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
	if err := export.WriteFile(path, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" || st.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v, want new and 0600", b, st.Mode().Perm())
	}
}

// TestFloatFormatting: REALs never get an exponent in CSV.
func TestFloatFormatting(t *testing.T) {
	db := openMirror(t)
	out, _ := run(t, db, export.Request{Format: export.CSV, Views: []string{"v_monthly_spending"}})
	recs := parseCSV(t, out)
	j := colIndex(t, recs[0], "total_spent")
	for _, r := range recs[1:] {
		f, err := strconv.ParseFloat(r[j], 64)
		if err != nil || strings.ContainsAny(r[j], "eE,") || math.IsInf(f, 0) {
			t.Errorf("total_spent %q", r[j])
		}
	}
}

// TestCancelledExportLeavesNothing: an export whose context ends stops
// with the context's error, and WriteFile leaves no file.
func TestCancelledExportLeavesNothing(t *testing.T) {
	db := openMirror(t)
	for _, f := range []export.Format{export.CSV, export.JSON, export.XLSX} {
		t.Run(string(f), func(t *testing.T) {
			dir := t.TempDir()
			p, err := export.Prepare(context.Background(), db, export.Request{Format: f, TmpDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			err = export.WriteFile(filepath.Join(dir, "out."+string(f)), func(w io.Writer) error {
				_, err := p.Write(ctx, db, w)
				return err
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error %v, want context.Canceled", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("files left: %v", entries)
			}
		})
	}
}

// cancelOnWrite cancels its context at the first write that reaches it.
type cancelOnWrite struct {
	w      io.Writer
	cancel context.CancelFunc
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.cancel()
	return c.w.Write(p)
}

// TestExportCancelledMidway: a context ending while rows still stream
// (the client of the feed went away, ^C) stops the export with its error.
func TestExportCancelledMidway(t *testing.T) {
	db := openMirror(t)
	for _, f := range []export.Format{export.CSV, export.JSON} {
		t.Run(string(f), func(t *testing.T) {
			p, err := export.Prepare(context.Background(), db, export.Request{Format: f})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var buf bytes.Buffer
			// The first 64 KiB reach the writer with rows left to read.
			res, err := p.Write(ctx, db, &cancelOnWrite{w: &buf, cancel: cancel})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error %v after %d rows, want context.Canceled", err, res.Rows)
			}
		})
	}
}

// An export that names no view writes v_ledger, whose every column is the
// column of the same name of v_transactions, row for row.
func TestDefaultViewIsLedger(t *testing.T) {
	db := openMirror(t)
	plan, err := export.Prepare(context.Background(), db, export.Request{Format: export.CSV})
	if err != nil {
		t.Fatal(err)
	}
	cols := plan.Columns(0)
	ledger, _ := viewRows(t, db, "SELECT * FROM v_ledger LIMIT 1")
	if len(cols) != len(ledger) || cols[0].Name != ledger[0] {
		t.Fatalf("default export has columns %v, want v_ledger's %v", cols, ledger)
	}
	all, _ := viewRows(t, db, "SELECT * FROM v_transactions LIMIT 1")
	if len(ledger) >= len(all) {
		t.Errorf("v_ledger has %d columns, v_transactions %d: not narrower", len(ledger), len(all))
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM v_ledger").Scan(&n); err != nil || n == 0 {
		t.Fatalf("v_ledger: %d rows, %v", n, err)
	}
	for _, c := range ledger {
		if !slices.Contains(all, c) {
			t.Errorf("v_ledger.%s is not a column of v_transactions", c)
			continue
		}
		q := fmt.Sprintf(`SELECT count(*) FROM v_ledger l JOIN v_transactions t USING (id) WHERE l."%[1]s" IS NOT t."%[1]s"`, c)
		var differ int
		if err := db.QueryRow(q).Scan(&differ); err != nil {
			t.Fatal(err)
		}
		if differ != 0 {
			t.Errorf("v_ledger.%s differs from v_transactions' in %d rows", c, differ)
		}
	}
	// The same days select the same transactions in both, in a zone
	// other than the mirror's.
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	_, days := viewRows(t, db, "SELECT DISTINCT created_date FROM v_transactions ORDER BY 1")
	day := days[len(days)/2][0].(string)
	ids := func(view string) []string {
		out, _ := run(t, db, export.Request{Format: export.CSV, Views: []string{view}, Location: tokyo,
			Filter: export.Filter{Since: day, Until: day}})
		recs := parseCSV(t, out)
		var ids []string
		for _, r := range recs[1:] {
			ids = append(ids, r[colIndex(t, recs[0], "id")])
		}
		slices.Sort(ids)
		return ids
	}
	if l, tr := ids("v_ledger"), ids("v_transactions"); len(l) == 0 || !slices.Equal(l, tr) {
		t.Errorf("--since/--until %s (Asia/Tokyo): v_ledger has %v, v_transactions %v", day, l, tr)
	}
}

// Drain reads as many rows as the view has, and as the export writes.
func TestDrainReadsEveryRow(t *testing.T) {
	db := openMirror(t)
	for _, view := range []string{"v_transactions", "v_ledger", "v_monthly_spending"} {
		plan, err := export.Prepare(context.Background(), db, export.Request{Format: export.CSV, Views: []string{view}})
		if err != nil {
			t.Fatal(err)
		}
		n, err := plan.Drain(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		_, rows := viewRows(t, db, "SELECT * FROM "+view)
		_, res := run(t, db, export.Request{Format: export.CSV, Views: []string{view}})
		if n == 0 || n != int64(len(rows)) || n != res.Rows {
			t.Errorf("%s: drained %d rows, the view has %d, the export wrote %d", view, n, len(rows), res.Rows)
		}
	}
}
