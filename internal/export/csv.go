package export

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// writeCSV writes the header and every row of src as RFC 4180 CSV: UTF-8,
// CRLF line ends, fields quoted when they need it. Values are the view's
// own: text as stored (ISO dates and timestamps), numbers with a '.'
// decimal point and no thousands separators, NULL as an empty field.
func writeCSV(ctx context.Context, src *source, w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := csv.NewWriter(bw)
	cw.UseCRLF = true
	rec := make([]string, len(src.cols))
	for i, c := range src.cols {
		rec[i] = c.Name
	}
	if err := cw.Write(rec); err != nil {
		return 0, fmt.Errorf("export %s: write: %w", src.view, err)
	}
	for src.next(ctx) {
		for i, v := range src.vals {
			rec[i] = csvField(v)
		}
		if err := cw.Write(rec); err != nil {
			return src.count, fmt.Errorf("export %s: write: %w", src.view, err)
		}
	}
	if src.err != nil {
		return src.count, src.err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return src.count, fmt.Errorf("export %s: write: %w", src.view, err)
	}
	if err := bw.Flush(); err != nil {
		return src.count, fmt.Errorf("export %s: write: %w", src.view, err)
	}
	return src.count, nil
}

// csvField is one value as CSV text.
func csvField(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return formatFloat(v)
	case string:
		return neutralize(v)
	case []byte:
		return neutralize(bytesText(v))
	case bool:
		if v {
			return "1"
		}
		return "0"
	case time.Time:
		return v.Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

// formatFloat writes a REAL with a '.' decimal point, never an exponent,
// and as few digits as read back the same number.
func formatFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// bytesText is a BLOB as text: itself when it is UTF-8, else hex.
func bytesText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return hex.EncodeToString(b)
}

// neutralize defuses CSV formula injection (OWASP): a spreadsheet opening
// the file would run a text field starting with = + - @ or a tab or
// carriage return as a formula, and descriptions, notes and messages come
// from merchants and other people. Such a field gets a leading
// apostrophe, which spreadsheets read as "text follows"; a field that is a
// number (-12.50) is left alone.
func neutralize(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return s
		}
		return "'" + s
	}
	return s
}
