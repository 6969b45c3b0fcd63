package simulator

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// newHousehold is a bank of alex and sam behind a test server.
func newHousehold(t *testing.T, opts Options) *env {
	t.Helper()
	if opts.People == nil {
		opts.People = []string{"alex", "sam"}
	}
	if opts.Transactions == 0 && !opts.Empty {
		opts.Transactions = 300
	}
	e := newEnv(t, opts)
	t.Cleanup(e.bank.Close)
	return e
}

// as is the header that authenticates a request as the person.
func (e *env) as(name string) []string {
	return []string{"Authorization", "Bearer " + e.bank.PersonToken(name)}
}

// getAs GETs target with the person's token and wants 200.
func (e *env) getAs(name, target string) map[string]any {
	e.t.Helper()
	r := e.do(http.MethodGet, target, nil, e.as(name)...)
	if r.status != http.StatusOK {
		e.t.Fatalf("GET %s as %s: %d %s", target, name, r.status, r.body)
	}
	return r.json(e.t)
}

// walkAs follows links.next from target as the person.
func (e *env) walkAs(name, target string) []map[string]any {
	e.t.Helper()
	var all []map[string]any
	for target != "" {
		page := e.getAs(name, target)
		for _, it := range page["data"].([]any) {
			all = append(all, it.(map[string]any))
		}
		target, _ = attr(page, "links", "next").(string)
	}
	return all
}

// createHookAs creates a webhook as the person, posting to rc at path.
func (e *env) createHookAs(name string, rc *receiver, path string) string {
	e.t.Helper()
	r := e.do(http.MethodPost, "/webhooks", map[string]any{"data": map[string]any{"attributes": map[string]any{"url": rc.url(path)}}}, e.as(name)...)
	if r.status != http.StatusCreated {
		e.t.Fatalf("POST /webhooks as %s: %d %s", name, r.status, r.body)
	}
	m := r.json(e.t)
	rc.mu.Lock()
	rc.secrets[path], _ = attr(m, "data", "attributes", "secretKey").(string)
	rc.mu.Unlock()
	return attr(m, "data", "id").(string)
}

