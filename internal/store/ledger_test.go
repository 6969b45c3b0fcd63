package store_test

import (
	"database/sql"
	"slices"
	"testing"

	"github.com/bankmirror/bankmirror/internal/mirrortest"
)

// v_ledger, the default export, says what a rule left out of the spending
// (excluded_from_spending), as v_transactions and the dashboard do: its
// last column, so that every column before it keeps its place in a
// spreadsheet.
func TestLedgerSaysWhatRulesLeftOut(t *testing.T) {
	path := filledMirror(t, 0)
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO transaction_annotations (transaction_id, exclude_from_spending, exclude_rule)
		SELECT id, 1, 'reimbursed by work' FROM transactions WHERE amount_base_units < 0 ORDER BY id LIMIT 2`); err != nil {
		t.Fatal(err)
	}
	cols := mirrortest.Strings(t, db, "SELECT name FROM pragma_table_info('v_ledger') ORDER BY cid")
	want := []string{"created_date", "created_local", "description", "amount", "currency", "account_name",
		"parent_category_name", "category_name", "tags", "status", "settled_date", "message", "note", "foreign_amount",
		"foreign_amount_currency", "transaction_type", "transfer_account_name", "is_transfer", "is_refund", "is_interest",
		"round_up_amount", "cashback_amount", "account_type", "id", "account_id", "category_id", "created_epoch",
		"offsets_spending", "person", "household_transfer", "excluded_from_spending"}
	if !slices.Equal(cols, want) {
		t.Fatalf("v_ledger's columns:\n got %q\nwant %q", cols, want)
	}
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM v_ledger WHERE excluded_from_spending"); n != 2 {
		t.Errorf("v_ledger flags %d transactions excluded from spending, want the 2 a rule left out", n)
	}
	if n := mirrortest.Int(t, db, `SELECT count(*) FROM v_ledger l JOIN v_transactions t USING (id)
		WHERE l.excluded_from_spending IS NOT t.excluded_from_spending`); n != 0 {
		t.Errorf("v_ledger.excluded_from_spending differs from v_transactions' in %d rows", n)
	}
}
