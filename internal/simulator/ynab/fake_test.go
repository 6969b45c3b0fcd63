package ynab

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/simulator/ynab/ynabspec"
)

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	at time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.at = c.at.Add(d)
	c.mu.Unlock()
}

// env is a fake behind a loopback server, every response of which is
// validated against the description (a mismatch fails the test).
type env struct {
	t     *testing.T
	fake  *Fake
	srv   *httptest.Server
	clock *clock
	plan  Plan
}

func newEnv(t *testing.T) *env {
	t.Helper()
	c := &clock{at: time.Date(2026, 3, 3, 9, 30, 0, 0, time.UTC)}
	var mu sync.Mutex
	var invalid []error
	spec, err := ynabspec.Load()
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(Options{Token: "tok", Now: c.now, Spec: spec, OnInvalid: func(err error) {
		mu.Lock()
		invalid = append(invalid, err)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(f.Handler())
	t.Cleanup(func() {
		srv.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, err := range invalid {
			t.Errorf("invalid response: %v", err)
		}
	})
	pl := f.AddPlan("Household", []string{"Spending", "Saver"}, map[string][]string{"Everyday": {"Groceries", "Rent"}})
	return &env{t: t, fake: f, srv: srv, clock: c, plan: pl}
}

type resp struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

func (e *env) do(method, path string, body any, token ...string) resp {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, ok := body.(string)
		if !ok {
			raw, err := json.Marshal(body)
			if err != nil {
				e.t.Fatal(err)
			}
			b = string(raw)
		}
		rd = strings.NewReader(b)
	}
	req, err := http.NewRequest(method, e.srv.URL+"/v1"+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	tok := "tok"
	if len(token) > 0 {
		tok = token[0]
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	r := resp{status: res.StatusCode, header: res.Header, raw: raw}
	if err := json.Unmarshal(raw, &r.body); err != nil {
		e.t.Fatalf("%s %s: body %q: %v", method, path, raw, err)
	}
	return r
}

func (r resp) data() map[string]any { return r.body["data"].(map[string]any) }

func (r resp) errorID() string {
	if e, ok := r.body["error"].(map[string]any); ok {
		return e["id"].(string)
	}
	return ""
}

func (e *env) txPath() string { return "/plans/" + e.plan.ID + "/transactions" }

func (e *env) newTx(acct, imp string, milli int64, extra ...string) map[string]any {
	m := map[string]any{"account_id": e.plan.Accounts[acct], "date": "2026-03-01", "amount": milli,
		"payee_name": "Shop", "cleared": "uncleared", "import_id": imp}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

const (
	imp1 = "11111111-1111-4111-8111-111111111111"
	imp2 = "22222222-2222-4222-8222-222222222222"
)

func TestRefusesWhatTheSpecRefuses(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name         string
		method, path string
		body         any
	}{
		{"cleared not in the enum", "POST", e.txPath(), map[string]any{"transactions": []any{e.newTx("Spending", imp1, -1000, "cleared", "maybe")}}},
		{"import id over 36 characters", "POST", e.txPath(), map[string]any{"transactions": []any{e.newTx("Spending", imp1+"-x", -1000)}}},
		{"amount a string", "POST", e.txPath(), map[string]any{"transaction": map[string]any{"account_id": e.plan.Accounts["Spending"], "date": "2026-03-01", "amount": "12.50"}}},
		{"date not a date", "POST", e.txPath(), map[string]any{"transactions": []any{e.newTx("Spending", imp1, -1000, "date", "1/3/2026")}}},
		{"since_date not a date", "GET", e.txPath() + "?since_date=yesterday", nil},
		{"last knowledge not an integer", "GET", e.txPath() + "?last_knowledge_of_server=x", nil},
		{"patch without transactions", "PATCH", e.txPath(), map[string]any{"transaction": map[string]any{"id": "x"}}},
		{"body not JSON", "POST", e.txPath(), "{"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(c.method, c.path, c.body)
			if r.status != http.StatusBadRequest || r.errorID() != "400" {
				t.Fatalf("status %d, body %s: want 400 bad_request", r.status, r.raw)
			}
		})
	}
	if n := len(e.fake.Transactions(e.plan.ID)); n != 0 {
		t.Fatalf("%d transactions created by refused requests", n)
	}
}

func TestAuthRateLimitAndDown(t *testing.T) {
	e := newEnv(t)
	if r := e.do("GET", "/plans", nil, ""); r.status != http.StatusUnauthorized || r.errorID() != "401" {
		t.Fatalf("no token: %d %s", r.status, r.raw)
	}
	if r := e.do("GET", "/plans", nil, "other"); r.status != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d %s", r.status, r.raw)
	}
	for i := range RequestLimit {
		if r := e.do("GET", "/user", nil); r.status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, r.status, r.raw)
		}
		if i == 0 {
			e.clock.add(30 * time.Minute)
		}
	}
	r := e.do("GET", "/user", nil)
	if r.status != http.StatusTooManyRequests || r.errorID() != "429" {
		t.Fatalf("request 201: %d %s", r.status, r.raw)
	}
	if ra := r.header.Get("Retry-After"); ra != "1800" {
		t.Fatalf("Retry-After %q, want 1800 (the first request leaves the hour in 30 minutes)", ra)
	}
	// Another token has a budget of its own.
	e.fake.AddToken("tok2")
	if r := e.do("GET", "/user", nil, "tok2"); r.status != http.StatusOK {
		t.Fatalf("second token: %d", r.status)
	}
	e.clock.add(30 * time.Minute)
	if r := e.do("GET", "/user", nil); r.status != http.StatusOK {
		t.Fatalf("an hour after the first request: %d %s", r.status, r.raw)
	}
	if r := e.do("GET", "/user", nil); r.status != http.StatusTooManyRequests {
		t.Fatalf("the rolling hour holds 199 + 1: %d", r.status)
	}
	e.fake.SetDown(true)
	if r := e.do("GET", "/user", nil); r.status != http.StatusServiceUnavailable || r.errorID() != "503" {
		t.Fatalf("down: %d %s", r.status, r.raw)
	}
	e.fake.SetDown(false)
	if r := e.do("GET", "/nowhere", nil, "tok2"); r.status != http.StatusNotFound || r.errorID() != "404.1" {
		t.Fatalf("unknown path: %d %s", r.status, r.raw)
	}
}

