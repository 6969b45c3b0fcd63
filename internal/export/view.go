// Package export writes the mirror's views out for spreadsheets and other
// programs: CSV (RFC 4180), JSON lines and XLSX, streamed row by row so
// that memory stays flat however many rows a view has, and serves the same
// CSV and JSON over HTTP as a live feed (FeedHandler).
//
// It works over any view whose name starts with v_: the columns are
// discovered with a query, and how each is presented (a date, an amount, a
// flag) is inferred from its declared type, its name and its values, so
// columns added to a view later flow through unchanged.
package export

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Queryer is what Prepare and Views read the mirror's views through: an
// *sql.DB or an *sql.Tx.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// ErrInvalid marks a request the exporter refuses before writing anything:
// an unknown format or view, a filter the view cannot apply, a bad value.
var ErrInvalid = errors.New("invalid export")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// ViewPrefix starts the name of every view that can be exported.
const ViewPrefix = "v_"

// Kind is how a column's values are presented where types exist (XLSX
// cells, JSON values, filters).
type Kind int

// The kinds of column.
const (
	KindText      Kind = iota
	KindInteger        // counts, base units (cents), epochs, sequence numbers
	KindNumber         // other numbers
	KindMoney          // an amount in currency units (dollars and cents)
	KindDate           // a local date, YYYY-MM-DD
	KindMonth          // a month, YYYY-MM
	KindTimestamp      // an RFC 3339 timestamp
	KindBool           // a 0/1 flag (is_*, has_*, offsets_spending, excluded_from_spending, household_transfer)
	KindJSON           // text holding JSON (*_json)
	// KindLocalTime is a wall-clock time already in the customer's zone,
	// 'YYYY-MM-DD HH:MM:SS' (*_local): shown as it is, never converted.
	KindLocalTime
)

var kindNames = [...]string{"text", "integer", "number", "money", "date", "month", "timestamp", "bool", "json", "localtime"}

func (k Kind) String() string { return kindNames[k] }

// Column is one column of a view.
type Column struct {
	Name     string
	DeclType string // the declared type, upper case; "" for an expression
	Kind     Kind
	// Currency is the index of the column holding this money column's
	// currency code (amount → currency, foreign_amount →
	// foreign_currency), or -1.
	Currency int
}

