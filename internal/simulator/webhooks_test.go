package simulator

import (
	"context"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// newHookEnv is a bank with fast retries, closed at the end of the test.
func newHookEnv(t *testing.T, opts Options) *env {
	t.Helper()
	if opts.Transactions == 0 {
		opts.Transactions = 50
	}
	if opts.WebhookRetryBase == 0 {
		opts.WebhookRetryBase = time.Millisecond
	}
	if opts.WebhookRetryMax == 0 {
		opts.WebhookRetryMax = 4 * time.Millisecond
	}
	e := newEnv(t, opts)
	t.Cleanup(e.bank.Close)
	return e
}

// waitDeliveries waits for the bank's deliveries; the deadline only turns
// a hang into a failure.
func waitDeliveries(t *testing.T, b *Bank) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.WaitDeliveries(ctx); err != nil {
		t.Fatalf("WaitDeliveries: %v", err)
	}
}

// callback is one request received by a receiver.
type callback struct {
	path      string
	body      []byte
	eventID   string
	eventType string
	webhookID string
	txID      string
	txLinks   bool // relationships.transaction.links.related present
	hasTx     bool // relationships.transaction present
}

// receiver is a webhook endpoint that checks signatures and the
// WebhookEventCallback schema of every request and records it.
type receiver struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	secrets map[string]string // path -> secretKey
	got     []callback
	seen    map[string]int // event id -> requests so far
	// respond picks the status for a request; nth counts earlier requests
	// of the same event. nil = 200.
	respond func(c callback, nth int) int
	// hold, if set, is called before answering (outside the lock).
	hold func(r *http.Request)
	// header is where the signature must be, SignatureHeader when "";
	// the other of the two known headers must be absent.
	header string
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{t: t, secrets: map[string]string{}, seen: map[string]int{}}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

// set replaces respond and hold (nil = default).
func (rc *receiver) set(respond func(c callback, nth int) int, hold func(r *http.Request)) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.respond, rc.hold = respond, hold
}

func (rc *receiver) url(path string) string { return rc.srv.URL + path }

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	t := rc.t
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("receiver: read body: %v", err)
		return
	}
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("receiver: %s with Content-Type %q", r.Method, r.Header.Get("Content-Type"))
	}
	c := parseCallback(t, r.URL.Path, raw)
	rc.mu.Lock()
	secret, ok := rc.secrets[r.URL.Path]
	hold := rc.hold
	want, other := SignatureHeader, UpSignatureHeader
	if rc.header != "" {
		want = rc.header
	}
	rc.mu.Unlock()
	if want == other {
		other = SignatureHeader
	}
	if vs := r.Header.Values(other); len(vs) != 0 {
		t.Errorf("receiver %s: %s present (%q) besides %s", r.URL.Path, other, vs, want)
	}
	sig := r.Header.Get(want)
	if !ok || !hmac.Equal([]byte(sig), []byte(Sign(secret, raw))) || sig != strings.ToLower(sig) || len(sig) != 64 {
		t.Errorf("receiver %s: bad signature %q for %s", r.URL.Path, sig, raw)
	}
	if hold != nil {
		hold(r)
	}
	rc.mu.Lock()
	nth := rc.seen[c.eventID]
	rc.seen[c.eventID]++
	rc.got = append(rc.got, c)
	status := http.StatusOK
	if rc.respond != nil {
		status = rc.respond(c, nth)
	}
	rc.mu.Unlock()
	w.WriteHeader(status)
	_, _ = io.WriteString(w, `{"status":`+strconv.Itoa(status)+`}`)
}

// parseCallback validates a callback body against WebhookEventCallback.
func parseCallback(t *testing.T, path string, raw []byte) callback {
	doc, _ := loadSpec(t)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Errorf("callback body is not JSON: %v: %s", err, raw)
		return callback{path: path, body: raw}
	}
	opts := []openapi3.SchemaValidationOption{openapi3.EnableFormatValidation(), openapi3.VisitAsResponse()}
	if err := doc.Components.Schemas["WebhookEventCallback"].Value.VisitJSON(v, opts...); err != nil {
		t.Errorf("callback does not match WebhookEventCallback: %v\n%s", err, raw)
	}
	checkOffsets(t, raw)
	m, _ := v.(map[string]any)
	c := callback{path: path, body: raw}
	c.eventID, _ = attr(m, "data", "id").(string)
	c.eventType, _ = attr(m, "data", "attributes", "eventType").(string)
	c.webhookID, _ = attr(m, "data", "relationships", "webhook", "data", "id").(string)
	c.txID, _ = attr(m, "data", "relationships", "transaction", "data", "id").(string)
	c.hasTx = attr(m, "data", "relationships", "transaction") != nil
	c.txLinks = attr(m, "data", "relationships", "transaction", "links", "related") != nil
	if attr(m, "data", "type") != "webhook-events" || attr(m, "data", "relationships", "webhook", "data", "type") != "webhooks" {
		t.Errorf("callback: wrong types: %s", raw)
	}
	return c
}

func (rc *receiver) callbacks() []callback {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.got)
}

