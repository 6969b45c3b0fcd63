-- The indexes on created_at alone and on (account_id, created_at) go: no
-- query of the daemon's used them (created_at text with mixed offsets does
-- not order as time; created_epoch, indexed, does), and every insert of a
-- full sync paid for them.
DROP INDEX IF EXISTS transactions_created;
DROP INDEX IF EXISTS transactions_account_created;
