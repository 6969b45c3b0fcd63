-- bankmirror's SQLite schema at version 22 (PRAGMA user_version): every
-- table, index, view and trigger of a new mirror once every migration of
-- internal/store/migrations has run. Tables come in the order they were
-- made, each with its indexes and triggers, then the views.
--
-- Generated from the migrations by `go generate ./internal/store`
-- (TestSchemaFile, which fails while this file is stale): do not edit it;
-- a change is a new migration. bankmirror never runs this file: it creates
-- and upgrades a mirror with the migrations, one step at a time.
--
-- This file is a public interface: users write SQL against these tables and
-- views, and a column is never renamed (docs/mirror.md says what they hold).
-- A MoneyObject field X becomes X_currency (TEXT), X_value (TEXT, as sent) and
-- X_base_units (INTEGER), all NULL when the object is null. Timestamps are the
-- RFC 3339 text the bank sent. `raw` columns hold the JSON resource as
-- received; transactions.raw is a generated column that rebuilds it from the
-- row, raw_base and raw_patch (or is raw_full). The tables SQLite's full-text search keeps for
-- transactions_search (transactions_search_data, ...) are not listed.

CREATE TABLE accounts (
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
, gone_at TEXT) STRICT;

CREATE TABLE account_balances (
    account_id          TEXT NOT NULL,
    observed_at         TEXT NOT NULL,
    balance_currency    TEXT NOT NULL,
    balance_value       TEXT NOT NULL,
    balance_base_units  INTEGER NOT NULL, observed_epoch INTEGER, observed_local TEXT, observed_date TEXT, observed_month TEXT,
    PRIMARY KEY (account_id, observed_at)
) STRICT;

CREATE TABLE categories (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    parent_id   TEXT,
    raw         TEXT NOT NULL
) STRICT;

CREATE TABLE tags (
    id  TEXT PRIMARY KEY
) STRICT;