// createHook creates a webhook posting to rc at path and returns its id.
func (e *env) createHook(rc *receiver, path, description string) string {
	e.t.Helper()
	attrs := map[string]any{"url": rc.url(path)}
	if description != "" {
		attrs["description"] = description
	}
	r := e.do(http.MethodPost, "/webhooks", map[string]any{"data": map[string]any{"attributes": attrs}})
	if r.status != http.StatusCreated {
		e.t.Fatalf("POST /webhooks: %d %s", r.status, r.body)
	}
	m := r.json(e.t)
	secret, _ := attr(m, "data", "attributes", "secretKey").(string)
	if len(secret) != 64 {
		e.t.Fatalf("secretKey %q", secret)
	}
	rc.mu.Lock()
	rc.secrets[path] = secret
	rc.mu.Unlock()
	return attr(m, "data", "id").(string)
}

func types(cs []callback) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.eventType
	}
	return out
}

func TestWebhookEndpoints(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 2})
	rc := newReceiver(t)
	if m := e.mustGet("/webhooks"); len(m["data"].([]any)) != 0 {
		t.Fatalf("initial webhooks: %v", m)
	}
	var created []string
	for i := range 3 {
		created = append(created, e.createHook(rc, "/hook/"+strconv.Itoa(i), "Webhook number "+strconv.Itoa(i)))
	}
	info := e.bank.Webhooks()
	if len(info) != 3 || info[0].ID != created[0] || info[0].URL != rc.url("/hook/0") || *info[0].Description != "Webhook number 0" {
		t.Fatalf("Webhooks(): %+v", info)
	}

	// Lists oldest first, paginated both ways; never a secretKey.
	if got := ids(e.walk("/webhooks?page[size]=1")); !slices.Equal(got, created) {
		t.Errorf("walk: %v, want %v", got, created)
	}
	page := e.mustGet("/webhooks?page[size]=2")
	next := attr(page, "links", "next").(string)
	page2 := e.mustGet(next)
	if prev, _ := attr(page2, "links", "prev").(string); prev == "" || !slices.Equal(pageIDs(e.mustGet(prev)), created[:2]) {
		t.Errorf("prev link of page 2: %v", attr(page2, "links"))
	}
	for _, target := range []string{"/webhooks", "/webhooks/" + created[1]} {
		if r := e.get(target); strings.Contains(string(r.body), "secretKey") {
			t.Errorf("GET %s leaks secretKey: %s", target, r.body)
		}
	}
	one := e.mustGet("/webhooks/" + created[1])
	if attr(one, "data", "attributes", "url") != rc.url("/hook/1") || attr(one, "data", "attributes", "description") != "Webhook number 1" ||
		attr(one, "data", "relationships", "logs", "links", "related") != e.base+"/webhooks/"+created[1]+"/logs" ||
		attr(one, "data", "links", "self") != e.base+"/webhooks/"+created[1] {
		t.Errorf("GET webhook: %v", one)
	}

	// Description is optional and nullable.
	r := e.do(http.MethodPost, "/webhooks", `{"data":{"attributes":{"url":"`+rc.url("/hook/null")+`","description":null}}}`)
	if r.status != http.StatusCreated || attr(r.json(t), "data", "attributes", "description") != nil {
		t.Fatalf("null description: %d %s", r.status, r.body)
	}
	rc.mu.Lock()
	rc.secrets["/hook/null"] = attr(r.json(t), "data", "attributes", "secretKey").(string)
	rc.mu.Unlock()

	// Ping: 201 with the PING event, delivered asynchronously.
	r = e.do(http.MethodPost, "/webhooks/"+created[0]+"/ping", nil)
	if r.status != http.StatusCreated {
		t.Fatalf("ping: %d %s", r.status, r.body)
	}
	ping := parseCallback(t, "", r.body)
	if ping.eventType != "PING" || ping.webhookID != created[0] || ping.hasTx {
		t.Errorf("ping response: %s", r.body)
	}
	waitDeliveries(t, e.bank)
	got := rc.callbacks()
	if len(got) != 1 || got[0].eventID != ping.eventID || got[0].path != "/hook/0" || string(got[0].body) != string(r.body) {
		t.Fatalf("ping delivered: %+v", got)
	}

	// Logs: newest first, request.body is the exact body sent.
	for range 2 {
		e.do(http.MethodPost, "/webhooks/"+created[0]+"/ping", nil)
	}
	waitDeliveries(t, e.bank)
	logs := e.walk("/webhooks/" + created[0] + "/logs?page[size]=2")
	truth := e.bank.DeliveryLog(created[0])
	if len(logs) != 3 || len(truth) != 3 {
		t.Fatalf("logs: %d, truth %d", len(logs), len(truth))
	}
	for i, l := range logs {
		want := truth[len(truth)-1-i]
		if l["id"] != want.ID || attr(l, "attributes", "deliveryStatus") != "DELIVERED" ||
			attr(l, "attributes", "request", "body") != string(want.RequestBody) ||
			attr(l, "attributes", "response", "statusCode") != float64(200) ||
			attr(l, "relationships", "webhookEvent", "data", "id") != want.EventID ||
			attr(l, "relationships", "webhookEvent", "data", "type") != "webhook-events" {
			t.Errorf("log %d: %v, want %+v", i, l, want)
		}
	}
	bodies := map[string]bool{}
	for _, c := range rc.callbacks() {
		bodies[string(c.body)] = true
	}
	for _, l := range truth {
		if !bodies[string(l.RequestBody)] {
			t.Errorf("logged body was not the body received: %s", l.RequestBody)
		}
	}
	if m := e.mustGet("/webhooks/" + created[2] + "/logs"); len(m["data"].([]any)) != 0 || attr(m, "links", "next") != nil {
		t.Errorf("logs of an unpinged webhook: %v", m)
	}

	// Delete: 204, then 404 everywhere.
	if r := e.do(http.MethodDelete, "/webhooks/"+created[1], nil); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	for _, c := range []struct{ method, target string }{
		{"GET", "/webhooks/" + created[1]}, {"DELETE", "/webhooks/" + created[1]},
		{"POST", "/webhooks/" + created[1] + "/ping"}, {"GET", "/webhooks/" + created[1] + "/logs"},
		{"GET", "/webhooks/nope"}, {"POST", "/webhooks/nope/ping"}, {"GET", "/webhooks/nope/logs"},
	} {
		if r := e.do(c.method, c.target, nil); r.status != http.StatusNotFound {
			t.Errorf("%s %s: %d", c.method, c.target, r.status)
		}
	}
	if got := ids(e.walk("/webhooks")); len(got) != 3 || slices.Contains(got, created[1]) {
		t.Errorf("after delete: %v", got)
	}
	if r := e.do("PUT", "/webhooks/"+created[0], `{}`); r.status != http.StatusMethodNotAllowed {
		t.Errorf("PUT webhook: %d", r.status)
	}
}

