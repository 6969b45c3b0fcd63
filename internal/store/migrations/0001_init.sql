-- bankmirror's tables and their first views: version 1 of the schema, on
-- which the later migrations of this folder build. The repository's
-- schema.sql is the schema they make together.
--
-- Users write SQL against these tables and views: a change is a new
-- migration, never an edit here; never rename a column.
--
-- A MoneyObject field X becomes X_currency (TEXT), X_value (TEXT, as sent) and
-- X_base_units (INTEGER), all NULL when the object is null. Timestamps are the
-- RFC 3339 text the bank sent. `raw` columns hold the JSON resource exactly as
-- received.

CREATE TABLE IF NOT EXISTS accounts (
    id                  TEXT PRIMARY KEY,
    display_name        TEXT NOT NULL,
    account_type        TEXT NOT NULL,
    ownership_type      TEXT NOT NULL,
    balance_currency    TEXT NOT NULL,
    balance_value       TEXT NOT NULL,
    balance_base_units  INTEGER NOT NULL,
    created_at          TEXT NOT NULL,
    raw                 TEXT NOT NULL,
    synced_at           TEXT NOT NULL
) STRICT;

-- One row whenever an account's balance is seen to change.
CREATE TABLE IF NOT EXISTS account_balances (
    account_id          TEXT NOT NULL,
    observed_at         TEXT NOT NULL,
    balance_currency    TEXT NOT NULL,
    balance_value       TEXT NOT NULL,
    balance_base_units  INTEGER NOT NULL,
    PRIMARY KEY (account_id, observed_at)
) STRICT;

