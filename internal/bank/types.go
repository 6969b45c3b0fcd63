package bank

import (
	"encoding/json"
	"time"
)

// The types below mirror the resources of the bank API (spec: "Resources and
// their fields"). Nullable fields are pointers; unknown fields are ignored by
// the decoder. Every resource keeps the exact JSON it was decoded from in Raw.

// Money is the spec's MoneyObject.
type Money struct {
	CurrencyCode     string `json:"currencyCode"`
	Value            string `json:"value"`
	ValueInBaseUnits int64  `json:"valueInBaseUnits"`
}

// Identifier is a JSON:API resource identifier.
type Identifier struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// Account is an AccountResource.
type Account struct {
	ID            string
	DisplayName   string
	AccountType   string // SAVER, TRANSACTIONAL, HOME_LOAN
	OwnershipType string // INDIVIDUAL, JOINT
	Balance       Money
	CreatedAt     string // RFC 3339, as sent
	Raw           json.RawMessage
}

// Category is a CategoryResource.
type Category struct {
	ID       string
	Name     string
	ParentID *string // nil for a top-level category
	Children []string
	Raw      json.RawMessage
}

// Tag is a TagResource; the label is the identifier.
type Tag struct {
	ID  string
	Raw json.RawMessage
}

// HoldInfo is the spec's HoldInfoObject.
type HoldInfo struct {
	Amount        Money  `json:"amount"`
	ForeignAmount *Money `json:"foreignAmount"`
}

// RoundUp is the spec's RoundUpObject.
type RoundUp struct {
	Amount       Money  `json:"amount"`
	BoostPortion *Money `json:"boostPortion"`
}

// Cashback is the spec's CashbackObject.
type Cashback struct {
	Description string `json:"description"`
	Amount      Money  `json:"amount"`
}

// CardPurchaseMethod is the spec's CardPurchaseMethodObject.
type CardPurchaseMethod struct {
	Method           string  `json:"method"`
	CardNumberSuffix *string `json:"cardNumberSuffix"`
}

// Transaction is a TransactionResource.
type Transaction struct {
	ID                 string
	Status             string // HELD, SETTLED
	RawText            *string
	Description        string
	Message            *string
	IsCategorizable    bool
	HoldInfo           *HoldInfo
	RoundUp            *RoundUp
	Cashback           *Cashback
	Amount             Money
	ForeignAmount      *Money
	CardPurchaseMethod *CardPurchaseMethod
	SettledAt          *string
	CreatedAt          string
	TransactionType    *string
	Note               *string // NoteObject.text
	PerformingCustomer *string // CustomerObject.displayName
	DeepLinkURL        string

	AccountID         string
	TransferAccountID *string
	CategoryID        *string
	ParentCategoryID  *string
	TagIDs            []string
	AttachmentID      *string

	Raw json.RawMessage
	// FetchedAt is when the request whose answer carried this transaction
	// was sent (zero when it was parsed on its own): the bank's state in it
	// is no older. The mirror uses it to never let an older copy overwrite
	// a newer one; a slow answer (a big page) is dated by when it was asked
	// for, not when it arrived.
	FetchedAt time.Time
}

// Attachment is an AttachmentResource.
type Attachment struct {
	ID               string
	CreatedAt        *string
	FileURL          *string
	FileURLExpiresAt string
	FileExtension    *string
	FileContentType  *string
	TransactionID    string
	Raw              json.RawMessage
}

// Webhook is a WebhookResource. SecretKey is set only in the response that
// creates the webhook.
type Webhook struct {
	ID          string
	URL         string
	Description *string
	SecretKey   string
	CreatedAt   string
	Raw         json.RawMessage
}

// WebhookEvent is a WebhookEventResource.
type WebhookEvent struct {
	ID            string
	EventType     string // TRANSACTION_CREATED, TRANSACTION_SETTLED, TRANSACTION_DELETED, PING
	CreatedAt     string
	WebhookID     string
	TransactionID string // empty for PING
	Raw           json.RawMessage
}

// DeliveryLog is a WebhookDeliveryLogResource.
type DeliveryLog struct {
	ID             string
	RequestBody    string
	StatusCode     *int    // nil when no response was received
	ResponseBody   *string // nil when no response was received
	DeliveryStatus string  // DELIVERED, UNDELIVERABLE, BAD_RESPONSE_CODE
	CreatedAt      string
	EventID        string
	Raw            json.RawMessage
}

// Ping is the result of GET /util/ping.
type Ping struct {
	ID          string
	StatusEmoji string
}

// Page is one page of a paginated list. Next and Prev are the absolute URLs
// the server gave, or "" when the link was null or absent.
type Page[T any] struct {
	Data []T
	Next string
	Prev string
}
