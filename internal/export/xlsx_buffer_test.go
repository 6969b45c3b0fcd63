package export

import (
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestPresizeStreamBuffer: the stream writer's buffer is found and given
// its capacity, keeping what was written; an excelize upgrade that changes
// the writer's layout fails here rather than silently costing memory.
func TestPresizeStreamBuffer(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		t.Fatal(err)
	}
	if !presizeStreamBuffer(sw) {
		t.Fatal("the stream writer's buffer was not found: excelize's StreamWriter changed; update or remove presizeStreamBuffer")
	}
	if err := sw.SetRow("A1", []any{"kept", 1.5}); err != nil {
		t.Fatal(err)
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	if v, err := f.GetCellValue("Sheet1", "A1"); err != nil || v != "kept" {
		t.Errorf("A1 = %q (%v): the header written before presizing was lost or the sheet broken", v, err)
	}
	if presizeStreamBuffer(nil) {
		t.Error("a nil writer reported presized")
	}
}
