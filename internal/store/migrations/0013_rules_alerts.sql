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
-- Alerts (the rules file's notify and [alert.*]) wait here until their
-- channel has them: delivered at least once, each alert once per channel
-- (alert_key), retried with backoff.
CREATE TABLE IF NOT EXISTS alert_outbox (
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

CREATE INDEX IF NOT EXISTS alert_outbox_due ON alert_outbox (not_before) WHERE sent_at IS NULL AND failed_at IS NULL;
-- v_transactions says what the rules file did (category_rule,
-- excluded_from_spending, excluded_by_rule, rule_note, rule_tags_local,
-- at the end: spreadsheets read columns by position), and the spending
-- views leave out what a rule excluded (exclude_from_spending). Otherwise
-- as in 0012_household_views.sql.

DROP VIEW IF EXISTS v_monthly_spending;
DROP VIEW IF EXISTS v_monthly_spending_by_person;
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

-- As in 0012_household_views.sql, without what a rule excluded.
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

-- As in 0012_household_views.sql, without what a rule excluded.
CREATE VIEW v_monthly_spending_by_person AS
SELECT
    created_month AS month,                              -- 'YYYY-MM' in the customer's zone
    person,                                              -- people.name; NULL: not known
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
    -sum(CASE WHEN household_transfer THEN amount_base_units ELSE 0 END) / 100.0 AS household_transfers -- dollars of them (net)
FROM v_transactions
WHERE status = 'SETTLED' AND NOT is_transfer AND NOT is_interest AND NOT excluded_from_spending
    AND account_type IS NOT 'HOME_LOAN'
    AND (amount_base_units < 0 OR offsets_spending)
GROUP BY created_month, person, account_id, parent_category_id, category_id;
