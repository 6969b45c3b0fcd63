package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// writeJSON writes each row of src as one JSON object per line, keys in
// the view's column order. Numbers are JSON numbers; an amount stored as
// decimal text (-12.50) is written as that number, unrounded; 0/1 flags
// (is_*, has_*, offsets_spending, excluded_from_spending, household_transfer)
// are booleans; *_json columns are
// embedded as JSON; NULL is null.
func writeJSON(ctx context.Context, src *source, w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	keys := make([][]byte, len(src.cols))
	for i, c := range src.cols {
		line.Reset()
		if err := enc.Encode(c.Name); err != nil {
			return 0, fmt.Errorf("export %s: %w", src.view, err)
		}
		keys[i] = append(bytes.TrimSuffix(bytes.Clone(line.Bytes()), []byte("\n")), ':')
	}
	var num []byte
	for src.next(ctx) {
		line.Reset()
		line.WriteByte('{')
		for i, v := range src.vals {
			if i > 0 {
				line.WriteByte(',')
			}
			line.Write(keys[i])
			num = appendJSONValue(enc, &line, num[:0], src.cols[i].Kind, v)
		}
		line.WriteString("}\n")
		if _, err := bw.Write(line.Bytes()); err != nil {
			return src.count, fmt.Errorf("export %s: write: %w", src.view, err)
		}
	}
	if src.err != nil {
		return src.count, src.err
	}
	if err := bw.Flush(); err != nil {
		return src.count, fmt.Errorf("export %s: write: %w", src.view, err)
	}
	return src.count, nil
}

// appendJSONValue writes v to line; num is scratch space for numbers.
func appendJSONValue(enc *json.Encoder, line *bytes.Buffer, num []byte, k Kind, v any) []byte {
	switch v := v.(type) {
	case nil:
		line.WriteString("null")
	case int64:
		if k == KindBool && (v == 0 || v == 1) {
			line.WriteString(strconv.FormatBool(v == 1))
			return num
		}
		num = strconv.AppendInt(num, v, 10)
		line.Write(num)
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			line.WriteString("null")
			return num
		}
		format := byte('f')
		if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
			format = 'e'
		}
		num = strconv.AppendFloat(num, v, format, -1, 64)
		line.Write(num)
	case bool:
		line.WriteString(strconv.FormatBool(v))
	case string:
		switch {
		case k == KindMoney && isNumber(v), k == KindJSON && json.Valid([]byte(v)):
			line.WriteString(v)
		default:
			encodeString(enc, line, v)
		}
	case []byte:
		encodeString(enc, line, bytesText(v))
	case time.Time:
		encodeString(enc, line, v.Format(time.RFC3339Nano))
	default:
		encodeString(enc, line, fmt.Sprint(v))
	}
	return num
}

// encodeString appends s as a JSON string (encoding/json's escaping;
// invalid UTF-8 becomes U+FFFD).
func encodeString(enc *json.Encoder, line *bytes.Buffer, s string) {
	_ = enc.Encode(s)             // a string always encodes
	line.Truncate(line.Len() - 1) // Encode's newline
}

// isNumber reports whether s is a JSON number (-12.50, 3, 1e3).
func isNumber(s string) bool {
	return s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && json.Valid([]byte(s))
}
