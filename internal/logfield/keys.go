package logfield

// Keys of the log's fields, for every package: a field has the same name
// wherever it is written, so that one query of the log (jq, journalctl's
// JSON) finds it in every line. A zerolog call takes its key from here,
// never from a string literal (TestLogKeysAreNamedHere checks the module).
// Ids that come from the bank are written shortened (bank.LogID).

// Who wrote a line.
const (
	// Component is the part of the daemon: "receiver", "worker", "sync",
	// "schedule", "healer", "bank", "health", "receipts", "webhooks",
	// "writeback", "export-feed" or "ui".
	Component = "component"
)

// What a line is about.
const (
	// EventID is a webhook event's id.
	EventID = "event_id"
	// EventType is a webhook event's type (TRANSACTION_CREATED, ...).
	EventType = "event_type"
	// BodyEventID is the id of the event a delivery log's body holds, when
	// it is not the one the log names.
	BodyEventID = "body_event_id"
	// TransactionID is a transaction's id.
	TransactionID = "transaction_id"
	// WebhookID is a webhook's id.
	WebhookID = "webhook_id"
	// Person is a person of the household (their token's name).
	Person = "person"
	// AccountID is a bank account's id.
	AccountID = "account_id"
	// People counts the people of a household.
	People = "people"
	// Accounts counts accounts.
	Accounts = "accounts"
	// Listing is the name of a listing's checkpoint (sync_state.name).
	Listing = "listing"
	// DeliveryLogID is a webhook delivery log's id.
	DeliveryLogID = "log_id"
	// AttachmentID is an attachment's (a receipt's) id.
	AttachmentID = "attachment_id"
	// RunID is a sync run's id (sync_runs.id).
	RunID = "run_id"
	// Kind is a sync run's kind, as in sync_runs.kind.
	Kind = "kind"
	// Full says whether a sync is a full one.
	Full = "full"
	// Change is what applying an event changed in the mirror.
	Change = "change"
	// Op is a write-back operation ("categorize", "tag add", "tag remove").
	Op = "op"
	// Lane is a lane of the bank's request budget.
	Lane = "lane"
	// Feed is a feed's name (the feeds file's [[feed]] name).
	Feed = "feed"
	// AppAccount is an account's id in a feed's app.
	AppAccount = "app_account"
	// NextAttemptAt is when a failed thing is tried again.
	NextAttemptAt = "next_attempt_at"
	// Created and Updated count rows a feed wrote to its app (Deleted
	// those it removed).
	Created = "created"
	Updated = "updated"
)

// Requests and their answers.
const (
	// Request names a request to the bank.
	Request = "request"
	// Status is an HTTP status, or a write-back's outcome.
	Status = "status"
	// Reason is why something was refused or held back.
	Reason = "reason"
	// Client is the address a request came from.
	Client = "client"
	// Page is the dashboard page (its URL path) a line is about.
	Page = "page"
	// Attempt is which attempt of a request or an operation failed.
	Attempt = "attempt"
	// Attempts is how many times an event was tried.
	Attempts = "attempts"
	// RetryAfter is the bank's Retry-After header, as sent.
	RetryAfter = "retry_after"
	// Remaining is the requests the bank's budget has left.
	Remaining = "remaining"
	// BudgetRemaining is the requests the bank's budget has left, beside a
	// sync's progress.
	BudgetRemaining = "budget_remaining"
)

// Where the daemon listens and writes.
const (
	// Listen is the public (webhook) listener's address.
	Listen = "listen"
	// AdminListen is the admin listener's address.
	AdminListen = "admin_listen"
	// UIListen is the dashboard's address (serve's BANKMIRROR_UI_LISTEN).
	UIListen = "ui_listen"
	// WebhookPath is the webhook's path on the public listener.
	WebhookPath = "webhook_path"
	// Path is a file's path.
	Path = "path"
	// Bytes is a file's size.
	Bytes = "bytes"
	// FromVersion and ToVersion are the schema versions of a migration.
	FromVersion = "from_version"
	ToVersion   = "to_version"
	// View and Format are an export's view and file format.
	View   = "view"
	Format = "format"
)

// Counts.
const (
	// Batch is how many events one commit carried.
	Batch = "batch"
	// Inserted is how many of them were new.
	Inserted = "inserted"
	// Refused is an object of refused requests' counts by reason.
	Refused = "refused"
	// Total is the sum of those counts.
	Total = "total"
	// Rows is how many rows an export wrote.
	Rows = "rows"
	// Events is how many webhook events (applied, pruned).
	Events = "events"
	// Transactions is how many transactions (fetched, listed).
	Transactions = "transactions"
	// Requests is how many requests a sync made to the bank.
	Requests = "requests"
	// Upserted and Deleted are the transactions a sync or a round of
	// events wrote and removed.
	Upserted = "upserted"
	Deleted  = "deleted"
	// Listed is how many transactions a sync listed, or whether a round of
	// events fetched its transactions by listing (true) or one by one.
	Listed = "listed"
	// Pages is how many pages were fetched; PagesDone how many an
	// interrupted listing had when it resumed.
	Pages     = "pages"
	PagesDone = "pages_done"
	// PerSecond is a rate, in transactions per second.
	PerSecond = "per_second"
	// Webhooks, LogsSeen, LogsNew and Recovered count a heal's work: the
	// webhooks walked, the delivery logs read and new, the events taken
	// into the inbox.
	Webhooks  = "webhooks"
	LogsSeen  = "logs_seen"
	LogsNew   = "logs_new"
	Recovered = "recovered"
	// FullWalk says whether a heal walked a webhook's whole delivery log.
	FullWalk = "full_walk"
	// DeliveryLogs is how many delivery logs were pruned.
	DeliveryLogs = "delivery_logs"
	// Saved and Failed count the receipts downloaded and not.
	Saved  = "saved"
	Failed = "failed"
)

// Times, written as RFC 3339 timestamps; durations are in logfield.go.
const (
	// Interval is how often refusals are summarised, as a duration string
	// ("1m0s").
	Interval = "interval"
	// Until is when a lane of the budget opens again.
	Until = "until"
	// After and By bound when the bank's budget renewed; ExpectedBy is
	// when it was expected to.
	After      = "after"
	By         = "by"
	ExpectedBy = "expected_by"
	// RetryAt is when a failed event is tried again.
	RetryAt = "retry_at"
	// RejectedAt is when the bank rejected the token.
	RejectedAt = "rejected_at"

	// Rule is a rule's name in the rules file; Rules how many there are.
	Rule  = "rule"
	Rules = "rules"
	// Feeds counts the feeds of the feeds file.
	Feeds = "feeds"
	// Applications is how many actions rules took in a batch.
	Applications = "applications"
	// Channel is an alert channel's name in the rules file.
	Channel = "channel"
)
