package bank

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseTransactionAllSet(t *testing.T) {
	data := fixture(t, "transaction_all_set.json", "")
	got, err := ParseTransaction(data)
	if err != nil {
		t.Fatal(err)
	}
	want := Transaction{
		ID:              "20f1a541-356b-4363-aeba-18e21661b8e5",
		Status:          "SETTLED",
		RawText:         new("WARUNG BEBEK, UBUD INDONES"),
		Description:     "Warung Bebek Bengil",
		Message:         new("Dinner with Sam"),
		IsCategorizable: true,
		HoldInfo: &HoldInfo{
			Amount:        Money{"AUD", "-107.92", -10792},
			ForeignAmount: &Money{"IDR", "-1053698.77", -105369877},
		},
		RoundUp: &RoundUp{
			Amount:       Money{"AUD", "-0.08", -8},
			BoostPortion: &Money{"AUD", "-0.05", -5},
		},
		Cashback:           &Cashback{Description: "Cashback for Warung Bebek", Amount: Money{"AUD", "2.00", 200}},
		Amount:             Money{"AUD", "-107.92", -10792},
		ForeignAmount:      &Money{"IDR", "-1053698.77", -105369877},
		CardPurchaseMethod: &CardPurchaseMethod{Method: "CARD_ON_FILE", CardNumberSuffix: new("0001")},
		SettledAt:          new("2024-08-03T04:00:00+10:00"),
		CreatedAt:          "2024-08-03T04:00:00+10:00",
		TransactionType:    new("Purchase"),
		Note:               new("birthday dinner"),
		PerformingCustomer: new("Bobby"),
		DeepLinkURL:        "up://transaction/20f1a541-356b-4363-aeba-18e21661b8e5",
		AccountID:          "20388753-0ba8-46ab-92f8-d186a9b3e2a8",
		TransferAccountID:  new("e647dd54-4d10-41d0-8071-21eb0a3f6214"),
		CategoryID:         new("restaurants-and-cafes"),
		ParentCategoryID:   new("good-life"),
		TagIDs:             []string{"Holiday", "Pizza Night"},
		AttachmentID:       new("23bc06a0-cff4-40ae-bcb3-463fac19b5b0"),
		Raw:                data,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// Raw is a copy: changing the input leaves it alone.
	data[0] = 'X'
	if got.Raw[0] != '{' {
		t.Error("Raw shares the caller's buffer")
	}
}

func TestParseTransactionAllNull(t *testing.T) {
	data := fixture(t, "transaction_all_null.json", "")
	got, err := ParseTransaction(data)
	if err != nil {
		t.Fatal(err)
	}
	want := Transaction{
		ID:          "7d1b4f3e-3c2a-4b8e-9f21-0c6a5e1d2b77",
		Status:      "HELD",
		Description: "Coffee Corner",
		Amount:      Money{"AUD", "-4.50", -450},
		CreatedAt:   "2024-08-03T04:00:00+10:00",
		DeepLinkURL: "up://transaction/7d1b4f3e-3c2a-4b8e-9f21-0c6a5e1d2b77",
		AccountID:   "20388753-0ba8-46ab-92f8-d186a9b3e2a8",
		Raw:         data,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestParseTransactionErrors(t *testing.T) {
	valid := string(fixture(t, "transaction_all_null.json", ""))
	tests := []struct {
		name, data, want string
	}{
		{"not json", `{"id":`, "decode transaction"},
		{"array", `[]`, `decode transaction ".": got json array, want object`},
		{"null", `null`, `decode transaction "id": missing`},
		{"no id", strings.Replace(valid, `"id": "7d1b4f3e-3c2a-4b8e-9f21-0c6a5e1d2b77"`, `"x": 1`, 1), `decode transaction "id": missing`},
		{"id number", strings.Replace(valid, `"id": "7d1b4f3e-3c2a-4b8e-9f21-0c6a5e1d2b77"`, `"id": 7`, 1), `decode transaction "id": got json number, want string`},
		{"wrong type", strings.Replace(valid, `"type": "transactions"`, `"type": "accounts"`, 1), `decode transaction "type": got "accounts", want "transactions"`},
		{"status bool", strings.Replace(valid, `"status": "HELD"`, `"status": true`, 1), `decode transaction "attributes.status": got json bool, want string`},
		{"no status", strings.Replace(valid, `"status": "HELD"`, `"status": null`, 1), `decode transaction "attributes.status": missing`},
		{"amount string", strings.Replace(valid, `"valueInBaseUnits": -450`, `"valueInBaseUnits": "-450"`, 1), `decode transaction "attributes.amount.valueInBaseUnits": got json string, want integer`},
		{"no amount", strings.Replace(valid, `"amount": {`, `"amountX": {`, 1), `decode transaction "attributes.amount": missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseTransaction([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseWebhookEvent(t *testing.T) {
	tests := []struct {
		file, eventType, txID string
	}{
		{"webhook_event_created.json", EventTransactionCreated, "169c1684-45c7-41c1-95fa-97082b319e6c"},
		{"webhook_event_deleted.json", EventTransactionDeleted, "169c1684-45c7-41c1-95fa-97082b319e6c"},
		{"webhook_event_ping.json", EventPing, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body := fixture(t, tt.file, "")
			e, err := ParseWebhookEvent(body)
			if err != nil {
				t.Fatal(err)
			}
			if e.EventType != tt.eventType || e.TransactionID != tt.txID || e.ID == "" || e.WebhookID == "" || e.CreatedAt == "" {
				t.Errorf("got %+v", e)
			}
			var doc struct{ Data json.RawMessage }
			if err := json.Unmarshal(body, &doc); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(e.Raw, doc.Data) {
				t.Errorf("Raw = %s\nwant %s", e.Raw, doc.Data)
			}
		})
	}
}

func TestParseWebhookEventInvalid(t *testing.T) {
	created := string(fixture(t, "webhook_event_created.json", ""))
	ping := string(fixture(t, "webhook_event_ping.json", ""))
	tests := []struct{ name, body, want string }{
		{"not json", `nope`, "decode webhook event document"},
		{"no data", `{}`, `"data": missing`},
		{"data null", `{"data":null}`, `"data": missing`},
		{"data array", `{"data":[]}`, `"data": missing`},
		{"wrong type", strings.Replace(created, `"type":"webhook-events"`, `"type":"webhooks-events"`, 1), `"type": got "webhooks-events"`},
		{"empty id", strings.Replace(created, `"id":"011308c1-861c-4d04-ba85-f867eadf202d"`, `"id":""`, 1), `"id": missing`},
		{"not an event type", strings.Replace(created, `TRANSACTION_CREATED`, `transaction created!`, 1), `not an event type name`},
		{"no event type", strings.Replace(created, `"eventType":"TRANSACTION_CREATED",`, ``, 1), `"attributes.eventType": missing`},
		{"no webhook", strings.Replace(created, `"webhook":`, `"webhookX":`, 1), `"relationships.webhook.data.id": missing`},
		{"no transaction", strings.Replace(created, `"transaction":`, `"transactionX":`, 1), `"relationships.transaction.data.id": missing`},
		{"ping no webhook", strings.Replace(ping, `"webhook":`, `"hook":`, 1), `"relationships.webhook.data.id": missing`},
		{"trailing garbage", created + "}", "decode webhook event document"},
		{"id of 60,000 characters", strings.Replace(created, `"id":"011308c1-861c-4d04-ba85-f867eadf202d"`, `"id":"`+strings.Repeat("a", 60000)+`"`, 1),
			`"id": not an identifier of the bank`},
		{"id with NUL", strings.Replace(created, `"id":"011308c1-861c-4d04-ba85-f867eadf202d"`, `"id":"011308c1\u0000"`, 1),
			`"id": not an identifier of the bank`},
		{"id with a space", strings.Replace(created, `"id":"011308c1-861c-4d04-ba85-f867eadf202d"`, `"id":"011308c1 x"`, 1),
			`"id": not an identifier of the bank`},
		{"id of 65 characters", strings.Replace(created, `"id":"011308c1-861c-4d04-ba85-f867eadf202d"`, `"id":"`+strings.Repeat("9", 65)+`"`, 1),
			`"id": not an identifier of the bank`},
		{"webhook id with a newline", strings.Replace(created, `"id":"`+webhookIDOf(t, created)+`"`, `"id":"wh\n1"`, 1),
			`"relationships.webhook.data.id": not an identifier of the bank`},
		{"transaction id of 60,000 characters", strings.Replace(created, `"id":"`+transactionIDOf(t, created)+`"`, `"id":"`+strings.Repeat("t", 60000)+`"`, 1),
			`"relationships.transaction.data.id": not an identifier of the bank`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseWebhookEvent([]byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %.300v, want it to contain %q", err, tt.want)
			}
			if len(err.Error()) > 300 {
				t.Errorf("error of %d bytes: it must not quote what it refuses", len(err.Error()))
			}
		})
	}
}

// rawElements returns each element of a list document's data array as its
// exact bytes (encoding/json keeps RawMessage verbatim).
func rawElements(t *testing.T, doc []byte) []json.RawMessage {
	t.Helper()
	var d struct{ Data []json.RawMessage }
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	return d.Data
}

func TestDecodePageUnknownFieldsAndNoNext(t *testing.T) {
	for _, name := range []string{"transactions_unknown_fields.json", "transactions_no_next.json"} {
		t.Run(name, func(t *testing.T) {
			body := fixture(t, name, "http://x")
			p, err := decodePage(body, "transaction", parseTransaction)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Data) != 1 || p.Next != "" || p.Prev != "" {
				t.Fatalf("page = %+v", p)
			}
			if !bytes.Equal(p.Data[0].Raw, rawElements(t, body)[0]) {
				t.Error("Raw differs from the element's bytes")
			}
		})
	}
}

func TestDecodePageMissingData(t *testing.T) {
	_, err := decodePage([]byte(`{"links":{"next":null}}`), "transaction", parseTransaction)
	if err == nil || !strings.Contains(err.Error(), `decode transaction list "data": missing`) {
		t.Fatalf("err = %v", err)
	}
	_, err = decodePage([]byte(`{"data":{}}`), "transaction", parseTransaction)
	if err == nil || !strings.Contains(err.Error(), `decode transaction list "data": got json object, want array`) {
		t.Fatalf("err = %v", err)
	}
}

func TestRetryAfter(t *testing.T) {
	now := mustTime(t, "Wed, 21 Oct 2015 07:28:00 GMT")
	tests := []struct {
		in   string
		want int64 // seconds, -1 for not ok
	}{
		{"", -1}, {"0", 0}, {"7", 7}, {"-3", -1}, {"soon", -1},
		{"Wed, 21 Oct 2015 07:28:30 GMT", 30}, {"Wed, 21 Oct 2015 07:27:00 GMT", 0},
	}
	for _, tt := range tests {
		d, ok := retryAfter(tt.in, now)
		if tt.want < 0 {
			if ok {
				t.Errorf("retryAfter(%q) = %v, want not ok", tt.in, d)
			}
			continue
		}
		if !ok || int64(d.Seconds()) != tt.want {
			t.Errorf("retryAfter(%q) = %v %v, want %ds", tt.in, d, ok, tt.want)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	for n := 1; n < 70; n++ {
		if d := fullJitter(500, 30000, n); d < 0 || d > 30000 {
			t.Fatalf("fullJitter n=%d = %v", n, d)
		}
		want := Backoff(1000, 60000, n)
		if d := equalJitter(1000, 60000, n); d < want/2 || d > want {
			t.Fatalf("equalJitter n=%d = %v, want in [%v,%v]", n, d, want/2, want)
		}
	}
	if got := Backoff(500, 30000, 3); got != 2000 {
		t.Errorf("Backoff(500,30000,3) = %v", got)
	}
	if got := Backoff(500, 30000, 40); got != 30000 {
		t.Errorf("Backoff(500,30000,40) = %v", got)
	}
}

func TestErrorsUnwrap(t *testing.T) {
	for status, want := range map[int]error{400: ErrBadRequest, 401: ErrUnauthorized, 404: ErrNotFound, 422: ErrUnprocessable, 429: ErrRateLimited, 500: ErrServer, 503: ErrServer} {
		if err := newAPIError(status, []byte("<html>")); !errors.Is(err, want) {
			t.Errorf("status %d: not %v", status, want)
		}
	}
	if err := newAPIError(403, nil); err.Unwrap() != nil {
		t.Error("403 maps to a sentinel")
	}
}

// Event types added by the bank later are accepted, so they are stored and
// acknowledged rather than retried forever.
func TestParseWebhookEventAcceptsNewEventTypes(t *testing.T) {
	body := `{"data":{"type":"webhook-events","id":"e1","attributes":{"eventType":"TRANSACTION_EXPLODED","createdAt":"2024-01-01T00:00:00+10:00"},` +
		`"relationships":{"webhook":{"data":{"type":"webhooks","id":"w1"}}}}}`
	e, err := ParseWebhookEvent([]byte(body))
	if err != nil || e.EventType != "TRANSACTION_EXPLODED" || e.WebhookID != "w1" {
		t.Fatalf("got %+v, %v", e, err)
	}
}

// webhookIDOf and transactionIDOf read an event fixture's relationship ids.
func webhookIDOf(t *testing.T, body string) string {
	t.Helper()
	e, err := ParseWebhookEvent([]byte(body))
	if err != nil || e.WebhookID == "" {
		t.Fatalf("fixture: %+v, %v", e, err)
	}
	return e.WebhookID
}

func transactionIDOf(t *testing.T, body string) string {
	t.Helper()
	e, err := ParseWebhookEvent([]byte(body))
	if err != nil || e.TransactionID == "" {
		t.Fatalf("fixture: %+v, %v", e, err)
	}
	return e.TransactionID
}

// The bank's UUIDs and the short ids of tests and the simulator pass; the
// shape of anything else is refused.
func TestParseWebhookEventAcceptsTheBanksIDs(t *testing.T) {
	for _, id := range []string{"011308c1-861c-4d04-ba85-f867eadf202d", "ev-1", "e", "bench-3-17", "01HZX3J8Q5:evt_1.2",
		strings.Repeat("f", 64)} {
		body := `{"data":{"type":"webhook-events","id":"` + id + `","attributes":{"eventType":"TRANSACTION_CREATED","createdAt":"2024-01-01T00:00:00+10:00"},` +
			`"relationships":{"webhook":{"data":{"type":"webhooks","id":"` + id + `"}},"transaction":{"data":{"type":"transactions","id":"` + id + `"}}}}}`
		e, err := ParseWebhookEvent([]byte(body))
		if err != nil || e.ID != id || e.WebhookID != id || e.TransactionID != id {
			t.Errorf("%q: %+v, %v", id, e, err)
		}
	}
}

func TestLogIDBoundsWhatALogLineCarries(t *testing.T) {
	for _, id := range []string{"011308c1-861c-4d04-ba85-f867eadf202d", "ev-1", strings.Repeat("a", 100)} {
		if got := LogID(id); got != id {
			t.Errorf("LogID(%q) = %q, want it unchanged", id, got)
		}
	}
	for _, tc := range []struct{ id, want string }{
		{strings.Repeat("a", 60000), strings.Repeat("a", 64) + "...(60000 bytes)"},
		{"ev\x00-1", "ev?-1...(5 bytes)"},
		{strings.Repeat("\x00", 60000), strings.Repeat("?", 64) + "...(60000 bytes)"},
		{"a\"b", "a?b...(3 bytes)"},
	} {
		if got := LogID(tc.id); got != tc.want {
			t.Errorf("LogID(%.20q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}
