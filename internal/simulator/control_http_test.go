package simulator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

var (
	ctlSpecOnce   sync.Once
	ctlSpecRouter routers.Router
	ctlSpecErr    error
)

// loadControlSpec loads control-openapi.yaml, the control API's own
// description, once.
func loadControlSpec(t testing.TB) routers.Router {
	t.Helper()
	ctlSpecOnce.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromFile("control-openapi.yaml")
		if err == nil {
			err = doc.Validate(context.Background())
		}
		if err == nil {
			ctlSpecRouter, err = legacy.NewRouter(doc)
		}
		ctlSpecErr = err
	})
	if ctlSpecErr != nil {
		t.Fatalf("load control-openapi.yaml: %v", ctlSpecErr)
	}
	return ctlSpecRouter
}

// ctl is a plain net/http client of the control API.
type ctl struct {
	t     *testing.T
	base  string // http://127.0.0.1:PORT/_sim
	token string
}

// do sends a control request and validates the response against
// control-openapi.yaml.
func (c ctl) do(method, path string, body any) response {
	c.t.Helper()
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			c.t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(raw))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	r := roundTrip(c.t, req)
	c.validate(req, raw, r)
	return r
}

func (c ctl) validate(req *http.Request, reqBody []byte, r response) {
	c.t.Helper()
	router := loadControlSpec(c.t)
	u, _ := url.Parse("http://127.0.0.1:8081" + req.URL.Path)
	u.RawQuery = req.URL.RawQuery
	rreq := req.Clone(context.Background())
	rreq.URL, rreq.Host = u, u.Host
	route, params, err := router.FindRoute(rreq)
	if err != nil {
		if r.status != http.StatusNotFound && r.status != http.StatusMethodNotAllowed {
			c.t.Errorf("%s %s: no route in control-openapi.yaml but status %d", req.Method, req.URL.Path, r.status)
		}
		return
	}
	if route.Operation.Responses.Status(r.status) == nil && r.status != http.StatusUnauthorized {
		c.t.Errorf("%s %s: undocumented status %d: %s", req.Method, req.URL.Path, r.status, r.body)
		return
	}
	rreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: rreq, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}},
		Status: r.status, Header: r.header, Body: io.NopCloser(bytes.NewReader(r.body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if len(reqBody) > 0 && r.status < 300 {
		if err := openapi3filter.ValidateRequest(context.Background(), in.RequestValidationInput); err != nil {
			c.t.Errorf("%s %s: request does not match control-openapi.yaml: %v", req.Method, req.URL.Path, err)
		}
		rreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		c.t.Errorf("%s %s: response does not match control-openapi.yaml: %v\n%.1000s", req.Method, req.URL.Path, err, r.body)
	}
}

// must sends a request and requires the status.
func (c ctl) must(status int, method, path string, body any) map[string]any {
	c.t.Helper()
	r := c.do(method, path, body)
	if r.status != status {
		c.t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.status, status, r.body)
	}
	if len(r.body) == 0 {
		return nil
	}
	return r.json(c.t)
}

func newCtl(t *testing.T, e *env) ctl {
	return ctl{t: t, base: e.srv.URL + controlPrefix, token: e.bank.ControlToken()}
}

// pingStatus is the status and rate-limit headers of GET /util/ping.
func (e *env) pingStatus(token string) rateStatus {
	e.t.Helper()
	r := e.do(http.MethodGet, "/util/ping", nil, "Authorization", "Bearer "+token)
	return rateStatus{r.status, r.header.Get("X-RateLimit-Remaining"), r.header.Get("Retry-After")}
}

