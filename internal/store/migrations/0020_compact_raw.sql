-- transactions.raw, the bank's JSON of the transaction, is no longer
-- stored whole: it becomes a VIRTUAL generated column rebuilt from the
-- row's columns (transaction_raw.sql) and what they cannot give back.
-- These columns hold that rest; migrate_0020_raw.go fills them, then
-- replaces the stored raw with the generated one.
--
-- raw_base:  the API's base URL the resource's links start with
--            ('https://api.up.com.au/api/v1'), NULL when raw_full is set
-- raw_patch: a JSON merge patch (RFC 7396) applied to the rebuilt JSON:
--            the tags, and any field the columns do not hold; NULL when
--            none is needed
-- raw_full:  the JSON as received, when no rebuild and patch gives it back
--            (then raw is exactly this); NULL otherwise
ALTER TABLE transactions ADD COLUMN raw_base TEXT;
ALTER TABLE transactions ADD COLUMN raw_patch TEXT;
ALTER TABLE transactions ADD COLUMN raw_full TEXT;
