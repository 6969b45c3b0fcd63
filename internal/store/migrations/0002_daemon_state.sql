-- What the running daemon reports of itself (the bank's request budget, a
-- paused worker, a sync in progress), for `bankmirror status`.
CREATE TABLE IF NOT EXISTS daemon_state (
		key        TEXT PRIMARY KEY,
		value      TEXT NOT NULL, -- JSON
		updated_at TEXT NOT NULL
	) STRICT;