func TestWebhookCreateValidation(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 2})
	long := "http://example.com/" + strings.Repeat("a", 300-len("http://example.com/"))
	cases := []struct {
		body    string
		pointer string
	}{
		{`nope`, ""},
		{`{}`, "/data"},
		{`{"data":[]}`, "/data"},
		{`{"data":{}}`, "/data/attributes"},
		{`{"data":{"type":"tags","attributes":{"url":"http://example.com"}}}`, "/data/type"},
		{`{"data":{"attributes":null}}`, "/data/attributes"},
		{`{"data":{"attributes":{}}}`, "/data/attributes/url"},
		{`{"data":{"attributes":{"url":null}}}`, "/data/attributes/url"},
		{`{"data":{"attributes":{"url":42}}}`, "/data/attributes/url"},
		{`{"data":{"attributes":{"url":""}}}`, "/data/attributes/url"},
		{`{"data":{"attributes":{"url":"example.com/hook"}}}`, "/data/attributes/url"},
		{`{"data":{"attributes":{"url":"/hook"}}}`, "/data/attributes/url"},
		{`{"data":{"attributes":{"url":"ftp://example.com/hook"}}}`, "/data/attributes/url"},
		{`{"data":{"attributes":{"url":"mailto:a@example.com"}}}`, "/data/attributes/url"},
		{`{"data":{"attributes":{"url":"http://exa mple.com/"}}}`, "/data/attributes/url"},
		{`{"data":{"attributes":{"url":"` + long + `x"}}}`, "/data/attributes/url"},
		{`{"data":{"attributes":{"url":"http://example.com","description":7}}}`, "/data/attributes/description"},
		{`{"data":{"attributes":{"url":"http://example.com","description":"` + strings.Repeat("é", 65) + `"}}}`, "/data/attributes/description"},
	}
	for _, c := range cases {
		r := e.do(http.MethodPost, "/webhooks", c.body)
		if r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422: %s", c.body, r.status, r.body)
			continue
		}
		errObj := r.json(t)["errors"].([]any)[0].(map[string]any)
		if got, ok := attr(errObj, "source", "pointer").(string); !ok || (c.pointer != "" && got != c.pointer) {
			t.Errorf("%s: source.pointer %q, want %q", c.body, got, c.pointer)
		}
	}
	if len(e.bank.Webhooks()) != 0 {
		t.Fatal("invalid bodies created webhooks")
	}
	// Limits are inclusive: 300-character URL, 64-character description.
	for _, body := range []string{
		`{"data":{"attributes":{"url":"` + long + `","description":"` + strings.Repeat("é", 64) + `"}}}`,
		`{"data":{"type":"webhooks","attributes":{"url":"HTTPS://example.com:8443/x?y=1"}}}`,
	} {
		if r := e.do(http.MethodPost, "/webhooks", body); r.status != http.StatusCreated {
			t.Errorf("%s: %d %s", body, r.status, r.body)
		}
	}
	for _, q := range []string{"page[size]=0", "page[size]=101", "page[size]=x", "page[after]=bm9wZQ"} {
		for _, target := range []string{"/webhooks?" + q, "/webhooks/" + e.bank.Webhooks()[0].ID + "/logs?" + q} {
			if r := e.get(target); r.status != http.StatusBadRequest {
				t.Errorf("GET %s: %d", target, r.status)
			}
		}
	}
}

