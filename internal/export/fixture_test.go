package export_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// mirrorPath is a mirror of the simulated bank, made once by a real full
// sync, with a few awkward values added; tests only read it.
var mirrorPath string

// melbourne is the customer's zone in the tests.
var melbourne *time.Location

// awkwardID is the transaction given awkward values: a formula-like
// description, a note with a newline, quotes and a comma, and a tag whose
// label has a comma.
var awkwardID string

const (
	awkwardDescription = `=HYPERLINK("http://example.com","click")`
	awkwardNote        = "line one\nline \"two\", with a comma"
	commaTag           = "Groceries, weekly"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "export-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		if err := buildMirror(filepath.Join(dir, "mirror.db")); err != nil {
			fmt.Fprintln(os.Stderr, "build test mirror:", err)
			return 1
		}
		return m.Run()
	}()
	os.RemoveAll(dir)
	os.Exit(code)
}

// genericView exercises the column conventions the exporter infers kinds
// from (local dates, months, epochs, flags, JSON tags, paired currencies)
// the way the mirror's richer views name them.
const genericView = `CREATE VIEW v_test_generic AS
SELECT t.id, t.account_id, a.display_name AS account_name, t.status,
	t.created_at, substr(t.created_at, 1, 10) AS created_date, substr(t.created_at, 1, 7) AS month,
	unixepoch(t.created_at) AS created_epoch,
	t.description,
	t.amount_base_units / 100.0 AS amount, t.amount_currency AS currency,
	t.foreign_amount_value AS foreign_amount, t.foreign_amount_currency AS foreign_currency,
	CASE WHEN t.transfer_account_id IS NULL THEN 0 ELSE 1 END AS is_transfer,
	(SELECT json_group_array(tag_id) FROM (SELECT tag_id FROM transaction_tags WHERE transaction_id = t.id ORDER BY tag_id)) AS tags_json,
	t.category_id, t.parent_category_id
FROM transactions t LEFT JOIN accounts a ON a.id = t.account_id`

func buildMirror(path string) error {
	ctx := context.Background()
	var err error
	if melbourne, err = time.LoadLocation("Australia/Melbourne"); err != nil {
		return err
	}
	sim := simulator.New(simulator.Options{Seed: 11, Transactions: 400, Token: "test-token"})
	defer sim.Close()
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	client := bank.New(srv.URL+"/api/v1", sim.Token(), bank.WithHourlyBudget(0))
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := replica.New(client, st, zerolog.Nop(), replica.Options{}).Full(ctx); err != nil {
		return err
	}
	err = st.InTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT id FROM transactions WHERE status = 'SETTLED' ORDER BY id LIMIT 1`).Scan(&awkwardID); err != nil {
			return err
		}
		for _, q := range []string{
			`UPDATE transactions SET description = ?2, note = ?3 WHERE id = ?1`,
			`INSERT OR IGNORE INTO tags (id) VALUES (?4)`,
			`INSERT INTO transaction_tags (transaction_id, tag_id) VALUES (?1, ?4)`,
			genericView,
		} {
			if _, err := tx.ExecContext(ctx, q, awkwardID, awkwardDescription, awkwardNote, commaTag); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	mirrorPath = path
	return nil
}

// openMirror opens the test mirror read-only, as the export command does.
func openMirror(t testing.TB) *sql.DB {
	t.Helper()
	db, err := store.OpenReadOnlyDB(context.Background(), mirrorPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// viewRows reads a query's columns and rows as the driver returns them:
// the truth the exports are compared with.
func viewRows(t testing.TB, db *sql.DB, query string, args ...any) ([]string, [][]any) {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no rows: the comparison would prove nothing", query)
	}
	return cols, out
}

func colIndex(t testing.TB, cols []string, name string) int {
	t.Helper()
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	t.Fatalf("no column %s in %v", name, cols)
	return -1
}
