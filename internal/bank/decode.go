package bank

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	gojson "github.com/goccy/go-json"
)

// Decoding goes through small wire structs with goccy/go-json. Nullable
// fields are pointers and unknown fields are ignored. A resource keeps its
// exact bytes in Raw; when Raw is a copy owned by the decoder, strings are
// decoded without copying (they share Raw's memory), so Raw must not be
// modified by callers.

// ident is a relationship's data: a resource identifier or null.
type ident struct {
	Data *Identifier `json:"data"`
}

func (r ident) id() *string {
	if r.Data == nil {
		return nil
	}
	return &r.Data.ID
}

// idents is a to-many relationship's data.
type idents struct {
	Data []Identifier `json:"data"`
}

// listDoc is a list document: data elements kept raw, plus pagination links.
type listDoc struct {
	Data  []json.RawMessage `json:"data"`
	Links struct {
		Prev *string `json:"prev"`
		Next *string `json:"next"`
	} `json:"links"`
}

// singleDoc is a document holding one resource.
type singleDoc struct {
	Data json.RawMessage `json:"data"`
}

// decodePage decodes a list document; parse gets each element's bytes, a
// copy it may keep. An absent links.next counts as null.
func decodePage[T any](body []byte, kind string, parse func([]byte, bool) (T, error)) (Page[T], error) {
	var doc listDoc
	if err := gojson.Unmarshal(body, &doc); err != nil {
		return Page[T]{}, decodeError(kind+" list", err)
	}
	if doc.Data == nil {
		return Page[T]{}, fmt.Errorf("decode %s list %q: missing", kind, "data")
	}
	p := Page[T]{Data: make([]T, 0, len(doc.Data))}
	for i, raw := range doc.Data {
		v, err := parse(raw, true)
		if err != nil {
			return Page[T]{}, fmt.Errorf("element %d: %w", i, err)
		}
		p.Data = append(p.Data, v)
	}
	if doc.Links.Next != nil {
		p.Next = *doc.Links.Next
	}
	if doc.Links.Prev != nil {
		p.Prev = *doc.Links.Prev
	}
	return p, nil
}

// decodeSingle decodes a document holding one resource.
func decodeSingle[T any](body []byte, kind string, parse func([]byte, bool) (T, error)) (T, error) {
	var doc singleDoc
	if err := gojson.Unmarshal(body, &doc); err != nil {
		var zero T
		return zero, decodeError(kind+" document", err)
	}
	if len(doc.Data) == 0 || bytes.Equal(doc.Data, []byte("null")) {
		var zero T
		return zero, fmt.Errorf("decode %s document %q: missing", kind, "data")
	}
	return parse(doc.Data, true)
}

// unmarshalOwned decodes raw into v. owned says raw is the decoder's own copy,
// so strings may point into it instead of being copied.
func unmarshalOwned(raw []byte, v any, owned bool) error {
	if owned {
		return gojson.UnmarshalWithOption(raw, v, gojson.DecodeNoCopyString())
	}
	return gojson.Unmarshal(raw, v)
}

// keep returns raw for Raw: raw itself when owned, else a copy.
func keep(raw []byte, owned bool) json.RawMessage {
	if owned {
		return raw
	}
	return bytes.Clone(raw)
}

// decodeError turns a decoder error into `decode <kind> "<field>": ...`.
func decodeError(kind string, err error) error {
	var te *gojson.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "."
		}
		return fmt.Errorf("decode %s %q: got json %s, want %s: %w", kind, field, te.Value, jsonKind(te.Type), errWrongType)
	}
	return fmt.Errorf("decode %s: %w", kind, err)
}

var errWrongType = errors.New("wrong type")

