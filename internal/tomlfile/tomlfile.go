// Package tomlfile reads the daemon's TOML files (the feeds file; the
// rules file's shape): a size limit, unknown keys refused, and every
// error as one line, "file:line: what".
package tomlfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// Error is a problem of a file at a line: its Error is one line,
// "file:line: what" ("file: what" when no line is known).
type Error struct {
	Path string
	Line int
	Err  error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Read reads the file at path, refusing one larger than maxBytes.
func Read(path string, maxBytes int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, int64(maxBytes)+1)); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if buf.Len() > maxBytes {
		return nil, &Error{Path: path, Err: fmt.Errorf("larger than %d bytes", maxBytes)}
	}
	return buf.Bytes(), nil
}

// decodeError is how the TOML decoder says a value has the wrong type.
var decodeError = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// Decode decodes data into v, refusing a key v has no place for, and
// returns where the file's tables and keys are, for the errors found
// after decoding.
func Decode(path string, data []byte, v any) (Index, error) {
	md, err := toml.Decode(string(data), v)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return Index{}, &Error{Path: path, Line: pe.Position.Line, Err: errors.New(textsafe.FirstLine(pe.Message))}
		}
		if m := decodeError.FindStringSubmatch(textsafe.FirstLine(err.Error())); m != nil {
			line, _ := strconv.Atoi(m[1])
			return Index{}, &Error{Path: path, Line: line, Err: fmt.Errorf("%s: %s", m[2], m[3])}
		}
		return Index{}, &Error{Path: path, Err: errors.New(textsafe.FirstLine(err.Error()))}
	}
	ix := locate(data)
	ix.path = path
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		return ix, &Error{Path: path, Line: ix.key(k), Err: fmt.Errorf("unknown key %q", k.String())}
	}
	return ix, nil
}

// Index finds where tables and keys are in a file, for errors that come
// after decoding (the TOML decoder keeps key positions to itself). It
// reads only header lines and key names, never values.
type Index struct {
	path    string
	headers []header
	keys    []keyLine
}

type header struct {
	name  string
	array bool
	line  int
}

type keyLine struct {
	header int // index into headers, -1 before any
	key    string
	line   int
}

var (
	headerRe = regexp.MustCompile(`^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?`)
	keyRe    = regexp.MustCompile(`^\s*([A-Za-z0-9_-]+|"[^"]*")\s*=`)
)

func locate(data []byte) Index {
	var ix Index
	cur := -1
	for i, l := range strings.Split(string(data), "\n") {
		if m := headerRe.FindStringSubmatch(l); m != nil {
			ix.headers = append(ix.headers, header{name: unquote(m[2]), array: m[1] == "[[", line: i + 1})
			cur = len(ix.headers) - 1
			continue
		}
		if m := keyRe.FindStringSubmatch(l); m != nil {
			ix.keys = append(ix.keys, keyLine{header: cur, key: strings.Trim(m[1], `"`), line: i + 1})
		}
	}
	return ix
}

func unquote(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// Errorf is an Error at line.
func (ix Index) Errorf(line int, format string, args ...any) error {
	return &Error{Path: ix.path, Line: line, Err: fmt.Errorf(format, args...)}
}

// Table is the line of [name].
func (ix Index) Table(name string) int {
	for _, h := range ix.headers {
		if !h.array && h.name == name {
			return h.line
		}
	}
	return 0
}

// ArrayTable is the line of the n-th [[name]] (from 0).
func (ix Index) ArrayTable(name string, n int) int {
	for i, h := range ix.headers {
		if h.array && h.name == name {
			if n == 0 {
				return ix.headers[i].line
			}
			n--
		}
	}
	return 0
}

// Within is the line of key in the n-th [[array]] element, or in a table
// of it (sub names a sub-table such as "accounts", "" for the element's
// own keys); the element's header line when the key is not found.
func (ix Index) Within(array string, n int, sub, key string) int {
	start := -1
	for i, h := range ix.headers {
		if h.array && h.name == array {
			if n == 0 {
				start = i
				break
			}
			n--
		}
	}
	if start < 0 {
		return 0
	}
	want := array
	if sub != "" {
		want = array + "." + sub
	}
	for hi := start; hi < len(ix.headers); hi++ {
		if hi > start && ix.headers[hi].array && ix.headers[hi].name == array {
			break
		}
		if ix.headers[hi].name != want {
			continue
		}
		for _, kl := range ix.keys {
			if kl.header == hi && kl.key == key {
				return kl.line
			}
		}
		return ix.headers[hi].line
	}
	return ix.headers[start].line
}

// key is the best line for an undecoded key: the key's own line under
// its table, else the table's.
func (ix Index) key(k toml.Key) int {
	if len(k) == 0 {
		return 0
	}
	table, last := strings.Join(k[:len(k)-1], "."), k[len(k)-1]
	for _, kl := range ix.keys {
		h := ""
		if kl.header >= 0 {
			h = ix.headers[kl.header].name
		}
		if h == table && kl.key == last {
			return kl.line
		}
	}
	for _, h := range ix.headers {
		if h.name == table || h.name == k.String() {
			return h.line
		}
	}
	return 0
}

// ArrayKey is the line of key among the n-th [[name]]'s own keys (from
// 0), 0 when it is not written there.
func (ix Index) ArrayKey(name string, n int, key string) int {
	h := -1
	for i, hd := range ix.headers {
		if hd.array && hd.name == name {
			if n == 0 {
				h = i
				break
			}
			n--
		}
	}
	if h < 0 {
		return 0
	}
	for _, kl := range ix.keys {
		if kl.header == h && kl.key == key {
			return kl.line
		}
	}
	return 0
}
