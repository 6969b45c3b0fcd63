-- Alerts (the rules file's notify and [alert.*]) wait here until their
-- channel has them: delivered at least once, each alert once per channel
-- (alert_key), retried with backoff.
CREATE TABLE IF NOT EXISTS alert_outbox (
    id               INTEGER PRIMARY KEY,
    alert_key        TEXT NOT NULL,     -- what makes the alert one: 'rule:NAME:TXID', 'low_balance:ACCOUNT:DATE', ...
    channel          TEXT NOT NULL,     -- a [channel.NAME] of the rules file
    kind             TEXT NOT NULL,     -- 'rule', 'low_balance', 'recurring_changed', 'held', 'health', 'test', ...
    title            TEXT NOT NULL,
    message          TEXT NOT NULL,
    payload          TEXT NOT NULL,     -- JSON: the generic webhook's body
    created_at       TEXT NOT NULL,
    not_before       TEXT NOT NULL DEFAULT '', -- held back until then (quiet hours, backoff)
    attempts         INTEGER NOT NULL DEFAULT 0,
    sent_at          TEXT,
    failed_at        TEXT,              -- given up
    error            TEXT,
    UNIQUE (alert_key, channel)
) STRICT;

CREATE INDEX IF NOT EXISTS alert_outbox_due ON alert_outbox (not_before) WHERE sent_at IS NULL AND failed_at IS NULL;
