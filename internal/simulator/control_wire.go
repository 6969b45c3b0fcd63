package simulator

import (
	"encoding/json"
	"fmt"
	"time"
)

// JSON shapes of the control API (see control_http.go and
// control-openapi.yaml). Durations are Go duration strings ("1.5s").

// jsonDuration is a time.Duration written as a Go duration string.
type jsonDuration time.Duration

func (d jsonDuration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"1.5s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = jsonDuration(v)
	return nil
}

// moneyJSON is a MoneyObject; value is written, never read.
type moneyJSON struct {
	CurrencyCode     string `json:"currencyCode"`
	Value            string `json:"value,omitempty"`
	ValueInBaseUnits int64  `json:"valueInBaseUnits"`
}

func toMoneyJSON(m Money) moneyJSON {
	return moneyJSON{CurrencyCode: m.CurrencyCode, Value: m.Value(), ValueInBaseUnits: m.ValueInBaseUnits}
}

// money converts to Money, AUD when no currency is given.
func (m moneyJSON) money() Money {
	if m.CurrencyCode == "" {
		m.CurrencyCode = "AUD"
	}
	return Money{CurrencyCode: m.CurrencyCode, ValueInBaseUnits: m.ValueInBaseUnits}
}

func (m *moneyJSON) moneyPtr() *Money {
	if m == nil {
		return nil
	}
	v := m.money()
	return &v
}

// newTransactionJSON is the body of POST /_sim/transactions.
type newTransactionJSON struct {
	AccountID          string     `json:"accountId"`
	Description        string     `json:"description"`
	AmountBaseUnits    int64      `json:"amountBaseUnits"`
	Held               bool       `json:"held"`
	CategoryID         string     `json:"categoryId"`
	Tags               []string   `json:"tags"`
	Foreign            bool       `json:"foreign"`
	CreatedAt          *time.Time `json:"createdAt"`
	ForeignAmount      *moneyJSON `json:"foreignAmount"`
	RawText            *string    `json:"rawText"`
	Message            *string    `json:"message"`
	Note               *string    `json:"note"`
	TransactionType    *string    `json:"transactionType"`
	PerformingCustomer *string    `json:"performingCustomer"`
	CardPurchaseMethod *struct {
		Method           string  `json:"method"`
		CardNumberSuffix *string `json:"cardNumberSuffix"`
	} `json:"cardPurchaseMethod"`
	RoundUp *struct {
		Amount       moneyJSON  `json:"amount"`
		BoostPortion *moneyJSON `json:"boostPortion"`
	} `json:"roundUp"`
	Cashback *struct {
		Description string    `json:"description"`
		Amount      moneyJSON `json:"amount"`
	} `json:"cashback"`
	Attachment        string `json:"attachment"`
	NotCategorizable  bool   `json:"notCategorizable"`
	TransferAccountID string `json:"transferAccountId"`
	Person            string `json:"person"`
}

func (in newTransactionJSON) toGo() NewTransaction {
	nt := NewTransaction{
		AccountID: in.AccountID, Description: in.Description, AmountBaseUnits: in.AmountBaseUnits, Held: in.Held,
		CategoryID: in.CategoryID, Tags: in.Tags, Foreign: in.Foreign, ForeignAmount: in.ForeignAmount.moneyPtr(),
		RawText: in.RawText, Message: in.Message, Note: in.Note, TransactionType: in.TransactionType,
		PerformingCustomer: in.PerformingCustomer, Attachment: in.Attachment,
		NotCategorizable: in.NotCategorizable, TransferAccountID: in.TransferAccountID, Person: in.Person,
	}
	if in.CreatedAt != nil {
		nt.CreatedAt = *in.CreatedAt
	}
	if c := in.CardPurchaseMethod; c != nil {
		nt.CardPurchaseMethod = &CardPurchaseMethod{Method: c.Method, CardNumberSuffix: c.CardNumberSuffix}
	}
	if r := in.RoundUp; r != nil {
		nt.RoundUp = &RoundUp{Amount: r.Amount.money(), BoostPortion: r.BoostPortion.moneyPtr()}
	}
	if c := in.Cashback; c != nil {
		nt.Cashback = &Cashback{Description: c.Description, Amount: c.Amount.money()}
	}
	return nt
}

// faultsJSON is Faults.
type faultsJSON struct {
	ErrorRate      float64            `json:"errorRate"`
	StatusRates    map[string]float64 `json:"statusRates"`
	RateLimitBurst int                `json:"rateLimitBurst"`
	RetryAfter     jsonDuration       `json:"retryAfter"`
	Latency        jsonDuration       `json:"latency"`
}

// rateLimitJSON is RateLimit.
type rateLimitJSON struct {
	Limit      int          `json:"limit"`
	Bucket     jsonDuration `json:"bucket"`
	Offset     jsonDuration `json:"offset"`
	RetryAfter bool         `json:"retryAfter"`
}

// webhookFaultsJSON is WebhookFaults.
type webhookFaultsJSON struct {
	Duplicate        float64 `json:"duplicate"`
	DuplicateCopies  int     `json:"duplicateCopies"`
	Reorder          bool    `json:"reorder"`
	DeliverInReverse bool    `json:"deliverInReverse"`
	Paused           bool    `json:"paused"`
	Drop             float64 `json:"drop"`
}

// webhookRetryJSON is WebhookRetry.
type webhookRetryJSON struct {
	Base     jsonDuration `json:"base"`
	Max      jsonDuration `json:"max"`
	Attempts int          `json:"attempts"`
	Timeout  jsonDuration `json:"timeout"`
}

// clockJSON is the bank's clock.
type clockJSON struct {
	Now    time.Time `json:"now"`
	Frozen bool      `json:"frozen"`
}

// accountJSON is an account with its opening balance.
type accountJSON struct {
	People         []string  `json:"people"`
	ID             string    `json:"id"`
	DisplayName    string    `json:"displayName"`
	AccountType    string    `json:"accountType"`
	OwnershipType  string    `json:"ownershipType"`
	Balance        moneyJSON `json:"balance"`
	OpeningBalance moneyJSON `json:"openingBalance"`
	CreatedAt      time.Time `json:"createdAt"`
}

// webhookJSON is a live webhook with its secret.
type webhookJSON struct {
	Person      string    `json:"person"`
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	Description *string   `json:"description"`
	SecretKey   string    `json:"secretKey"`
	CreatedAt   time.Time `json:"createdAt"`
}

// eventJSON is an emitted event.
type eventJSON struct {
	Person        string    `json:"person"`
	ID            string    `json:"id"`
	Type          string    `json:"eventType"`
	TransactionID string    `json:"transactionId,omitempty"`
	WebhookID     string    `json:"webhookId"`
	CreatedAt     time.Time `json:"createdAt"`
	Body          string    `json:"body"`
	Dropped       bool      `json:"dropped"`
}

// deliveryJSON is one delivery attempt.
type deliveryJSON struct {
	ID             string            `json:"id"`
	WebhookID      string            `json:"webhookId"`
	EventID        string            `json:"eventId"`
	EventType      string            `json:"eventType"`
	Attempt        int               `json:"attempt"`
	Duplicate      bool              `json:"duplicate"`
	RequestBody    string            `json:"requestBody"`
	Response       *DeliveryResponse `json:"response"`
	DeliveryStatus string            `json:"deliveryStatus"`
	CreatedAt      time.Time         `json:"createdAt"`
}

// liveJSON is the interval of the background changes; "0s" = stopped.
type liveJSON struct {
	Every jsonDuration `json:"every"`
}
