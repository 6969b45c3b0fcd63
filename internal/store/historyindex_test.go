package store

import (
	"strings"
	"testing"
)

// The bulk load rebuilds the history index from schema.sql's own statement.
func TestHistoryIndexStatementComesFromTheSchema(t *testing.T) {
	if !strings.HasPrefix(historyIndexSQL, "CREATE INDEX IF NOT EXISTS transaction_history_tx ON transaction_history") {
		t.Fatalf("historyIndexSQL = %q", historyIndexSQL)
	}
	if strings.Contains(historyIndexSQL, ";") || strings.Count(historyIndexSQL, "CREATE") != 1 {
		t.Fatalf("historyIndexSQL holds more than one statement: %q", historyIndexSQL)
	}
}
