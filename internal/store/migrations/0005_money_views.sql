-- Local dates and views that answer money questions right.
--
-- Bank timestamps keep the offset they were sent with (+10:00 and +11:00
-- mixed) and the mirror's own stamps are UTC with microseconds, so neither
-- compares nor groups correctly as text. SQLite has no zone database, so
-- bankmirror materialises, for every timestamp that users query, these
-- columns, written by bankmirror itself in the customer's zone
-- (BANKMIRROR_TIMEZONE, recorded in mirror_settings; every row is
-- recomputed when it changes):
--
--   X_epoch  INTEGER  seconds since 1970-01-01 UTC: compare with
--                     unixepoch('now', '-1 day') and the like
--   X_local  TEXT     'YYYY-MM-DD HH:MM:SS', the wall-clock time in the zone
--                     (spreadsheets read it as a date and time)
--   X_date   TEXT     'YYYY-MM-DD' in the zone
--   X_month  TEXT     'YYYY-MM' in the zone
--
-- All four are NULL when the timestamp is NULL.

-- Settings the mirror's stored values depend on. 'timezone': the IANA
-- name of the zone of every *_local, *_date and *_month column.
CREATE TABLE IF NOT EXISTS mirror_settings (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
) STRICT;

-- transactions.created_at (when the bank first saw the transaction) and
-- settled_at.
ALTER TABLE transactions ADD COLUMN created_epoch INTEGER;
ALTER TABLE transactions ADD COLUMN created_local TEXT;
ALTER TABLE transactions ADD COLUMN created_date TEXT;
ALTER TABLE transactions ADD COLUMN created_month TEXT;
ALTER TABLE transactions ADD COLUMN settled_epoch INTEGER;
ALTER TABLE transactions ADD COLUMN settled_local TEXT;
ALTER TABLE transactions ADD COLUMN settled_date TEXT;
ALTER TABLE transactions ADD COLUMN settled_month TEXT;
CREATE INDEX IF NOT EXISTS transactions_created_epoch ON transactions (created_epoch);

-- account_balances.observed_at and transaction_history.observed_at: when
-- the mirror saw the balance or the change.
ALTER TABLE account_balances ADD COLUMN observed_epoch INTEGER;
ALTER TABLE account_balances ADD COLUMN observed_local TEXT;
ALTER TABLE account_balances ADD COLUMN observed_date TEXT;
ALTER TABLE account_balances ADD COLUMN observed_month TEXT;
ALTER TABLE transaction_history ADD COLUMN observed_epoch INTEGER;
ALTER TABLE transaction_history ADD COLUMN observed_local TEXT;
ALTER TABLE transaction_history ADD COLUMN observed_date TEXT;
ALTER TABLE transaction_history ADD COLUMN observed_month TEXT;
CREATE INDEX IF NOT EXISTS transaction_history_observed_epoch ON transaction_history (observed_epoch);

-- One row per live transaction. The columns of 0001_init.sql's
-- v_transactions keep their names and meaning; the others follow them.
-- 0009_spending_offsets.sql redefines this view, v_monthly_spending and
-- v_monthly_income: categorised money in offsets spending.
DROP VIEW IF EXISTS v_transactions;
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
    -- the columns schema.sql's view lacks
    a.account_type,                             -- TRANSACTIONAL, SAVER or HOME_LOAN
    a.ownership_type,                           -- INDIVIDUAL or JOINT
    ta.display_name AS transfer_account_name,   -- the other account of a transfer between own accounts
    CASE WHEN t.category_id IS NULL THEN NULL
         ELSE coalesce(pc.name || ' / ', '') || coalesce(c.name, t.category_id) END AS category_path, -- 'Parent / Child'
    -- the tag labels as a JSON array, sorted: json_each(tags_json) lists them
    (SELECT json_group_array(tag_id) FROM (SELECT tag_id FROM transaction_tags tt WHERE tt.transaction_id = t.id ORDER BY tag_id)) AS tags_json,
    t.created_epoch,                            -- see the X_epoch/_local/_date/_month columns above
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
        AND (coalesce(t.transaction_type, '') LIKE 'Interest%' OR (t.transaction_type IS NULL AND t.description = 'Interest'))) AS is_interest
FROM transactions t
LEFT JOIN accounts a ON a.id = t.account_id
LEFT JOIN accounts ta ON ta.id = t.transfer_account_id
LEFT JOIN categories c ON c.id = t.category_id
LEFT JOIN categories pc ON pc.id = t.parent_category_id;

-- Spending per local month (of created_at), account and category, refunds
-- netted. Counted: SETTLED transactions that are money out, or refunds
-- (is_refund), except transfers between own accounts, interest, and
-- anything on a HOME_LOAN account (repayments, interest charged). HELD
-- transactions are left out: their amount may still change.
DROP VIEW IF EXISTS v_monthly_spending;
CREATE VIEW v_monthly_spending AS
SELECT
    created_month AS month,                              -- 'YYYY-MM' in the customer's zone
    coalesce(parent_category_name, 'Uncategorised') AS parent_category,
    coalesce(category_name, 'Uncategorised') AS category,
    -sum(amount_base_units) / 100.0 AS total_spent,      -- dollars: spent minus refunded
    sum(amount_base_units < 0) AS count,                 -- purchases and payments out
    account_id,
    account_name,
    account_type,
    parent_category_id,
    category_id,
    -sum(amount_base_units) AS total_spent_base_units,   -- cents: spent minus refunded
    -sum(min(amount_base_units, 0)) / 100.0 AS spent,    -- dollars out, before refunds
    sum(max(amount_base_units, 0)) / 100.0 AS refunded,  -- dollars refunded
    sum(amount_base_units > 0) AS refund_count
FROM v_transactions
WHERE status = 'SETTLED' AND NOT is_transfer AND NOT is_interest
    AND account_type IS NOT 'HOME_LOAN'
    AND (amount_base_units < 0 OR is_refund)
GROUP BY created_month, account_id, parent_category_id, category_id;

-- Income per local month (of created_at), account and kind: SETTLED money
-- in that is not a transfer between own accounts, not a refund and not on
-- a HOME_LOAN account (salary, payments received, interest earned).
CREATE VIEW IF NOT EXISTS v_monthly_income AS
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
WHERE status = 'SETTLED' AND amount_base_units > 0 AND NOT is_transfer AND NOT is_refund
    AND account_type IS NOT 'HOME_LOAN'
GROUP BY created_month, account_id, coalesce(transaction_type, 'Other');

-- Each account's balance at the end of each local day, from
-- account_balances (balances the mirror observed): one row per account per
-- day from the day of its first observation to the latest day any balance
-- was observed; a day without an observation carries the previous one.
CREATE VIEW IF NOT EXISTS v_daily_balances AS
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

-- Every change of transaction_history with the transaction it produced,
-- deleted transactions included. For a deletion the values are those of
-- the version deleted; otherwise those of the version the change made
-- (the next history row's previous version, or the live row).
CREATE VIEW IF NOT EXISTS v_history AS
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
