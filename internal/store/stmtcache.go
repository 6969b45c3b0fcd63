package store

import (
	"context"
	"database/sql"
	"fmt"
)

// insertEventSQL stores a webhook event, once per id.
const insertEventSQL = `INSERT INTO webhook_events (id, event_type, webhook_id, transaction_id,
	created_at, received_at, source, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`

// writerQueries are prepared once, on the writer connection, when the
// store opens, and reused by every transaction after (database/sql keeps a
// statement per connection, and the writer's lives as long as the store).
// Preparing a write to transactions compiles its triggers (the search
// index, the monthly totals): 1.1 ms each time, which the event worker's
// small commits and the syncs' pages paid in every transaction. The
// webhook's insert is prepared in 10 us, but an acknowledgement waits for
// it.
var writerQueries = []string{insertTxSQL, updateTxSQL, insertEventSQL}

// prepareWriterStmts prepares writerQueries on the writer connection.
func (s *Store) prepareWriterStmts(ctx context.Context) error {
	s.stmts = make(map[string]*sql.Stmt, len(writerQueries))
	for _, q := range writerQueries {
		st, err := s.db.PrepareContext(ctx, q) //nolint:sqlclosecheck // closed by closeWriterStmts when the store closes
		if err != nil {
			s.closeWriterStmts()
			return fmt.Errorf("prepare: %w", err)
		}
		s.stmts[q] = st
	}
	return nil
}

func (s *Store) closeWriterStmts() {
	for _, st := range s.stmts {
		_ = st.Close()
	}
	s.stmts = nil
}

// txStmt is query prepared for tx, a transaction of the writer: the
// statement prepared when the store opened if it is one of writerQueries,
// else prepared now. Close it when done (the one prepared at open stays).
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	if st, ok := s.stmts[query]; ok {
		return tx.StmtContext(ctx, st), nil
	}
	st, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	return st, nil
}