func TestImportIDsDeduplicatedPerAccount(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", e.txPath(), map[string]any{"transactions": []any{
		e.newTx("Spending", imp1, -1000), e.newTx("Spending", imp1, -1000), e.newTx("Saver", imp1, -1000)}})
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	d := r.data()
	if ids := d["transaction_ids"].([]any); len(ids) != 2 {
		t.Fatalf("created %v, want 2 (one per account)", ids)
	}
	if dups := d["duplicate_import_ids"].([]any); len(dups) != 1 || dups[0] != imp1 {
		t.Fatalf("duplicates %v", dups)
	}
	r = e.do("POST", e.txPath(), map[string]any{"transaction": e.newTx("Spending", imp1, -5000)})
	if r.status != http.StatusConflict || r.errorID() != "409" {
		t.Fatalf("single duplicate: %d %s", r.status, r.raw)
	}
	// A deleted row's import id is not imported again.
	var spendingID string
	for _, tx := range e.fake.Transactions(e.plan.ID) {
		if tx.Account == e.plan.Accounts["Spending"] {
			spendingID = tx.ID
		}
	}
	if r := e.do("DELETE", e.txPath()+"/"+spendingID, nil); r.status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	r = e.do("POST", e.txPath(), map[string]any{"transactions": []any{e.newTx("Spending", imp1, -1000)}})
	if dups := r.data()["duplicate_import_ids"].([]any); len(dups) != 1 {
		t.Fatalf("import id of a deleted row created again: %s", r.raw)
	}
	if r := e.do("DELETE", e.txPath()+"/"+spendingID, nil); r.status != http.StatusNotFound {
		t.Fatalf("second delete: %d", r.status)
	}
}

