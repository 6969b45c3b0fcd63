-- The monthly views per person as fast as the household's: one row per
-- month, account, category (or kind) and performing_customer, summed in
-- the order of transactions_month_money, which now holds
-- performing_customer right after the household views' groups; each row's
-- person (v_transactions.person, the same for every transaction of a row)
-- is worked out once a row rather than once a transaction, and no sort is
-- needed. A person may have several rows for one account and category
-- (their name as the bank gives it, and none): sum the rows of a person.
-- Otherwise as in 0013_rules_alerts.sql (what a rule excluded stays out of
-- spending) and 0012_household_views.sql.
--
-- The index also ends with created_epoch, so that pairing every household
-- transfer again (household_transfers_repair in 0012_household_views.sql, run
-- when who sees which account changes) reads it rather than the table's
-- wide rows: 1.0 s rather than 2.3 s at 100,000 transactions.

DROP INDEX IF EXISTS transactions_month_money;
CREATE INDEX IF NOT EXISTS transactions_month_money ON transactions (
    created_month, account_id, parent_category_id, category_id, performing_customer, status, amount_base_units,
    transfer_account_id, transaction_type, card_purchase_method, description, household_transfer_id, created_epoch
);

DROP VIEW IF EXISTS v_monthly_spending_by_person;
DROP VIEW IF EXISTS v_monthly_income_by_person;

-- v_monthly_spending per person, with household transfers: money one
-- person pays another is the payer's spending (uncategorised, unless
-- categorised) and the payee's income, or nets the payee's spending when
-- categorised, like a friend's payback.
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

-- v_monthly_income per person, with household transfers received.
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
