-- transactions_search_amount and transactions_search_time: the words of
-- transactions_search again (the same columns, tokenizer and text), each
-- match keyed by a number that holds what a search counts, sums and pages
-- by, so that the dashboard reads them from the index alone (never a row
-- per match of another table):
--
--   transactions_search_amount: amount_base_units << 32 | the transaction's rowid
--   transactions_search_time:   coalesce(created_epoch, 0) << 32 | the transaction's rowid
--
--   SELECT count(*), sum(rowid >> 32) FROM transactions_search_amount
--   WHERE transactions_search_amount MATCH 'coffee';         -- count, total in cents
--   SELECT rowid >> 32 AS created_epoch, rowid & 4294967295 AS tx_rowid
--   FROM transactions_search_time WHERE transactions_search_time MATCH 'coffee'
--   ORDER BY rowid DESC LIMIT 50;                            -- the newest 50
--
-- Both are contentless (content='') with detail=none: they hold no text,
-- no positions and no column sizes, so they answer words, prefixes
-- (word*), AND, OR and NOT, but not phrases of several words or NEAR; use
-- transactions_search for those, and for snippet() and highlight(). A
-- transaction whose amount or time does not fit in 32 bits (signed: an
-- amount beyond 21 million dollars, a time before 1901 or after January
-- 2038), or whose rowid does not, is in neither; transactions_search_money_wide
-- finds them, and the dashboard searches as before when there are any.
--
-- The triggers of 0010_search.sql are made again here with the same names,
-- each keeping the three indexes in one body: a contentless table forgets
-- a row only when given the text it was given, which is the copy in
-- transactions_search before that changes. A first sync's bulk load drops
-- these triggers and fills the three indexes at its end from this file's
-- statements (bulkload.go reads each by the line it starts).
CREATE VIRTUAL TABLE IF NOT EXISTS transactions_search_amount USING fts5(
    description, message, note, raw_text, tags,
    content = '', detail = none, columnsize = 0,
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE IF NOT EXISTS transactions_search_time USING fts5(
    description, message, note, raw_text, tags,
    content = '', detail = none, columnsize = 0,
    tokenize = 'unicode61 remove_diacritics 2'
);

-- The terms of the index, each with how many transactions hold it: a
-- prefix that stands for a few terms is quicker searched as those terms
-- (coffee OR coffees) than as a prefix (coffee*), which these indexes walk
-- slowly.
CREATE VIRTUAL TABLE IF NOT EXISTS transactions_search_terms USING fts5vocab(transactions_search_amount, row);

-- The transactions that neither holds (see above).
CREATE INDEX IF NOT EXISTS transactions_search_money_wide ON transactions_search_money (rowid)
WHERE amount_base_units NOT BETWEEN -2147483648 AND 2147483647 OR created_epoch NOT BETWEEN -2147483648 AND 2147483647 OR rowid >= 4294967296;

DROP TRIGGER IF EXISTS transactions_search_insert;
DROP TRIGGER IF EXISTS transactions_search_update;
DROP TRIGGER IF EXISTS transactions_search_delete;
DROP TRIGGER IF EXISTS transactions_search_tag_insert;
DROP TRIGGER IF EXISTS transactions_search_tag_delete;

CREATE TRIGGER IF NOT EXISTS transactions_search_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    VALUES (new.rowid, new.description, new.message, new.note, new.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = new.id));
    INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
    SELECT (new.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = new.rowid
    AND new.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
    SELECT (coalesce(new.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = new.rowid
    AND coalesce(new.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
END;

CREATE TRIGGER IF NOT EXISTS transactions_search_update AFTER UPDATE OF description, message, note, raw_text, created_epoch, amount_base_units ON transactions
WHEN new.description IS NOT old.description OR new.message IS NOT old.message
    OR new.note IS NOT old.note OR new.raw_text IS NOT old.raw_text
    OR new.created_epoch IS NOT old.created_epoch OR new.amount_base_units IS NOT old.amount_base_units
BEGIN
    INSERT INTO transactions_search_amount (transactions_search_amount, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (old.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = old.rowid
    AND old.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (transactions_search_time, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (coalesce(old.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = old.rowid
    AND coalesce(old.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    DELETE FROM transactions_search WHERE rowid = old.rowid
        AND (new.description IS NOT old.description OR new.message IS NOT old.message
        OR new.note IS NOT old.note OR new.raw_text IS NOT old.raw_text OR new.rowid IS NOT old.rowid);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT new.rowid, new.description, new.message, new.note, new.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = new.id)
    WHERE new.description IS NOT old.description OR new.message IS NOT old.message
        OR new.note IS NOT old.note OR new.raw_text IS NOT old.raw_text OR new.rowid IS NOT old.rowid;
    INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
    SELECT (new.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = new.rowid
    AND new.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
    SELECT (coalesce(new.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = new.rowid
    AND coalesce(new.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
END;

CREATE TRIGGER IF NOT EXISTS transactions_search_delete AFTER DELETE ON transactions BEGIN
    INSERT INTO transactions_search_amount (transactions_search_amount, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (old.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = old.rowid
    AND old.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (transactions_search_time, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (coalesce(old.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = old.rowid
    AND coalesce(old.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    DELETE FROM transactions_search WHERE rowid = old.rowid;
END;

-- A tag added or removed indexes the transaction again with its labels.
CREATE TRIGGER IF NOT EXISTS transactions_search_tag_insert AFTER INSERT ON transaction_tags BEGIN
    INSERT INTO transactions_search_amount (transactions_search_amount, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (t.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = new.transaction_id
    AND t.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (transactions_search_time, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (coalesce(t.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = new.transaction_id
    AND coalesce(t.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    DELETE FROM transactions_search WHERE rowid = (SELECT rowid FROM transactions WHERE id = new.transaction_id);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT t.rowid, t.description, t.message, t.note, t.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = t.id)
    FROM transactions t WHERE t.id = new.transaction_id;
    INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
    SELECT (t.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = new.transaction_id
    AND t.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
    SELECT (coalesce(t.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = new.transaction_id
    AND coalesce(t.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
END;

CREATE TRIGGER IF NOT EXISTS transactions_search_tag_delete AFTER DELETE ON transaction_tags BEGIN
    INSERT INTO transactions_search_amount (transactions_search_amount, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (t.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = old.transaction_id
    AND t.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (transactions_search_time, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (coalesce(t.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = old.transaction_id
    AND coalesce(t.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    DELETE FROM transactions_search WHERE rowid = (SELECT rowid FROM transactions WHERE id = old.transaction_id);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT t.rowid, t.description, t.message, t.note, t.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = t.id)
    FROM transactions t WHERE t.id = old.transaction_id;
    INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
    SELECT (t.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = old.transaction_id
    AND t.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
    SELECT (coalesce(t.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = old.transaction_id
    AND coalesce(t.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
END;

-- What the existing transactions hold (anew, should the tables be there
-- already), from transactions_search and transactions_search_money, in key
-- order, then merged into one segment each: the quickest to walk.
INSERT INTO transactions_search_amount (transactions_search_amount) VALUES ('delete-all');
INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
SELECT (m.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
FROM transactions_search s JOIN transactions_search_money m ON m.rowid = s.rowid
WHERE m.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296 ORDER BY 1;
INSERT INTO transactions_search_amount (transactions_search_amount) VALUES ('optimize');
INSERT INTO transactions_search_time (transactions_search_time) VALUES ('delete-all');
INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
SELECT (coalesce(m.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
FROM transactions_search s JOIN transactions_search_money m ON m.rowid = s.rowid
WHERE coalesce(m.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296 ORDER BY 1;
INSERT INTO transactions_search_time (transactions_search_time) VALUES ('optimize');
