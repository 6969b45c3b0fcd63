package export

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// book writes an XLSX workbook (Office Open XML, SpreadsheetML) straight
// into a zip: each sheet's XML is compressed as its rows come, one sheet
// after the other, and the workbook's small parts (styles, the sheet
// list, relationships, content types) follow the last sheet. Nothing but
// a row is held in memory. Strings are inline (no shared-strings table,
// which would have to be held whole).
type book struct {
	zw *zip.Writer

	sheets  []bookSheet
	numFmts []string // custom number formats, ids 164 on
	xfs     []bookXF // cell formats: a cell's style is its index

	// the sheet being written
	bw       *bufio.Writer
	colNames []string // A, B, ... of the sheet's columns
	row      int
}

type bookSheet struct {
	name   string
	filter string // the autofilter's range (A1:C10), "" for none
}

// bookXF is a cell format: a number format (built in below 164) and the
// header's bold font and bottom border.
type bookXF struct {
	numFmt int
	header bool
}

// firstCustomNumFmt is the first id of a workbook's own number formats.
const firstCustomNumFmt = 164

// maxCellChars is a cell's text limit in Excel, in UTF-16 code units;
// longer text is cut there.
const maxCellChars = 32767

func newBook(w io.Writer) *book {
	return &book{zw: zip.NewWriter(w), xfs: []bookXF{{}}}
}

// put writes s to the sheet; the buffered writer keeps the first error,
// which addRow and endSheet return.
func (b *book) put(s string) { _, _ = b.bw.WriteString(s) }

// style is the cell format with number format numFmt, or the header's.
func (b *book) style(numFmt int, header bool) int {
	x := bookXF{numFmt: numFmt, header: header}
	for i, have := range b.xfs {
		if have == x {
			return i
		}
	}
	b.xfs = append(b.xfs, x)
	return len(b.xfs) - 1
}

// customStyle is the cell format of number format code format.
func (b *book) customStyle(format string) int {
	for i, have := range b.numFmts {
		if have == format {
			return b.style(firstCustomNumFmt+i, false)
		}
	}
	b.numFmts = append(b.numFmts, format)
	return b.style(firstCustomNumFmt+len(b.numFmts)-1, false)
}

// startSheet begins the sheet name with the columns' widths and the first
// row frozen; rows follow with addRow, then endSheet.
func (b *book) startSheet(name string, widths []float64) error {
	w, err := b.zw.Create("xl/worksheets/sheet" + strconv.Itoa(len(b.sheets)+1) + ".xml")
	if err != nil {
		return fmt.Errorf("xlsx sheet %s: %w", name, err)
	}
	b.sheets = append(b.sheets, bookSheet{name: name})
	if b.bw == nil {
		b.bw = bufio.NewWriterSize(w, 64<<10)
	} else {
		b.bw.Reset(w)
	}
	b.colNames = b.colNames[:0]
	for i := range widths {
		b.colNames = append(b.colNames, columnName(i+1))
	}
	b.row = 0
	put := b.put
	put(xmlHeader + `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheetViews><sheetView`)
	if len(b.sheets) == 1 {
		put(` tabSelected="1"`)
	}
	put(` workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/>`)
	if len(widths) > 0 {
		put(`<cols>`)
		for i, width := range widths {
			n := strconv.Itoa(i + 1)
			put(`<col min="` + n + `" max="` + n + `" width="` + strconv.FormatFloat(width, 'f', -1, 64) + `" customWidth="1"/>`)
		}
		put(`</cols>`)
	}
	put(`<sheetData>`)
	return nil
}

