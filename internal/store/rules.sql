-- Rules (BANKMIRROR_RULES_FILE) applied to transactions as they arrive.

-- Every action a rule took on a transaction: the category it set, a tag it
-- added, the mirror-only flags. A rule acts on a transaction once: what the
-- person changes afterwards in the bank's app stands. Actions the bank
-- must carry out (write_back = 1) stay pending until it has
-- (written_back_at) or refused them (error, with no retry due).
CREATE TABLE IF NOT EXISTS rule_applications (
    id               INTEGER PRIMARY KEY,
    transaction_id   TEXT NOT NULL,
    rule             TEXT NOT NULL,    -- the rule's name in the file
    action           TEXT NOT NULL CHECK (action IN ('category', 'tag', 'exclude_from_spending', 'note')),
    value            TEXT NOT NULL,    -- category id ('' removes it), tag label, '1'/'0', note
    previous         TEXT,             -- the category the transaction had (action 'category')
    applied_at       TEXT NOT NULL,
    source           TEXT NOT NULL,    -- 'arrival', 'first_sync' or 'apply'
    write_back       INTEGER NOT NULL, -- 1: the bank must get it; 0: mirror only, or not asked
    written_back_at  TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT NOT NULL DEFAULT '',
    error            TEXT,             -- the last failure, or why it was not written back
    UNIQUE (transaction_id, rule, action, value)
) STRICT;

CREATE INDEX IF NOT EXISTS rule_applications_pending ON rule_applications (next_attempt_at)
    WHERE write_back = 1 AND written_back_at IS NULL;

-- What the rules set that the bank does not keep: spending to leave out of
-- v_monthly_spending, and a note of the mirror's own.
CREATE TABLE IF NOT EXISTS transaction_annotations (
    transaction_id         TEXT PRIMARY KEY,
    exclude_from_spending  INTEGER,  -- 1 leaves it out of v_monthly_spending
    exclude_rule           TEXT,
    note                   TEXT,
    note_rule              TEXT
) STRICT, WITHOUT ROWID;
