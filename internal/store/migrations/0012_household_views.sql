-- Schema version 12: who spent it, in a household (0011_household.sql has the
-- tables of version 11: people and account_people).
--
-- v_transactions gains, as its last columns, person (who made the
-- transaction), people (who can see its account), household_transfer and
-- household_transfer_id; v_ledger gains person and household_transfer.
-- v_monthly_spending and v_monthly_income leave household transfers out;
-- v_monthly_spending_by_person and v_monthly_income_by_person count them,
-- per person.
--
-- A household transfer is an Up-to-Up payment from one person of the
-- household to another: the bank shows it as two transactions without
-- transferAccount, money out on the payer's account and the same money in
-- on the payee's. The mirror pairs the two sides by this rule:
--
--   A candidate pair is a transaction x and a transaction y with
--     - opposite, non-zero amounts in the same currency
--       (y.amount_base_units = -x.amount_base_units),
--     - neither a transfer between own accounts (transfer_account_id NULL),
--     - different accounts, both in the household (with account_people
--       rows), seen by different sets of people (alex's account and sam's,
--       or alex's and the joint one; never two of alex's own),
--     - created within 10 minutes (600 s) of each other (created_epoch).
--   A transaction's nearest candidate is the one created closest in time
--   to it, the smaller id on a tie. x and y are paired when each is the
--   other's nearest candidate.
--
-- So each transaction is in at most one pair, and the pairs depend only on
-- the rows as they are, never on the order they arrived in. When several
-- equal amounts move within 10 minutes, a transaction whose nearest
-- candidate pairs with another stays unpaired (counted as spending or
-- income), never paired twice.
--
-- The pairs are kept in transactions.household_transfer_id (the other
-- side's id) by the triggers below, whichever program writes transactions:
-- an insert, a change of amount, currency, time, account or transfer, and
-- a deletion re-pair the transactions of the same amount within 20 minutes
-- (every pair the change can make or break). A change of who sees which
-- account re-pairs every transaction (household_transfers_repair, which
-- bankmirror runs when it records the accounts a person sees). Nothing
-- needs re-pairing while the household is one person: the triggers do
-- nothing then.
--
-- Why triggers and a column rather than a view or the store's write path:
-- a view would pair at every read, and the monthly views read a year of
-- transactions from transactions_month_money alone (the column is in it,
-- so they leave household transfers out without reading the table); the
-- write path has several writers (listings, webhooks, polls, write-back,
-- deletions, another SQLite tool) that would each have to remember. The
-- triggers find candidates through transactions_created_epoch; an index on
-- amounts made every write about a third slower, for a household of one
-- too, and only the rare full repair faster.

-- 1 while the person's last listing of accounts had the account; 0 for a
-- row kept as history: the account no token lists any more keeps the rows
-- of those who last saw it (and is gone, accounts.gone_at).
ALTER TABLE account_people ADD COLUMN listed INTEGER NOT NULL DEFAULT 1;

-- The other side of the household transfer this transaction is part of;
-- NULL for any other transaction.
ALTER TABLE transactions ADD COLUMN household_transfer_id TEXT;

-- The transactions paired now (few): what a repair starts from.
CREATE INDEX IF NOT EXISTS transactions_household_paired ON transactions (household_transfer_id)
    WHERE household_transfer_id IS NOT NULL;

-- Each account and who can see it: one row per account.
CREATE VIEW IF NOT EXISTS v_account_people AS
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

-- Each transaction that could be part of a household transfer and its
-- nearest candidate (best_id), by the rule above. Used by the triggers;
-- household_transfer_id in v_transactions is what to query.
CREATE VIEW IF NOT EXISTS household_transfer_candidates AS
SELECT
    x.id,
    (SELECT y.id FROM transactions y
     WHERE y.amount_base_units = -x.amount_base_units
        AND y.created_epoch BETWEEN x.created_epoch - 600 AND x.created_epoch + 600
        AND y.transfer_account_id IS NULL
        AND y.amount_currency = x.amount_currency
        AND y.account_id <> x.account_id
        AND (SELECT people FROM v_account_people WHERE account_id = y.account_id)
            <> (SELECT people FROM v_account_people WHERE account_id = x.account_id)
     ORDER BY abs(y.created_epoch - x.created_epoch), y.id
     LIMIT 1) AS best_id
FROM transactions x
WHERE x.transfer_account_id IS NULL AND x.amount_base_units <> 0 AND x.created_epoch IS NOT NULL;

-- Each transaction of a household transfer and the other side: the pairs
-- whose sides are each other's nearest candidate.
CREATE VIEW IF NOT EXISTS household_transfer_pairs AS
SELECT a.id, a.best_id AS other_id
FROM household_transfer_candidates a
WHERE a.best_id IS NOT NULL
    AND (SELECT b.best_id FROM household_transfer_candidates b WHERE b.id = a.best_id) = a.id;

-- A transaction written: re-pair those of its amount within 20 minutes.
CREATE TRIGGER IF NOT EXISTS household_transfer_insert AFTER INSERT ON transactions
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

-- A transaction deleted: re-pair those of its amount within 20 minutes (its
-- other side among them).
CREATE TRIGGER IF NOT EXISTS household_transfer_delete AFTER DELETE ON transactions
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

-- A transaction changed in what the rule reads: re-pair around what it
-- was and around what it is.
CREATE TRIGGER IF NOT EXISTS household_transfer_update AFTER UPDATE OF amount_base_units, amount_currency, created_epoch,
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

-- household_transfers_repair: every transaction re-paired, for a change of
-- who sees which account (and this migration): those paired now, and those
-- with a transaction of the opposite amount within 10 minutes.
UPDATE transactions SET household_transfer_id = c.other_id
FROM (SELECT x.rowid AS rid, (SELECT p.other_id FROM household_transfer_pairs p WHERE p.id = x.id) AS other_id
      FROM transactions x
      WHERE x.rowid IN (
        SELECT rowid FROM transactions WHERE household_transfer_id IS NOT NULL
        UNION ALL
        SELECT m.rowid FROM transactions m
        WHERE m.transfer_account_id IS NULL AND m.amount_base_units <> 0
            AND (SELECT count(DISTINCT person) FROM account_people) > 1
            -- '+': SQLite builds a transient index on the amounts for
            -- this statement rather than scanning each 20 minutes by time
            AND EXISTS (SELECT 1 FROM transactions y WHERE y.amount_base_units = -m.amount_base_units
                AND +y.created_epoch BETWEEN m.created_epoch - 600 AND m.created_epoch + 600
                AND y.transfer_account_id IS NULL))) AS c
WHERE transactions.rowid = c.rid AND transactions.household_transfer_id IS NOT c.other_id;

-- The monthly views read these columns too: the month index holds them
-- (see 0010_search.sql).
DROP INDEX IF EXISTS transactions_month_money;
CREATE INDEX IF NOT EXISTS transactions_month_money ON transactions (
    created_month, account_id, parent_category_id, category_id, status, amount_base_units,
    transfer_account_id, transaction_type, card_purchase_method, description,
    household_transfer_id, performing_customer
);

DROP VIEW IF EXISTS v_ledger;
DROP VIEW IF EXISTS v_monthly_spending;
DROP VIEW IF EXISTS v_monthly_income;
DROP VIEW IF EXISTS v_transactions;

-- One row per live transaction, as in 0009_spending_offsets.sql, with four
-- columns at the end (spreadsheets read columns by position).
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
    t.household_transfer_id                     -- the other side's id
FROM transactions t
LEFT JOIN accounts a ON a.id = t.account_id
LEFT JOIN accounts ta ON ta.id = t.transfer_account_id
LEFT JOIN categories c ON c.id = t.category_id
LEFT JOIN categories pc ON pc.id = t.parent_category_id;


-- Spending per local month, account and category for the whole household,
-- as in 0009_spending_offsets.sql, each joint transaction once (it is stored
-- once), without household transfers: money one person pays another is
-- not the household's spending.
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
    AND account_type IS NOT 'HOME_LOAN'
    AND (amount_base_units < 0 OR offsets_spending)
GROUP BY created_month, account_id, parent_category_id, category_id;

-- Income per local month, account and kind for the whole household, as in
-- 0009_spending_offsets.sql, without household transfers.
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

-- v_monthly_spending per person (v_transactions.person: NULL for a joint
-- transaction whose maker is not known), with household transfers: money
-- one person pays another is the payer's spending (uncategorised, unless
-- categorised) and the payee's income, or nets the payee's spending when
-- categorised, like a friend's payback.
CREATE VIEW IF NOT EXISTS v_monthly_spending_by_person AS
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
WHERE status = 'SETTLED' AND NOT is_transfer AND NOT is_interest
    AND account_type IS NOT 'HOME_LOAN'
    AND (amount_base_units < 0 OR offsets_spending)