func TestDeltasAndServerKnowledge(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", e.txPath(), map[string]any{"transactions": []any{e.newTx("Spending", imp1, -1000), e.newTx("Spending", imp2, -2000)}})
	ids := r.data()["transaction_ids"].([]any)
	k1 := int64(r.data()["server_knowledge"].(float64))
	r = e.do("PATCH", e.txPath(), map[string]any{"transactions": []any{map[string]any{"id": ids[0], "amount": -1500, "cleared": "cleared"}}})
	if r.status != 209 {
		t.Fatalf("patch: %d %s", r.status, r.raw)
	}
	k2 := int64(r.data()["server_knowledge"].(float64))
	if k2 <= k1 {
		t.Fatalf("knowledge %d after a change, was %d", k2, k1)
	}
	if r := e.do("DELETE", e.txPath()+"/"+ids[1].(string), nil); r.status != http.StatusOK {
		t.Fatalf("delete: %d", r.status)
	}
	r = e.do("GET", e.txPath()+"?since_date=2020-01-01&last_knowledge_of_server="+itoa(k1), nil)
	txs := r.data()["transactions"].([]any)
	if len(txs) != 2 {
		t.Fatalf("delta since %d: %d rows, want the changed and the deleted", k1, len(txs))
	}
	seen := map[string]bool{}
	for _, x := range txs {
		m := x.(map[string]any)
		seen[m["id"].(string)] = m["deleted"].(bool)
		if m["id"] == ids[0] && (m["amount"].(float64) != -1500 || m["cleared"] != "cleared") {
			t.Fatalf("patched row %v", m)
		}
	}
	if seen[ids[0].(string)] || !seen[ids[1].(string)] {
		t.Fatalf("deleted flags %v", seen)
	}
	k3 := int64(r.data()["server_knowledge"].(float64))
	r = e.do("GET", e.txPath()+"?since_date=2020-01-01&last_knowledge_of_server="+itoa(k3), nil)
	if n := len(r.data()["transactions"].([]any)); n != 0 {
		t.Fatalf("delta with nothing changed: %d rows", n)
	}
	r = e.do("GET", e.txPath()+"?since_date=2020-01-01", nil)
	if n := len(r.data()["transactions"].([]any)); n != 1 {
		t.Fatalf("full list: %d rows, want the live one", n)
	}
	// Without since_date, YNAB lists a year back.
	old := e.newTx("Spending", "", -100, "date", "2024-12-31")
	delete(old, "import_id")
	e.do("POST", e.txPath(), map[string]any{"transaction": old})
	if n := len(e.do("GET", e.txPath(), nil).data()["transactions"].([]any)); n != 1 {
		t.Fatalf("default since_date: %d rows, want 1", n)
	}
	for _, p := range []string{"/accounts", "/categories", "/payees", ""} {
		if r := e.do("GET", "/plans/"+e.plan.ID+p, nil); r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", p, r.status, r.raw)
		}
	}
	if r := e.do("GET", "/plans?include_accounts=true", nil); r.status != http.StatusOK {
		t.Fatalf("plans: %d", r.status)
	}
}

