-- Feeds (BANKMIRROR_FEEDS_FILE): the budgeting apps the mirror feeds
-- (Actual Budget, YNAB). Each feed follows transaction_history from its
-- cursor and keeps here which row of the app holds which bank
-- transaction, and the bank's facts it last gave the app.

-- One row per bank transaction a feed put into its app.
CREATE TABLE IF NOT EXISTS feed_rows (
    feed            TEXT NOT NULL,     -- the feed's name in the feeds file
    transaction_id  TEXT NOT NULL,     -- the bank transaction: the row's import id
    app_id          TEXT NOT NULL,     -- the row's id in the app
    app_account     TEXT NOT NULL,     -- the app account's id
    date            TEXT NOT NULL,     -- the facts last given the app: createdAt's local date,
    amount          INTEGER NOT NULL,  -- the amount in base units (cents),
    cleared         INTEGER NOT NULL,  -- 1 when SETTLED
    transfer_id     TEXT,              -- the other leg's bank id when the app links the two as a transfer
    -- 'pushed': the app holds it as given; 'deleted_in_app': the person
    -- deleted it there (never put back unless asked); 'reconciled': the
    -- person reconciled it (never changed again)
    state           TEXT NOT NULL CHECK (state IN ('pushed', 'deleted_in_app', 'reconciled')),
    pushed_at       TEXT NOT NULL,
    PRIMARY KEY (feed, transaction_id)
) STRICT, WITHOUT ROWID;

-- Bank transactions a feed looks at again in its next round: a transfer's
-- leg waiting for its other leg, one the app refused.
CREATE TABLE IF NOT EXISTS feed_pending (
    feed            TEXT NOT NULL,
    transaction_id  TEXT NOT NULL,
    reason          TEXT NOT NULL,
    since           TEXT NOT NULL,
    PRIMARY KEY (feed, transaction_id)
) STRICT, WITHOUT ROWID;

-- Where each feed stands.
CREATE TABLE IF NOT EXISTS feed_state (
    feed             TEXT PRIMARY KEY,
    cursor           INTEGER NOT NULL DEFAULT 0, -- the transaction_history seq handled
    last_push_at     TEXT,                       -- the last round that reached the app
    last_error       TEXT,                       -- the last round's failure, NULL after a success
    failing_since    TEXT,                       -- the first failure since the last success
    next_attempt_at  TEXT,                       -- backoff: no round before then
    last_check_at    TEXT,
    last_check       TEXT,                       -- JSON: what the last check found, by kind
    updated_at       TEXT NOT NULL
) STRICT;
