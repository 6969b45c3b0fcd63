package bank

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestTransactionsPagination(t *testing.T) {
	var queries []string
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/transactions" {
			t.Errorf("path %s", r.URL.Path)
		}
		queries = append(queries, r.URL.RawQuery)
		switch r.URL.Query().Get("page[after]") {
		case "":
			serveFixture(t, w, 200, "transactions_page1.json", s.base())
		case "WyJ0eC0wMDIiXQ==":
			serveFixture(t, w, 200, "transactions_page2.json", s.base())
		case "WyJ0eC0wMDQiXQ==":
			serveFixture(t, w, 200, "transactions_page3.json", s.base())
		default:
			t.Errorf("unexpected query %s", r.URL.RawQuery)
			w.WriteHeader(404)
		}
	})
	c := newTestClient(s, WithPageSize(2))
	var got []Transaction
	for tx, err := range c.Transactions(t.Context(), TransactionFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tx)
	}
	// Checked after every page was decoded: decoded values share no buffer.
	var ids []string
	for _, tx := range got {
		ids = append(ids, tx.ID)
		if tx.Description != "David Taylor" || tx.TagIDs[0] != "Pizza Night" || *tx.Message != "Money for the pizzas last night." {
			t.Errorf("transaction %+v", tx)
		}
	}
	if want := []string{"tx-001", "tx-002", "tx-003", "tx-004", "tx-005"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	if c.Requests() != 3 {
		t.Errorf("Requests() = %d, want 3", c.Requests())
	}
	if queries[0] != "page%5Bsize%5D=2" {
		t.Errorf("first query %q", queries[0])
	}
	// Raw is the exact bytes of each element.
	raws := append(rawElements(t, fixture(t, "transactions_page1.json", s.base())), rawElements(t, fixture(t, "transactions_page2.json", s.base()))...)
	raws = append(raws, rawElements(t, fixture(t, "transactions_page3.json", s.base()))...)
	for i, tx := range got {
		if !bytes.Equal(tx.Raw, raws[i]) {
			t.Errorf("tx %d Raw differs", i)
		}
	}

	// TransactionsPage gives the links as sent.
	p, err := c.TransactionsPage(t.Context(), c.TransactionsURL(TransactionFilter{}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Next != s.base()+"/transactions?page%5Bafter%5D=WyJ0eC0wMDIiXQ%3D%3D&page%5Bsize%5D=2" || p.Prev != "" {
		t.Errorf("links next=%q prev=%q", p.Next, p.Prev)
	}
}

func TestTransactionsIteratorStopsEarly(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		serveFixture(t, w, 200, "transactions_page1.json", s.base())
	})
	c := newTestClient(s)
	for _, err := range c.Transactions(t.Context(), TransactionFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	if s.hits.Load() != 1 {
		t.Errorf("hits = %d", s.hits.Load())
	}
}

func TestTransactionsURLEncoding(t *testing.T) {
	aest := time.FixedZone("AEST", 10*3600)
	f := TransactionFilter{
		AccountID: "acc/1",
		Status:    "SETTLED",
		Category:  "good-life",
		Tag:       "Pizza Night",
		Since:     time.Date(2024, 8, 1, 0, 0, 0, 0, aest),
		Until:     time.Date(2024, 8, 2, 12, 30, 0, 0, aest),
	}
	var rawQuery, path string
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		rawQuery, path = r.URL.RawQuery, r.URL.EscapedPath()
		serveFixture(t, w, 200, "transactions_no_next.json", s.base())
	})
	c := newTestClient(s)
	u := c.TransactionsURL(f)
	if !strings.HasPrefix(u, s.base()+"/accounts/acc%2F1/transactions?") {
		t.Errorf("url %s", u)
	}
	if _, err := c.TransactionsPage(t.Context(), u); err != nil {
		t.Fatal(err)
	}
	if path != "/api/v1/accounts/acc%2F1/transactions" {
		t.Errorf("path %s", path)
	}
	for _, want := range []string{
		"filter%5Bsince%5D=2024-08-01T00%3A00%3A00%2B10%3A00",
		"filter%5Buntil%5D=2024-08-02T12%3A30%3A00%2B10%3A00",
		"filter%5Bstatus%5D=SETTLED",
		"filter%5Bcategory%5D=good-life",
		"filter%5Btag%5D=Pizza+Night",
		"page%5Bsize%5D=100",
	} {
		if !strings.Contains(rawQuery, want) {
			t.Errorf("query %q lacks %q", rawQuery, want)
		}
	}
	if strings.Contains(rawQuery, "+10") {
		t.Errorf("raw '+' in %q", rawQuery)
	}
	// A UTC time is sent with Z; unset fields are left out.
	u = c.TransactionsURL(TransactionFilter{Since: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)})
	if want := s.base() + "/transactions?filter%5Bsince%5D=2024-01-02T03%3A04%3A05Z&page%5Bsize%5D=100"; u != want {
		t.Errorf("url %s, want %s", u, want)
	}
}