func TestWebhookLimit(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 2})
	rc := newReceiver(t)
	var hooks []string
	for i := range 10 {
		hooks = append(hooks, e.createHook(rc, "/h"+strconv.Itoa(i), ""))
	}
	r := e.do(http.MethodPost, "/webhooks", `{"data":{"attributes":{"url":"http://example.com/11"}}}`)
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("11th webhook: %d %s", r.status, r.body)
	}
	detail := attr(r.json(t)["errors"].([]any)[0].(map[string]any), "detail").(string)
	if !strings.Contains(detail, "limit of 10") {
		t.Errorf("detail %q", detail)
	}
	if len(e.bank.Webhooks()) != 10 {
		t.Fatalf("%d webhooks", len(e.bank.Webhooks()))
	}
	e.do(http.MethodDelete, "/webhooks/"+hooks[3], nil)
	e.createHook(rc, "/h10", "")
	if got := ids(e.walk("/webhooks?page[size]=4")); len(got) != 10 || slices.Contains(got, hooks[3]) {
		t.Errorf("after replacing one: %v", got)
	}
}

func TestWebhookTransactionEvents(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4})
	rc := newReceiver(t)
	hook := e.createHook(rc, "/events", "")
	b := e.bank

	created := b.AddTransaction(NewTransaction{Held: true})
	if err := b.Settle(created); err != nil {
		t.Fatal(err)
	}
	deleted := b.AddTransaction(NewTransaction{Held: true})
	if err := b.Delete(deleted); err != nil {
		t.Fatal(err)
	}
	// Silent changes emit nothing.
	if err := b.SetTags(created, []string{"quiet"}); err != nil {
		t.Fatal(err)
	}
	if err := b.SetCategory(created, "fuel"); err != nil {
		t.Fatal(err)
	}
	if r := e.do(http.MethodPatch, "/transactions/"+created+"/relationships/category", `{"data":null}`); r.status != http.StatusNoContent {
		t.Fatalf("patch: %d", r.status)
	}
	if r := e.do(http.MethodPost, "/transactions/"+created+"/relationships/tags", `{"data":[{"type":"tags","id":"x"}]}`); r.status != http.StatusNoContent {
		t.Fatalf("tags: %d", r.status)
	}
	waitDeliveries(t, b)

	want := []struct{ typ, tx string }{
		{"TRANSACTION_CREATED", created}, {"TRANSACTION_SETTLED", created},
		{"TRANSACTION_CREATED", deleted}, {"TRANSACTION_DELETED", deleted},
	}
	events := b.Events()
	if len(events) != len(want) {
		t.Fatalf("Events(): %+v", events)
	}
	got := rc.callbacks()
	if len(got) != len(want) {
		t.Fatalf("received %d callbacks: %v", len(got), types(got))
	}
	byID := map[string]callback{}
	for _, c := range got {
		byID[c.eventID] = c
	}
	for i, w := range want {
		ev := events[i]
		if ev.Type != w.typ || ev.TransactionID != w.tx || ev.WebhookID != hook || ev.Dropped {
			t.Errorf("event %d: %+v, want %s %s", i, ev, w.typ, w.tx)
		}
		c, ok := byID[ev.ID]
		if !ok {
			t.Errorf("event %s (%s) not received", ev.ID, ev.Type)
			continue
		}
		if c.eventType != w.typ || c.txID != w.tx || c.webhookID != hook || string(c.body) != string(ev.Body) {
			t.Errorf("callback %+v, want %s %s", c, w.typ, w.tx)
		}
		if wantLinks := w.typ != "TRANSACTION_DELETED"; c.txLinks != wantLinks {
			t.Errorf("%s: transaction links present %v, want %v", w.typ, c.txLinks, wantLinks)
		}
		var m map[string]any
		_ = json.Unmarshal(c.body, &m)
		if w.typ != "TRANSACTION_DELETED" && attr(m, "data", "relationships", "transaction", "links", "related") != e.base+"/transactions/"+w.tx {
			t.Errorf("transaction link: %v", attr(m, "data", "relationships", "transaction"))
		}
		if attr(m, "data", "relationships", "webhook", "links", "related") != e.base+"/webhooks/"+hook {
			t.Errorf("webhook link: %v", attr(m, "data", "relationships", "webhook"))
		}
	}
	// The transaction link of a created event can be followed.
	var m map[string]any
	_ = json.Unmarshal(events[0].Body, &m)
	e.mustGet(attr(m, "data", "relationships", "transaction", "links", "related").(string))
	for _, l := range b.DeliveryLog(hook) {
		if l.DeliveryStatus != "DELIVERED" || l.Attempt != 1 || l.Response == nil || l.Response.StatusCode != 200 || l.Response.Body != `{"status":200}` {
			t.Errorf("log %+v", l)
		}
	}
}

func TestWebhookEventsGoToEveryWebhook(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4})
	rc := newReceiver(t)
	a := e.createHook(rc, "/a", "")
	bID := e.createHook(rc, "/b", "")
	e.bank.AddTransaction(NewTransaction{})
	waitDeliveries(t, e.bank)
	events := e.bank.Events()
	if len(events) != 2 || events[0].ID == events[1].ID || events[0].WebhookID != a || events[1].WebhookID != bID {
		t.Fatalf("events: %+v", events)
	}
	paths := map[string]string{}
	for _, c := range rc.callbacks() {
		paths[c.path] = c.webhookID
	}
	if len(paths) != 2 || paths["/a"] != a || paths["/b"] != bID {
		t.Errorf("deliveries: %v", paths)
	}
}

