package writeback

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseCSV(t *testing.T) {
	in := "ID,Tag\n" +
		"# a comment\n" +
		"tx-1, Holiday\n" +
		"\n" +
		"tx-2,\"Trip, Japan\"\n" +
		"tx-3,a,b\n" +
		"tx-4\n" +
		"\"tx-5\",\"two\nlines\"\n" +
		"tx-6,none\n"
	rows, err := ParseCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		line      int
		id, value string
		bad       bool
	}
	var g []got
	for _, r := range rows {
		g = append(g, got{r.Line, r.TxID, r.Value, r.problem != ""})
	}
	want := []got{
		{3, "tx-1", "Holiday", false},
		{5, "tx-2", "Trip, Japan", false},
		{6, "tx-3", "", true},
		{7, "tx-4", "", true},
		{8, "tx-5", "two\nlines", false},
		{10, "tx-6", "none", false},
	}
	if !slices.Equal(g, want) {
		t.Errorf("rows:\n got %v\nwant %v", g, want)
	}
	if !strings.Contains(rows[2].problem, "3 fields") {
		t.Errorf("problem = %q", rows[2].problem)
	}
}

func TestParseCSVHeaderOnlyOnFirstLine(t *testing.T) {
	rows, err := ParseCSV(strings.NewReader("tx-1,groceries\nid,category\n"))
	if err != nil || len(rows) != 2 || rows[1].TxID != "id" || rows[1].Line != 2 {
		t.Fatalf("%v %+v", err, rows)
	}
}

func TestParseCSVNotCSV(t *testing.T) {
	_, err := ParseCSV(strings.NewReader("tx-1,ok\ntx-2,\"unterminated\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want one naming line 2", err)
	}
}

func TestCheckLabel(t *testing.T) {
	for l, want := range map[string]string{
		"Holiday 2025":                        "",
		"🏖 beach":                             "",
		strings.Repeat("x", MaxLabelLength):   "",
		strings.Repeat("x", MaxLabelLength+1): "65 characters",
		"":                                    "empty",
		"tab\there":                           "control",
		"trailing ":                           "space",
		"\xc3":                                "UTF-8",
	} {
		got := CheckLabel(l)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("CheckLabel(%q) = %q, want %q", l, got, want)
		}
	}
}

// ReadFile reads a file's rows; a missing file and one without rows are
// errors naming the file.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(path, []byte("tx-1,groceries\ntx-2,none\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadFile(path)
	if err != nil || len(rows) != 2 || rows[0].TxID != "tx-1" || rows[1].Value != "none" {
		t.Errorf("rows %+v, %v", rows, err)
	}
	empty := filepath.Join(dir, "empty.csv")
	if err := os.WriteFile(empty, []byte("# nothing\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{empty, filepath.Join(dir, "missing.csv")} {
		if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("ReadFile(%s): %v, want an error naming it", p, err)
		}
	}
}
