package writeback

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// headerIDs and headerValues are the first row's fields that make it a
// header rather than a change (compared without case).
var (
	headerIDs    = []string{"id", "transaction", "transaction_id", "tx_id"}
	headerValues = []string{"category", "category_id", "tag", "tag_id", "label"}
)

// ParseCSV reads the rows of a --from file: two fields a line,
// `transaction id,category` (or `none`) or `transaction id,tag label`, per
// RFC 4180 (quote a label with a comma). Fields are trimmed of surrounding
// spaces; blank lines and lines starting with # are skipped, and so is a
// first line that names the columns (id,category or id,tag). Lines without
// exactly two fields are returned as rows that Run refuses. A file that is not CSV at all
// (a stray quote) is an error naming its line.
func ParseCSV(r io.Reader) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	first := true
	var rows []Row
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read csv: %w", err)
		}
		line, _ := cr.FieldPos(0)
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		if first {
			first = false
			if len(rec) == 2 && isOneOf(rec[0], headerIDs) && isOneOf(rec[1], headerValues) {
				continue
			}
		}
		if len(rec) != 2 {
			rows = append(rows, Row{Line: line, TxID: rec[0],
				problem: fmt.Sprintf("%d fields; want 2: a transaction id, then a category or a tag label", len(rec))})
			continue
		}
		rows = append(rows, Row{Line: line, TxID: rec[0], Value: rec[1]})
	}
}

func isOneOf(s string, set []string) bool {
	for _, x := range set {
		if strings.EqualFold(s, x) {
			return true
		}
	}
	return false
}

// ReadFile reads the rows of the CSV file at path (ParseCSV); a file
// without rows is an error.
func ReadFile(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	rows, err := ParseCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s has no rows", path)
	}
	return rows, nil
}