func TestWebhookRetry(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4})
	rc := newReceiver(t)
	rc.set(func(_ callback, nth int) int {
		if nth < 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}, nil)
	hook := e.createHook(rc, "/flaky", "")
	tx := e.bank.AddTransaction(NewTransaction{})
	waitDeliveries(t, e.bank)
	got := rc.callbacks()
	if len(got) != 3 {
		t.Fatalf("received %d requests, want 3", len(got))
	}
	for _, c := range got[1:] {
		if c.eventID != got[0].eventID || string(c.body) != string(got[0].body) || c.txID != tx {
			t.Errorf("retry changed the event: %s vs %s", c.body, got[0].body)
		}
	}
	logs := e.bank.DeliveryLog(hook)
	var statuses []string
	for i, l := range logs {
		statuses = append(statuses, l.DeliveryStatus)
		if l.Attempt != i+1 || l.EventID != got[0].eventID || string(l.RequestBody) != string(got[0].body) {
			t.Errorf("log %d: %+v", i, l)
		}
	}
	if !slices.Equal(statuses, []string{"BAD_RESPONSE_CODE", "BAD_RESPONSE_CODE", "DELIVERED"}) {
		t.Errorf("statuses %v", statuses)
	}
	api := e.walk("/webhooks/" + hook + "/logs?page[size]=1")
	if len(api) != 3 || attr(api[0], "attributes", "deliveryStatus") != "DELIVERED" ||
		attr(api[2], "attributes", "deliveryStatus") != "BAD_RESPONSE_CODE" ||
		attr(api[2], "attributes", "response", "statusCode") != float64(500) ||
		attr(api[2], "attributes", "response", "body") != `{"status":500}` {
		t.Errorf("API logs: %v", api)
	}
}

func TestWebhookGivesUpAfterMaxAttempts(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4, WebhookMaxAttempts: 4})
	rc := newReceiver(t)
	rc.set(func(callback, int) int { return http.StatusAccepted }, nil) // 2xx but not 200
	hook := e.createHook(rc, "/never", "")
	e.bank.AddTransaction(NewTransaction{})
	waitDeliveries(t, e.bank)
	logs := e.bank.DeliveryLog(hook)
	if len(logs) != 4 || len(rc.callbacks()) != 4 {
		t.Fatalf("%d logs, %d requests; want 4", len(logs), len(rc.callbacks()))
	}
	for _, l := range logs {
		if l.DeliveryStatus != "BAD_RESPONSE_CODE" || l.Response.StatusCode != http.StatusAccepted {
			t.Errorf("log %+v", l)
		}
	}
}

func TestWebhookUndeliverable(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4, WebhookMaxAttempts: 3})
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL + "/gone"
	dead.Close()
	r := e.do(http.MethodPost, "/webhooks", map[string]any{"data": map[string]any{"attributes": map[string]any{"url": deadURL}}})
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d", r.status)
	}
	hook := attr(r.json(t), "data", "id").(string)
	e.do(http.MethodPost, "/webhooks/"+hook+"/ping", nil)
	waitDeliveries(t, e.bank)
	logs := e.bank.DeliveryLog(hook)
	if len(logs) != 3 {
		t.Fatalf("%d logs, want 3", len(logs))
	}
	for _, l := range logs {
		if l.DeliveryStatus != "UNDELIVERABLE" || l.Response != nil {
			t.Errorf("log %+v", l)
		}
	}
	for _, l := range e.walk("/webhooks/" + hook + "/logs") {
		if attr(l, "attributes", "deliveryStatus") != "UNDELIVERABLE" || l["attributes"].(map[string]any)["response"] != nil {
			t.Errorf("API log %v", l)
		}
		if _, ok := l["attributes"].(map[string]any)["response"]; !ok {
			t.Error("response must be present as null")
		}
	}
}

// Options.WebhookSignatureHeader moves the signature to that header (in
// canonical form), and only there: the real bank's X-Up-Authenticity-Signature.
func TestWebhookSignatureHeaderOption(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4, WebhookSignatureHeader: "x-up-authenticity-signature"})
	rc := newReceiver(t)
	rc.mu.Lock()
	rc.header = UpSignatureHeader
	rc.mu.Unlock()
	hook := e.createHook(rc, "/up", "")
	e.do(http.MethodPost, "/webhooks/"+hook+"/ping", nil)
	e.bank.AddTransaction(NewTransaction{})
	waitDeliveries(t, e.bank)
	if got := types(rc.callbacks()); len(got) != 2 {
		t.Fatalf("received %v, want a PING and a TRANSACTION_CREATED", got)
	}
	for _, l := range e.bank.DeliveryLog(hook) {
		if l.DeliveryStatus != "DELIVERED" {
			t.Errorf("log %+v", l)
		}
	}
}

func TestWebhookTimeoutIsUndeliverable(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4, WebhookMaxAttempts: 1, WebhookTimeout: 20 * time.Millisecond})
	rc := newReceiver(t)
	rc.set(nil, func(r *http.Request) { <-r.Context().Done() }) // never answers in time
	hook := e.createHook(rc, "/slow", "")
	e.bank.AddTransaction(NewTransaction{})
	waitDeliveries(t, e.bank)
	logs := e.bank.DeliveryLog(hook)
	if len(logs) != 1 || logs[0].DeliveryStatus != "UNDELIVERABLE" || logs[0].Response != nil {
		t.Fatalf("logs %+v", logs)
	}
}