func TestForeignNextRefused(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		serveFixture(t, w, 200, "transactions_foreign_next.json", s.base())
	})
	c := newTestClient(s)
	var n int
	var err error
	for _, e := range c.Transactions(t.Context(), TransactionFilter{}) {
		if e != nil {
			err = e
			break
		}
		n++
	}
	if !errors.Is(err, errForeignURL) || n != 1 {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if s.hits.Load() != 1 {
		t.Errorf("hits = %d, want 1", s.hits.Load())
	}
	// Also refused when given directly, and for another scheme.
	for _, u := range []string{"https://evil.example.com/api/v1/transactions", strings.Replace(s.base(), "http://", "https://", 1) + "/transactions"} {
		if _, err := c.TransactionsPage(t.Context(), u); !errors.Is(err, errForeignURL) {
			t.Errorf("%s: err = %v", u, err)
		}
	}
	if c.Requests() != 1 {
		t.Errorf("Requests() = %d, want 1", c.Requests())
	}
}

func TestPaginationLoopRefused(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"data":[],"links":{"prev":null,"next":"` + s.base() + `/tags?page%5Bsize%5D=100"}}`))
	})
	c := newTestClient(s)
	if _, err := c.Tags(t.Context()); !errors.Is(err, ErrPageLoop) {
		t.Fatalf("err = %v", err)
	}
}

func TestAccountsFollowsPages(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page[after]") == "" {
			w.Write([]byte(`{"data":[],"links":{"prev":null,"next":"` + s.base() + `/accounts?page%5Bafter%5D=x"}}`))
			return
		}
		serveFixture(t, w, 200, "accounts.json", s.base())
	})
	c := newTestClient(s)
	accs, err := c.Accounts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(accs) != 2 || s.hits.Load() != 2 {
		t.Fatalf("accounts %d, hits %d", len(accs), s.hits.Load())
	}
	want := Account{
		ID: "e647dd54-4d10-41d0-8071-21eb0a3f6214", DisplayName: "\U0001f437 Savings", AccountType: "SAVER",
		OwnershipType: "INDIVIDUAL", Balance: Money{"AUD", "125.36", 12536}, CreatedAt: "2024-08-06T12:18:30+10:00",
	}
	got := accs[1]
	got.Raw = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestResourceLists(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		name := map[string]string{
			"/api/v1/categories":  "categories.json",
			"/api/v1/tags":        "tags.json",
			"/api/v1/attachments": "attachments.json",
			"/api/v1/webhooks":    "webhooks.json",
			"/api/v1/webhooks/906ffa4f-9ce2-4e24-838b-c0f2ac1941d9/logs": "webhook_logs.json",
		}[r.URL.Path]
		if name == "" {
			t.Errorf("unexpected %s", r.URL)
		}
		serveFixture(t, w, 200, name, s.base())
	})
	c := newTestClient(s)
	ctx := t.Context()

	cats, err := c.Categories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cats) != 2 || cats[0].ID != "hobbies" || cats[0].Name != "Hobbies" || *cats[0].ParentID != "good-life" || cats[0].Children != nil {
		t.Errorf("categories %+v", cats)
	}

	tags, err := c.Tags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tags) != 2 || tags[1].ID != "Pizza Night" || len(tags[1].Raw) == 0 {
		t.Errorf("tags %+v", tags)
	}

	atts, err := c.Attachments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(atts) != 2 || atts[0].TransactionID != "9dd0a25a-c5ca-46c6-8e07-420274d5e8fe" || *atts[0].FileExtension != "jpg" ||
		*atts[0].FileContentType != "image/jpeg" || atts[0].FileURLExpiresAt != "2024-08-06T12:33:32+10:00" || *atts[0].CreatedAt == "" {
		t.Errorf("attachments %+v", atts)
	}

	hooks, err := c.Webhooks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(hooks) != 1 || hooks[0].URL != "http://example.com/webhook-1" || *hooks[0].Description != "Webhook number 1" || hooks[0].SecretKey != "" {
		t.Errorf("webhooks %+v", hooks)
	}

	logs, err := c.WebhookLogsPage(ctx, c.WebhookLogsURL(hooks[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	l := logs.Data
	if len(l) != 2 || *l[0].StatusCode != 200 || *l[0].ResponseBody != `{"ok":true}` || l[0].DeliveryStatus != "DELIVERED" ||
		l[0].EventID != "011308c1-861c-4d04-ba85-f867eadf202d" || !strings.HasPrefix(l[0].RequestBody, `{"data":`) ||
		l[1].StatusCode != nil || l[1].ResponseBody != nil || l[1].DeliveryStatus != "UNDELIVERABLE" || logs.Next != "" {
		t.Errorf("logs %+v", logs)
	}
	// The request body is a callback body the receiver's parser accepts.
	if e, err := ParseWebhookEvent([]byte(l[0].RequestBody)); err != nil || e.EventType != EventTransactionCreated {
		t.Errorf("parse logged body: %+v %v", e, err)
	}
}

// bodyOf reads and decodes a request body.
func bodyOf(t *testing.T, r *http.Request) map[string]any {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	b, _ := io.ReadAll(r.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Errorf("body %s: %v", b, err)
	}
	return m
}

func asJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestWrites(t *testing.T) {
	type call struct{ method, path, body string }
	var calls []call
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		c := call{method: r.Method, path: r.URL.EscapedPath()}
		if r.ContentLength > 0 {
			c.body = asJSON(bodyOf(t, r))
		}
		calls = append(calls, c)
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/v1/webhooks":
			serveFixture(t, w, 201, "webhook_create.json", s.base())
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/ping"):
			serveFixture(t, w, 201, "webhook_ping.json", s.base())
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	})
	c := newTestClient(s)
	ctx := t.Context()
	if err := c.SetCategory(ctx, "tx 1", new("restaurants-and-cafes")); err != nil {
		t.Fatal(err)
	}
	if err := c.SetCategory(ctx, "tx1", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.AddTags(ctx, "tx1", []string{"Holiday", "Pizza Night"}); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveTags(ctx, "tx1", []string{"Holiday"}); err != nil {
		t.Fatal(err)
	}
	w, err := c.CreateWebhook(ctx, "http://example.com/webhook", new("Example webhook"))
	if err != nil {
		t.Fatal(err)
	}
	if w.ID != "e1dc11ce-c175-4c43-a969-6f8ffc8adc5b" || w.SecretKey == "" || *w.Description != "Example webhook" || w.CreatedAt == "" {
		t.Errorf("webhook %+v", w)
	}
	if _, err := c.CreateWebhook(ctx, "http://example.com/b", nil); err != nil {
		t.Fatal(err)
	}
	e, err := c.PingWebhook(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.EventType != EventPing || e.WebhookID != "2649c1f0-b03b-4c21-bb85-331d53644305" {
		t.Errorf("event %+v", e)
	}
	if err := c.DeleteWebhook(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	want := []call{
		{"PATCH", "/api/v1/transactions/tx%201/relationships/category", `{"data":{"id":"restaurants-and-cafes","type":"categories"}}`},
		{"PATCH", "/api/v1/transactions/tx1/relationships/category", `{"data":null}`},
		{"POST", "/api/v1/transactions/tx1/relationships/tags", `{"data":[{"id":"Holiday","type":"tags"},{"id":"Pizza Night","type":"tags"}]}`},
		{"DELETE", "/api/v1/transactions/tx1/relationships/tags", `{"data":[{"id":"Holiday","type":"tags"}]}`},
		{"POST", "/api/v1/webhooks", `{"data":{"attributes":{"description":"Example webhook","url":"http://example.com/webhook"}}}`},
		{"POST", "/api/v1/webhooks", `{"data":{"attributes":{"url":"http://example.com/b"}}}`},
		{"POST", "/api/v1/webhooks/e1dc11ce-c175-4c43-a969-6f8ffc8adc5b/ping", ""},
		{"DELETE", "/api/v1/webhooks/e1dc11ce-c175-4c43-a969-6f8ffc8adc5b", ""},
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls\n%v\nwant\n%v", calls, want)
	}
}

func TestGetOne(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/transactions/20f1a541-356b-4363-aeba-18e21661b8e5":
			serveFixture(t, w, 200, "transaction_get.json", s.base())
		case "/api/v1/webhooks/w1":
			serveFixture(t, w, 200, "webhook_create.json", s.base())
		case "/api/v1/transactions/empty":
			w.Write([]byte(`{"data":null}`))
		default:
			t.Errorf("unexpected %s", r.URL)
		}
	})
	c := newTestClient(s)
	tx, err := c.Transaction(t.Context(), "20f1a541-356b-4363-aeba-18e21661b8e5")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ParseTransaction(fixture(t, "transaction_all_set.json", ""))
	if !bytes.Equal(compact(t, tx.Raw), compact(t, want.Raw)) {
		t.Error("Raw differs")
	}
	if tx.FetchedAt.IsZero() {
		t.Error("FetchedAt not set by a fetch")
	}
	tx.Raw, want.Raw, tx.FetchedAt = nil, nil, time.Time{}
	if !reflect.DeepEqual(tx, want) {
		t.Errorf("got %+v\nwant %+v", tx, want)
	}
	if w, err := c.Webhook(t.Context(), "w1"); err != nil || w.ID == "" {
		t.Errorf("webhook %+v %v", w, err)
	}
	if _, err := c.Transaction(t.Context(), "empty"); err == nil || !strings.Contains(err.Error(), `"data": missing`) {
		t.Errorf("err = %v", err)
	}
}

func compact(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A sparse page decodes the wanted transactions exactly as a full one does
// and gives the others only their id and createdAt.
func TestTransactionsPageSparse(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		serveFixture(t, w, 200, "transactions_page1.json", s.base())
	})
	c := newTestClient(s)
	full, err := c.TransactionsPage(t.Context(), c.TransactionsURL(TransactionFilter{}))
	if err != nil || len(full.Data) < 2 {
		t.Fatalf("full page: %d transactions, %v", len(full.Data), err)
	}
	wanted := full.Data[1].ID
	sparse, err := c.TransactionsPageSparse(t.Context(), c.TransactionsURL(TransactionFilter{}), func(id string) bool { return id == wanted })
	if err != nil {
		t.Fatal(err)
	}
	if len(sparse.Data) != len(full.Data) || sparse.Next != full.Next {
		t.Fatalf("sparse page: %d transactions, next %q; want %d, %q", len(sparse.Data), sparse.Next, len(full.Data), full.Next)
	}
	for i, tx := range sparse.Data {
		f := full.Data[i]
		if tx.ID != f.ID || tx.CreatedAt != f.CreatedAt {
			t.Errorf("tx %d: id %s createdAt %s, want %s %s", i, tx.ID, tx.CreatedAt, f.ID, f.CreatedAt)
		}
		if tx.ID == wanted {
			if !bytes.Equal(tx.Raw, f.Raw) || tx.Description != f.Description || tx.FetchedAt.IsZero() {
				t.Errorf("wanted tx %s not fully decoded: %+v", tx.ID, tx)
			}
		} else if tx.Raw != nil || tx.Description != "" {
			t.Errorf("unwanted tx %s decoded in full", tx.ID)
		}
	}
}