// addRow writes the next row: values[i] in column i with style styles[i];
// a nil value is no cell. A value is a float64 or int64 (a number), a
// bool, or anything else, written as text (a string as it is).
func (b *book) addRow(values []any, styles []int) error {
	b.row++
	r := strconv.Itoa(b.row)
	bw, put := b.bw, b.put
	put(`<row r="` + r + `">`)
	var num [32]byte
	for i, v := range values {
		if v == nil {
			continue
		}
		put(`<c r="` + b.colNames[i] + r + `"`)
		if s := styles[i]; s != 0 {
			put(` s="` + strconv.Itoa(s) + `"`)
		}
		switch v := v.(type) {
		case float64:
			put(`><v>`)
			_, _ = bw.Write(strconv.AppendFloat(num[:0], v, 'f', -1, 64))
			put(`</v></c>`)
		case int64:
			put(`><v>`)
			_, _ = bw.Write(strconv.AppendInt(num[:0], v, 10))
			put(`</v></c>`)
		case bool:
			if v {
				put(` t="b"><v>1</v></c>`)
			} else {
				put(` t="b"><v>0</v></c>`)
			}
		default:
			s, ok := v.(string)
			if !ok {
				s = fmt.Sprint(v)
			}
			s = cutUTF16(s, maxCellChars)
			put(` t="inlineStr"><is><t`)
			if s != "" && (strings.ContainsRune(" \t\n\r", rune(s[0])) || strings.ContainsRune(" \t\n\r", rune(s[len(s)-1]))) {
				put(` xml:space="preserve"`)
			}
			put(`>`)
			writeCellText(bw, s)
			put(`</t></is></c>`)
		}
	}
	// A bufio.Writer's error sticks: this write returns any the row met.
	if _, err := bw.WriteString(`</row>`); err != nil {
		return fmt.Errorf("xlsx row %d: %w", b.row, err)
	}
	return nil
}

// endSheet ends the sheet, with an autofilter over its rows when filter
// is set.
func (b *book) endSheet(filter bool) error {
	bw, put := b.bw, b.put
	put(`</sheetData>`)
	if filter && len(b.colNames) > 0 {
		ref := "A1:" + b.colNames[len(b.colNames)-1] + strconv.Itoa(max(b.row, 1))
		b.sheets[len(b.sheets)-1].filter = ref
		put(`<autoFilter ref="` + ref + `"/>`)
	}
	put(`<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>`)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("xlsx sheet %s: %w", b.sheets[len(b.sheets)-1].name, err)
	}
	return nil
}

