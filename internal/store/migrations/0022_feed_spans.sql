-- What each feed may have put into its app: for every bank account it
-- fed, each app account it fed it into and the earliest since it fed it
-- from. A push records its own before it writes to the app, so that a row
-- the app took in a push cut off before the mirror recorded it is known
-- for the feed's (a later push adopts or removes it), while a row another
-- feed, a feed since removed from the file, or an import put there
-- (outside every span of the feed's) is never touched.
CREATE TABLE IF NOT EXISTS feed_spans (
    feed          TEXT NOT NULL,   -- the feed's name in the feeds file
    bank_account  TEXT NOT NULL,   -- the bank account's id
    app_account   TEXT NOT NULL,   -- the app account's id it was fed into
    since         TEXT NOT NULL,   -- the earliest since (YYYY-MM-DD, '' for all) a push fed it from
    PRIMARY KEY (feed, bank_account, app_account)
) STRICT, WITHOUT ROWID;

-- The spans of what the feeds recorded before this table was there: each
-- from the earliest date the feed gave the app. A reconciled row's date is
-- the app's, which the person may have moved before anything the feed
-- fed: its transaction's own date is the one the feed fed it from.
INSERT OR IGNORE INTO feed_spans (feed, bank_account, app_account, since)
SELECT r.feed, t.account_id, r.app_account,
    min(CASE WHEN r.state = 'reconciled' THEN coalesce(nullif(t.created_date, ''), r.date) ELSE r.date END)
FROM feed_rows r JOIN transactions t ON t.id = r.transaction_id
GROUP BY r.feed, t.account_id, r.app_account;
