package store

import _ "embed"

// sqlite340 is migration 18: the schema answers the same, and checks
// clean, on SQLite 3.40 (Debian 12's sqlite3) as on the SQLite built in;
// v_ledger ends with excluded_from_spending (sqlite340.sql).
//
//go:embed sqlite340.sql
var sqlite340 string

// heldOrder orders HELD transactions oldest first by the expression
// transactions_held_created indexes, so that the oldest are read from the
// index rather than sorted: the instant to the millisecond, computed
// alike by every SQLite a person may read the mirror with.
const heldOrder = "julianday(created_at)"
