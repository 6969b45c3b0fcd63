-- Schema version 18: every index, view and trigger answers the same, and
-- PRAGMA integrity_check is clean, on SQLite 3.40 (Debian 12's sqlite3)
-- as on the newer SQLite bankmirror is built with; and v_ledger says
-- what rules left out of the spending.
--
-- The mirror is read with the distribution's sqlite3. An index on an
-- expression stores the expression's value as the SQLite that wrote the
-- row computed it, and integrity_check computes it again: a function or
-- modifier the reading SQLite lacks gives another value (NULL), and every
-- row looks missing from the index. transactions_held_created indexed
-- unixepoch(created_at, 'subsec'), and 'subsec' came with SQLite 3.42.
-- julianday(created_at) is the same instant to the millisecond (both
-- come from the one parsed time, in milliseconds), so it orders the rows
-- exactly as 'subsec' did, and every SQLite since 3.20 (deterministic date
-- functions in indexes) computes it alike. The queries that read the index
-- order by the same expression.
--
-- household_transfer_candidates ordered a correlated subquery by an
-- expression of the outer row (the distance in time to x), which SQLite
-- before 3.41 refuses ("no such column: x.created_epoch"): on 3.40 the
-- view could not be read, nor the triggers that pair household transfers
-- run, so sqlite3 could not write a transaction of a household. The
-- distance is now a column of a subquery, ordered outside it: the same
-- nearest candidate, the smaller id on a tie.
--
-- Nothing else of the schema needs more than 3.40: unixepoch() came with
-- 3.38 (and appears only in queries, never in the schema), STRICT tables
-- with 3.37, UPDATE ... FROM with 3.33, and the sorted lists (group_concat
-- over an ordered subquery, not 3.44's group_concat(... ORDER BY ...))
-- come out sorted on every version.
DROP INDEX IF EXISTS transactions_held_created;
CREATE INDEX transactions_held_created ON transactions (status, julianday(created_at))
    WHERE status = 'HELD';

-- An older mirror (the fixture of schema version 12 is one) could keep
-- a deleted transaction's row in the search index, and a transaction
-- given its rowid again then could not be inserted ("constraint failed").
-- What no transaction has any more goes.
DELETE FROM transactions_search WHERE rowid NOT IN (SELECT rowid FROM transactions);
DELETE FROM transactions_search_money WHERE rowid NOT IN (SELECT rowid FROM transactions);

DROP VIEW IF EXISTS household_transfer_candidates;
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

-- v_ledger (the default of `bankmirror export`) gains
-- excluded_from_spending: 1 when a rule left the transaction out of
-- v_monthly_spending, as the dashboard leaves it out. Last, so that the
-- columns before it keep their places in a spreadsheet.
DROP VIEW IF EXISTS v_ledger;
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
