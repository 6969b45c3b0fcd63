package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// The helpers every file of the package queries with, and the SQL they
// share.

// heldOrder orders HELD transactions oldest first by the expression
// transactions_held_created indexes, so that the oldest are read from the
// index rather than sorted: the instant to the millisecond, computed
// alike by every SQLite a person may read the mirror with
// (0018_sqlite340.sql).
const heldOrder = "julianday(created_at)"

// querier is what reads: the reader pool, the writer, a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryAll runs q and scans each row with scan; what names the query in
// errors.
func queryAll[T any](ctx context.Context, db querier, what string, scan func(*sql.Rows, *T) error, q string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// strings reads a query's one text column from the reader pool.
func (s *Store) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := s.ro.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	return out, nil
}

// stringMap reads a query's two text columns into a map, the first the
// key; what names the query in errors.
func (s *Store) stringMap(ctx context.Context, what, q string) (map[string]string, error) {
	rows, err := s.ro.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// execRow runs stmt, an INSERT or UPDATE of one row, with a context that
// cannot be cancelled (ctx is checked before): the driver
// (mattn/go-sqlite3) runs a statement whose context can be cancelled in a
// goroutine of its own, and a first sync runs one per transaction, the
// webhook's receiver one per event.
func execRow(ctx context.Context, stmt *sql.Stmt, args ...any) (sql.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return stmt.ExecContext(context.WithoutCancel(ctx), args...)
}

// jsonArg encodes v for a json_each parameter.
func jsonArg(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode batch: %w", err)
	}
	return string(b), nil
}

// nullable is *s as a statement's argument, NULL when s is nil.
func nullable(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
