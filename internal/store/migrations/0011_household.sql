-- A household in one mirror. Several people, each with
-- their own token, share one mirror; an account two tokens see (a 2Up joint
-- account) is stored once, and account_people says who sees which.

-- One row per person of the household: the name of their token file in
-- BANKMIRROR_TOKENS_DIR (or credential token.NAME), or BANKMIRROR_PERSON for
-- a single token.
CREATE TABLE IF NOT EXISTS people (
    name          TEXT PRIMARY KEY,  -- [a-z0-9_-], 1 to 32 characters
    customer_id   TEXT,              -- /util/ping's customer id, once known
    display_name  TEXT,              -- performingCustomer.displayName on their own transactions, once learned
    token_state   TEXT NOT NULL DEFAULT 'unknown', -- 'ok', 'revoked' or 'unknown'
    token_error   TEXT,              -- the bank's last refusal of the token, if any
    added_at      TEXT NOT NULL,     -- first configured
    removed_at    TEXT,              -- no longer configured: their history stays
    last_sync_at  TEXT               -- their last successful listing
) STRICT;

-- Which people's tokens list which account. An account no token lists any
-- more keeps its rows here and its history, and is marked gone.
CREATE TABLE IF NOT EXISTS account_people (
    account_id  TEXT NOT NULL,
    person      TEXT NOT NULL,
    seen_at     TEXT NOT NULL,       -- the last listing of the person's accounts that had it
    PRIMARY KEY (account_id, person)
) STRICT, WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS account_people_person ON account_people (person);

-- When no token listed the account any more (NULL while one does).
ALTER TABLE accounts ADD COLUMN gone_at TEXT;

-- Whose token registered the webhook (NULL for a webhook registered before
-- the mirror knew its people, until the daemon's next start names them).
ALTER TABLE webhooks ADD COLUMN person TEXT;