GROUP BY created_month, person, account_id, parent_category_id, category_id;

-- v_monthly_income per person, with household transfers received (income
-- type as the bank's transactionType names them).
CREATE VIEW IF NOT EXISTS v_monthly_income_by_person AS
SELECT
    created_month AS month,                              -- 'YYYY-MM' in the customer's zone
    person,                                              -- people.name; NULL: not known
    account_id,
    account_name,
    account_type,
    coalesce(transaction_type, 'Other') AS income_type,  -- the bank's transactionType: 'Salary', 'Interest', ...
    sum(amount_base_units) / 100.0 AS total_income,      -- dollars
    sum(amount_base_units) AS total_income_base_units,   -- cents
    count(*) AS count,
    sum(household_transfer) AS household_transfer_count, -- of which payments from another person of the household
    sum(CASE WHEN household_transfer THEN amount_base_units ELSE 0 END) / 100.0 AS household_transfers -- dollars of them
FROM v_transactions
WHERE status = 'SETTLED' AND amount_base_units > 0 AND NOT is_transfer AND NOT is_refund AND NOT offsets_spending
    AND account_type IS NOT 'HOME_LOAN'
GROUP BY created_month, person, account_id, coalesce(transaction_type, 'Other');

-- v_ledger as in 0009_spending_offsets.sql, with person and household_transfer
-- last, so that a spreadsheet reading columns by position still finds the
-- others.
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
    household_transfer                          -- 1 for a side of a payment between two people of the household
FROM v_transactions;
