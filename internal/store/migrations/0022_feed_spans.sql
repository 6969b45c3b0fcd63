-- What each feed may have put into its app: for every bank account it
-- fed, each app account it put rows of it into and the earliest date of a
-- row it put there. A push records its own before it writes to the app,
-- so that a row the app took in a push cut off before the mirror recorded
-- it is known for the feed's (a later push adopts or removes it), while a
-- row another feed, a feed since removed from the file, or an import put
-- there (outside every span of the feed's) is never touched.
CREATE TABLE IF NOT EXISTS feed_spans (
    feed          TEXT NOT NULL,   -- the feed's name in the feeds file
    bank_account  TEXT NOT NULL,   -- the bank account's id
    app_account   TEXT NOT NULL,   -- the app account's id it was fed into
    since         TEXT NOT NULL,   -- the earliest date (YYYY-MM-DD) of a row a push put there
    PRIMARY KEY (feed, bank_account, app_account)
) STRICT, WITHOUT ROWID;

-- The spans of what the feeds recorded before this table was there: each
-- from the earliest date the feed gave the app. A row's bank account is
-- its transaction's, or, for a transaction the bank deleted since, the one
-- the history last saw. A reconciled row's date is the app's, which the
-- person may have moved before anything the feed fed: its transaction's
-- own date (for one the bank deleted, its createdAt's date in the
-- history) is the one the feed fed it from. A row whose bank account
-- nothing tells seeds no span.
INSERT OR IGNORE INTO feed_spans (feed, bank_account, app_account, since)
SELECT feed, bank_account, app_account, min(since) FROM (
    SELECT r.feed, r.app_account,
        coalesce(t.account_id, h.raw->>'$.relationships.account.data.id') AS bank_account,
        CASE WHEN r.state = 'reconciled'
            THEN coalesce(nullif(t.created_date, ''), substr(h.raw->>'$.attributes.createdAt', 1, 10), r.date)
            ELSE r.date END AS since
    FROM feed_rows r
    LEFT JOIN transactions t ON t.id = r.transaction_id
    LEFT JOIN transaction_history h ON t.id IS NULL AND h.seq = (
        SELECT max(x.seq) FROM transaction_history x
        WHERE x.transaction_id = r.transaction_id AND x.raw->>'$.relationships.account.data.id' IS NOT NULL))
WHERE bank_account IS NOT NULL
GROUP BY feed, bank_account, app_account;
