package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestBookKeepsAwkwardText: text that XML or SpreadsheetML would read
// otherwise comes back as it was written (markup, SpreadsheetML's own
// _xHHHH_ escape, edge spaces, line breaks), a character XML cannot hold
// as U+FFFD, and text past Excel's 32,767 characters cut there.
func TestBookKeepsAwkwardText(t *testing.T) {
	long := strings.Repeat("é", maxCellChars+10)
	cases := []struct{ in, want string }{
		{`<b>Tom & "Jerry's"</b>`, `<b>Tom & "Jerry's"</b>`},
		{"_x0041_ and _x005F_", "_x0041_ and _x005F_"},
		{"  padded\t", "  padded\t"},
		{"two\nlines\r\n", "two\nlines\r\n"},
		{"bell\x07 nul\x00", "bell\uFFFD nul\uFFFD"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{long, long[:2*maxCellChars]},
	}
	var buf bytes.Buffer
	b := newBook(&buf)
	if err := b.startSheet("Awkward 'name' & <more>", []float64{10, 10}); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if err := b.addRow([]any{c.in, nil}, []int{0, 0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.addRow([]any{int64(-42), 1.5}, []int{b.style(1, false), b.customStyle(`"$"#,##0.00`)}); err != nil {
		t.Fatal(err)
	}
	if err := b.addRow([]any{true, false}, []int{0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := b.endSheet(true); err != nil {
		t.Fatal(err)
	}
	if err := b.close(); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet := "Awkward 'name' & <more>"
	if got := f.GetSheetList(); len(got) != 1 || got[0] != sheet {
		t.Fatalf("sheets %q", got)
	}
	for i, c := range cases {
		cell := "A" + string(rune('1'+i))
		got, err := f.GetCellValue(sheet, cell)
		if err != nil || got != c.want {
			t.Errorf("%s: %.40q (%v), want %.40q (%d characters, want %d)", cell, got, err, c.want, len([]rune(got)), len([]rune(c.want)))
		}
	}
	rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cases); len(rows) != n+2 || strings.Join(rows[n], ",") != "-42,1.5" || strings.Join(rows[n+1], ",") != "1,0" {
		t.Fatalf("numbers and booleans: %q", rows[len(cases):])
	}
	if typ, _ := f.GetCellType(sheet, "A9"); typ != excelize.CellTypeBool {
		t.Errorf("A9 type %v, want a boolean", typ)
	}
	id, _ := f.GetCellStyle(sheet, "B8")
	if st, _ := f.GetStyle(id); st == nil || st.CustomNumFmt == nil || *st.CustomNumFmt != `"$"#,##0.00` {
		t.Errorf("B8 style %+v, want the custom money format", st)
	}
}

func TestColumnName(t *testing.T) {
	for n, want := range map[int]string{1: "A", 26: "Z", 27: "AA", 52: "AZ", 53: "BA", 702: "ZZ", 703: "AAA", 16384: "XFD"} {
		if got := columnName(n); got != want {
			t.Errorf("column %d: %s, want %s", n, got, want)
		}
	}
}