// close writes the workbook's parts after its sheets and ends the zip.
func (b *book) close() error {
	if len(b.sheets) == 0 { // a workbook needs a sheet
		if err := b.startSheet("Sheet1", nil); err != nil {
			return err
		}
		if err := b.endSheet(false); err != nil {
			return err
		}
	}
	var wb, rels, types strings.Builder
	wb.WriteString(xmlHeader + `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><bookViews><workbookView activeTab="0"/></bookViews><sheets>`)
	rels.WriteString(xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`)
	types.WriteString(xmlHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>`)
	var names strings.Builder
	for i, s := range b.sheets {
		n := strconv.Itoa(i + 1)
		wb.WriteString(`<sheet name="`)
		writeCellText(&wb, s.name)
		wb.WriteString(`" sheetId="` + n + `" r:id="rId` + n + `"/>`)
		rels.WriteString(`<Relationship Id="rId` + n + `" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet` + n + `.xml"/>`)
		types.WriteString(`<Override PartName="/xl/worksheets/sheet` + n + `.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`)
		if s.filter != "" {
			from, to, _ := strings.Cut(s.filter, ":")
			names.WriteString(`<definedName name="_xlnm._FilterDatabase" localSheetId="` + strconv.Itoa(i) + `" hidden="1">`)
			writeCellText(&names, "'"+strings.ReplaceAll(s.name, "'", "''")+"'!"+absoluteRef(from)+":"+absoluteRef(to))
			names.WriteString(`</definedName>`)
		}
	}
	wb.WriteString(`</sheets>`)
	if names.Len() > 0 {
		wb.WriteString(`<definedNames>` + names.String() + `</definedNames>`)
	}
	wb.WriteString(`</workbook>`)
	rels.WriteString(`<Relationship Id="rId` + strconv.Itoa(len(b.sheets)+1) + `" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`)
	types.WriteString(`</Types>`)
	parts := []struct{ name, body string }{
		{"xl/styles.xml", b.stylesXML()},
		{"xl/workbook.xml", wb.String()},
		{"xl/_rels/workbook.xml.rels", rels.String()},
		{"_rels/.rels", xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`},
		{"[Content_Types].xml", types.String()},
	}
	for _, p := range parts {
		w, err := b.zw.Create(p.name)
		if err != nil {
			return fmt.Errorf("xlsx %s: %w", p.name, err)
		}
		if _, err := io.WriteString(w, p.body); err != nil {
			return fmt.Errorf("xlsx %s: %w", p.name, err)
		}
	}
	if err := b.zw.Close(); err != nil {
		return fmt.Errorf("xlsx: %w", err)
	}
	return nil
}

// stylesXML is the workbook's styles part: its number formats, two fonts
// (the default and bold), the two fills every workbook has, two borders
// (none and a thin bottom one) and the cell formats.
func (b *book) stylesXML() string {
	var s strings.Builder
	s.WriteString(xmlHeader + `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`)
	if len(b.numFmts) > 0 {
		s.WriteString(`<numFmts count="` + strconv.Itoa(len(b.numFmts)) + `">`)
		for i, f := range b.numFmts {
			s.WriteString(`<numFmt numFmtId="` + strconv.Itoa(firstCustomNumFmt+i) + `" formatCode="`)
			writeCellText(&s, f)
			s.WriteString(`"/>`)
		}
		s.WriteString(`</numFmts>`)
	}
	s.WriteString(`<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>` +
		`<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>` +
		`<borders count="2"><border><left/><right/><top/><bottom/><diagonal/></border><border><left/><right/><top/><bottom style="thin"><color rgb="FF000000"/></bottom><diagonal/></border></borders>` +
		`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>`)
	s.WriteString(`<cellXfs count="` + strconv.Itoa(len(b.xfs)) + `">`)
	for _, x := range b.xfs {
		s.WriteString(`<xf numFmtId="` + strconv.Itoa(x.numFmt) + `" fontId="`)
		if x.header {
			s.WriteString(`1" fillId="0" borderId="1" xfId="0" applyFont="1" applyBorder="1"`)
		} else {
			s.WriteString(`0" fillId="0" borderId="0" xfId="0"`)
		}
		if x.numFmt != 0 {
			s.WriteString(` applyNumberFormat="1"`)
		}
		s.WriteString(`/>`)
	}
	s.WriteString(`</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`)
	return s.String()
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

// columnName is column n's letters (1: A, 27: AA).
func columnName(n int) string {
	var b []byte
	for ; n > 0; n = (n - 1) / 26 {
		b = append(b, byte('A'+(n-1)%26))
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// absoluteRef is cell reference ref (C10) made absolute ($C$10).
func absoluteRef(ref string) string {
	i := strings.IndexAny(ref, "0123456789")
	if i < 0 {
		return "$" + ref
	}
	return "$" + ref[:i] + "$" + ref[i:]
}

// stringWriter is what cell text is written to.
type stringWriter interface {
	WriteString(s string) (int, error)
	WriteByte(c byte) error
	WriteRune(r rune) (int, error)
}

// writeCellText writes s as XML text: markup characters escaped, a
// character XML cannot hold (a control character, invalid UTF-8) as
// U+FFFD, and text that reads as SpreadsheetML's own escape (_x0041_)
// kept literal by escaping its underscore (_x005F_x0041_).
func writeCellText(w stringWriter, s string) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '&':
			_, _ = w.WriteString("&amp;")
		case r == '<':
			_, _ = w.WriteString("&lt;")
		case r == '>':
			_, _ = w.WriteString("&gt;")
		case r == '"':
			_, _ = w.WriteString("&quot;")
		case r == '\t':
			_, _ = w.WriteString("&#x9;")
		case r == '\r':
			_, _ = w.WriteString("&#xD;")
		case r == '\n':
			_ = w.WriteByte('\n')
		case r == '_' && isEscapeLike(s[i:]):
			_, _ = w.WriteString("_x005F_")
		case r == utf8.RuneError && size == 1, !isXMLChar(r):
			_, _ = w.WriteRune('\uFFFD')
		default:
			_, _ = w.WriteString(s[i : i+size])
		}
		i += size
	}
}

// isEscapeLike says whether s starts with _xHHHH_.
func isEscapeLike(s string) bool {
	if len(s) < 7 || s[1] != 'x' || s[6] != '_' {
		return false
	}
	for _, c := range []byte(s[2:6]) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}

// isXMLChar says whether r may appear in XML 1.0 text.
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// cutUTF16 cuts s to at most n UTF-16 code units, on a character.
func cutUTF16(s string, n int) string {
	if len(s) <= n {
		return s
	}
	units := 0
	for i, r := range s {
		if units += utf16.RuneLen(r); units > n {
			return s[:i]
		}
	}
	return s
}
