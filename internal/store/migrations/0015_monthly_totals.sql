-- monthly_totals: v_monthly_spending and v_monthly_income summed ahead of
-- time, per local month, account and category (spending) or income type
-- (income), kept up to date by triggers in the transaction of every write,
-- whichever program makes it, so that the dashboard's overview reads a few
-- hundred rows however many transactions the mirror holds.
--
--   SELECT month, sum(total_base_units) FROM monthly_totals
--   WHERE kind = 'income' AND count > 0 GROUP BY month;
--
-- A row counts what v_monthly_spending (kind 'spending') or
-- v_monthly_income (kind 'income') counts of one group, except that the
-- account's type is read when queried: a HOME_LOAN account's rows are left
-- out then, as the views leave them out. A group whose transactions all
-- went keeps a row with count 0.
--
-- A first sync into an empty mirror runs without the triggers and fills
-- the table anew at the end (bulkload.go reads this file's statements by
-- the line they start).

CREATE TABLE IF NOT EXISTS monthly_totals (
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

-- Each live transaction that one of the monthly views counts, with its
-- group: the conditions of v_monthly_spending and v_monthly_income
-- (0012_household_views.sql, 0009_spending_offsets.sql), but for the account's type
-- and a rule's exclusion (monthly_totals_rows).
CREATE VIEW IF NOT EXISTS monthly_totals_base AS
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

-- What the table sums: monthly_totals_base without the spending a rule
-- left out (transaction_annotations.exclude_from_spending).
CREATE VIEW IF NOT EXISTS monthly_totals_rows AS
SELECT b.* FROM monthly_totals_base b
WHERE b.kind = 'income' OR NOT coalesce((SELECT an.exclude_from_spending FROM transaction_annotations an
    WHERE an.transaction_id = b.transaction_id), 0);

-- A transaction's part is taken out before it changes or goes, and put
-- back after it is written, in the same statement.
CREATE TRIGGER IF NOT EXISTS monthly_totals_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, amount_base_units, amount_base_units < 0, 1
    FROM monthly_totals_rows WHERE tx_rowid = new.rowid
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;

CREATE TRIGGER IF NOT EXISTS monthly_totals_delete BEFORE DELETE ON transactions BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, -amount_base_units, -(amount_base_units < 0), -1
    FROM monthly_totals_rows WHERE tx_rowid = old.rowid
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;

CREATE TRIGGER IF NOT EXISTS monthly_totals_update_before BEFORE UPDATE ON transactions
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

CREATE TRIGGER IF NOT EXISTS monthly_totals_update_after AFTER UPDATE ON transactions
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

-- A rule's exclusion set or cleared: the transaction's spending out or
-- back (the annotation is written by an upsert, so only AFTER triggers).
CREATE TRIGGER IF NOT EXISTS monthly_totals_exclude_insert AFTER INSERT ON transaction_annotations
WHEN coalesce(new.exclude_from_spending, 0)
BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, -amount_base_units, -(amount_base_units < 0), -1
    FROM monthly_totals_base WHERE transaction_id = new.transaction_id AND kind = 'spending'
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;

CREATE TRIGGER IF NOT EXISTS monthly_totals_exclude_update AFTER UPDATE ON transaction_annotations
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

CREATE TRIGGER IF NOT EXISTS monthly_totals_exclude_delete AFTER DELETE ON transaction_annotations
WHEN coalesce(old.exclude_from_spending, 0)
BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, amount_base_units, amount_base_units < 0, 1
    FROM monthly_totals_base WHERE transaction_id = old.transaction_id AND kind = 'spending'
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;

-- The oldest HELD transactions (the dashboard's list, `status`'s oldest
-- HELD), read in order from this index rather than sorted from every HELD
-- row.
CREATE INDEX IF NOT EXISTS transactions_held_created ON transactions (status, unixepoch(created_at, 'subsec'))
    WHERE status = 'HELD';

-- The existing transactions (anew, should the table hold rows already):
-- summed from transactions_month_money alone (it holds every column
-- monthly_totals_base reads), then what the rules left out taken away:
-- read from the annotations, few, each looking its transaction up by id
-- (CROSS JOIN keeps that order: without statistics SQLite would read
-- every transaction's wide row instead).
DELETE FROM monthly_totals;
INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
SELECT month, kind, account_id, parent_category_id, category_id, sum(amount_base_units), sum(amount_base_units < 0), count(*)
FROM monthly_totals_base
GROUP BY month, kind, account_id, parent_category_id, category_id;
INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
SELECT b.month, b.kind, b.account_id, b.parent_category_id, b.category_id, -sum(b.amount_base_units), -sum(b.amount_base_units < 0), -count(*)
FROM transaction_annotations an CROSS JOIN monthly_totals_base b ON b.transaction_id = an.transaction_id
WHERE coalesce(an.exclude_from_spending, 0) AND b.kind = 'spending'
GROUP BY b.month, b.kind, b.account_id, b.parent_category_id, b.category_id
ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
    count_out = count_out + excluded.count_out, count = count + excluded.count;