func TestControlAPIAuthAndErrors(t *testing.T) {
	e := newEnv(t, Options{Seed: 1, Transactions: 60, ControlToken: "ctl-secret"})
	c := newCtl(t, e)
	for _, tok := range []string{"", e.bank.Token(), "wrong"} {
		bad := ctl{t: t, base: c.base, token: tok}
		if r := bad.do(http.MethodGet, "/accounts", nil); r.status != http.StatusUnauthorized {
			t.Errorf("token %q: status %d", tok, r.status)
		}
	}
	if r := c.do(http.MethodGet, "/openapi.yaml", nil); r.status != http.StatusOK || !bytes.HasPrefix(r.body, []byte("openapi: 3.")) {
		t.Errorf("GET /_sim/openapi.yaml: %d %.40s", r.status, r.body)
	}
	settled := e.bank.Snapshot().Transactions[len(e.bank.Snapshot().Transactions)-1].ID
	for _, tc := range []struct {
		method, path string
		body         any
		status       int
	}{
		{http.MethodGet, "/nope", nil, 404},
		{http.MethodPatch, "/faults", nil, 405},
		{http.MethodPost, "/transactions/nope/settle", nil, 404},
		{http.MethodPost, "/transactions/" + settled + "/settle", nil, 409},
		{http.MethodDelete, "/transactions/" + settled, nil, 409},
		{http.MethodPost, "/transactions", map[string]any{"amountBaseUnit": 5}, 400},
		{http.MethodPost, "/transactions", map[string]any{"categoryId": "home"}, 422},
		{http.MethodPut, "/faults", map[string]any{"statusRates": map[string]float64{"404": 1}}, 422},
		{http.MethodPut, "/clock", map[string]any{"frozen": true}, 422},
		{http.MethodPut, "/transactions/" + settled + "/tags", map[string]any{"tags": []string{"1", "2", "3", "4", "5", "6", "7"}}, 422},
	} {
		r := c.do(tc.method, tc.path, tc.body)
		if r.status != tc.status || r.json(t)["error"] == "" {
			t.Errorf("%s %s: %d %s, want %d with an error", tc.method, tc.path, r.status, r.body, tc.status)
		}
	}
}