func itoa(k int64) string { return strings.TrimSpace(string(must(json.Marshal(k)))) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestTransferMakesTheOtherLeg(t *testing.T) {
	e := newEnv(t)
	accts := e.do("GET", "/plans/"+e.plan.ID+"/accounts", nil).data()["accounts"].([]any)
	payeeOf := map[string]string{}
	for _, a := range accts {
		m := a.(map[string]any)
		payeeOf[m["name"].(string)] = m["transfer_payee_id"].(string)
	}
	tx := e.newTx("Spending", imp1, -5000, "payee_id", payeeOf["Saver"])
	delete(tx, "payee_name")
	r := e.do("POST", e.txPath(), map[string]any{"transactions": []any{tx}})
	leg := r.data()["transactions"].([]any)[0].(map[string]any)
	other := leg["transfer_transaction_id"].(string)
	if leg["transfer_account_id"] != e.plan.Accounts["Saver"] {
		t.Fatalf("leg %v", leg)
	}
	o := e.do("GET", e.txPath()+"/"+other, nil).data()["transaction"].(map[string]any)
	if o["account_id"] != e.plan.Accounts["Saver"] || o["amount"].(float64) != 5000 || o["transfer_transaction_id"] != leg["id"] || o["import_id"] != nil {
		t.Fatalf("other leg %v", o)
	}
	// Importing the other leg's bank row matches the leg YNAB made.
	tx2 := e.newTx("Saver", imp2, 5000, "payee_id", payeeOf["Spending"], "cleared", "cleared")
	delete(tx2, "payee_name")
	r = e.do("POST", e.txPath(), map[string]any{"transactions": []any{tx2}})
	if ids := r.data()["transaction_ids"].([]any); len(ids) != 1 || ids[0] != other {
		t.Fatalf("import of the other leg: %s", r.raw)
	}
	live := 0
	for _, x := range e.fake.Transactions(e.plan.ID) {
		if !x.Deleted {
			live++
		}
		if x.ID == other && (x.ImportID != imp2 || x.Cleared != "cleared") {
			t.Fatalf("matched leg %+v", x)
		}
	}
	if live != 2 {
		t.Fatalf("%d rows, want the two legs", live)
	}
	// A change of amount moves both legs; deleting one deletes both.
	e.do("PATCH", e.txPath(), map[string]any{"transactions": []any{map[string]any{"id": leg["id"], "amount": -7000}}})
	if o := e.do("GET", e.txPath()+"/"+other, nil).data()["transaction"].(map[string]any); o["amount"].(float64) != 7000 {
		t.Fatalf("other leg after patch %v", o["amount"])
	}
	e.do("DELETE", e.txPath()+"/"+other, nil)
	for _, x := range e.fake.Transactions(e.plan.ID) {
		if !x.Deleted {
			t.Fatalf("%+v left after deleting a transfer", x)
		}
	}
}

// TestRoutesAreTheDescriptionsOperations checks the fake's own routing
// against YNAB's description: each route is the operation the description
// routes there.
func TestRoutesAreTheDescriptionsOperations(t *testing.T) {
	s, err := ynabspec.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range routes {
		path := strings.NewReplacer("{plan_id}", "p1", "{account_id}", "a1", "{transaction_id}", "t1").Replace(r.Path)
		op, err := s.Operation(r.Method, path)
		if err != nil || op != r.Op {
			t.Errorf("%s %s: the description routes it to %q (%v), the fake to %q", r.Method, path, op, err, r.Op)
		}
		if got, params := match(r.Method, path); got != r.Op || len(params) != strings.Count(r.Path, "{") {
			t.Errorf("%s %s: matched %q %v", r.Method, path, got, params)
		}
	}
	if op, _ := match("GET", "/plans/p1/scheduled_transactions"); op != "" {
		t.Errorf("an operation the fake does not serve matched %q", op)
	}
}

// TestEveryOperationAnswersAsDescribed runs each operation the fake
// serves, so that every kind of response passes the description's check
// (a mismatch fails the test through OnInvalid).
func TestEveryOperationAnswersAsDescribed(t *testing.T) {
	e := newEnv(t)
	r := e.do("POST", e.txPath(), map[string]any{"transaction": e.newTx("Spending", imp1, -1000, "memo", "m", "flag_color", "red")})
	if r.status != http.StatusCreated {
		t.Fatalf("single create: %d %s", r.status, r.raw)
	}
	id := r.data()["transaction"].(map[string]any)["id"].(string)
	hand := e.newTx("Spending", "", -1000, "date", "2026-02-25", "payee_name", "Cafe")
	delete(hand, "import_id")
	e.do("POST", e.txPath(), map[string]any{"transaction": hand})
	r = e.do("PUT", e.txPath()+"/"+id, map[string]any{"transaction": map[string]any{"memo": nil, "category_id": e.plan.Categories["Rent"], "approved": true}})
	if r.status != http.StatusOK || r.data()["transaction"].(map[string]any)["category_name"] != "Rent" {
		t.Fatalf("put: %d %s", r.status, r.raw)
	}
	r = e.do("PATCH", e.txPath(), map[string]any{"transactions": []any{map[string]any{"import_id": imp1, "cleared": "reconciled"}}})
	if r.status != 209 {
		t.Fatalf("patch by import id: %d %s", r.status, r.raw)
	}
	if r := e.do("PATCH", e.txPath(), map[string]any{"transactions": []any{map[string]any{"id": "nope", "amount": 1}}}); r.status != http.StatusBadRequest {
		t.Fatalf("patch of an unknown id: %d", r.status)
	}
	for _, p := range []string{
		"/user", "/plans", "/plans/last-used", "/plans/" + e.plan.ID + "?last_knowledge_of_server=3",
		"/plans/" + e.plan.ID + "/accounts/" + e.plan.Accounts["Saver"],
		"/plans/" + e.plan.ID + "/payees?last_knowledge_of_server=1",
		"/plans/" + e.plan.ID + "/categories?last_knowledge_of_server=1",
		"/plans/" + e.plan.ID + "/accounts/" + e.plan.Accounts["Spending"] + "/transactions?since_date=2026-01-01&type=unapproved",
		e.txPath() + "?since_date=2026-01-01&until_date=2026-02-28&type=uncategorized",
	} {
		if r := e.do("GET", p, nil); r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", p, r.status, r.raw)
		}
	}
	for _, p := range []string{"/plans/nope/accounts", e.txPath() + "/nope", "/plans/" + e.plan.ID + "/accounts/nope"} {
		if r := e.do("GET", p, nil); r.status != http.StatusNotFound || r.errorID() != "404.2" {
			t.Fatalf("GET %s: %d %s", p, r.status, r.raw)
		}
	}
	if r := e.do("GET", "/plans/"+e.plan.ID+"/scheduled_transactions", nil); r.status != http.StatusNotFound {
		t.Fatalf("an operation the fake does not serve: %d", r.status)
	}
	// The person's rows: a hand-entered row is matched by an import of
	// the same amount within 10 days.
	r = e.do("POST", e.txPath(), map[string]any{"transactions": []any{e.newTx("Spending", imp2, -1000, "date", "2026-03-02")}})
	ids := r.data()["transaction_ids"].([]any)
	var handID string
	for _, x := range e.fake.Transactions(e.plan.ID) {
		if x.Payee == "Cafe" {
			handID = x.ID
			if x.ImportID != imp2 {
				t.Fatalf("hand-entered row not matched: %+v", x)
			}
		}
	}
	if len(ids) != 1 || ids[0] != handID {
		t.Fatalf("import matched %v, want the hand-entered row %s", ids, handID)
	}
}

