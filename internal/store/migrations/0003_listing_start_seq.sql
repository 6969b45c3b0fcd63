-- A full listing remembers where the history stood when it began (its seq
-- only grows) and which events were pending, so what it deletes and marks
-- processed never depends on the wall clock, which can step back.
ALTER TABLE sync_state ADD COLUMN start_seq INTEGER;
CREATE TABLE IF NOT EXISTS sync_pending_events (
		id TEXT PRIMARY KEY
	) STRICT, WITHOUT ROWID;
