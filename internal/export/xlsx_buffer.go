package export

import (
	"bytes"
	"reflect"
	"unsafe"

	"github.com/xuri/excelize/v2"
)

// streamBufferSize is the capacity given to a stream writer's buffer:
// excelize writes a sheet's XML to it and moves it to a temporary file
// each time it holds StreamChunkSize (16 MiB) or more, so this is one
// chunk and room for the row that crosses the line.
const streamBufferSize = excelize.StreamChunkSize + 1<<20

// presizeStreamBuffer gives the stream writer's in-memory buffer its final
// capacity at once, so that a large export holds one 17 MiB buffer. Left
// alone, the bytes.Buffer doubles its way there (1.25 KiB, 2.5 KiB, ...
// 10 MiB, 20 MiB): the last doubling holds the old 10 MiB and the new
// 20 MiB at once, and the 20 MiB stay live to the end of the sheet (the
// peak RSS this saves is in docs/performance.md, under Export).
// excelize has no option for it, so this reaches the unexported field
// (StreamWriter.rawData.buf, a bytes.Buffer) through reflect, keeping
// what is already written. Any change of that layout in another excelize
// version makes it do nothing and report false (the export stays correct,
// its buffer growing by doubling); TestPresizeStreamBuffer fails then, so
// that the upgrade is noticed.
func presizeStreamBuffer(sw *excelize.StreamWriter) bool {
	v := reflect.ValueOf(sw)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	raw := v.Elem().FieldByName("rawData")
	if !raw.IsValid() || raw.Kind() != reflect.Struct {
		return false
	}
	buf := raw.FieldByName("buf")
	if !buf.IsValid() || buf.Type() != reflect.TypeFor[bytes.Buffer]() || !buf.CanAddr() {
		return false
	}
	b := (*bytes.Buffer)(unsafe.Pointer(buf.UnsafeAddr())) //nolint:gosec // the field's type is checked to be bytes.Buffer just above
	if b.Cap() >= streamBufferSize {
		return true
	}
	grown := bytes.NewBuffer(append(make([]byte, 0, streamBufferSize), b.Bytes()...))
	*b = *grown // a bytes.Buffer holds no lock: this only replaces its storage
	return true
}