func TestHouseholdAccounts(t *testing.T) {
	e := newHousehold(t, Options{Seed: 3})
	b := e.bank
	joint := b.JointAccount()
	alexOwn, samOwn := b.PersonAccounts("alex"), b.PersonAccounts("sam")
	if joint == "" || len(alexOwn) == 0 || len(samOwn) == 0 {
		t.Fatalf("joint %q, alex %v, sam %v", joint, alexOwn, samOwn)
	}
	seen := map[string][]string{}
	for _, name := range []string{"alex", "sam"} {
		accs := e.walkAs(name, "/accounts?page[size]=2")
		seen[name] = ids(accs)
		for _, a := range accs {
			if want := map[bool]string{true: "JOINT", false: "INDIVIDUAL"}[a["id"] == joint]; attr(a, "attributes", "ownershipType") != want {
				t.Errorf("%s: account %v is %v, want %s", name, a["id"], attr(a, "attributes", "ownershipType"), want)
			}
		}
		jointOnly := e.walkAs(name, "/accounts?filter[ownershipType]=JOINT")
		if got := ids(jointOnly); !slices.Equal(got, []string{joint}) {
			t.Errorf("%s: joint accounts %v, want [%s]", name, got, joint)
		}
	}
	want := map[string][]string{"alex": append(slices.Clone(alexOwn), joint), "sam": append(slices.Clone(samOwn), joint)}
	for name, accs := range seen {
		if !sameSet(accs, want[name]) {
			t.Errorf("%s lists %v, want %v", name, accs, want[name])
		}
	}
	// Each person's own accounts are invisible to the other.
	for _, c := range []struct{ who, other string }{{"alex", "sam"}, {"sam", "alex"}} {
		for _, id := range b.PersonAccounts(c.other) {
			for _, path := range []string{"/accounts/" + id, "/accounts/" + id + "/transactions"} {
				if r := e.do(http.MethodGet, path, nil, e.as(c.who)...); r.status != http.StatusNotFound {
					t.Errorf("%s GET %s: %d, want 404", c.who, path, r.status)
				}
			}
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestHouseholdTransactions(t *testing.T) {
	e := newHousehold(t, Options{Seed: 5, Transactions: 400, JointTransactions: 120})
	b := e.bank
	joint := b.JointAccount()
	jointA := ids(e.walkAs("alex", "/accounts/"+joint+"/transactions?page[size]=100"))
	jointS := ids(e.walkAs("sam", "/accounts/"+joint+"/transactions?page[size]=100"))
	if len(jointA) < 120 || !slices.Equal(jointA, jointS) {
		t.Fatalf("joint account: alex sees %d, sam %d transactions, want the same >= 120", len(jointA), len(jointS))
	}
	people := map[string]bool{}
	for _, tx := range e.walkAs("sam", "/accounts/"+joint+"/transactions?page[size]=100") {
		if pc, ok := attr(tx, "attributes", "performingCustomer", "displayName").(string); ok {
			people[pc] = true
		}
		if tags := attr(tx, "relationships", "tags", "data").([]any); len(tags) != 0 {
			t.Errorf("joint transaction %v has tags %v", tx["id"], tags)
		}
	}
	if !people["Alex"] || !people["Sam"] {
		t.Errorf("joint performingCustomer names %v, want Alex and Sam", people)
	}
	all := map[string]map[string]bool{}
	for _, name := range []string{"alex", "sam"} {
		all[name] = map[string]bool{}
		for _, tx := range e.walkAs(name, "/transactions?page[size]=100") {
			all[name][tx["id"].(string)] = true
			acc := attr(tx, "relationships", "account", "data", "id").(string)
			if acc != joint && !slices.Contains(b.PersonAccounts(name), acc) {
				t.Fatalf("%s lists %v of account %s", name, tx["id"], acc)
			}
			if acc != joint && attr(tx, "attributes", "cardPurchaseMethod") != nil {
				if pc := attr(tx, "attributes", "performingCustomer", "displayName"); pc != capitalise(name) {
					t.Errorf("%s's card purchase %v performed by %v", name, tx["id"], pc)
				}
			}
		}
	}
	for _, id := range jointA {
		if !all["alex"][id] || !all["sam"][id] {
			t.Errorf("joint transaction %s missing from a /transactions listing", id)
		}
	}
	// A person's own transaction is 404 to the other.
	for id := range all["alex"] {
		if !all["sam"][id] {
			if r := e.do(http.MethodGet, "/transactions/"+id, nil, e.as("sam")...); r.status != http.StatusNotFound {
				t.Errorf("sam GET alex's %s: %d", id, r.status)
			}
			break
		}
	}
	// Ping answers each person's own customer id.
	ids := map[string]bool{}
	for _, p := range b.People() {
		m := e.getAs(p.Name, "/util/ping")
		if got := attr(m, "meta", "id"); got != p.CustomerID || p.CustomerID == "" {
			t.Errorf("%s ping id %v, want %q", p.Name, got, p.CustomerID)
		}
		ids[p.CustomerID] = true
	}
	if len(ids) != 2 {
		t.Errorf("customer ids not distinct: %v", ids)
	}
}

func TestHouseholdOfOneUnchanged(t *testing.T) {
	a := New(Options{Seed: 9, Transactions: 300, Now: fixedClock})
	ps := a.People()
	if len(ps) != 1 || ps[0].Token != a.Token() || len(ps[0].AccountIDs) != 4 || a.JointAccount() == "" {
		t.Fatalf("household of one: %+v, joint %q", ps, a.JointAccount())
	}
	s := a.Snapshot()
	if len(s.Accounts) != 5 || len(s.Transactions) != 300 {
		t.Fatalf("%d accounts, %d transactions", len(s.Accounts), len(s.Transactions))
	}
	// Tags may still be set on the joint account of a household of one.
	for _, tx := range s.Transactions {
		if tx.AccountID == a.JointAccount() {
			if err := a.SetTags(tx.ID, []string{"x"}); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
}

func TestHouseholdRateLimitPerToken(t *testing.T) {
	e := newHousehold(t, Options{Seed: 1, RateLimit: RateLimit{Limit: 3, Bucket: time.Hour}})
	for i := 2; i >= 0; i-- {
		r := e.do(http.MethodGet, "/util/ping", nil, e.as("alex")...)
		if r.status != http.StatusOK || r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(i) {
			t.Fatalf("alex ping: %d, remaining %q, want %d", r.status, r.header.Get("X-RateLimit-Remaining"), i)
		}
	}
	if r := e.do(http.MethodGet, "/util/ping", nil, e.as("alex")...); r.status != http.StatusTooManyRequests {
		t.Fatalf("alex's 4th request: %d, want 429", r.status)
	}
	r := e.do(http.MethodGet, "/util/ping", nil, e.as("sam")...)
	if r.status != http.StatusOK || r.header.Get("X-RateLimit-Remaining") != "2" {
		t.Fatalf("sam's first request: %d, remaining %q", r.status, r.header.Get("X-RateLimit-Remaining"))
	}
	alex, _ := e.bank.PersonOf("alex")
	sam, _ := e.bank.PersonOf("sam")
	if alex.Requests != 4 || sam.Requests != 1 {
		t.Errorf("requests alex %d sam %d, want 4 and 1", alex.Requests, sam.Requests)
	}
	if a, s := e.bank.PersonBucketUsed("alex"), e.bank.PersonBucketUsed("sam"); a != 3 || s != 1 {
		t.Errorf("bucket used: alex %d, sam %d, want 3 and 1", a, s)
	}
	var limited int64
	for _, c := range e.bank.PersonRequestCounts("alex") {
		if c.Status == http.StatusTooManyRequests {
			limited += c.Count
		}
	}
	if limited != 1 {
		t.Errorf("alex's 429s: %d", limited)
	}
}

func TestHouseholdRevokeOnePerson(t *testing.T) {
	e := newHousehold(t, Options{Seed: 1})
	b := e.bank
	old := b.PersonToken("sam")
	if err := b.RevokePersonToken("sam"); err != nil {
		t.Fatal(err)
	}
	r := e.do(http.MethodGet, "/util/ping", nil, "Authorization", "Bearer "+old)
	if r.status != http.StatusUnauthorized || b.PersonToken("sam") != "" {
		t.Fatalf("revoked sam: %d, token %q", r.status, b.PersonToken("sam"))
	}
	if r := e.do(http.MethodGet, "/accounts/"+b.JointAccount()+"/transactions", nil, e.as("alex")...); r.status != http.StatusOK {
		t.Fatalf("alex while sam is revoked: %d", r.status)
	}
	if tok, err := b.RestorePersonToken("sam"); err != nil || tok != old {
		t.Fatalf("restore: %q, %v", tok, err)
	}
	if r := e.do(http.MethodGet, "/util/ping", nil, "Authorization", "Bearer "+old); r.status != http.StatusOK {
		t.Fatalf("restored sam: %d", r.status)
	}
	if err := b.RevokePersonToken("kim"); !errors.Is(err, ErrUnknownPerson) {
		t.Errorf("revoke kim: %v", err)
	}
}

func TestHouseholdJointTagsRefused(t *testing.T) {
	e := newHousehold(t, Options{Seed: 1})
	b := e.bank
	id, err := b.PurchaseAs("sam", b.JointAccount(), NewTransaction{Description: "Coles", AmountBaseUnits: -4250})
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"data": []any{map[string]any{"type": "tags", "id": "groceries"}}}
	r := e.do(http.MethodPost, "/transactions/"+id+"/relationships/tags", body, e.as("alex")...)
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("tag on joint: %d %s", r.status, r.body)
	}
	if m := r.json(t); attr(m, "errors") == nil {
		t.Errorf("no error object: %s", r.body)
	}
	if err := b.SetTags(id, []string{"x"}); !errors.Is(err, ErrJointTags) {
		t.Errorf("SetTags on joint: %v", err)
	}
	own := b.AddTransaction(NewTransaction{Person: "alex", Description: "Aesop", AmountBaseUnits: -9000})
	if r := e.do(http.MethodPost, "/transactions/"+own+"/relationships/tags", body, e.as("alex")...); r.status != http.StatusNoContent {
		t.Fatalf("tag on alex's own: %d %s", r.status, r.body)
	}
	if r := e.do(http.MethodPost, "/transactions/"+own+"/relationships/tags", body, e.as("sam")...); r.status != http.StatusNotFound {
		t.Fatalf("sam tags alex's own: %d %s", r.status, r.body)
	}
	tagsOf := func(name string) []string { return ids(e.walkAs(name, "/tags")) }
	if !slices.Contains(tagsOf("alex"), "groceries") || slices.Contains(tagsOf("sam"), "groceries") {
		t.Errorf("tags: alex %v, sam %v", tagsOf("alex"), tagsOf("sam"))
	}
}

func TestHouseholdPurchaseAndPayment(t *testing.T) {
	e := newHousehold(t, Options{Seed: 2, Empty: true})
	b := e.bank
	id, err := b.PurchaseAs("sam", b.JointAccount(), NewTransaction{Description: "Bunnings", AmountBaseUnits: -3300, Held: true})
	if err != nil {
		t.Fatal(err)
	}
	tx := e.getAs("alex", "/transactions/"+id)
	if attr(tx, "data", "attributes", "performingCustomer", "displayName") != "Sam" || attr(tx, "data", "attributes", "status") != "HELD" {
		t.Errorf("joint purchase as sam: %v", tx)
	}
	if _, err := b.PurchaseAs("sam", b.PersonAccounts("alex")[0], NewTransaction{AmountBaseUnits: -100}); !errors.Is(err, ErrUnknownAccount) {
		t.Errorf("sam buys on alex's account: %v", err)
	}
	out, in, err := b.PayPerson(Payment{From: "alex", To: "sam", AmountBaseUnits: 2500, Message: "Dinner 🍜"})
	if err != nil {
		t.Fatal(err)
	}
	o := e.getAs("alex", "/transactions/"+out)
	i := e.getAs("sam", "/transactions/"+in)
	for _, c := range []struct {
		m           map[string]any
		amount      string
		description string
		account     string
	}{{o, "-25.00", "Sam Smith", b.PersonAccounts("alex")[0]}, {i, "25.00", "Alex Jones", b.PersonAccounts("sam")[0]}} {
		if attr(c.m, "data", "attributes", "amount", "value") != c.amount ||
			attr(c.m, "data", "attributes", "description") != c.description ||
			attr(c.m, "data", "attributes", "message") != "Dinner 🍜" ||
			attr(c.m, "data", "relationships", "account", "data", "id") != c.account ||
			attr(c.m, "data", "relationships", "transferAccount", "data") != nil {
			t.Errorf("payment side: %v", c.m)
		}
	}
	if attr(o, "data", "attributes", "createdAt") != attr(i, "data", "attributes", "createdAt") {
		t.Errorf("sides at %v and %v", attr(o, "data", "attributes", "createdAt"), attr(i, "data", "attributes", "createdAt"))
	}
	for _, bad := range []Payment{
		{From: "alex", To: "alex", AmountBaseUnits: 1},
		{From: "alex", To: "sam", AmountBaseUnits: 0},
		{From: "alex", To: "kim", AmountBaseUnits: 1},
		{From: "alex", To: "sam", AmountBaseUnits: 1, FromAccountID: b.PersonAccounts("sam")[0]},
	} {
		if _, _, err := b.PayPerson(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// A held payment (POST /_sim/payments with held) is two HELD
// transactions; deleting one at the bank (a payment returned) leaves the
// other, still HELD, until it settles.
func TestHouseholdHeldPayment(t *testing.T) {
	e := newHousehold(t, Options{Seed: 3, Empty: true})
	c := newCtl(t, e)
	paid := c.must(http.StatusCreated, http.MethodPost, "/payments",
		map[string]any{"from": "alex", "to": "sam", "amountBaseUnits": 3100, "message": "Tickets", "held": true})
	pair := paid["ids"].([]any)
	outID, inID := pair[0].(string), pair[1].(string)
	out, in := e.getAs("alex", "/transactions/"+outID), e.getAs("sam", "/transactions/"+inID)
	for _, tx := range []map[string]any{out, in} {
		if attr(tx, "data", "attributes", "status") != "HELD" || attr(tx, "data", "attributes", "settledAt") != nil ||
			attr(tx, "data", "attributes", "holdInfo", "amount", "valueInBaseUnits") != attr(tx, "data", "attributes", "amount", "valueInBaseUnits") {
			t.Errorf("a side of the held payment: %v", tx)
		}
	}
	c.must(http.StatusNoContent, http.MethodDelete, "/transactions/"+outID, nil)
	if r := e.do(http.MethodGet, "/transactions/"+outID, nil, "Authorization", "Bearer "+e.bank.PersonToken("alex")); r.status != http.StatusNotFound {
		t.Errorf("the deleted side answers %d, want 404", r.status)
	}
	if tx := e.getAs("sam", "/transactions/"+inID); attr(tx, "data", "attributes", "status") != "HELD" {
		t.Errorf("the other side after the delete: %v", tx)
	}
	c.must(http.StatusOK, http.MethodPost, "/transactions/"+inID+"/settle", nil)
	if tx := e.getAs("sam", "/transactions/"+inID); attr(tx, "data", "attributes", "status") != "SETTLED" {
		t.Errorf("the other side after it settled: %v", tx)
	}
}

func TestHouseholdWebhooks(t *testing.T) {
	for _, jointHooks := range []bool{false, true} {
		t.Run("joint="+strconv.FormatBool(jointHooks), func(t *testing.T) {
			e := newHousehold(t, Options{Seed: 4, Empty: true, JointWebhooks: jointHooks})
			b := e.bank
			rc := newReceiver(t)
			alexHook := e.createHookAs("alex", rc, "/alex")
			samHook := e.createHookAs("sam", rc, "/sam")
			// Each person lists, reads, pings and deletes only their own.
			for _, c := range []struct{ who, mine, theirs string }{{"alex", alexHook, samHook}, {"sam", samHook, alexHook}} {
				if got := ids(e.walkAs(c.who, "/webhooks")); !slices.Equal(got, []string{c.mine}) {
					t.Errorf("%s lists webhooks %v", c.who, got)
				}
				for _, rq := range []struct{ method, path string }{
					{http.MethodGet, "/webhooks/" + c.theirs}, {http.MethodGet, "/webhooks/" + c.theirs + "/logs"},
					{http.MethodPost, "/webhooks/" + c.theirs + "/ping"}, {http.MethodDelete, "/webhooks/" + c.theirs},
				} {
					if r := e.do(rq.method, rq.path, nil, e.as(c.who)...); r.status != http.StatusNotFound {
						t.Errorf("%s %s %s: %d, want 404", c.who, rq.method, rq.path, r.status)
					}
				}
			}
			alexOwn := b.AddTransaction(NewTransaction{Person: "alex", Description: "Aesop", AmountBaseUnits: -9000})
			samOwn := b.AddTransaction(NewTransaction{Person: "sam", Description: "Kmart", AmountBaseUnits: -1500})
			joint, err := b.PurchaseAs("alex", b.JointAccount(), NewTransaction{Description: "Coles", AmountBaseUnits: -4250, Held: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Settle(joint); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if err := b.WaitDeliveries(ctx); err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, c := range rc.callbacks() {
				got[c.path] = append(got[c.path], c.eventType+" "+c.txID)
			}
			wantAlex := []string{"TRANSACTION_CREATED " + alexOwn}
			wantSam := []string{"TRANSACTION_CREATED " + samOwn}
			if jointHooks {
				wantAlex = append(wantAlex, "TRANSACTION_CREATED "+joint, "TRANSACTION_SETTLED "+joint)
				wantSam = append(wantSam, "TRANSACTION_CREATED "+joint, "TRANSACTION_SETTLED "+joint)
			}
			if !sameSet(got["/alex"], wantAlex) || !sameSet(got["/sam"], wantSam) {
				t.Errorf("deliveries %v, want alex %v sam %v", got, wantAlex, wantSam)
			}
			for _, ev := range b.Events() {
				if (ev.WebhookID == alexHook) != (ev.Person == "alex") {
					t.Errorf("event %+v of the wrong person", ev)
				}
			}
		})
	}
}

func TestHouseholdControlAPI(t *testing.T) {
	e := newHousehold(t, Options{Seed: 6, Empty: true})
	c := newCtl(t, e)
	b := e.bank
	people := c.must(http.StatusOK, http.MethodGet, "/people", nil)
	if attr(people, "jointAccountId") != b.JointAccount() || len(people["data"].([]any)) != 2 {
		t.Fatalf("people %v", people)
	}
	sam := people["data"].([]any)[1].(map[string]any)
	if sam["name"] != "sam" || sam["displayName"] != "Sam" || sam["token"] != b.PersonToken("sam") || sam["customerId"] == "" {
		t.Errorf("sam %v", sam)
	}
	// A purchase as sam on the joint account, and a payment sam -> alex.
	created := c.must(http.StatusCreated, http.MethodPost, "/transactions",
		map[string]any{"person": "sam", "accountId": b.JointAccount(), "description": "IKEA", "amountBaseUnits": -12900, "held": true})
	id := created["ids"].([]any)[0].(string)
	if tx := e.getAs("alex", "/transactions/"+id); attr(tx, "data", "attributes", "performingCustomer", "displayName") != "Sam" {
		t.Errorf("purchase as sam: %v", tx)
	}
	c.must(http.StatusOK, http.MethodPost, "/transactions/"+id+"/settle", nil)
	paid := c.must(http.StatusCreated, http.MethodPost, "/payments",
		map[string]any{"from": "sam", "to": "alex", "amountBaseUnits": 6450, "message": "Half the IKEA run", "lag": "2s"})
	pair := paid["ids"].([]any)
	out := e.getAs("sam", "/transactions/"+pair[0].(string))
	in := e.getAs("alex", "/transactions/"+pair[1].(string))
	if attr(out, "data", "attributes", "amount", "valueInBaseUnits") != float64(-6450) || attr(in, "data", "attributes", "amount", "valueInBaseUnits") != float64(6450) ||
		attr(out, "data", "relationships", "transferAccount", "data") != nil || attr(in, "data", "relationships", "transferAccount", "data") != nil ||
		attr(out, "data", "attributes", "description") != "Alex Jones" || attr(in, "data", "attributes", "description") != "Sam Smith" {
		t.Errorf("payment:\n%v\n%v", out, in)
	}
	outAt, _ := time.Parse(time.RFC3339, attr(out, "data", "attributes", "createdAt").(string))
	inAt, _ := time.Parse(time.RFC3339, attr(in, "data", "attributes", "createdAt").(string))
	if inAt.Sub(outAt) != 2*time.Second {
		t.Errorf("payment out at %v, in at %v", outAt, inAt)
	}
	c.must(http.StatusUnprocessableEntity, http.MethodPost, "/payments", map[string]any{"from": "sam", "to": "kim", "amountBaseUnits": 1})
	c.must(http.StatusUnprocessableEntity, http.MethodPost, "/transactions", map[string]any{"person": "sam", "accountId": b.PersonAccounts("alex")[0]})
	c.must(http.StatusUnprocessableEntity, http.MethodPut, "/transactions/"+id+"/tags", map[string]any{"tags": []string{"x"}})
	// Revoke and restore sam's token.
	samToken := b.PersonToken("sam")
	c.must(http.StatusNoContent, http.MethodPost, "/people/sam/token/revoke", nil)
	if r := e.do(http.MethodGet, "/util/ping", nil, "Authorization", "Bearer "+samToken); r.status != http.StatusUnauthorized {
		t.Errorf("revoked sam: %d", r.status)
	}
	e.getAs("alex", "/util/ping")
	if got := c.must(http.StatusOK, http.MethodPost, "/people/sam/token/restore", nil); got["token"] != samToken {
		t.Errorf("restore: %v", got)
	}
	e.getAs("sam", "/util/ping")
	c.must(http.StatusNotFound, http.MethodPost, "/people/kim/token/revoke", nil)
	rotated := c.must(http.StatusOK, http.MethodPost, "/people/alex/token/rotate", map[string]any{"token": "alex-2"})
	if rotated["token"] != "alex-2" || b.PersonToken("alex") != "alex-2" {
		t.Errorf("rotate: %v", rotated)
	}
	// Per-person request counts: sam's 401 is nobody's.
	counts := c.must(http.StatusOK, http.MethodGet, "/requests?person=sam", nil)
	var n float64
	for _, it := range counts["data"].([]any) {
		n += it.(map[string]any)["count"].(float64)
	}
	if sp, _ := b.PersonOf("sam"); n != 2 || sp.Requests != 2 {
		t.Errorf("sam's requests %v (%d), want 2", counts, sp.Requests)
	}
	c.must(http.StatusNotFound, http.MethodGet, "/requests?person=kim", nil)
	c.must(http.StatusNotFound, http.MethodGet, "/transactions?person=kim", nil)
	for _, name := range []string{"alex", "sam"} {
		truth := c.must(http.StatusOK, http.MethodGet, "/transactions?person="+name, nil)
		var want []string
		for _, it := range truth["data"].([]any) {
			want = append(want, it.(map[string]any)["id"].(string))
		}
		if got := ids(e.walkAs(name, "/transactions")); !slices.Equal(got, want) || len(got) < 2 {
			t.Errorf("%s lists %v, the bank's record for them %v", name, got, want)
		}
	}
	accounts := c.must(http.StatusOK, http.MethodGet, "/accounts", nil)
	for _, it := range accounts["data"].([]any) {
		a := it.(map[string]any)
		want := 1
		if a["id"] == b.JointAccount() {
			want = 2
		}
		if got := len(a["people"].([]any)); got != want {
			t.Errorf("account %v seen by %v", a["id"], a["people"])
		}
	}
}

// --live in a household: every change keeps each account's balance the
// sum of its transactions and leaves the joint account untagged.
func TestHouseholdLive(t *testing.T) {
	e := newHousehold(t, Options{Seed: 8, Transactions: 100})
	b := e.bank
	kinds := map[string]int{}
	for range 300 {
		change := b.LiveStep()
		kind, _, _ := strings.Cut(change, " ")
		kinds[kind]++
	}
	if kinds["purchase"] == 0 || kinds["payment"] == 0 || kinds["settle"] == 0 {
		t.Errorf("changes %v", kinds)
	}
	s := b.Snapshot()
	sums := map[string]int64{}
	performers := map[string]bool{}
	for _, tx := range s.Transactions {
		sums[tx.AccountID] += tx.Amount.ValueInBaseUnits
		if tx.AccountID == b.JointAccount() {
			if len(tx.Tags) != 0 {
				t.Errorf("joint transaction %s tagged %v", tx.ID, tx.Tags)
			}
			if tx.PerformingCustomer != nil {
				performers[*tx.PerformingCustomer] = true
			}
		}
	}
	for _, a := range s.Accounts {
		if a.Balance.ValueInBaseUnits != a.OpeningBalance.ValueInBaseUnits+sums[a.ID] {
			t.Errorf("%s: balance %d, opening %d + %d", a.DisplayName, a.Balance.ValueInBaseUnits, a.OpeningBalance.ValueInBaseUnits, sums[a.ID])
		}
	}
	if !performers["Alex"] || !performers["Sam"] {
		t.Errorf("joint performers %v", performers)
	}
}

// Reset puts a household back: the same people, tokens, accounts and ids.
func TestHouseholdReset(t *testing.T) {
	e := newHousehold(t, Options{Seed: 12, Transactions: 80, Tokens: map[string]string{"sam": "S"}})
	b := e.bank
	before, people := b.Snapshot(), b.People()
	if people[1].Token != "S" || people[0].Token == "" {
		t.Fatalf("tokens %+v", people)
	}
	if _, err := b.RotatePersonToken("alex", "A2"); err != nil {
		t.Fatal(err)
	}
	if err := b.RevokePersonToken("sam"); err != nil {
		t.Fatal(err)
	}
	b.LiveStep()
	e.getAs("alex", "/util/ping")
	b.Reset()
	after := b.People()
	for i := range people {
		if after[i].Token != people[i].Token || after[i].CustomerID != people[i].CustomerID ||
			!slices.Equal(after[i].AccountIDs, people[i].AccountIDs) || after[i].Requests != 0 {
			t.Errorf("after reset %+v, before %+v", after[i], people[i])
		}
	}
	s := b.Snapshot()
	if len(s.Transactions) != len(before.Transactions) || s.Transactions[0].ID != before.Transactions[0].ID {
		t.Errorf("reset: %d transactions, was %d", len(s.Transactions), len(before.Transactions))
	}
	if got := ids(e.walkAs("sam", "/accounts")); !sameSet(got, append(b.PersonAccounts("sam"), b.JointAccount())) {
		t.Errorf("sam after reset lists %v", got)
	}
}

// A household of one named person: their own accounts and a joint account
// nobody else sees, no Up-to-Up payments, tags refused on the joint one.
func TestHouseholdOfOneNamed(t *testing.T) {
	e := newHousehold(t, Options{Seed: 2, People: []string{"solo"}, Transactions: 200})
	b := e.bank
	got := ids(e.walkAs("solo", "/accounts"))
	if !sameSet(got, append(b.PersonAccounts("solo"), b.JointAccount())) || len(got) != 4 {
		t.Errorf("solo lists %v", got)
	}
	for _, tx := range b.Snapshot().Transactions {
		if tx.TransactionType != nil && *tx.TransactionType == "Osko Payment Received" && tx.Description == "Solo Jones" {
			t.Errorf("solo paid themselves: %+v", tx)
		}
	}
	if _, _, err := b.PayPerson(Payment{From: "solo", To: "solo", AmountBaseUnits: 100}); !errors.Is(err, ErrInvalidPayment) {
		t.Errorf("pay self: %v", err)
	}
}

// The seeded Up-to-Up payments: pairs of opposite amounts in two people's
// Spending accounts, without transferAccount, at most 3 seconds apart.
func TestHouseholdSeededPayments(t *testing.T) {
	b := New(Options{Seed: 4, People: []string{"alex", "sam"}, Transactions: 1500, Now: fixedClock})
	defer b.Close()
	spending := map[string]string{b.PersonAccounts("alex")[0]: "alex", b.PersonAccounts("sam")[0]: "sam"}
	full := map[string]string{"alex": "Alex Jones", "sam": "Sam Smith"}
	var outs, ins []Transaction
	for _, tx := range b.Snapshot().Transactions {
		who, ok := spending[tx.AccountID]
		if !ok || tx.Message == nil {
			continue
		}
		for other, name := range full {
			if other != who && tx.Description == name {
				if tx.TransferAccountID != "" {
					t.Errorf("payment %s has transferAccount", tx.ID)
				}
				if tx.Amount.ValueInBaseUnits < 0 {
					outs = append(outs, tx)
				} else {
					ins = append(ins, tx)
				}
			}
		}
	}
	if len(outs) < 5 || len(outs) != len(ins) {
		t.Fatalf("%d payments out, %d in", len(outs), len(ins))
	}
	for _, o := range outs {
		paired := false
		for _, in := range ins {
			lag := in.CreatedAt.Sub(o.CreatedAt)
			if in.Amount.ValueInBaseUnits == -o.Amount.ValueInBaseUnits && *in.Message == *o.Message && lag >= 0 && lag <= 3*time.Second &&
				spending[in.AccountID] != spending[o.AccountID] {
				paired = true
			}
		}
		if !paired {
			t.Errorf("payment out %s (%d at %v) has no side in", o.ID, o.Amount.ValueInBaseUnits, o.CreatedAt)
		}
	}
}

// The webhook limit is each person's: alex's ten leave room for sam's.
func TestHouseholdWebhookLimitPerPerson(t *testing.T) {
	e := newHousehold(t, Options{Seed: 1, Empty: true})
	rc := newReceiver(t)
	for i := range maxWebhooks {
		e.createHookAs("alex", rc, "/alex"+strconv.Itoa(i))
	}
	body := map[string]any{"data": map[string]any{"attributes": map[string]any{"url": rc.url("/alex-more")}}}
	if r := e.do(http.MethodPost, "/webhooks", body, e.as("alex")...); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("alex's 11th webhook: %d", r.status)
	}
	e.createHookAs("sam", rc, "/sam")
	if got := len(e.walkAs("sam", "/webhooks")); got != 1 {
		t.Errorf("sam lists %d webhooks", got)
	}
}

// Both people's requests, live changes and a Reset at once (run with -race).
func TestHouseholdConcurrent(t *testing.T) {
	e := newHousehold(t, Options{Seed: 1, Transactions: 100, JointWebhooks: true})
	rc := newReceiver(t)
	e.createHookAs("alex", rc, "/alex")
	b := e.bank
	done := make(chan struct{})
	for _, name := range []string{"alex", "sam"} {
		tok := b.PersonToken(name)
		go func() {
			defer func() { done <- struct{}{} }()
			for range 20 {
				for _, path := range []string{"/transactions?page[size]=5", "/accounts", "/tags", "/attachments", "/webhooks"} {
					req, _ := http.NewRequest(http.MethodGet, e.base+path, nil)
					req.Header.Set("Authorization", "Bearer "+tok)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					resp.Body.Close()
				}
			}
		}()
	}
	go func() {
		defer func() { done <- struct{}{} }()
		for range 40 {
			b.LiveStep()
		}
		b.Reset()
		for range 10 {
			b.LiveStep()
		}
	}()
	for range 3 {
		<-done
	}
	if b.JointAccount() == "" || len(b.PersonAccounts("sam")) == 0 {
		t.Errorf("after the run: joint %q, sam %v", b.JointAccount(), b.PersonAccounts("sam"))
	}
}