func TestDeletedWebhookGetsNothing(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4})
	rc := newReceiver(t)
	keep := e.createHook(rc, "/keep", "")
	gone := e.createHook(rc, "/gone", "")

	// Queued while paused, then the webhook is deleted: never sent.
	e.bank.SetWebhookFaults(WebhookFaults{Paused: true})
	e.bank.AddTransaction(NewTransaction{})
	if n := e.bank.HeldDeliveries(); n != 2 {
		t.Fatalf("held %d", n)
	}
	e.do(http.MethodDelete, "/webhooks/"+gone, nil)
	if n := e.bank.HeldDeliveries(); n != 1 {
		t.Fatalf("held after delete %d", n)
	}
	e.bank.SetWebhookFaults(WebhookFaults{})
	e.bank.AddTransaction(NewTransaction{})
	waitDeliveries(t, e.bank)
	for _, c := range rc.callbacks() {
		if c.path != "/keep" || c.webhookID != keep {
			t.Errorf("delivery to %s", c.path)
		}
	}
	if n := len(rc.callbacks()); n != 2 {
		t.Errorf("%d deliveries to the kept webhook, want 2", n)
	}
	if logs := e.bank.DeliveryLog(gone); len(logs) != 0 {
		t.Errorf("deleted webhook has logs: %+v", logs)
	}

	// Deleted while a failing delivery is in flight: no retry follows, and
	// the attempt cut short is not logged.
	release := make(chan struct{})
	inFlight := make(chan struct{}, 10)
	var toFail atomic.Int32
	rc.set(func(callback, int) int { return http.StatusInternalServerError }, func(r *http.Request) {
		if r.URL.Path != "/fail" {
			return
		}
		toFail.Add(1)
		inFlight <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	fail := e.createHook(rc, "/fail", "")
	e.do(http.MethodPost, "/webhooks/"+fail+"/ping", nil)
	<-inFlight
	e.do(http.MethodDelete, "/webhooks/"+fail, nil)
	close(release)
	waitDeliveries(t, e.bank)
	if n := toFail.Load(); n != 1 {
		t.Errorf("%d requests to a webhook deleted during its first attempt", n)
	}
	if logs := e.bank.DeliveryLog(fail); len(logs) != 0 {
		t.Errorf("attempt cut short by deletion was logged: %+v", logs)
	}
}

func TestWebhookDuplicate(t *testing.T) {
	for _, copies := range []int{0, 1, 2} {
		e := newHookEnv(t, Options{Seed: 4})
		rc := newReceiver(t)
		hook := e.createHook(rc, "/dup", "")
		e.bank.SetWebhookFaults(WebhookFaults{Duplicate: 1, DuplicateCopies: copies})
		e.bank.AddTransaction(NewTransaction{})
		waitDeliveries(t, e.bank)
		want := 1 + max(copies, 1)
		got := rc.callbacks()
		if len(got) != want {
			t.Fatalf("copies %d: received %d, want %d", copies, len(got), want)
		}
		for _, c := range got {
			if c.eventID != got[0].eventID || string(c.body) != string(got[0].body) {
				t.Errorf("duplicate differs: %s", c.body)
			}
		}
		logs := e.bank.DeliveryLog(hook)
		dups := 0
		for _, l := range logs {
			if l.DeliveryStatus != "DELIVERED" {
				t.Errorf("log %+v", l)
			}
			if l.Duplicate {
				dups++
			}
		}
		if len(logs) != want || dups != want-1 || len(e.bank.Events()) != 1 {
			t.Errorf("logs %+v", logs)
		}
	}
}

func TestWebhookDeliverInReverse(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4})
	rc := newReceiver(t)
	e.createHook(rc, "/rev", "")
	e.bank.SetWebhookFaults(WebhookFaults{DeliverInReverse: true})
	id := e.bank.AddTransaction(NewTransaction{Held: true})
	if err := e.bank.Settle(id); err != nil {
		t.Fatal(err)
	}
	waitDeliveries(t, e.bank) // held deliveries do not count
	if n := len(rc.callbacks()); n != 0 || e.bank.HeldDeliveries() != 2 {
		t.Fatalf("held: %d received, %d held", n, e.bank.HeldDeliveries())
	}
	e.bank.FlushDeliveries()
	waitDeliveries(t, e.bank)
	if got := types(rc.callbacks()); !slices.Equal(got, []string{"TRANSACTION_SETTLED", "TRANSACTION_CREATED"}) {
		t.Fatalf("order %v", got)
	}
	for _, c := range rc.callbacks() {
		if c.txID != id {
			t.Errorf("tx %s", c.txID)
		}
	}
}

func TestWebhookReorder(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4})
	rc := newReceiver(t)
	e.createHook(rc, "/shuffle", "")
	e.bank.SetWebhookFaults(WebhookFaults{Reorder: true})
	for range 20 {
		e.bank.AddTransaction(NewTransaction{})
	}
	if e.bank.HeldDeliveries() != 20 || len(rc.callbacks()) != 0 {
		t.Fatal("not held")
	}
	e.bank.FlushDeliveries()
	waitDeliveries(t, e.bank)
	var emitted, received []string
	for _, ev := range e.bank.Events() {
		emitted = append(emitted, ev.ID)
	}
	for _, c := range rc.callbacks() {
		received = append(received, c.eventID)
	}
	if slices.Equal(emitted, received) {
		t.Error("20 events arrived in emission order")
	}
	slices.Sort(emitted)
	slices.Sort(received)
	if !slices.Equal(emitted, received) {
		t.Error("reordered delivery lost or duplicated events")
	}
	// Turning Reorder off releases nothing new to hold.
	e.bank.SetWebhookFaults(WebhookFaults{})
	e.bank.AddTransaction(NewTransaction{})
	waitDeliveries(t, e.bank)
	if len(rc.callbacks()) != 21 {
		t.Errorf("%d received", len(rc.callbacks()))
	}
}