// Views lists the exportable views of the mirror, sorted.
func Views(ctx context.Context, q Queryer) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'view' AND substr(name, 1, 2) = ?1 ORDER BY name`, ViewPrefix)
	if err != nil {
		return nil, fmt.Errorf("list views: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("list views: %w", err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list views: %w", err)
	}
	return names, nil
}

// checkView refuses a name that is not one of the mirror's v_ views. The
// name is only ever used quoted, after this check: never as SQL.
func checkView(ctx context.Context, q Queryer, name string) error {
	views, err := Views(ctx, q)
	if err != nil {
		return err
	}
	if strings.HasPrefix(name, ViewPrefix) && slices.Contains(views, name) {
		return nil
	}
	return invalidf("no view %q in the mirror; exportable views: %s", name, strings.Join(views, ", "))
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// describe returns the columns of a view, checked to be one of the
// mirror's v_ views, by preparing a query that reads no row.
func describe(ctx context.Context, q Queryer, view string) ([]Column, error) {
	if err := checkView(ctx, q, view); err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, "SELECT * FROM "+quoteIdent(view)+" LIMIT 0")
	if err != nil {
		return nil, fmt.Errorf("describe view %s: %w", view, err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, fmt.Errorf("describe view %s: %w", view, err)
	}
	cols := make([]Column, len(types))
	for i, t := range types {
		cols[i] = Column{Name: t.Name(), DeclType: strings.ToUpper(t.DatabaseTypeName()), Currency: -1}
		cols[i].Kind = inferKind(cols[i].Name, cols[i].DeclType)
	}
	pairCurrencies(cols)
	return cols, rows.Err()
}

// flagNames are the flags of the mirror's views not named is_* or has_*
// (offsets_spending and excluded_from_spending would otherwise be amounts
// by their names: isMoneyName).
var flagNames = map[string]bool{"offsets_spending": true, "excluded_from_spending": true, "household_transfer": true}

// inferKind guesses a column's kind from its name, by the mirror's
// conventions, and its declared type (SQLite's affinity rules).
func inferKind(name, decl string) Kind {
	n := strings.ToLower(name)
	aff := affinity(decl)
	switch {
	case strings.HasSuffix(n, "_json"):
		return KindJSON
	case (strings.HasPrefix(n, "is_") || strings.HasPrefix(n, "has_") || flagNames[n]) && aff != "TEXT":
		return KindBool
	case aff == "BLOB":
		return KindText
	case n == "month" || strings.HasSuffix(n, "_month"):
		if aff == "INTEGER" || aff == "REAL" {
			return KindInteger // a month number
		}
		return KindMonth
	case n == "date" || n == "day" || strings.HasSuffix(n, "_date") || strings.HasSuffix(n, "_day"):
		if aff == "INTEGER" || aff == "REAL" {
			return KindInteger // a day of the month, a weekday number
		}
		return KindDate
	case strings.HasSuffix(n, "_at") || n == "timestamp":
		if aff == "INTEGER" || aff == "REAL" {
			return KindInteger
		}
		return KindTimestamp
	case n == "local" || strings.HasSuffix(n, "_local"):
		if aff == "INTEGER" || aff == "REAL" {
			return KindInteger
		}
		return KindLocalTime
	case n == "epoch" || strings.HasSuffix(n, "_epoch") || strings.HasSuffix(n, "_base_units") ||
		strings.HasSuffix(n, "_cents") || n == "cents" || n == "count" || strings.HasSuffix(n, "_count") ||
		n == "seq" || strings.HasSuffix(n, "_seq"):
		return KindInteger
	case strings.HasSuffix(n, "_currency") || n == "currency" || strings.HasSuffix(n, "_id") || n == "id":
		return KindText
	case isMoneyName(n):
		return KindMoney
	}
	switch aff {
	case "INTEGER":
		return KindInteger
	case "REAL", "NUMERIC":
		return KindNumber
	}
	return KindText
}

// isMoneyName: amounts, totals, balances, spending and income.
func isMoneyName(n string) bool {
	if strings.Contains(n, "amount") || strings.Contains(n, "balance") {
		return true
	}
	for _, w := range []string{"total", "spent", "spending", "income", "net", "refunds", "refunded", "cashback", "round_up"} {
		if n == w || strings.HasPrefix(n, w+"_") || strings.HasSuffix(n, "_"+w) {
			return true
		}
	}
	return false
}

// affinity is SQLite's type affinity of a declared type (section 3.1 of
// https://sqlite.org/datatype3.html); "" for no declared type.
func affinity(decl string) string {
	switch {
	case decl == "":
		return ""
	case strings.Contains(decl, "INT"):
		return "INTEGER"
	case strings.Contains(decl, "CHAR"), strings.Contains(decl, "CLOB"), strings.Contains(decl, "TEXT"):
		return "TEXT"
	case strings.Contains(decl, "BLOB"):
		return "BLOB"
	case strings.Contains(decl, "REAL"), strings.Contains(decl, "FLOA"), strings.Contains(decl, "DOUB"):
		return "REAL"
	}
	return "NUMERIC"
}

// pairCurrencies links each money column to the column holding its
// currency code, when the view has one: amount → currency or
// amount_currency, foreign_amount → foreign_currency or
// foreign_amount_currency, hold_amount_value → hold_amount_currency.
func pairCurrencies(cols []Column) {
	index := map[string]int{}
	for i, c := range cols {
		index[strings.ToLower(c.Name)] = i
	}
	for i := range cols {
		if cols[i].Kind != KindMoney {
			continue
		}
		n := strings.ToLower(cols[i].Name)
		cands := []string{n + "_currency", strings.TrimSuffix(n, "_value") + "_currency"}
		if p, _, ok := strings.Cut(n, "amount"); ok {
			cands = append(cands, p+"amount_currency", p+"currency")
		}
		for _, c := range cands {
			if j, ok := index[c]; ok && cols[j].Kind == KindText {
				cols[i].Currency = j
				break
			}
		}
	}
}
