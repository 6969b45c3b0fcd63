package simulator

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Cursors are the real bank's: padded standard base64 of a JSON array,
// percent-encoded in the links.
func TestCursorsInTheRealBanksFormat(t *testing.T) {
	e := newEnv(t, Options{Seed: 2, Transactions: 80})
	page := e.mustGet("/transactions?page[size]=1")
	next := attr(page, "links", "next").(string)
	if !strings.Contains(next, "XQ%3D%3D") {
		t.Errorf("next link %q does not percent-encode a padded base64 cursor", next)
	}
	u, err := url.Parse(next)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(u.Query().Get("page[after]"))
	if err != nil {
		t.Fatalf("cursor is not padded standard base64: %v", err)
	}
	var key []string
	if err := json.Unmarshal(raw, &key); err != nil || len(key) != 2 {
		t.Fatalf("cursor %s is not a JSON array of two strings: %v", raw, err)
	}
	tx := e.bank.Snapshot().Transactions[0]
	at, err := time.Parse(time.RFC3339Nano, key[0])
	if err != nil || !at.Equal(tx.CreatedAt) || !strings.HasSuffix(key[0], "Z") || key[1] != tx.ID {
		t.Errorf("cursor %s, want the time and id of %s at %s", raw, tx.ID, tx.CreatedAt)
	}

	tags := e.mustGet("/tags?page[size]=1")
	u, _ = url.Parse(attr(tags, "links", "next").(string))
	raw, _ = base64.StdEncoding.DecodeString(u.Query().Get("page[after]"))
	if err := json.Unmarshal(raw, &key); err != nil || len(key) != 1 || key[0] != attr(tags, "data").([]any)[0].(map[string]any)["id"] {
		t.Errorf("tag cursor %s, want [label]", raw)
	}
}

// Every tag label round-trips through a cursor, whatever base64 characters
// ('+', '/', '=') its cursor holds.
func TestTagCursorsNeedEscaping(t *testing.T) {
	e := newEnv(t, Options{Seed: 2, Transactions: 80})
	special := []string{"a+b", "50% off", "you & me", "a/b", "Ünïcode", "🏖 beach", "??>", "~~~"}
	for i := 0; i < len(special); i += maxTags {
		if err := e.bank.SetTags(e.bank.Snapshot().Transactions[i].ID, special[i:min(i+maxTags, len(special))]); err != nil {
			t.Fatal(err)
		}
	}
	var sawEscape bool
	all := map[string]bool{}
	for _, p := range e.walkRaw("/tags?page[size]=1") {
		var page struct {
			Data  []struct{ ID string }
			Links struct{ Next *string }
		}
		if err := json.Unmarshal(p, &page); err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Data {
			all[d.ID] = true
		}
		if page.Links.Next != nil && (strings.Contains(*page.Links.Next, "%2B") || strings.Contains(*page.Links.Next, "%2F")) {
			sawEscape = true
		}
	}
	for _, s := range special {
		if !all[s] {
			t.Errorf("tag %q missing from the walk", s)
		}
	}
	if !sawEscape {
		t.Error("no cursor needed '+' or '/' escaped; the test labels do not exercise escaping")
	}
}
