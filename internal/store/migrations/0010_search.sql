-- Search and the dashboard's aggregates.
--
-- transactions_search is an FTS5 index of each live transaction's
-- description, message, note, raw text and tag labels, keyed by the
-- transaction's rowid (transactions.rowid; VACUUM and VACUUM INTO keep
-- rowids). It keeps its own copy of the text it indexes (a contentless
-- table would not, but the sqlite3 shells of current distributions cannot
-- open one that deletes by rowid), so any SQLite tool reads it, snippet()
-- and highlight() included. Triggers keep it in step with every write to transactions and
-- transaction_tags, whichever program makes it:
--
--   SELECT t.* FROM transactions_search s JOIN transactions t ON t.rowid = s.rowid
--   WHERE transactions_search MATCH 'coffee';
--
-- Words are matched without case or accents (unicode61, remove_diacritics 2).
--
-- A first sync into an empty mirror runs without the triggers and
-- transactions_month_money, and makes them again, and fills the index
-- anew, with this file's own statements (bulkload.go reads each by the
-- line it starts).
CREATE VIRTUAL TABLE IF NOT EXISTS transactions_search USING fts5(
    description, message, note, raw_text, tags,
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER IF NOT EXISTS transactions_search_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    VALUES (new.rowid, new.description, new.message, new.note, new.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = new.id));
END;

CREATE TRIGGER IF NOT EXISTS transactions_search_update AFTER UPDATE OF description, message, note, raw_text ON transactions
WHEN new.description IS NOT old.description OR new.message IS NOT old.message
    OR new.note IS NOT old.note OR new.raw_text IS NOT old.raw_text
BEGIN
    DELETE FROM transactions_search WHERE rowid = old.rowid;
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    VALUES (new.rowid, new.description, new.message, new.note, new.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = new.id));
END;

CREATE TRIGGER IF NOT EXISTS transactions_search_delete AFTER DELETE ON transactions BEGIN
    DELETE FROM transactions_search WHERE rowid = old.rowid;
END;

-- A tag added or removed indexes the transaction again with its labels.
CREATE TRIGGER IF NOT EXISTS transactions_search_tag_insert AFTER INSERT ON transaction_tags BEGIN
    DELETE FROM transactions_search WHERE rowid = (SELECT rowid FROM transactions WHERE id = new.transaction_id);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT t.rowid, t.description, t.message, t.note, t.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = t.id)
    FROM transactions t WHERE t.id = new.transaction_id;
END;

CREATE TRIGGER IF NOT EXISTS transactions_search_tag_delete AFTER DELETE ON transaction_tags BEGIN
    DELETE FROM transactions_search WHERE rowid = (SELECT rowid FROM transactions WHERE id = old.transaction_id);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT t.rowid, t.description, t.message, t.note, t.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = t.id)
    FROM transactions t WHERE t.id = old.transaction_id;
END;

-- The existing transactions (anew, should the table be there already),
-- each with its tags as the triggers give them, grouped in one pass.
DELETE FROM transactions_search;
INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
SELECT t.rowid, t.description, t.message, t.note, t.raw_text, g.tags
FROM transactions t LEFT JOIN (SELECT transaction_id, group_concat(tag_id, ' ') AS tags
    FROM transaction_tags GROUP BY transaction_id) AS g ON g.transaction_id = t.id;

-- What v_monthly_spending and v_monthly_income read of a transaction, in
-- the order they group it: a month of either is read from this index
-- alone, never from the wide rows (raw JSON) of the table.
CREATE INDEX IF NOT EXISTS transactions_month_money ON transactions (
    created_month, account_id, parent_category_id, category_id, status, amount_base_units,
    transfer_account_id, transaction_type, card_purchase_method, description
);
