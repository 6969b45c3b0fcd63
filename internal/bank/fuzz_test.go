package bank

import (
	"testing"
)

// The fuzz property: the parsers never panic, and a successful parse has a
// non-empty ID (and, for events, a known type and a webhook).

func FuzzParseTransaction(f *testing.F) {
	for _, name := range []string{"transaction_all_set.json", "transaction_all_null.json"} {
		f.Add(fixture(f, name, ""))
	}
	f.Add([]byte(`{"type":"transactions","id":"x","attributes":{"status":"HELD","amount":{"currencyCode":"AUD","value":"1","valueInBaseUnits":1},"createdAt":"t"},"relationships":{"account":{"data":{"type":"accounts","id":"a"}}}}`))
	f.Add([]byte(`{"type":"transactions","id":""}`))
	f.Add([]byte(`{"id":"\u0000","attributes":null}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tx, err := ParseTransaction(data)
		if err != nil {
			return
		}
		if tx.ID == "" || tx.AccountID == "" || tx.Status == "" {
			t.Fatalf("parsed without id, account or status: %+v", tx)
		}
		if string(tx.Raw) != string(data) {
			t.Fatal("Raw differs from the input")
		}
	})
}

func FuzzParseWebhookEvent(f *testing.F) {
	for _, name := range []string{"webhook_event_created.json", "webhook_event_deleted.json", "webhook_event_ping.json"} {
		f.Add(fixture(f, name, ""))
	}
	f.Add([]byte(`{"data":{"type":"webhook-events","id":"e","attributes":{"eventType":"PING"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"w"}}}}}`))
	f.Add([]byte(`{"data":{"type":"webhook-events","id":"e","attributes":{"eventType":"TRANSACTION_SETTLED"},"relationships":{"webhook":{"data":{"id":"w"}},"transaction":{"data":null}}}}`))
	f.Add([]byte(`{"data":null}`))
	f.Add([]byte(`{"data":"x"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		e, err := ParseWebhookEvent(body)
		if err != nil {
			return
		}
		if !validID(e.ID) || !validID(e.WebhookID) || (e.TransactionID != "" && !validID(e.TransactionID)) {
			t.Fatalf("parsed with an id not of the bank's shape: %+q", []string{e.ID, e.WebhookID, e.TransactionID})
		}
		switch e.EventType {
		case EventPing:
		case EventTransactionCreated, EventTransactionSettled, EventTransactionDeleted:
			if e.TransactionID == "" {
				t.Fatalf("transaction event without transaction: %+v", e)
			}
		default:
			if !validEventType(e.EventType) {
				t.Fatalf("malformed event type accepted: %+v", e)
			}
		}
		if len(e.Raw) == 0 || e.Raw[0] != '{' {
			t.Fatalf("Raw = %q", e.Raw)
		}
	})
}