CREATE TABLE transactions (
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
    content_hash                    BLOB NOT NULL,
    -- when the response this version came in arrived; an older copy (a
    -- page fetched before a webhook's refetch) never overwrites a newer one
    fetched_at                      TEXT NOT NULL DEFAULT '',
    first_seen_at                   TEXT NOT NULL,
    updated_at                      TEXT NOT NULL
, created_epoch INTEGER, created_local TEXT, created_date TEXT, created_month TEXT, settled_epoch INTEGER, settled_local TEXT, settled_date TEXT, settled_month TEXT, household_transfer_id TEXT, raw_base TEXT, raw_patch TEXT, raw_full TEXT, raw TEXT GENERATED ALWAYS AS (coalesce(raw_full, json_patch(json_object(
    'type', 'transactions',
    'id', id,
    'attributes', json_object(
        'status', status,
        'rawText', raw_text,
        'description', description,
        'message', message,
        'isCategorizable', json(CASE WHEN is_categorizable THEN 'true' ELSE 'false' END),
        'holdInfo', json(CASE WHEN hold_amount_currency IS NOT NULL THEN json_object(
            'amount', json_object('currencyCode', hold_amount_currency, 'value', hold_amount_value, 'valueInBaseUnits', hold_amount_base_units),
            'foreignAmount', json(CASE WHEN hold_foreign_amount_currency IS NOT NULL THEN json_object('currencyCode', hold_foreign_amount_currency,
                'value', hold_foreign_amount_value, 'valueInBaseUnits', hold_foreign_amount_base_units) END)) END),
        'roundUp', json(CASE WHEN round_up_amount_currency IS NOT NULL THEN json_object(
            'amount', json_object('currencyCode', round_up_amount_currency, 'value', round_up_amount_value, 'valueInBaseUnits', round_up_amount_base_units),
            'boostPortion', json(CASE WHEN round_up_boost_currency IS NOT NULL THEN json_object('currencyCode', round_up_boost_currency,
                'value', round_up_boost_value, 'valueInBaseUnits', round_up_boost_base_units) END)) END),
        'cashback', json(CASE WHEN cashback_amount_currency IS NOT NULL THEN json_object(
            'description', cashback_description,
            'amount', json_object('currencyCode', cashback_amount_currency, 'value', cashback_amount_value, 'valueInBaseUnits', cashback_amount_base_units)) END),
        'amount', json_object('currencyCode', amount_currency, 'value', amount_value, 'valueInBaseUnits', amount_base_units),
        'foreignAmount', json(CASE WHEN foreign_amount_currency IS NOT NULL THEN json_object('currencyCode', foreign_amount_currency,
            'value', foreign_amount_value, 'valueInBaseUnits', foreign_amount_base_units) END),
        'cardPurchaseMethod', json(CASE WHEN card_purchase_method IS NOT NULL THEN json_object(
            'method', card_purchase_method, 'cardNumberSuffix', card_number_suffix) END),
        'settledAt', settled_at,
        'createdAt', created_at,
        'transactionType', transaction_type,
        'note', json(CASE WHEN note IS NOT NULL THEN json_object('text', note) END),
        'performingCustomer', json(CASE WHEN performing_customer IS NOT NULL THEN json_object('displayName', performing_customer) END),
        'deepLinkURL', deep_link_url),
    'relationships', json_object(
        'account', json_object('data', json_object('type', 'accounts', 'id', account_id),
            'links', json_object('related', raw_base || '/accounts/' || account_id)),
        'transferAccount', json(CASE WHEN transfer_account_id IS NULL THEN '{"data":null}' ELSE json_object(
            'data', json_object('type', 'accounts', 'id', transfer_account_id),
            'links', json_object('related', raw_base || '/accounts/' || transfer_account_id)) END),
        'category', json_object(
            'data', json(CASE WHEN category_id IS NOT NULL THEN json_object('type', 'categories', 'id', category_id) END),
            'links', json(CASE WHEN category_id IS NULL
                THEN json_object('self', raw_base || '/transactions/' || id || '/relationships/category')
                ELSE json_object('self', raw_base || '/transactions/' || id || '/relationships/category',
                    'related', raw_base || '/categories/' || category_id) END)),
        'parentCategory', json(CASE WHEN parent_category_id IS NULL THEN '{"data":null}' ELSE json_object(
            'data', json_object('type', 'categories', 'id', parent_category_id),
            'links', json_object('related', raw_base || '/categories/' || parent_category_id)) END),
        'tags', json_object('data', json_array(),
            'links', json_object('self', raw_base || '/transactions/' || id || '/relationships/tags')),
        'attachment', json(CASE WHEN attachment_id IS NULL THEN '{"data":null}' ELSE json_object(
            'data', json_object('type', 'attachments', 'id', attachment_id),
            'links', json_object('related', raw_base || '/attachments/' || attachment_id)) END)),
    'links', json_object('self', raw_base || '/transactions/' || id)), coalesce(raw_patch, '{}')))) VIRTUAL) STRICT;

CREATE INDEX transactions_category ON transactions (category_id);

CREATE INDEX transactions_held ON transactions (status) WHERE status = 'HELD';

CREATE INDEX transactions_created_epoch ON transactions (created_epoch);

CREATE INDEX transactions_household_paired ON transactions (household_transfer_id)
    WHERE household_transfer_id IS NOT NULL;

CREATE TRIGGER household_transfer_insert AFTER INSERT ON transactions
WHEN new.transfer_account_id IS NULL AND new.amount_base_units <> 0 AND new.created_epoch IS NOT NULL
    AND (SELECT count(DISTINCT person) FROM account_people) > 1
BEGIN
    UPDATE transactions SET household_transfer_id = c.other_id
    FROM (SELECT x.id, (SELECT p.other_id FROM household_transfer_pairs p WHERE p.id = x.id) AS other_id
          FROM transactions x
          WHERE x.amount_base_units IN (new.amount_base_units, -new.amount_base_units)
            AND x.created_epoch BETWEEN new.created_epoch - 1200 AND new.created_epoch + 1200
            AND x.transfer_account_id IS NULL) AS c
    WHERE transactions.id = c.id AND transactions.household_transfer_id IS NOT c.other_id;
END;

CREATE TRIGGER household_transfer_delete AFTER DELETE ON transactions
WHEN old.household_transfer_id IS NOT NULL OR (old.transfer_account_id IS NULL AND old.amount_base_units <> 0
    AND old.created_epoch IS NOT NULL AND (SELECT count(DISTINCT person) FROM account_people) > 1)
BEGIN
    UPDATE transactions SET household_transfer_id = c.other_id
    FROM (SELECT x.id, (SELECT p.other_id FROM household_transfer_pairs p WHERE p.id = x.id) AS other_id
          FROM transactions x
          WHERE x.amount_base_units IN (old.amount_base_units, -old.amount_base_units)
            AND x.created_epoch BETWEEN old.created_epoch - 1200 AND old.created_epoch + 1200
            AND x.transfer_account_id IS NULL) AS c
    WHERE transactions.id = c.id AND transactions.household_transfer_id IS NOT c.other_id;
END;

CREATE TRIGGER household_transfer_update AFTER UPDATE OF amount_base_units, amount_currency, created_epoch,
    transfer_account_id, account_id ON transactions
WHEN (new.amount_base_units IS NOT old.amount_base_units OR new.amount_currency IS NOT old.amount_currency
        OR new.created_epoch IS NOT old.created_epoch OR new.transfer_account_id IS NOT old.transfer_account_id
        OR new.account_id IS NOT old.account_id)
    AND (old.household_transfer_id IS NOT NULL OR (SELECT count(DISTINCT person) FROM account_people) > 1)
BEGIN
    UPDATE transactions SET household_transfer_id = c.other_id
    FROM (SELECT x.id, (SELECT p.other_id FROM household_transfer_pairs p WHERE p.id = x.id) AS other_id
          FROM transactions x
          WHERE (x.amount_base_units IN (old.amount_base_units, -old.amount_base_units)
                AND x.created_epoch BETWEEN old.created_epoch - 1200 AND old.created_epoch + 1200
                AND x.transfer_account_id IS NULL)
            OR (x.amount_base_units IN (new.amount_base_units, -new.amount_base_units)
                AND x.created_epoch BETWEEN new.created_epoch - 1200 AND new.created_epoch + 1200
                AND x.transfer_account_id IS NULL)
            OR x.id = new.id) AS c
    WHERE transactions.id = c.id AND transactions.household_transfer_id IS NOT c.other_id;
END;

CREATE INDEX transactions_month_money ON transactions (
    created_month, account_id, parent_category_id, category_id, performing_customer, status, amount_base_units,
    transfer_account_id, transaction_type, card_purchase_method, description, household_transfer_id, created_epoch
);

CREATE TRIGGER monthly_totals_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, amount_base_units, amount_base_units < 0, 1
    FROM monthly_totals_rows WHERE tx_rowid = new.rowid
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;

CREATE TRIGGER monthly_totals_delete BEFORE DELETE ON transactions BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, -amount_base_units, -(amount_base_units < 0), -1
    FROM monthly_totals_rows WHERE tx_rowid = old.rowid
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;

CREATE TRIGGER monthly_totals_update_before BEFORE UPDATE ON transactions
WHEN old.status IS NOT new.status OR old.amount_base_units IS NOT new.amount_base_units
    OR old.created_month IS NOT new.created_month OR old.account_id IS NOT new.account_id
    OR old.category_id IS NOT new.category_id OR old.parent_category_id IS NOT new.parent_category_id
    OR old.transfer_account_id IS NOT new.transfer_account_id OR old.transaction_type IS NOT new.transaction_type
    OR old.card_purchase_method IS NOT new.card_purchase_method OR old.description IS NOT new.description
    OR old.household_transfer_id IS NOT new.household_transfer_id OR old.id IS NOT new.id
BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, -amount_base_units, -(amount_base_units < 0), -1
    FROM monthly_totals_rows WHERE tx_rowid = old.rowid
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;

CREATE TRIGGER monthly_totals_update_after AFTER UPDATE ON transactions
WHEN old.status IS NOT new.status OR old.amount_base_units IS NOT new.amount_base_units
    OR old.created_month IS NOT new.created_month OR old.account_id IS NOT new.account_id
    OR old.category_id IS NOT new.category_id OR old.parent_category_id IS NOT new.parent_category_id
    OR old.transfer_account_id IS NOT new.transfer_account_id OR old.transaction_type IS NOT new.transaction_type
    OR old.card_purchase_method IS NOT new.card_purchase_method OR old.description IS NOT new.description
    OR old.household_transfer_id IS NOT new.household_transfer_id OR old.id IS NOT new.id
BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, amount_base_units, amount_base_units < 0, 1
    FROM monthly_totals_rows WHERE tx_rowid = new.rowid
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;

CREATE TRIGGER transactions_search_money_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO transactions_search_money (rowid, created_epoch, amount_base_units)
    VALUES (new.rowid, new.created_epoch, new.amount_base_units);
END;

CREATE TRIGGER transactions_search_money_update AFTER UPDATE OF created_epoch, amount_base_units ON transactions
WHEN new.created_epoch IS NOT old.created_epoch OR new.amount_base_units IS NOT old.amount_base_units
BEGIN
    UPDATE transactions_search_money SET created_epoch = new.created_epoch, amount_base_units = new.amount_base_units
    WHERE rowid = new.rowid;
END;

CREATE TRIGGER transactions_search_money_delete AFTER DELETE ON transactions BEGIN
    DELETE FROM transactions_search_money WHERE rowid = old.rowid;
END;

CREATE INDEX transactions_held_created ON transactions (status, julianday(created_at))
    WHERE status = 'HELD';

CREATE TRIGGER transactions_search_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    VALUES (new.rowid, new.description, new.message, new.note, new.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = new.id));
    INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
    SELECT (new.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = new.rowid
    AND new.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
    SELECT (coalesce(new.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = new.rowid
    AND coalesce(new.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
END;

CREATE TRIGGER transactions_search_update AFTER UPDATE OF description, message, note, raw_text, created_epoch, amount_base_units ON transactions
WHEN new.description IS NOT old.description OR new.message IS NOT old.message
    OR new.note IS NOT old.note OR new.raw_text IS NOT old.raw_text
    OR new.created_epoch IS NOT old.created_epoch OR new.amount_base_units IS NOT old.amount_base_units
BEGIN
    INSERT INTO transactions_search_amount (transactions_search_amount, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (old.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = old.rowid
    AND old.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (transactions_search_time, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (coalesce(old.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = old.rowid
    AND coalesce(old.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    DELETE FROM transactions_search WHERE rowid = old.rowid
        AND (new.description IS NOT old.description OR new.message IS NOT old.message
        OR new.note IS NOT old.note OR new.raw_text IS NOT old.raw_text OR new.rowid IS NOT old.rowid);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT new.rowid, new.description, new.message, new.note, new.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = new.id)
    WHERE new.description IS NOT old.description OR new.message IS NOT old.message
        OR new.note IS NOT old.note OR new.raw_text IS NOT old.raw_text OR new.rowid IS NOT old.rowid;
    INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
    SELECT (new.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = new.rowid
    AND new.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
    SELECT (coalesce(new.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = new.rowid
    AND coalesce(new.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
END;

CREATE TRIGGER transactions_search_delete AFTER DELETE ON transactions BEGIN
    INSERT INTO transactions_search_amount (transactions_search_amount, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (old.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = old.rowid
    AND old.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (transactions_search_time, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (coalesce(old.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = old.rowid
    AND coalesce(old.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    DELETE FROM transactions_search WHERE rowid = old.rowid;
END;

CREATE TABLE transaction_tags (
    transaction_id  TEXT NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
    tag_id          TEXT NOT NULL,
    PRIMARY KEY (transaction_id, tag_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX transaction_tags_tag ON transaction_tags (tag_id);

CREATE TRIGGER transactions_search_tag_insert AFTER INSERT ON transaction_tags BEGIN
    INSERT INTO transactions_search_amount (transactions_search_amount, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (t.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = new.transaction_id
    AND t.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (transactions_search_time, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (coalesce(t.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = new.transaction_id
    AND coalesce(t.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    DELETE FROM transactions_search WHERE rowid = (SELECT rowid FROM transactions WHERE id = new.transaction_id);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT t.rowid, t.description, t.message, t.note, t.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = t.id)
    FROM transactions t WHERE t.id = new.transaction_id;
    INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
    SELECT (t.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = new.transaction_id
    AND t.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
    SELECT (coalesce(t.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = new.transaction_id
    AND coalesce(t.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
END;

CREATE TRIGGER transactions_search_tag_delete AFTER DELETE ON transaction_tags BEGIN
    INSERT INTO transactions_search_amount (transactions_search_amount, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (t.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = old.transaction_id
    AND t.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (transactions_search_time, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (coalesce(t.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = old.transaction_id
    AND coalesce(t.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    DELETE FROM transactions_search WHERE rowid = (SELECT rowid FROM transactions WHERE id = old.transaction_id);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT t.rowid, t.description, t.message, t.note, t.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = t.id)
    FROM transactions t WHERE t.id = old.transaction_id;
    INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
    SELECT (t.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = old.transaction_id
    AND t.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
    SELECT (coalesce(t.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = old.transaction_id
    AND coalesce(t.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
END;

CREATE TABLE transaction_tombstones (
    id          TEXT PRIMARY KEY,
    deleted_at  TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE transaction_history (
    seq             INTEGER PRIMARY KEY, -- rowids only grow: history rows are never deleted
    transaction_id  TEXT NOT NULL,
    change          TEXT NOT NULL CHECK (change IN ('created', 'updated', 'settled', 'deleted')),
    observed_at     TEXT NOT NULL,
    raw             TEXT
, observed_epoch INTEGER, observed_local TEXT, observed_date TEXT, observed_month TEXT) STRICT;

CREATE INDEX transaction_history_tx ON transaction_history (transaction_id, seq);

CREATE INDEX transaction_history_observed_epoch ON transaction_history (observed_epoch);

CREATE TABLE attachments (
    id                   TEXT PRIMARY KEY,
    transaction_id       TEXT NOT NULL,
    created_at           TEXT,
    file_url             TEXT,
    file_url_expires_at  TEXT NOT NULL,
    file_extension       TEXT,
    file_content_type    TEXT,
    raw                  TEXT NOT NULL
, local_path TEXT, local_sha256 TEXT, download_error TEXT, download_attempts INTEGER NOT NULL DEFAULT 0) STRICT;

CREATE TABLE sync_runs (
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

CREATE TABLE sync_state (
    name             TEXT PRIMARY KEY,
    started_at       TEXT NOT NULL,
    next_page_url    TEXT,
    pages            INTEGER NOT NULL DEFAULT 0,
    owner            TEXT, -- token of the sync writing this listing; another one taking over makes the first stop
    last_success_at  TEXT,
    error_count      INTEGER NOT NULL DEFAULT 0
, start_seq INTEGER, start_rowid INTEGER) STRICT;

CREATE TABLE sync_seen (
    page  INTEGER PRIMARY KEY,
    ids   TEXT NOT NULL
) STRICT;

CREATE TABLE webhook_events (
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

CREATE INDEX webhook_events_pending ON webhook_events (next_attempt_at) WHERE processed_at IS NULL;

CREATE TABLE webhooks (
    id           TEXT PRIMARY KEY,
    url          TEXT NOT NULL,
    description  TEXT,
    secret_key   TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    deleted_at   TEXT
, person TEXT) STRICT;

CREATE TABLE webhook_delivery_logs (
    id               TEXT PRIMARY KEY,
    webhook_id       TEXT NOT NULL,
    event_id         TEXT NOT NULL,
    delivery_status  TEXT NOT NULL,
    status_code      INTEGER,
    created_at       TEXT NOT NULL,
    request_body     TEXT NOT NULL,
    response_body    TEXT
) STRICT;

CREATE TABLE daemon_state (
		key        TEXT PRIMARY KEY,
		value      TEXT NOT NULL, -- JSON
		updated_at TEXT NOT NULL
	) STRICT;

CREATE TABLE sync_pending_events (
		id TEXT PRIMARY KEY
	) STRICT, WITHOUT ROWID;

CREATE TABLE mirror_settings (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
) STRICT;

CREATE VIRTUAL TABLE transactions_search USING fts5(
    description, message, note, raw_text, tags,
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TABLE people (
    name          TEXT PRIMARY KEY,  -- [a-z0-9_-], 1 to 32 characters
    customer_id   TEXT,              -- /util/ping's customer id, once known
    display_name  TEXT,              -- performingCustomer.displayName on their own transactions, once learned
    token_state   TEXT NOT NULL DEFAULT 'unknown', -- 'ok', 'revoked' or 'unknown'
    token_error   TEXT,              -- the bank's last refusal of the token, if any
    added_at      TEXT NOT NULL,     -- first configured
    removed_at    TEXT,              -- no longer configured: their history stays
    last_sync_at  TEXT               -- their last successful listing
) STRICT;

CREATE TABLE account_people (
    account_id  TEXT NOT NULL,
    person      TEXT NOT NULL,
    seen_at     TEXT NOT NULL, listed INTEGER NOT NULL DEFAULT 1,       -- the last listing of the person's accounts that had it
    PRIMARY KEY (account_id, person)
) STRICT, WITHOUT ROWID;

CREATE INDEX account_people_person ON account_people (person);

CREATE TABLE rule_applications (
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

CREATE INDEX rule_applications_pending ON rule_applications (next_attempt_at)
    WHERE write_back = 1 AND written_back_at IS NULL;

CREATE TABLE transaction_annotations (
    transaction_id         TEXT PRIMARY KEY,
    exclude_from_spending  INTEGER,  -- 1 leaves it out of v_monthly_spending
    exclude_rule           TEXT,
    note                   TEXT,
    note_rule              TEXT
) STRICT, WITHOUT ROWID;

CREATE TRIGGER monthly_totals_exclude_insert AFTER INSERT ON transaction_annotations
WHEN coalesce(new.exclude_from_spending, 0)
BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, -amount_base_units, -(amount_base_units < 0), -1
    FROM monthly_totals_base WHERE transaction_id = new.transaction_id AND kind = 'spending'
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;

CREATE TRIGGER monthly_totals_exclude_update AFTER UPDATE ON transaction_annotations
WHEN coalesce(old.exclude_from_spending, 0) IS NOT coalesce(new.exclude_from_spending, 0)
    OR old.transaction_id IS NOT new.transaction_id
BEGIN
    -- back for the old, out for the new
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, amount_base_units, amount_base_units < 0, 1
    FROM monthly_totals_base WHERE transaction_id = old.transaction_id AND kind = 'spending' AND coalesce(old.exclude_from_spending, 0)
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, -amount_base_units, -(amount_base_units < 0), -1
    FROM monthly_totals_base WHERE transaction_id = new.transaction_id AND kind = 'spending' AND coalesce(new.exclude_from_spending, 0)
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;

CREATE TRIGGER monthly_totals_exclude_delete AFTER DELETE ON transaction_annotations
WHEN coalesce(old.exclude_from_spending, 0)
BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, amount_base_units, amount_base_units < 0, 1
    FROM monthly_totals_base WHERE transaction_id = old.transaction_id AND kind = 'spending'
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;

CREATE TABLE alert_outbox (
    id               INTEGER PRIMARY KEY,
    alert_key        TEXT NOT NULL,     -- what makes the alert one: 'rule:NAME:TXID', 'low_balance:ACCOUNT:DATE', ...
    channel          TEXT NOT NULL,     -- a [channel.NAME] of the rules file
    kind             TEXT NOT NULL,     -- 'rule', 'low_balance', 'recurring_changed', 'held', 'health', 'test', ...
    title            TEXT NOT NULL,
    message          TEXT NOT NULL,
    payload          TEXT NOT NULL,     -- JSON: the generic webhook's body
    created_at       TEXT NOT NULL,
    not_before       TEXT NOT NULL DEFAULT '', -- held back until then (quiet hours, backoff)
    attempts         INTEGER NOT NULL DEFAULT 0,
    sent_at          TEXT,
    failed_at        TEXT,              -- given up
    error            TEXT,
    UNIQUE (alert_key, channel)
) STRICT;

CREATE INDEX alert_outbox_due ON alert_outbox (not_before) WHERE sent_at IS NULL AND failed_at IS NULL;

CREATE TABLE monthly_totals (
    month               TEXT NOT NULL,    -- created_month; '' when unknown
    kind                TEXT NOT NULL,    -- 'spending' or 'income'
    account_id          TEXT NOT NULL,
    parent_category_id  TEXT NOT NULL,    -- spending: '' for none; income: ''
    category_id         TEXT NOT NULL,    -- spending: '' for none; income: the income type (transactionType, or 'Other')
    total_base_units    INTEGER NOT NULL, -- signed cents: the sum of amount_base_units
    count_out           INTEGER NOT NULL, -- of which money out (amount_base_units < 0)
    count               INTEGER NOT NULL, -- transactions
    PRIMARY KEY (month, kind, account_id, parent_category_id, category_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE transactions_search_money (
    rowid             INTEGER PRIMARY KEY, -- transactions.rowid
    created_epoch     INTEGER,             -- transactions.created_epoch
    amount_base_units INTEGER NOT NULL     -- transactions.amount_base_units
) STRICT;

CREATE INDEX transactions_search_money_wide ON transactions_search_money (rowid)
WHERE amount_base_units NOT BETWEEN -2147483648 AND 2147483647 OR created_epoch NOT BETWEEN -2147483648 AND 2147483647 OR rowid >= 4294967296;

CREATE TABLE feed_rows (
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

CREATE TABLE feed_pending (
    feed            TEXT NOT NULL,
    transaction_id  TEXT NOT NULL,
    reason          TEXT NOT NULL,
    since           TEXT NOT NULL,
    PRIMARY KEY (feed, transaction_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE feed_state (
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

CREATE VIRTUAL TABLE transactions_search_amount USING fts5(
    description, message, note, raw_text, tags,
    content = '', detail = none, columnsize = 0,
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE transactions_search_time USING fts5(
    description, message, note, raw_text, tags,
    content = '', detail = none, columnsize = 0,
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE transactions_search_terms USING fts5vocab(transactions_search_amount, row);

CREATE TABLE feed_spans (
    feed          TEXT NOT NULL,   -- the feed's name in the feeds file
    bank_account  TEXT NOT NULL,   -- the bank account's id
    app_account   TEXT NOT NULL,   -- the app account's id it was fed into
    since         TEXT NOT NULL,   -- the earliest date (YYYY-MM-DD) of a row a push put there
    PRIMARY KEY (feed, bank_account, app_account)
) STRICT, WITHOUT ROWID;

CREATE VIEW v_daily_balances AS
WITH RECURSIVE
    observed AS (
        SELECT account_id, observed_date AS date, observed_at, balance_currency, balance_value, balance_base_units,
            row_number() OVER (PARTITION BY account_id, observed_date ORDER BY observed_epoch DESC, observed_at DESC) AS n
        FROM account_balances
        WHERE observed_date IS NOT NULL
    ),
    last_of_day AS (SELECT * FROM observed WHERE n = 1),
    days (account_id, date) AS (
        SELECT account_id, min(date) FROM last_of_day GROUP BY account_id
        UNION ALL
        SELECT account_id, date(date, '+1 day') FROM days
        WHERE date < (SELECT max(date) FROM last_of_day)
    ),
    filled AS (
        SELECT d.account_id, d.date, l.date AS observed_date, l.observed_at, l.balance_currency, l.balance_value,
            l.balance_base_units,
            count(l.date) OVER (PARTITION BY d.account_id ORDER BY d.date) AS run
        FROM days d
        LEFT JOIN last_of_day l ON l.account_id = d.account_id AND l.date = d.date
    )
SELECT
    f.date,                                              -- 'YYYY-MM-DD' in the customer's zone
    f.account_id,
    a.display_name AS account_name,
    a.account_type,
    CAST(first_value(f.balance_value) OVER w AS REAL) AS balance, -- dollars at the end of the day
    first_value(f.balance_base_units) OVER w AS balance_base_units,
    first_value(f.balance_currency) OVER w AS currency,
    first_value(f.observed_at) OVER w AS observed_at,    -- when that balance was observed
    (f.observed_date IS NOT NULL) AS is_observed         -- 1 when a balance was observed that day
FROM filled f
LEFT JOIN accounts a ON a.id = f.account_id
WINDOW w AS (PARTITION BY f.account_id, f.run ORDER BY f.date);

CREATE VIEW v_account_people AS
SELECT
    a.id AS account_id,
    a.display_name AS account_name,
    a.account_type,                             -- TRANSACTIONAL, SAVER or HOME_LOAN
    a.ownership_type,                           -- INDIVIDUAL or JOINT
    -- the names of the people whose tokens list the account, sorted, joined with ','; NULL when none is recorded
    (SELECT group_concat(person, ',') FROM (SELECT person FROM account_people ap WHERE ap.account_id = a.id ORDER BY person)) AS people,
    (SELECT count(*) FROM account_people ap WHERE ap.account_id = a.id) AS people_count,
    -- those of them whose token lists it now (listed, and not removed): the tokens to list it through
    (SELECT group_concat(person, ',') FROM (SELECT ap.person FROM account_people ap JOIN people p ON p.name = ap.person
        WHERE ap.account_id = a.id AND ap.listed AND p.removed_at IS NULL ORDER BY ap.person)) AS listed_by,
    (SELECT max(seen_at) FROM account_people ap WHERE ap.account_id = a.id) AS seen_at, -- the last listing that had it
    a.gone_at                                   -- when no token listed it any more; NULL while one does
FROM accounts a;

CREATE VIEW household_transfer_pairs AS
SELECT a.id, a.best_id AS other_id
FROM household_transfer_candidates a
WHERE a.best_id IS NOT NULL
    AND (SELECT b.best_id FROM household_transfer_candidates b WHERE b.id = a.best_id) = a.id;

CREATE VIEW v_monthly_income AS
SELECT
    created_month AS month,                              -- 'YYYY-MM' in the customer's zone
    account_id,
    account_name,
    account_type,
    coalesce(transaction_type, 'Other') AS income_type,  -- the bank's transactionType: 'Salary', 'Interest', ...
    sum(amount_base_units) / 100.0 AS total_income,      -- dollars
    sum(amount_base_units) AS total_income_base_units,   -- cents
    count(*) AS count
FROM v_transactions
WHERE status = 'SETTLED' AND amount_base_units > 0 AND NOT is_transfer AND NOT is_refund AND NOT offsets_spending
    AND NOT household_transfer
    AND account_type IS NOT 'HOME_LOAN'
GROUP BY created_month, account_id, coalesce(transaction_type, 'Other');

CREATE VIEW v_transactions AS
SELECT
    t.id,
    t.account_id,
    a.display_name AS account_name,
    t.status,                                   -- HELD or SETTLED
    t.created_at,                               -- as the bank sent it
    t.settled_at,                               -- as the bank sent it; NULL while HELD
    t.description,
    t.message,
    t.raw_text,
    CAST(t.amount_value AS REAL) AS amount,     -- signed dollars: negative is money out
    t.amount_currency AS currency,
    t.amount_base_units,                        -- signed cents
    t.foreign_amount_value,
    t.foreign_amount_currency,
    t.category_id,
    c.name AS category_name,
    t.parent_category_id,
    pc.name AS parent_category_name,
    -- the tag labels, sorted, joined with ',' (ambiguous when a label holds a comma: use tags_json)
    (SELECT group_concat(tag_id, ',') FROM (SELECT tag_id FROM transaction_tags tt WHERE tt.transaction_id = t.id ORDER BY tag_id)) AS tags,
    t.transfer_account_id,
    t.note,
    t.performing_customer,
    t.card_purchase_method,
    t.transaction_type,
    -- columns of schema version 5
    a.account_type,                             -- TRANSACTIONAL, SAVER or HOME_LOAN
    a.ownership_type,                           -- INDIVIDUAL or JOINT
    ta.display_name AS transfer_account_name,   -- the other account of a transfer between own accounts
    CASE WHEN t.category_id IS NULL THEN NULL
         ELSE coalesce(pc.name || ' / ', '') || coalesce(c.name, t.category_id) END AS category_path, -- 'Parent / Child'
    -- the tag labels as a JSON array, sorted: json_each(tags_json) lists them
    (SELECT json_group_array(tag_id) FROM (SELECT tag_id FROM transaction_tags tt WHERE tt.transaction_id = t.id ORDER BY tag_id)) AS tags_json,
    t.created_epoch,                            -- see the X_epoch/_local/_date/_month columns in money_views.sql
    t.created_local,
    t.created_date,
    t.created_month,
    t.settled_epoch,
    t.settled_local,
    t.settled_date,
    t.settled_month,
    CAST(t.foreign_amount_value AS REAL) AS foreign_amount, -- signed, in foreign_amount_currency
    t.foreign_amount_base_units,
    CAST(t.hold_amount_value AS REAL) AS hold_amount,       -- the amount while HELD (AUD); kept after settlement
    t.hold_amount_base_units,
    CAST(t.hold_foreign_amount_value AS REAL) AS hold_foreign_amount,
    t.hold_foreign_amount_currency,
    t.hold_foreign_amount_base_units,
    CAST(t.round_up_amount_value AS REAL) AS round_up_amount, -- moved to savings, boost included; negative as the bank sends it
    t.round_up_amount_base_units,
    t.round_up_boost_base_units,                -- the boosted part of the round-up; negative
    t.cashback_description,
    CAST(t.cashback_amount_value AS REAL) AS cashback_amount, -- reimbursed; positive
    t.cashback_amount_base_units,
    t.card_number_suffix,
    t.is_categorizable,
    t.attachment_id,
    t.deep_link_url,
    -- The flags are 0 or 1, never NULL.
    -- 1 for a transfer between the customer's own accounts (transferAccount is set)
    (t.transfer_account_id IS NOT NULL) AS is_transfer,
    -- 1 for a refund: money in, not a transfer, that reverses a purchase
    -- (transactionType 'Refund' or 'Purchase', or a card transaction)
    (t.amount_base_units > 0 AND t.transfer_account_id IS NULL
        AND (coalesce(t.transaction_type, '') IN ('Refund', 'Purchase') OR t.card_purchase_method IS NOT NULL)) AS is_refund,
    -- 1 for interest earned (savers) or charged (home loan): transactionType
    -- 'Interest...' (the bank's 'Interest' and 'Interest Charged'), or an
    -- untyped, uncategorised 'Interest'
    (t.transfer_account_id IS NULL AND t.category_id IS NULL
        AND (coalesce(t.transaction_type, '') LIKE 'Interest%' OR (t.transaction_type IS NULL AND t.description = 'Interest'))) AS is_interest,
    -- 1 for money in that v_monthly_spending nets against its category:
    -- SETTLED, not a transfer between own accounts, not interest, not on a
    -- HOME_LOAN account, and either with a category (a friend paying back
    -- their share of a dinner, a refund by bank transfer) or a refund
    -- (is_refund). 0 while HELD: its amount may still change. Money in
    -- without a category (salary, interest) is income (v_monthly_income).
    (t.status = 'SETTLED' AND t.amount_base_units > 0 AND t.transfer_account_id IS NULL
        AND a.account_type IS NOT 'HOME_LOAN'
        AND (t.category_id IS NOT NULL
            OR ((coalesce(t.transaction_type, '') IN ('Refund', 'Purchase') OR t.card_purchase_method IS NOT NULL)
                AND NOT (coalesce(t.transaction_type, '') LIKE 'Interest%' OR (t.transaction_type IS NULL AND t.description = 'Interest'))))) AS offsets_spending,
    -- columns of schema version 12: the household
    -- who made the transaction: on an INDIVIDUAL account that one person
    -- sees, that person; otherwise (a joint account) the person who sees
    -- the account and whose people.display_name is performing_customer;
    -- NULL when none is, or more than one
    coalesce(
        CASE WHEN a.ownership_type IS NOT 'JOINT' THEN
            (SELECT CASE WHEN count(*) = 1 THEN min(ap.person) END FROM account_people ap WHERE ap.account_id = t.account_id) END,
        (SELECT CASE WHEN count(*) = 1 THEN min(p.name) END FROM account_people ap JOIN people p ON p.name = ap.person
         WHERE ap.account_id = t.account_id AND p.display_name = t.performing_customer)) AS person,
    -- the people who can see the account (account_people), sorted, joined with ','
    (SELECT group_concat(person, ',') FROM (SELECT person FROM account_people ap WHERE ap.account_id = t.account_id ORDER BY person)) AS people,
    -- 1 for a side of a household transfer: an Up-to-Up payment between two
    -- people of the household (paired by the rule in household_views.sql)
    (t.household_transfer_id IS NOT NULL) AS household_transfer,
    t.household_transfer_id,                    -- the other side's id
    -- columns of the rules file (rules.sql)
    -- the rule that set the category the transaction has now (NULL: the bank's or the person's)
    (SELECT ra.rule FROM rule_applications ra WHERE ra.transaction_id = t.id AND ra.action = 'category'
        AND ra.value = coalesce(t.category_id, '') ORDER BY ra.id DESC LIMIT 1) AS category_rule,
    -- 1 when a rule left it out of v_monthly_spending (exclude_from_spending).
    -- By rowid against the few excluded, so that the monthly views still
    -- read the month index alone.
    (t.rowid IN (SELECT x.rowid FROM transaction_annotations xa JOIN transactions x ON x.id = xa.transaction_id
        WHERE xa.exclude_from_spending)) AS excluded_from_spending,
    (SELECT an.exclude_rule FROM transaction_annotations an WHERE an.transaction_id = t.id AND an.exclude_from_spending) AS excluded_by_rule, -- the rule that did
    (SELECT an.note FROM transaction_annotations an WHERE an.transaction_id = t.id) AS rule_note, -- a rule's note (the mirror's own; the bank's is note)
    -- the tags rules added that the bank does not keep (2Up), sorted, joined with ','
    (SELECT group_concat(value, ',') FROM (SELECT ra.value FROM rule_applications ra WHERE ra.transaction_id = t.id
        AND ra.action = 'tag' AND ra.write_back = 0 AND ra.written_back_at IS NULL AND ra.source != 'first_sync'
        ORDER BY ra.value)) AS rule_tags_local
FROM transactions t
LEFT JOIN accounts a ON a.id = t.account_id
LEFT JOIN accounts ta ON ta.id = t.transfer_account_id
LEFT JOIN categories c ON c.id = t.category_id
LEFT JOIN categories pc ON pc.id = t.parent_category_id;

CREATE VIEW v_monthly_spending AS
SELECT
    created_month AS month,                              -- 'YYYY-MM' in the customer's zone
    coalesce(parent_category_name, 'Uncategorised') AS parent_category,
    coalesce(category_name, 'Uncategorised') AS category,
    -sum(amount_base_units) / 100.0 AS total_spent,      -- dollars: spent minus money in netted
    sum(amount_base_units < 0) AS count,                 -- purchases and payments out
    account_id,
    account_name,
    account_type,
    parent_category_id,
    category_id,
    -sum(amount_base_units) AS total_spent_base_units,   -- cents: spent minus money in netted
    -sum(min(amount_base_units, 0)) / 100.0 AS spent,    -- dollars out, before money in
    sum(max(amount_base_units, 0)) / 100.0 AS refunded,  -- dollars in netted: refunds and categorised money in
    sum(amount_base_units > 0) AS refund_count           -- transactions of money in netted
FROM v_transactions
WHERE status = 'SETTLED' AND NOT is_transfer AND NOT is_interest AND NOT household_transfer
    AND NOT excluded_from_spending
    AND account_type IS NOT 'HOME_LOAN'
    AND (amount_base_units < 0 OR offsets_spending)
GROUP BY created_month, account_id, parent_category_id, category_id;

CREATE VIEW v_monthly_spending_by_person AS
SELECT
    created_month AS month,                              -- 'YYYY-MM' in the customer's zone
    person,                                              -- people.name; NULL: not known (see performing_customer)
    coalesce(parent_category_name, 'Uncategorised') AS parent_category,
    coalesce(category_name, 'Uncategorised') AS category,
    -sum(amount_base_units) / 100.0 AS total_spent,      -- dollars: spent minus money in netted
    sum(amount_base_units < 0) AS count,                 -- purchases and payments out
    account_id,
    account_name,
    account_type,
    parent_category_id,
    category_id,
    -sum(amount_base_units) AS total_spent_base_units,   -- cents: spent minus money in netted
    -sum(min(amount_base_units, 0)) / 100.0 AS spent,    -- dollars out, before money in
    sum(max(amount_base_units, 0)) / 100.0 AS refunded,  -- dollars in netted: refunds and categorised money in
    sum(amount_base_units > 0) AS refund_count,          -- transactions of money in netted
    sum(household_transfer AND amount_base_units < 0) AS household_transfer_count, -- payments out to another person of the household
    -sum(CASE WHEN household_transfer THEN amount_base_units ELSE 0 END) / 100.0 AS household_transfers, -- dollars of them (net)
    performing_customer                                  -- as the bank names who made them
FROM v_transactions
WHERE status = 'SETTLED' AND NOT is_transfer AND NOT is_interest AND NOT excluded_from_spending
    AND account_type IS NOT 'HOME_LOAN'
    AND (amount_base_units < 0 OR offsets_spending)
GROUP BY created_month, account_id, parent_category_id, category_id, performing_customer;

CREATE VIEW v_monthly_income_by_person AS
SELECT
    created_month AS month,                              -- 'YYYY-MM' in the customer's zone
    person,                                              -- people.name; NULL: not known (see performing_customer)
    account_id,
    account_name,
    account_type,
    coalesce(transaction_type, 'Other') AS income_type,  -- the bank's transactionType: 'Salary', 'Interest', ...
    sum(amount_base_units) / 100.0 AS total_income,      -- dollars
    sum(amount_base_units) AS total_income_base_units,   -- cents
    count(*) AS count,
    sum(household_transfer) AS household_transfer_count, -- of which payments from another person of the household
    sum(CASE WHEN household_transfer THEN amount_base_units ELSE 0 END) / 100.0 AS household_transfers, -- dollars of them
    performing_customer                                  -- as the bank names who made them
FROM v_transactions
WHERE status = 'SETTLED' AND amount_base_units > 0 AND NOT is_transfer AND NOT is_refund AND NOT offsets_spending
    AND account_type IS NOT 'HOME_LOAN'
GROUP BY created_month, account_id, coalesce(transaction_type, 'Other'), performing_customer;

CREATE VIEW monthly_totals_base AS
SELECT tx_rowid, transaction_id, month, kind, account_id,
    CASE kind WHEN 'spending' THEN parent_category_id ELSE '' END AS parent_category_id,
    CASE kind WHEN 'spending' THEN category_id ELSE income_type END AS category_id,
    amount_base_units
FROM (
    SELECT t.rowid AS tx_rowid, t.id AS transaction_id, coalesce(t.created_month, '') AS month, t.account_id,
        coalesce(t.parent_category_id, '') AS parent_category_id, coalesce(t.category_id, '') AS category_id,
        coalesce(t.transaction_type, 'Other') AS income_type, t.amount_base_units,
        CASE
            -- v_monthly_spending: SETTLED, not a transfer, not interest, not a
            -- household transfer; money out, or money in it nets
            -- (offsets_spending)
            WHEN t.status = 'SETTLED' AND t.transfer_account_id IS NULL AND t.household_transfer_id IS NULL
                AND NOT (t.category_id IS NULL AND (coalesce(t.transaction_type, '') LIKE 'Interest%'
                    OR (t.transaction_type IS NULL AND t.description = 'Interest')))
                AND (t.amount_base_units < 0
                    OR (t.amount_base_units > 0 AND (t.category_id IS NOT NULL
                        OR ((coalesce(t.transaction_type, '') IN ('Refund', 'Purchase') OR t.card_purchase_method IS NOT NULL)
                            AND NOT (coalesce(t.transaction_type, '') LIKE 'Interest%'
                                OR (t.transaction_type IS NULL AND t.description = 'Interest'))))))
                THEN 'spending'
            -- v_monthly_income: SETTLED money in, not a transfer, not a
            -- refund, not netted against spending (no category), not a
            -- household transfer
            WHEN t.status = 'SETTLED' AND t.amount_base_units > 0 AND t.transfer_account_id IS NULL
                AND t.household_transfer_id IS NULL AND t.category_id IS NULL
                AND NOT (coalesce(t.transaction_type, '') IN ('Refund', 'Purchase') OR t.card_purchase_method IS NOT NULL)
                THEN 'income'
        END AS kind
    FROM transactions t
)
WHERE kind IS NOT NULL;

CREATE VIEW monthly_totals_rows AS
SELECT b.* FROM monthly_totals_base b
WHERE b.kind = 'income' OR NOT coalesce((SELECT an.exclude_from_spending FROM transaction_annotations an
    WHERE an.transaction_id = b.transaction_id), 0);

CREATE VIEW household_transfer_candidates AS
SELECT
    x.id,
    (SELECT c.id FROM (
        SELECT y.id, abs(y.created_epoch - x.created_epoch) AS distance
        FROM transactions y
        WHERE y.amount_base_units = -x.amount_base_units
            AND y.created_epoch BETWEEN x.created_epoch - 600 AND x.created_epoch + 600
            AND y.transfer_account_id IS NULL
            AND y.amount_currency = x.amount_currency
            AND y.account_id <> x.account_id
            AND (SELECT people FROM v_account_people WHERE account_id = y.account_id)
                <> (SELECT people FROM v_account_people WHERE account_id = x.account_id)
     ) AS c
     ORDER BY c.distance, c.id
     LIMIT 1) AS best_id
FROM transactions x
WHERE x.transfer_account_id IS NULL AND x.amount_base_units <> 0 AND x.created_epoch IS NOT NULL;

CREATE VIEW v_ledger AS
SELECT
    created_date,                               -- 'YYYY-MM-DD' in the customer's zone
    created_local,                              -- 'YYYY-MM-DD HH:MM:SS' in the customer's zone
    description,
    amount,                                     -- signed dollars: negative is money out
    currency,
    account_name,
    parent_category_name,
    category_name,
    tags,                                       -- labels, sorted, joined with ','
    status,                                     -- HELD or SETTLED
    settled_date,
    message,
    note,
    foreign_amount,
    foreign_amount_currency,
    transaction_type,
    transfer_account_name,
    is_transfer,
    is_refund,
    is_interest,
    round_up_amount,
    cashback_amount,
    account_type,
    id,
    account_id,
    category_id,
    created_epoch,                              -- what --since and --until compare (an instant)
    offsets_spending,                           -- 1 for money in netted in v_monthly_spending
    person,                                     -- who made it (v_transactions.person)
    household_transfer,                         -- 1 for a side of a payment between two people of the household
    excluded_from_spending                      -- 1 when a rule left it out of v_monthly_spending (v_transactions.excluded_from_spending)
FROM v_transactions;

CREATE VIEW v_history AS
SELECT
    h.seq,
    h.transaction_id,
    h.change,                                            -- created, updated, settled, deleted
    h.observed_at,                                       -- when the mirror saw it (UTC)
    h.observed_epoch,
    h.observed_local,
    h.observed_date,
    h.observed_month,
    json_extract(h.version, '$.attributes.description') AS description,
    json_extract(h.version, '$.relationships.account.data.id') AS account_id,
    a.display_name AS account_name,
    json_extract(h.version, '$.attributes.status') AS status,
    CAST(json_extract(h.version, '$.attributes.amount.value') AS REAL) AS amount,
    json_extract(h.version, '$.attributes.amount.valueInBaseUnits') AS amount_base_units,
    json_extract(h.version, '$.relationships.category.data.id') AS category_id,
    json_extract(h.raw, '$.attributes.status') AS previous_status, -- NULL for 'created'
    json_extract(h.raw, '$.attributes.amount.valueInBaseUnits') AS previous_amount_base_units,
    json_extract(h.raw, '$.relationships.category.data.id') AS previous_category_id,
    EXISTS (SELECT 1 FROM transactions t WHERE t.id = h.transaction_id) AS is_live -- 1 while the bank still has it
FROM (
    SELECT h.*,
        CASE WHEN h.change = 'deleted' THEN h.raw ELSE coalesce(n.raw, t.raw, h.raw) END AS version
    FROM transaction_history h
    -- the next change of the same transaction, whose raw is the version this change made
    LEFT JOIN transaction_history n ON n.seq =
        (SELECT min(x.seq) FROM transaction_history x WHERE x.transaction_id = h.transaction_id AND x.seq > h.seq)
    LEFT JOIN transactions t ON t.id = h.transaction_id
) h
LEFT JOIN accounts a ON a.id = json_extract(h.version, '$.relationships.account.data.id');