// An update that gives an ordinary row an account's transfer payee makes
// it a transfer, as on create: YNAB adds the other leg on that account
// (no import id, uncleared), and the row loses its category.
func TestUpdateToATransferPayeeMakesTheOtherLeg(t *testing.T) {
	e := newEnv(t)
	accts := e.do("GET", "/plans/"+e.plan.ID+"/accounts", nil).data()["accounts"].([]any)
	payeeOf := map[string]string{}
	for _, a := range accts {
		m := a.(map[string]any)
		payeeOf[m["name"].(string)] = m["transfer_payee_id"].(string)
	}
	r := e.do("POST", e.txPath(), map[string]any{"transactions": []any{e.newTx("Spending", imp1, -5000)}})
	id := r.data()["transactions"].([]any)[0].(map[string]any)["id"].(string)
	r = e.do("PATCH", e.txPath(), map[string]any{"transactions": []any{map[string]any{"id": id, "payee_id": payeeOf["Saver"]}}})
	leg := r.data()["transactions"].([]any)[0].(map[string]any)
	other, _ := leg["transfer_transaction_id"].(string)
	if leg["transfer_account_id"] != e.plan.Accounts["Saver"] || other == "" || leg["import_id"] != imp1 {
		t.Fatalf("the row after the patch: %v", leg)
	}
	o := e.do("GET", e.txPath()+"/"+other, nil).data()["transaction"].(map[string]any)
	if o["account_id"] != e.plan.Accounts["Saver"] || o["amount"].(float64) != 5000 || o["transfer_transaction_id"] != id ||
		o["import_id"] != nil || o["cleared"] != "uncleared" {
		t.Fatalf("other leg %v", o)
	}
	// The leg appears in a delta read, as any change does.
	k := int64(r.data()["server_knowledge"].(float64))
	d := e.do("GET", e.txPath()+"?last_knowledge_of_server="+itoa(k-2), nil).data()["transactions"].([]any)
	found := false
	for _, x := range d {
		found = found || x.(map[string]any)["id"] == other
	}
	if !found {
		t.Fatalf("the other leg is not in the delta since %d", k-2)
	}
	// A transfer to its own account is refused.
	r = e.do("PATCH", e.txPath(), map[string]any{"transactions": []any{map[string]any{"id": other, "payee_id": payeeOf["Saver"]}}})
	if r.errorID() == "" {
		t.Fatalf("a transfer to its own account: %s", r.raw)
	}
}