CREATE TABLE IF NOT EXISTS categories (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    parent_id   TEXT,
    raw         TEXT NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS tags (
    id  TEXT PRIMARY KEY
) STRICT;

-- Live transactions only: exactly what the bank would list now.
CREATE TABLE IF NOT EXISTS transactions (
    id                              TEXT PRIMARY KEY,
    account_id                      TEXT NOT NULL,
    status                          TEXT NOT NULL,
    raw_text                        TEXT,
    description                     TEXT NOT NULL,
    message                         TEXT,
    is_categorizable                INTEGER NOT NULL,
    amount_currency                 TEXT NOT NULL,
    amount_value                    TEXT NOT NULL,
    amount_base_units               INTEGER NOT NULL,
    foreign_amount_currency         TEXT,
    foreign_amount_value            TEXT,
    foreign_amount_base_units       INTEGER,
    hold_amount_currency            TEXT,
    hold_amount_value               TEXT,
    hold_amount_base_units          INTEGER,
    hold_foreign_amount_currency    TEXT,
    hold_foreign_amount_value       TEXT,
    hold_foreign_amount_base_units  INTEGER,
    round_up_amount_currency        TEXT,
    round_up_amount_value           TEXT,
    round_up_amount_base_units      INTEGER,
    round_up_boost_currency         TEXT,
    round_up_boost_value            TEXT,
    round_up_boost_base_units       INTEGER,
    cashback_description            TEXT,
    cashback_amount_currency        TEXT,
    cashback_amount_value           TEXT,
    cashback_amount_base_units      INTEGER,
    card_purchase_method            TEXT,
    card_number_suffix              TEXT,
    settled_at                      TEXT,
    created_at                      TEXT NOT NULL,
    transaction_type                TEXT,
    note                            TEXT,
    performing_customer             TEXT,
    deep_link_url                   TEXT NOT NULL,
    transfer_account_id             TEXT,
    category_id                     TEXT,
    parent_category_id              TEXT,
    attachment_id                   TEXT,
    raw                             TEXT NOT NULL,
    -- content_hash fingerprints every mirrored field and the tags; a sync
    -- that sees the same hash writes nothing.
    content_hash                    BLOB NOT NULL,
    -- when the response this version came in arrived; an older copy (a
    -- page fetched before a webhook's refetch) never overwrites a newer one
    fetched_at                      TEXT NOT NULL DEFAULT '',
    first_seen_at                   TEXT NOT NULL,
    updated_at                      TEXT NOT NULL
) STRICT;

CREATE INDEX IF NOT EXISTS transactions_account_created ON transactions (account_id, created_at);
CREATE INDEX IF NOT EXISTS transactions_created ON transactions (created_at);
CREATE INDEX IF NOT EXISTS transactions_category ON transactions (category_id);
-- Few transactions are HELD at any time: a partial index stays tiny.
CREATE INDEX IF NOT EXISTS transactions_held ON transactions (status) WHERE status = 'HELD';

CREATE TABLE IF NOT EXISTS transaction_tags (
    transaction_id  TEXT NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
    tag_id          TEXT NOT NULL,
    PRIMARY KEY (transaction_id, tag_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS transaction_tags_tag ON transaction_tags (tag_id);

-- Transactions deleted at the bank, and when the mirror learned it: a copy
-- fetched before that moment must not bring the row back.
CREATE TABLE IF NOT EXISTS transaction_tombstones (
    id          TEXT PRIMARY KEY,
    deleted_at  TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- One row per real change of a transaction. raw is the previous version for
-- updated/settled/deleted and NULL for created (the live row holds it).
CREATE TABLE IF NOT EXISTS transaction_history (
    seq             INTEGER PRIMARY KEY, -- rowids only grow: history rows are never deleted
    transaction_id  TEXT NOT NULL,
    change          TEXT NOT NULL CHECK (change IN ('created', 'updated', 'settled', 'deleted')),
    observed_at     TEXT NOT NULL,
    raw             TEXT
) STRICT;

CREATE INDEX IF NOT EXISTS transaction_history_tx ON transaction_history (transaction_id, seq);

CREATE TABLE IF NOT EXISTS attachments (
    id                   TEXT PRIMARY KEY,
    transaction_id       TEXT NOT NULL,
    created_at           TEXT,
    file_url             TEXT,
    file_url_expires_at  TEXT NOT NULL,
    file_extension       TEXT,
    file_content_type    TEXT,
    raw                  TEXT NOT NULL
) STRICT;

CREATE TABLE IF NOT EXISTS sync_runs (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    kind         TEXT NOT NULL,
    started_at   TEXT NOT NULL,
    finished_at  TEXT,
    status       TEXT NOT NULL,
    requests     INTEGER NOT NULL DEFAULT 0,
    upserted     INTEGER NOT NULL DEFAULT 0,
    deleted      INTEGER NOT NULL DEFAULT 0,
    error        TEXT
) STRICT;

-- Checkpoint of a full listing in progress, so a killed sync resumes where it
-- stopped. One row per listing name ('transactions').
CREATE TABLE IF NOT EXISTS sync_state (
    name             TEXT PRIMARY KEY,
    started_at       TEXT NOT NULL,
    next_page_url    TEXT,
    pages            INTEGER NOT NULL DEFAULT 0,
    owner            TEXT, -- token of the sync writing this listing; another one taking over makes the first stop
    last_success_at  TEXT,
    error_count      INTEGER NOT NULL DEFAULT 0
) STRICT;

-- Ids seen by the full listing in progress, one row per page (a JSON array
-- of ids); what is not here when the listing completes has been deleted at
-- the bank.
CREATE TABLE IF NOT EXISTS sync_seen (
    page  INTEGER PRIMARY KEY,
    ids   TEXT NOT NULL
) STRICT;

-- Webhook inbox: every authentic event, stored before it is acknowledged.
CREATE TABLE IF NOT EXISTS webhook_events (
    id              TEXT PRIMARY KEY,
    event_type      TEXT NOT NULL,
    webhook_id      TEXT NOT NULL,
    transaction_id  TEXT,
    created_at      TEXT NOT NULL,
    received_at     TEXT NOT NULL,
    processed_at    TEXT,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    next_attempt_at TEXT NOT NULL DEFAULT '',
    source          TEXT NOT NULL DEFAULT 'webhook',
    body            TEXT NOT NULL
) STRICT;

CREATE INDEX IF NOT EXISTS webhook_events_pending ON webhook_events (next_attempt_at) WHERE processed_at IS NULL;

-- Webhooks registered by `bankmirror webhook register`. secret_key is always
-- '' in a migrated mirror: the secrets are kept in the secrets file beside the
-- mirror (the mirror's path plus ".secrets", mode 0600), not in the mirror.
CREATE TABLE IF NOT EXISTS webhooks (
    id           TEXT PRIMARY KEY,
    url          TEXT NOT NULL,
    description  TEXT,
    secret_key   TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    deleted_at   TEXT
) STRICT;

CREATE TABLE IF NOT EXISTS webhook_delivery_logs (
    id               TEXT PRIMARY KEY,
    webhook_id       TEXT NOT NULL,
    event_id         TEXT NOT NULL,
    delivery_status  TEXT NOT NULL,
    status_code      INTEGER,
    created_at       TEXT NOT NULL,
    request_body     TEXT NOT NULL,
    response_body    TEXT
) STRICT;

-- The two views below are a first form, redefined by the migrations. The
-- views a mirror has are described where they are defined:
-- 0005_money_views.sql (every column of v_transactions, local
-- dates, flags, account types; v_daily_balances and v_history),
-- 0009_spending_offsets.sql (v_transactions, v_monthly_spending,
-- v_monthly_income and v_ledger as they are, categorised money in netted
-- against its category) and 0007_ledger_view.sql (v_ledger, the
-- columns of v_transactions a spreadsheet needs and the default of
-- `bankmirror export`).
CREATE VIEW IF NOT EXISTS v_transactions AS
SELECT
    t.id,
    t.account_id,
    a.display_name AS account_name,
    t.status,
    t.created_at,
    t.settled_at,
    t.description,
    t.message,
    t.raw_text,
    CAST(t.amount_value AS REAL) AS amount,
    t.amount_currency AS currency,
    t.amount_base_units,
    t.foreign_amount_value,
    t.foreign_amount_currency,
    t.category_id,
    c.name AS category_name,
    t.parent_category_id,
    pc.name AS parent_category_name,
    (SELECT group_concat(tag_id, ',') FROM (SELECT tag_id FROM transaction_tags tt WHERE tt.transaction_id = t.id ORDER BY tag_id)) AS tags,
    t.transfer_account_id,
    t.note,
    t.performing_customer,
    t.card_purchase_method,
    t.transaction_type
FROM transactions t
LEFT JOIN accounts a ON a.id = t.account_id
LEFT JOIN categories c ON c.id = t.category_id
LEFT JOIN categories pc ON pc.id = t.parent_category_id;

-- Spending per month and category: negative amounts that are not transfers
-- between the customer's own accounts, reported as positive totals.
CREATE VIEW IF NOT EXISTS v_monthly_spending AS
SELECT
    substr(t.created_at, 1, 7) AS month,
    coalesce(pc.name, 'Uncategorised') AS parent_category,
    coalesce(c.name, 'Uncategorised') AS category,
    -sum(t.amount_base_units) / 100.0 AS total_spent,
    count(*) AS count
FROM transactions t
LEFT JOIN categories c ON c.id = t.category_id
LEFT JOIN categories pc ON pc.id = t.parent_category_id
WHERE t.amount_base_units < 0 AND t.transfer_account_id IS NULL
GROUP BY 1, 2, 3;