func jsonKind(t reflect.Type) string {
	if t == nil {
		return "value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return t.String()
}

// missing is the error for an absent or empty required field.
func missing(kind, field string) error {
	return fmt.Errorf("decode %s %q: %w", kind, field, errMissing)
}

var errMissing = errors.New("missing required field")

// checkResource validates the type and id every resource carries.
func checkResource(kind, wantType, gotType string, id *string) error {
	if id == nil || *id == "" {
		return missing(kind, "id")
	}
	if gotType != wantType {
		return fmt.Errorf("decode %s %q: got %q, want %q", kind, "type", gotType, wantType)
	}
	return nil
}

// --- transactions -------------------------------------------------------

type txWire struct {
	Type       string  `json:"type"`
	ID         *string `json:"id"`
	Attributes struct {
		Status             string              `json:"status"`
		RawText            *string             `json:"rawText"`
		Description        string              `json:"description"`
		Message            *string             `json:"message"`
		IsCategorizable    bool                `json:"isCategorizable"`
		HoldInfo           *HoldInfo           `json:"holdInfo"`
		RoundUp            *RoundUp            `json:"roundUp"`
		Cashback           *Cashback           `json:"cashback"`
		Amount             *Money              `json:"amount"`
		ForeignAmount      *Money              `json:"foreignAmount"`
		CardPurchaseMethod *CardPurchaseMethod `json:"cardPurchaseMethod"`
		SettledAt          *string             `json:"settledAt"`
		CreatedAt          string              `json:"createdAt"`
		TransactionType    *string             `json:"transactionType"`
		Note               *struct {
			Text string `json:"text"`
		} `json:"note"`
		PerformingCustomer *struct {
			DisplayName string `json:"displayName"`
		} `json:"performingCustomer"`
		DeepLinkURL string `json:"deepLinkURL"`
	} `json:"attributes"`
	Relationships struct {
		Account         ident  `json:"account"`
		TransferAccount ident  `json:"transferAccount"`
		Category        ident  `json:"category"`
		ParentCategory  ident  `json:"parentCategory"`
		Tags            idents `json:"tags"`
		Attachment      ident  `json:"attachment"`
	} `json:"relationships"`
}

// ParseTransaction decodes one TransactionResource object (the value of
// `data`, not the document). Raw is a copy of data.
func ParseTransaction(data []byte) (Transaction, error) {
	return parseTransaction(data, false)
}

func parseTransaction(raw []byte, owned bool) (Transaction, error) {
	const kind = "transaction"
	var w txWire
	if err := unmarshalOwned(raw, &w, owned); err != nil {
		return Transaction{}, decodeError(kind, err)
	}
	if err := checkResource(kind, "transactions", w.Type, w.ID); err != nil {
		return Transaction{}, err
	}
	a, r := &w.Attributes, &w.Relationships
	switch {
	case a.Status == "":
		return Transaction{}, missing(kind, "attributes.status")
	case a.Amount == nil:
		return Transaction{}, missing(kind, "attributes.amount")
	case a.CreatedAt == "":
		return Transaction{}, missing(kind, "attributes.createdAt")
	case r.Account.Data == nil || r.Account.Data.ID == "":
		return Transaction{}, missing(kind, "relationships.account.data.id")
	}
	t := Transaction{
		ID:                 *w.ID,
		Status:             a.Status,
		RawText:            a.RawText,
		Description:        a.Description,
		Message:            a.Message,
		IsCategorizable:    a.IsCategorizable,
		HoldInfo:           a.HoldInfo,
		RoundUp:            a.RoundUp,
		Cashback:           a.Cashback,
		Amount:             *a.Amount,
		ForeignAmount:      a.ForeignAmount,
		CardPurchaseMethod: a.CardPurchaseMethod,
		SettledAt:          a.SettledAt,
		CreatedAt:          a.CreatedAt,
		TransactionType:    a.TransactionType,
		DeepLinkURL:        a.DeepLinkURL,
		AccountID:          r.Account.Data.ID,
		TransferAccountID:  r.TransferAccount.id(),
		CategoryID:         r.Category.id(),
		ParentCategoryID:   r.ParentCategory.id(),
		AttachmentID:       r.Attachment.id(),
		Raw:                keep(raw, owned),
	}
	if a.Note != nil {
		t.Note = &a.Note.Text
	}
	if a.PerformingCustomer != nil {
		t.PerformingCustomer = &a.PerformingCustomer.DisplayName
	}
	if len(r.Tags.Data) > 0 {
		t.TagIDs = make([]string, len(r.Tags.Data))
		for i, id := range r.Tags.Data {
			t.TagIDs[i] = id.ID
		}
	}
	return t, nil
}

// --- webhook events ----------------------------------------------------

type eventWire struct {
	Type       string  `json:"type"`
	ID         *string `json:"id"`
	Attributes struct {
		EventType string `json:"eventType"`
		CreatedAt string `json:"createdAt"`
	} `json:"attributes"`
	Relationships struct {
		Webhook     *ident `json:"webhook"`
		Transaction *ident `json:"transaction"`
	} `json:"relationships"`
}

// Webhook event types.
const (
	EventTransactionCreated = "TRANSACTION_CREATED"
	EventTransactionSettled = "TRANSACTION_SETTLED"
	EventTransactionDeleted = "TRANSACTION_DELETED"
	EventPing               = "PING"
)

// ParseWebhookEvent decodes and validates a webhook callback body
// ({"data": WebhookEventResource}). Raw is a copy of the `data` object.
func ParseWebhookEvent(body []byte) (WebhookEvent, error) {
	var doc singleDoc
	if err := gojson.Unmarshal(body, &doc); err != nil {
		return WebhookEvent{}, decodeError("webhook event document", err)
	}
	if len(doc.Data) == 0 || doc.Data[0] != '{' {
		return WebhookEvent{}, missing("webhook event document", "data")
	}
	return parseWebhookEvent(doc.Data, true)
}

// WebhookOf returns the webhook a callback body names
// (data.relationships.webhook.data.id), "" when it names none or not in
// the bank's shape. Unlike ParseWebhookEvent it checks nothing else: the
// receiver picks by it the secret a body's signature must verify under,
// even for a body ParseWebhookEvent refuses.
func WebhookOf(body []byte) string {
	var doc struct {
		Data struct {
			Relationships struct {
				Webhook *ident `json:"webhook"`
			} `json:"relationships"`
		} `json:"data"`
	}
	if err := gojson.Unmarshal(body, &doc); err != nil {
		return ""
	}
	wh := doc.Data.Relationships.Webhook
	if wh == nil || wh.Data == nil || !validID(wh.Data.ID) {
		return ""
	}
	return wh.Data.ID
}

func parseWebhookEvent(raw []byte, owned bool) (WebhookEvent, error) {
	const kind = "webhook event"
	var w eventWire
	if err := unmarshalOwned(raw, &w, owned); err != nil {
		return WebhookEvent{}, decodeError(kind, err)
	}
	if err := checkResource(kind, "webhook-events", w.Type, w.ID); err != nil {
		return WebhookEvent{}, err
	}
	// Identifiers go into keys, URLs and log lines: one that is not the
	// bank's shape (60,000 characters, a NUL) is refused here.
	if !validID(*w.ID) {
		return WebhookEvent{}, badID(kind, "id", *w.ID)
	}
	e := WebhookEvent{
		ID:        *w.ID,
		EventType: w.Attributes.EventType,
		CreatedAt: w.Attributes.CreatedAt,
	}
	// Event types the bank adds later are accepted (the spec: clients must
	// tolerate extensions) and the worker records and skips them; a value
	// that cannot be an event type name is not.
	if e.EventType == "" {
		return WebhookEvent{}, missing(kind, "attributes.eventType")
	}
	if !validEventType(e.EventType) {
		return WebhookEvent{}, fmt.Errorf("decode %s %q: not an event type name", kind, "attributes.eventType")
	}
	wh := w.Relationships.Webhook
	if wh == nil || wh.Data == nil || wh.Data.ID == "" {
		return WebhookEvent{}, missing(kind, "relationships.webhook.data.id")
	}
	if !validID(wh.Data.ID) {
		return WebhookEvent{}, badID(kind, "relationships.webhook.data.id", wh.Data.ID)
	}
	e.WebhookID = wh.Data.ID
	if tx := w.Relationships.Transaction; tx != nil && tx.Data != nil && tx.Data.ID != "" {
		if !validID(tx.Data.ID) {
			return WebhookEvent{}, badID(kind, "relationships.transaction.data.id", tx.Data.ID)
		}
		e.TransactionID = tx.Data.ID
	}
	transactional := e.EventType == EventTransactionCreated || e.EventType == EventTransactionSettled ||
		e.EventType == EventTransactionDeleted
	if transactional && e.TransactionID == "" {
		return WebhookEvent{}, missing(kind, "relationships.transaction.data.id")
	}
	e.Raw = keep(raw, owned)
	return e, nil
}

// validEventType reports whether s looks like an event type: upper-case
// letters, digits and underscores, at most 64 characters.
func validEventType(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, r := range s {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}
