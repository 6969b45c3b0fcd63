-- transactions_search_money: each live transaction's time and amount,
-- keyed like transactions_search by the transaction's rowid, so that a
-- search counts, sums and orders its matches from this narrow table
-- rather than from the table's wide rows:
--
--   SELECT count(*), sum(m.amount_base_units)
--   FROM transactions_search s JOIN transactions_search_money m ON m.rowid = s.rowid
--   WHERE transactions_search MATCH 'coffee';
--
-- Triggers keep it in step with every insert, deletion and change of
-- created_epoch or amount_base_units in transactions, whichever program
-- makes it, the first sync included.
CREATE TABLE IF NOT EXISTS transactions_search_money (
    rowid             INTEGER PRIMARY KEY, -- transactions.rowid
    created_epoch     INTEGER,             -- transactions.created_epoch
    amount_base_units INTEGER NOT NULL     -- transactions.amount_base_units
) STRICT;

CREATE TRIGGER IF NOT EXISTS transactions_search_money_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO transactions_search_money (rowid, created_epoch, amount_base_units)
    VALUES (new.rowid, new.created_epoch, new.amount_base_units);
END;

CREATE TRIGGER IF NOT EXISTS transactions_search_money_update AFTER UPDATE OF created_epoch, amount_base_units ON transactions
WHEN new.created_epoch IS NOT old.created_epoch OR new.amount_base_units IS NOT old.amount_base_units
BEGIN
    UPDATE transactions_search_money SET created_epoch = new.created_epoch, amount_base_units = new.amount_base_units
    WHERE rowid = new.rowid;
END;

CREATE TRIGGER IF NOT EXISTS transactions_search_money_delete AFTER DELETE ON transactions BEGIN
    DELETE FROM transactions_search_money WHERE rowid = old.rowid;
END;

-- The existing transactions (anew, should the table be there already).
DELETE FROM transactions_search_money;
INSERT INTO transactions_search_money (rowid, created_epoch, amount_base_units)
SELECT rowid, created_epoch, amount_base_units FROM transactions ORDER BY rowid;
