-- v_ledger: one row per live transaction with the columns a budget
-- spreadsheet needs, in the order a person reads them. It is what
-- `bankmirror export` writes when no --view is given, and a good feed for
-- a spreadsheet (/export/v_ledger.csv). Every column is v_transactions'
-- column of the same name; v_transactions keeps all of them (epochs, base
-- units, hold amounts, links) for SQL. A narrow view is also a fast one:
-- SQLite's cost per exported row grows with its columns (README,
-- Performance).
-- 0009_spending_offsets.sql redefines it with offsets_spending as its last
-- column.
CREATE VIEW IF NOT EXISTS v_ledger AS
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
    created_epoch                               -- what --since and --until compare (an instant)
FROM v_transactions;