func TestWebhookPaused(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4})
	rc := newReceiver(t)
	hook := e.createHook(rc, "/paused", "")
	e.bank.SetWebhookFaults(WebhookFaults{Paused: true})
	e.bank.AddTransaction(NewTransaction{})
	e.do(http.MethodPost, "/webhooks/"+hook+"/ping", nil)
	waitDeliveries(t, e.bank)
	if len(rc.callbacks()) != 0 || e.bank.HeldDeliveries() != 2 || len(e.bank.DeliveryLog(hook)) != 0 {
		t.Fatal("delivered while paused")
	}
	e.bank.SetWebhookFaults(WebhookFaults{})
	waitDeliveries(t, e.bank)
	if got := types(rc.callbacks()); len(got) != 2 || !slices.Contains(got, "PING") || !slices.Contains(got, "TRANSACTION_CREATED") {
		t.Errorf("after unpause: %v", got)
	}
	if e.bank.HeldDeliveries() != 0 {
		t.Error("still held")
	}
}

func TestWebhookPausedHoldsRetries(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4})
	rc := newReceiver(t)
	inFlight, paused := make(chan struct{}), make(chan struct{})
	var once sync.Once
	rc.set(func(c callback, nth int) int {
		if nth == 0 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}, func(*http.Request) {
		once.Do(func() { // the first attempt waits in the receiver until paused
			close(inFlight)
			<-paused
		})
	})
	hook := e.createHook(rc, "/retry", "")
	e.bank.AddTransaction(NewTransaction{})
	<-inFlight
	e.bank.SetWebhookFaults(WebhookFaults{Paused: true})
	close(paused)
	waitDeliveries(t, e.bank) // the first attempt fails; its retry comes due and is held
	if n := e.bank.HeldDeliveries(); n != 1 || len(rc.callbacks()) != 1 {
		t.Fatalf("held %d, received %d", n, len(rc.callbacks()))
	}
	e.bank.SetWebhookFaults(WebhookFaults{})
	waitDeliveries(t, e.bank)
	var statuses []string
	for _, l := range e.bank.DeliveryLog(hook) {
		statuses = append(statuses, l.DeliveryStatus)
	}
	if !slices.Equal(statuses, []string{"BAD_RESPONSE_CODE", "DELIVERED"}) {
		t.Errorf("statuses %v", statuses)
	}
}

func TestWebhookDrop(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4})
	rc := newReceiver(t)
	hook := e.createHook(rc, "/drop", "")
	e.bank.SetWebhookFaults(WebhookFaults{Drop: 1})
	id := e.bank.AddTransaction(NewTransaction{Held: true})
	_ = e.bank.Settle(id)
	e.do(http.MethodPost, "/webhooks/"+hook+"/ping", nil)
	waitDeliveries(t, e.bank)
	if len(rc.callbacks()) != 0 || len(e.bank.DeliveryLog(hook)) != 0 || e.bank.HeldDeliveries() != 0 {
		t.Fatal("dropped events were delivered or logged")
	}
	if m := e.mustGet("/webhooks/" + hook + "/logs"); len(m["data"].([]any)) != 0 {
		t.Errorf("logs: %v", m)
	}
	events := e.bank.Events()
	if len(events) != 3 {
		t.Fatalf("events %+v", events)
	}
	for _, ev := range events {
		if !ev.Dropped {
			t.Errorf("not marked dropped: %+v", ev)
		}
	}
}

func TestSettleAsReplacementEvents(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4})
	rc := newReceiver(t)
	e.createHook(rc, "/repl", "")
	b := e.bank
	held := b.AddTransaction(NewTransaction{Held: true})
	b.SetSettleAsReplacement(true)
	if err := b.Settle(held); err != nil {
		t.Fatal(err)
	}
	if err := b.Settle(held); !errors.Is(err, ErrNotFound) {
		t.Errorf("settle replaced: %v", err)
	}
	if err := b.Settle(b.Snapshot().Transactions[0].ID); !errors.Is(err, ErrNotHeld) {
		t.Errorf("settle settled: %v", err)
	}
	b.SetSettleAsReplacement(false)
	held2 := b.AddTransaction(NewTransaction{Held: true})
	repl2, err := b.SettleAsReplacement(held2)
	if err != nil {
		t.Fatal(err)
	}
	held3 := b.AddTransaction(NewTransaction{Held: true})
	if err := b.Settle(held3); err != nil {
		t.Fatal(err)
	}
	waitDeliveries(t, b)
	var got []string
	for _, ev := range b.Events() {
		got = append(got, ev.Type)
	}
	want := []string{
		"TRANSACTION_CREATED", "TRANSACTION_DELETED", "TRANSACTION_CREATED",
		"TRANSACTION_CREATED", "TRANSACTION_DELETED", "TRANSACTION_CREATED",
		"TRANSACTION_CREATED", "TRANSACTION_SETTLED",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events %v", got)
	}
	ev := b.Events()
	repl := ev[2].TransactionID
	if ev[1].TransactionID != held || repl == held || findTx(b.Snapshot(), repl).Status != "SETTLED" {
		t.Errorf("replacement events: %+v", ev[:3])
	}
	if ev[4].TransactionID != held2 || ev[5].TransactionID != repl2 {
		t.Errorf("SettleAsReplacement events: %+v", ev[3:6])
	}
	if ev[7].TransactionID != held3 {
		t.Errorf("normal settle after switching off: %+v", ev[7])
	}
	if n := len(rc.callbacks()); n != len(want) {
		t.Errorf("received %d", n)
	}
	for _, c := range rc.callbacks() {
		if c.eventType == "TRANSACTION_DELETED" && (c.txLinks || !c.hasTx) {
			t.Errorf("deleted event: %s", c.body)
		}
	}
}