// Every control endpoint over HTTP with a plain client: each change is
// delivered to a webhook, signed (the receiver checks), with the retry
// timing set over HTTP.
func TestControlAPIDrivesTheBank(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 31, Transactions: 80})
	c := newCtl(t, e)
	rc := newReceiver(t)
	hook := e.createHook(rc, "/hook", "")
	wait := func() { c.must(204, http.MethodPost, "/deliveries/wait", map[string]string{"timeout": "30s"}) }

	retry := c.must(200, http.MethodPut, "/webhook-retry", map[string]any{"base": "20ms", "max": "40ms", "attempts": 3, "timeout": "5s"})
	if retry["base"] != "20ms" || retry["max"] != "40ms" || retry["attempts"] != float64(3) || retry["timeout"] != "5s" {
		t.Errorf("webhook-retry: %v", retry)
	}
	if got := c.must(200, http.MethodGet, "/webhook-retry", nil); got["base"] != "20ms" {
		t.Errorf("GET webhook-retry: %v", got)
	}

	// Create, settle, settle as replacement, delete with and without event.
	ids := func(m map[string]any) []string {
		var out []string
		for _, id := range m["ids"].([]any) {
			out = append(out, id.(string))
		}
		return out
	}
	a := ids(c.must(201, http.MethodPost, "/transactions", map[string]any{"description": "Held one", "amountBaseUnits": -1234, "held": true}))[0]
	if id := c.must(200, http.MethodPost, "/transactions/"+a+"/settle", nil)["id"]; id != a {
		t.Errorf("settle returned %v", id)
	}
	b := ids(c.must(201, http.MethodPost, "/transactions", map[string]any{"held": true, "foreign": true, "attachment": "image/png"}))[0]
	bNew := c.must(200, http.MethodPost, "/transactions/"+b+"/settle", map[string]bool{"replace": true})["id"].(string)
	if bNew == b {
		t.Error("settle with replace kept the id")
	}
	d1 := ids(c.must(201, http.MethodPost, "/transactions", map[string]any{"held": true}))[0]
	c.must(204, http.MethodDelete, "/transactions/"+d1, nil)
	d2 := ids(c.must(201, http.MethodPost, "/transactions", map[string]any{"held": true}))[0]
	c.must(204, http.MethodDelete, "/transactions/"+d2+"?event=false", nil)
	pair := ids(c.must(201, http.MethodPost, "/transactions", map[string]any{
		"amountBaseUnits": -700, "transferAccountId": e.bank.Snapshot().Accounts[1].ID, "message": "Top up"}))
	if len(pair) != 2 {
		t.Fatalf("transfer made %v", pair)
	}
	// Silent edits.
	c.must(204, http.MethodPut, "/transactions/"+a+"/tags", map[string]any{"tags": []string{"via control", "🧾"}})
	c.must(204, http.MethodPut, "/transactions/"+a+"/category", map[string]any{"categoryId": "groceries"})
	tx := e.mustGet("/transactions/" + a)
	if len(attr(tx, "data", "relationships", "tags", "data").([]any)) != 2 || attr(tx, "data", "relationships", "category", "data", "id") != "groceries" {
		t.Errorf("silent edits not applied: %v", tx)
	}
	c.must(204, http.MethodPut, "/transactions/"+a+"/category", map[string]any{"categoryId": nil})
	if got := attr(e.mustGet("/transactions/"+a), "data", "relationships", "category", "data"); got != nil {
		t.Errorf("category after null: %v", got)
	}
	wait()

	type ev struct{ typ, tx string }
	want := []ev{{eventCreated, a}, {eventSettled, a}, {eventCreated, b}, {eventDeleted, b}, {eventCreated, bNew},
		{eventCreated, d1}, {eventDeleted, d1}, {eventCreated, d2}, {eventCreated, pair[0]}, {eventCreated, pair[1]}}
	var got []ev
	for _, x := range c.must(200, http.MethodGet, "/events", nil)["data"].([]any) {
		m := x.(map[string]any)
		got = append(got, ev{m["eventType"].(string), m["transactionId"].(string)})
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got %v\nwant %v", got, want)
	}
	var received []ev
	for _, cb := range rc.callbacks() {
		received = append(received, ev{cb.eventType, cb.txID})
	}
	slices.SortFunc(received, func(x, y ev) int { return strings.Compare(x.typ+x.tx, y.typ+y.tx) })
	slices.SortFunc(want, func(x, y ev) int { return strings.Compare(x.typ+x.tx, y.typ+y.tx) })
	if !slices.Equal(received, want) {
		t.Errorf("delivered:\n got %v\nwant %v", received, want)
	}

	// Retries on the schedule set above: 20ms, then 40ms.
	rc.set(func(_ callback, nth int) int {
		if nth < 2 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}, nil)
	flaky := ids(c.must(201, http.MethodPost, "/transactions", nil))[0]
	wait()
	var attempts []map[string]any
	for _, x := range c.must(200, http.MethodGet, "/deliveries?webhook="+hook, nil)["data"].([]any) {
		m := x.(map[string]any)
		if strings.Contains(m["requestBody"].(string), flaky) {
			attempts = append(attempts, m)
		}
	}
	if len(attempts) != 3 {
		t.Fatalf("%d attempts for the flaky delivery, want 3", len(attempts))
	}
	var at []time.Time
	for i, m := range attempts {
		ts, _ := time.Parse(time.RFC3339Nano, m["createdAt"].(string))
		at = append(at, ts)
		wantStatus := "BAD_RESPONSE_CODE"
		if i == 2 {
			wantStatus = "DELIVERED"
		}
		if m["attempt"] != float64(i+1) || m["deliveryStatus"] != wantStatus {
			t.Errorf("attempt %d: %v", i+1, m)
		}
	}
	if at[1].Sub(at[0]) < 20*time.Millisecond || at[2].Sub(at[1]) < 40*time.Millisecond {
		t.Errorf("retries at %v, want gaps of at least 20ms then 40ms", at)
	}
	rc.set(nil, nil)

	// Delivery faults: paused, then released; reverse order on flush.
	if f := c.must(200, http.MethodPut, "/webhook-faults", map[string]any{"paused": true}); f["paused"] != true {
		t.Errorf("webhook-faults: %v", f)
	}
	if f := c.must(200, http.MethodGet, "/webhook-faults", nil); f["paused"] != true || f["reorder"] != false {
		t.Errorf("GET webhook-faults: %v", f)
	}
	before := len(rc.callbacks())
	paused := ids(c.must(201, http.MethodPost, "/transactions", nil))[0]
	wait()
	if n := len(rc.callbacks()); n != before {
		t.Errorf("paused delivery was sent (%d callbacks, had %d)", n, before)
	}
	c.must(200, http.MethodPut, "/webhook-faults", map[string]any{"deliverInReverse": true})
	first := ids(c.must(201, http.MethodPost, "/transactions", nil))[0]
	second := ids(c.must(201, http.MethodPost, "/transactions", nil))[0]
	c.must(204, http.MethodPost, "/deliveries/flush", nil)
	wait()
	var order []string
	for _, cb := range rc.callbacks()[before:] {
		order = append(order, cb.txID)
	}
	if !slices.Equal(order, []string{second, first, paused}) {
		t.Errorf("flush in reverse delivered %v, want %v", order, []string{second, first, paused})
	}
	c.must(200, http.MethodPut, "/webhook-faults", map[string]any{})

	if hooks := c.must(200, http.MethodGet, "/webhooks", nil)["data"].([]any); len(hooks) != 1 || len(hooks[0].(map[string]any)["secretKey"].(string)) != 64 {
		t.Errorf("webhooks: %v", hooks)
	}
	if change := c.must(200, http.MethodPost, "/live/step", nil)["change"]; change == "" {
		t.Error("live step made no change")
	}
	wait()

	// The record reconciles: balances against transactions.
	sums := map[string]int64{}
	for _, x := range c.must(200, http.MethodGet, "/transactions", nil)["data"].([]any) {
		m := x.(map[string]any)
		sums[attr(m, "relationships", "account", "data", "id").(string)] += int64(attr(m, "attributes", "amount", "valueInBaseUnits").(float64))
	}
	for _, x := range c.must(200, http.MethodGet, "/accounts", nil)["data"].([]any) {
		m := x.(map[string]any)
		opening, balance := attr(m, "openingBalance", "valueInBaseUnits").(float64), attr(m, "balance", "valueInBaseUnits").(float64)
		if int64(opening)+sums[m["id"].(string)] != int64(balance) {
			t.Errorf("%s: opening %v + transactions %d != balance %v", m["displayName"], opening, sums[m["id"].(string)], balance)
		}
	}
}

