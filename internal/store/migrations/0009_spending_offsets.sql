-- Money in with a category offsets that category's spending, as budgeting
-- tools count it: a friend paying back their share of a dinner, which the
-- customer categorised 'Restaurants & Cafes', nets against that category
-- in its month, like a card refund. Money in without a category (salary,
-- interest) stays income.
--
-- v_transactions has offsets_spending, the flag of what
-- v_monthly_spending nets; v_monthly_spending nets it and v_monthly_income
-- leaves it out; v_ledger has the flag as its last column. The other
-- columns are those of 0005_money_views.sql and 0007_ledger_view.sql, with the same
-- names and meaning (is_refund included): see them there.
DROP VIEW IF EXISTS v_ledger;
DROP VIEW IF EXISTS v_monthly_spending;
DROP VIEW IF EXISTS v_monthly_income;
DROP VIEW IF EXISTS v_transactions;

-- One row per live transaction.
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
    -- the columns schema.sql's view lacks (money_views.sql)
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
                AND NOT (coalesce(t.transaction_type, '') LIKE 'Interest%' OR (t.transaction_type IS NULL AND t.description = 'Interest'))))) AS offsets_spending
FROM transactions t
LEFT JOIN accounts a ON a.id = t.account_id
LEFT JOIN accounts ta ON ta.id = t.transfer_account_id
LEFT JOIN categories c ON c.id = t.category_id
LEFT JOIN categories pc ON pc.id = t.parent_category_id;

-- Spending per local month (of created_at), account and category, money
-- in netted. Counted: SETTLED transactions that are money out, or money in
-- that offsets spending (offsets_spending: refunds and categorised money
-- in), except transfers between own accounts, interest, and anything on a
-- HOME_LOAN account (repayments, interest charged). HELD transactions are
-- left out: their amount may still change. A category with more money in
-- than out in a month has a negative total.
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
WHERE status = 'SETTLED' AND NOT is_transfer AND NOT is_interest
    AND account_type IS NOT 'HOME_LOAN'
    AND (amount_base_units < 0 OR offsets_spending)
GROUP BY created_month, account_id, parent_category_id, category_id;

-- Income per local month (of created_at), account and kind: SETTLED money
-- in that is not a transfer between own accounts, does not offset
-- spending (not a refund, no category) and is not on a HOME_LOAN account
-- (salary, payments received, interest earned).
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
    AND account_type IS NOT 'HOME_LOAN'
GROUP BY created_month, account_id, coalesce(transaction_type, 'Other');

-- v_ledger as in 0007_ledger_view.sql, with offsets_spending last, so that a
-- spreadsheet reading columns by position still finds the others.
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
    offsets_spending                            -- 1 for money in netted in v_monthly_spending
FROM v_transactions;