func TestWebhookClose(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 4})
	rc := newReceiver(t)
	rc.set(func(callback, int) int { return http.StatusInternalServerError }, nil)
	hook := e.createHook(rc, "/closing", "")
	for range 10 {
		e.bank.AddTransaction(NewTransaction{})
	}
	e.bank.Close()
	e.bank.Close()
	waitDeliveries(t, e.bank)
	// Workers have called wg.Done by now; give them a chance to vanish.
	buf := make([]byte, 1<<20)
	stacks := ""
	for range 10000 {
		if stacks = string(buf[:runtime.Stack(buf, true)]); !strings.Contains(stacks, "(*webhookState)") {
			break
		}
		runtime.Gosched()
	}
	if strings.Contains(stacks, "(*webhookState)") {
		t.Errorf("delivery goroutines survive Close:\n%s", stacks)
	}
	n := len(e.bank.DeliveryLog(hook))
	e.bank.AddTransaction(NewTransaction{})
	e.bank.SetWebhookFaults(WebhookFaults{Reorder: true})
	e.bank.FlushDeliveries()
	waitDeliveries(t, e.bank)
	if len(e.bank.DeliveryLog(hook)) != n || len(e.bank.Events()) != 11 {
		t.Errorf("delivery after Close: %d logs (was %d)", len(e.bank.DeliveryLog(hook)), n)
	}
	e.mustGet("/webhooks/" + hook + "/logs") // the API still works
	// A bank that never had webhooks can be closed too.
	New(Options{Transactions: 1}).Close()
}

// TestWebhooksConcurrent mutates, pings, lists logs and deletes while
// deliveries (with failures, retries and duplicates) run; run with -race.
func TestWebhooksConcurrent(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 5, Now: time.Now, WebhookMaxAttempts: 50})
	rc := newReceiver(t)
	rc.set(func(c callback, nth int) int {
		if nth == 0 && c.eventID[0] < '8' { // about half fail once
			return http.StatusBadGateway
		}
		return http.StatusOK
	}, nil)
	var hooks []string
	for i := range 3 {
		hooks = append(hooks, e.createHook(rc, "/c"+strconv.Itoa(i), ""))
	}
	e.bank.SetWebhookFaults(WebhookFaults{Duplicate: 0.3})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 30 {
			id := e.bank.AddTransaction(NewTransaction{Held: true})
			switch i % 3 {
			case 0:
				_ = e.bank.Settle(id)
			case 1:
				_ = e.bank.Delete(id)
			default:
				_, _ = e.bank.SettleAsReplacement(id)
			}
		}
	})
	wg.Go(func() {
		client := e.srv.Client()
		for range 20 {
			for _, path := range []string{"/webhooks/" + hooks[0] + "/logs?page[size]=5", "/webhooks/" + hooks[1] + "/ping", "/webhooks"} {
				method := http.MethodGet
				if strings.HasSuffix(path, "/ping") {
					method = http.MethodPost
				}
				req, _ := http.NewRequest(method, e.base+path, nil)
				req.Header.Set("Authorization", "Bearer "+e.bank.Token())
				resp, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			_ = e.bank.Events()
			_ = e.bank.DeliveryLog(hooks[1])
			_ = e.bank.WaitDeliveries(context.Background())
		}
	})
	wg.Go(func() { e.bank.SetWebhookFaults(WebhookFaults{Duplicate: 0.5}) })
	wg.Wait()
	waitDeliveries(t, e.bank)
	received := map[string]bool{}
	for _, c := range rc.callbacks() {
		received[c.eventID] = true
	}
	for _, ev := range e.bank.Events() {
		if !received[ev.ID] {
			t.Errorf("event %s (%s) never delivered", ev.ID, ev.Type)
		}
	}
	for _, h := range hooks {
		delivered := map[string]bool{}
		for _, l := range e.bank.DeliveryLog(h) {
			if l.DeliveryStatus == "DELIVERED" {
				delivered[l.EventID] = true
			}
		}
		for _, ev := range e.bank.Events() {
			if ev.WebhookID == h && !delivered[ev.ID] {
				t.Errorf("no DELIVERED log for %s", ev.ID)
			}
		}
	}
}
