package export_test

import (
	"testing"

	"github.com/bankmirror/bankmirror/internal/export"
)

// The format is the one named, else the output file's extension's when it
// names one, else CSV.
func TestFormatFor(t *testing.T) {
	for _, c := range []struct {
		name, out string
		want      export.Format
	}{
		{"", "", export.CSV},
		{"", "ledger.xlsx", export.XLSX},
		{"", "ledger.jsonl", export.JSON},
		{"", "ledger.txt", export.CSV},
		{"json", "ledger.xlsx", export.JSON},
	} {
		if got, err := export.FormatFor(c.name, c.out); err != nil || got != c.want {
			t.Errorf("FormatFor(%q, %q) = %v, %v; want %v", c.name, c.out, got, err, c.want)
		}
	}
	if _, err := export.FormatFor("pdf", "x.csv"); err == nil || !export.IsInvalid(err) {
		t.Errorf("FormatFor(pdf): %v, want an invalid request", err)
	}
}