func TestControlAPIFaultsTokenClockReset(t *testing.T) {
	e := newEnv(t, Options{Seed: 32, Transactions: 70, Now: time.Now})
	c := newCtl(t, e)
	tok := e.bank.Token()

	c.must(200, http.MethodPut, "/faults", map[string]any{"statusRates": map[string]float64{"503": 1}})
	if got := e.pingStatus(tok); got.status != http.StatusServiceUnavailable {
		t.Errorf("statusRates 503: %v", got)
	}
	if f := c.must(200, http.MethodGet, "/faults", nil); attr(f, "statusRates", "503") != float64(1) {
		t.Errorf("GET faults: %v", f)
	}
	f := c.must(200, http.MethodPut, "/faults", map[string]any{"rateLimitBurst": 1, "retryAfter": "2s", "latency": "1ms"})
	if f["rateLimitBurst"] != float64(1) || f["retryAfter"] != "2s" || f["latency"] != "1ms" {
		t.Errorf("faults: %v", f)
	}
	if got := e.pingStatus(tok); got != (rateStatus{429, "0", "2"}) {
		t.Errorf("burst: %v", got)
	}
	if got := c.must(200, http.MethodGet, "/faults", nil); got["rateLimitBurst"] != float64(0) {
		t.Errorf("burst did not count down: %v", got)
	}
	c.must(200, http.MethodPut, "/faults", map[string]any{})

	// Hourly buckets on a frozen clock.
	bucket := time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
	if clk := c.must(200, http.MethodPut, "/clock", map[string]any{"now": bucket.Add(15 * time.Minute), "frozen": true}); clk["frozen"] != true {
		t.Errorf("clock: %v", clk)
	}
	if rl := c.must(200, http.MethodPut, "/rate-limit", map[string]any{"limit": 2, "bucket": "1h", "retryAfter": true}); rl["limit"] != float64(2) || rl["bucket"] != "1h0m0s" {
		t.Errorf("rate-limit: %v", rl)
	}
	if rl := c.must(200, http.MethodGet, "/rate-limit", nil); rl["retryAfter"] != true {
		t.Errorf("GET rate-limit: %v", rl)
	}
	got := []rateStatus{e.pingStatus(tok), e.pingStatus(tok), e.pingStatus(tok)}
	if want := []rateStatus{{200, "1", ""}, {200, "0", ""}, {429, "0", "2700"}}; !slices.Equal(got, want) {
		t.Errorf("rate limited: got %v, want %v", got, want)
	}
	c.must(200, http.MethodPut, "/clock", map[string]any{"now": bucket.Add(time.Hour), "frozen": true})
	if got := e.pingStatus(tok); got != (rateStatus{200, "1", ""}) {
		t.Errorf("next bucket: %v", got)
	}
	// Buckets that start 30 minutes past the hour: the one begun at
	// 10:30 is fresh at 11:00.
	if rl := c.must(200, http.MethodPut, "/rate-limit", map[string]any{"limit": 2, "bucket": "1h", "offset": "30m"}); rl["offset"] != "30m0s" {
		t.Errorf("rate-limit with offset: %v", rl)
	}
	if got := e.pingStatus(tok); got != (rateStatus{200, "1", ""}) {
		t.Errorf("offset bucket: %v", got)
	}
	for _, bad := range []map[string]any{{"limit": 2, "bucket": "1h", "offset": "1h"}, {"limit": 2, "offset": "-1s"}, {"limit": 2, "bucket": "2s", "offset": "3s"}} {
		c.must(422, http.MethodPut, "/rate-limit", bad)
	}
	c.must(200, http.MethodPut, "/rate-limit", map[string]any{"limit": 0})
	if got := e.pingStatus(tok); got != (rateStatus{200, "", ""}) {
		t.Errorf("no limit: %v", got)
	}
	if clk := c.must(200, http.MethodGet, "/clock", nil); clk["now"] != "2030-01-01T11:00:00Z" {
		t.Errorf("clock reads %v", clk)
	}

	// Token rotation and revocation.
	if r := c.must(200, http.MethodPost, "/token/rotate", map[string]string{"token": "new-token"}); r["token"] != "new-token" {
		t.Errorf("rotate: %v", r)
	}
	if e.pingStatus(tok).status != 401 || e.pingStatus("new-token").status != 200 {
		t.Error("rotation: the old token still works or the new one does not")
	}
	c.must(204, http.MethodPost, "/token/revoke", nil)
	if e.pingStatus("new-token").status != 401 {
		t.Error("revoked token still works")
	}
	random := c.must(200, http.MethodPost, "/token/rotate", nil)["token"].(string)
	if len(random) < 32 || e.pingStatus(random).status != 200 {
		t.Errorf("random token %q", random)
	}

	// The request record.
	counts := map[string]float64{}
	for _, x := range c.must(200, http.MethodGet, "/requests", nil)["data"].([]any) {
		m := x.(map[string]any)
		counts[fmt.Sprintf("%s %s %v", m["method"], m["route"], m["status"])] = m["count"].(float64)
	}
	for k, want := range map[string]float64{"GET /util/ping 503": 1, "GET /util/ping 429": 2, "GET /util/ping 401": 2, "GET /util/ping 200": 7} {
		if counts[k] != want {
			t.Errorf("requests[%s] = %v, want %v (%v)", k, counts[k], want, counts)
		}
	}

	// Background changes: set, read back, stop.
	if l := c.must(200, http.MethodPut, "/live", map[string]string{"every": "1h"}); l["every"] != "1h0m0s" {
		t.Errorf("live: %v", l)
	}
	c.must(200, http.MethodPut, "/live", map[string]string{"every": "0s"})
	if l := c.must(200, http.MethodGet, "/live", nil); l["every"] != "0s" || e.bank.Live() != 0 {
		t.Errorf("live after stop: %v", l)
	}

	// Reset: back to the seed.
	seeded := len(e.bank.Snapshot().Transactions)
	c.must(201, http.MethodPost, "/transactions", nil)
	c.must(204, http.MethodPost, "/reset", nil)
	if n := len(c.must(200, http.MethodGet, "/transactions", nil)["data"].([]any)); n != seeded {
		t.Errorf("after reset %d transactions, want %d", n, seeded)
	}
	if e.pingStatus(e.bank.opts.Token).status != 200 {
		t.Error("reset did not restore the token")
	}
	if n := len(c.must(200, http.MethodGet, "/requests", nil)["data"].([]any)); n != 1 {
		t.Errorf("after reset the record has %d rows, want the one ping since", n)
	}
}
