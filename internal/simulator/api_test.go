package simulator

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEveryEndpointMatchesOpenAPI requests every list and single endpoint;
// env.do validates each response against the reference document.
func TestEveryEndpointMatchesOpenAPI(t *testing.T) {
	e := newEnv(t, Options{Seed: 7, Transactions: 600})
	snap := e.bank.Snapshot()
	tx := snap.Transactions[0]
	acc := snap.Accounts[0]
	att := snap.Attachments[0]
	for _, target := range []string{
		"/util/ping",
		"/accounts", "/accounts?page[size]=2", "/accounts?filter[accountType]=SAVER", "/accounts?filter[ownershipType]=JOINT",
		"/accounts/" + acc.ID,
		"/accounts/" + acc.ID + "/transactions?page[size]=5&filter[status]=SETTLED",
		"/attachments", "/attachments?page[size]=1", "/attachments/" + att.ID,
		"/categories", "/categories?filter[parent]=good-life", "/categories/home", "/categories/groceries",
		"/tags", "/tags?page[size]=2",
		"/transactions", "/transactions?page[size]=100", "/transactions/" + tx.ID,
		"/transactions?filter[category]=good-life&page[size]=3",
		"/webhooks",
	} {
		e.mustGet(target)
	}
	// Every seeded transaction, one at a time.
	for _, tx := range snap.Transactions[:200] {
		e.mustGet("/transactions/" + tx.ID)
	}
}

func TestErrorResponses(t *testing.T) {
	e := newEnv(t, Options{Seed: 7, Transactions: 300})
	tx := e.bank.Snapshot().Transactions[0].ID
	cases := []struct {
		method, target string
		body           any
		status         int
		param, pointer string
	}{
		{"GET", "/transactions?page[size]=0", nil, 400, "page[size]", ""},
		{"GET", "/transactions?page[size]=-1", nil, 400, "page[size]", ""},
		{"GET", "/transactions?page[size]=101", nil, 400, "page[size]", ""},
		{"GET", "/transactions?page[size]=ten", nil, 400, "page[size]", ""},
		{"GET", "/accounts?page[size]=1000", nil, 400, "page[size]", ""},
		{"GET", "/tags?page[size]=x", nil, 400, "page[size]", ""},
		{"GET", "/transactions?page[after]=%%%", nil, 400, "", ""},
		{"GET", "/transactions?page[after]=!!", nil, 400, "page[after]", ""},
		{"GET", "/transactions?page[after]=bm9wZQ", nil, 400, "page[after]", ""},
		{"GET", "/transactions?page[before]=" + encodeCursor(kindTags, cursorKey{ID: "x"}), nil, 400, "page[before]", ""},
		{"GET", "/transactions?filter[status]=PENDING", nil, 400, "filter[status]", ""},
		{"GET", "/transactions?filter[since]=yesterday", nil, 400, "filter[since]", ""},
		{"GET", "/transactions?filter[since]=2024-01-01T00:00:00+10:00", nil, 400, "filter[since]", ""},
		{"GET", "/transactions?filter[until]=2024-01-01", nil, 400, "filter[until]", ""},
		{"GET", "/accounts?filter[accountType]=CHEQUE", nil, 400, "filter[accountType]", ""},
		{"GET", "/accounts?filter[ownershipType]=SHARED", nil, 400, "filter[ownershipType]", ""},
		{"GET", "/transactions?filter[category]=nope", nil, 404, "filter[category]", ""},
		{"GET", "/categories?filter[parent]=nope", nil, 404, "filter[parent]", ""},
		{"GET", "/transactions/nope", nil, 404, "", ""},
		{"GET", "/accounts/nope", nil, 404, "", ""},
		{"GET", "/accounts/nope/transactions", nil, 404, "", ""},
		{"GET", "/attachments/nope", nil, 404, "", ""},
		{"GET", "/categories/nope", nil, 404, "", ""},
		{"GET", "/nope", nil, 404, "", ""},
		{"GET", "/transactions/" + tx + "/nope", nil, 404, "", ""},
		{"DELETE", "/transactions", nil, 405, "", ""},
		{"PUT", "/transactions/" + tx + "/relationships/tags", `{"data":[]}`, 405, "", ""},
		{"PATCH", "/transactions/" + tx + "/relationships/category", `{"data":`, 422, "", ""},
		{"PATCH", "/transactions/" + tx + "/relationships/category", `{}`, 422, "", "/data"},
		{"PATCH", "/transactions/" + tx + "/relationships/category", `{"data":{"type":"tags","id":"groceries"}}`, 422, "", "/data/type"},
		{"PATCH", "/transactions/" + tx + "/relationships/category", `{"data":{"type":"categories"}}`, 422, "", "/data/id"},
		{"PATCH", "/transactions/" + tx + "/relationships/category", `{"data":{"type":"categories","id":"home"}}`, 422, "", "/data/id"},
		{"PATCH", "/transactions/" + tx + "/relationships/category", `{"data":{"type":"categories","id":"nope"}}`, 422, "", "/data/id"},
		{"PATCH", "/transactions/nope/relationships/category", `{"data":null}`, 404, "", ""},
		{"POST", "/transactions/" + tx + "/relationships/tags", `{"data":{"type":"tags","id":"x"}}`, 422, "", "/data"},
		{"POST", "/transactions/" + tx + "/relationships/tags", `{"data":[{"type":"tag","id":"x"}]}`, 422, "", "/data/0/type"},
		{"POST", "/transactions/" + tx + "/relationships/tags", `{"data":[{"type":"tags","id":"a"},{"type":"tags"}]}`, 422, "", "/data/1/id"},
		{"DELETE", "/transactions/" + tx + "/relationships/tags", `nope`, 422, "", ""},
		{"POST", "/transactions/nope/relationships/tags", `{"data":[]}`, 404, "", ""},
	}
	for _, c := range cases {
		r := e.do(c.method, c.target, c.body)
		if r.status != c.status {
			t.Errorf("%s %s: status %d, want %d: %.300s", c.method, c.target, r.status, c.status, r.body)
			continue
		}
		m := r.json(t)
		errObj := m["errors"].([]any)[0].(map[string]any)
		if got, _ := attr(errObj, "source", "parameter").(string); got != c.param {
			t.Errorf("%s %s: source.parameter %q, want %q", c.method, c.target, got, c.param)
		}
		if got, _ := attr(errObj, "source", "pointer").(string); c.pointer != "" && got != c.pointer {
			t.Errorf("%s %s: source.pointer %q, want %q", c.method, c.target, got, c.pointer)
		}
		if c.status == 422 && attr(errObj, "source", "pointer") == nil {
			t.Errorf("%s %s: 422 without source.pointer", c.method, c.target)
		}
	}
}

func TestAuthentication(t *testing.T) {
	e := newEnv(t, Options{Seed: 1, Transactions: 60, Token: "up:yeah:secret"})
	if e.bank.Token() != "up:yeah:secret" {
		t.Fatalf("Token() = %q", e.bank.Token())
	}
	for _, h := range []string{"", "up:yeah:secret", "Basic dXA6eWVhaA==", "Bearer", "Bearer ", "Bearer wrong", "Bearer up:yeah:secret2"} {
		for _, target := range []string{"/util/ping", "/transactions", "/nope"} {
			r := e.do("GET", target, nil, "Authorization", h)
			if r.status != http.StatusUnauthorized {
				t.Errorf("Authorization %q %s: status %d", h, target, r.status)
				continue
			}
			if title := attr(r.json(t)["errors"].([]any)[0].(map[string]any), "title"); title != "Not Authorized" {
				t.Errorf("title %v", title)
			}
		}
	}
	m := e.mustGet("/util/ping")
	if attr(m, "meta", "statusEmoji") != "⚡️" || attr(m, "meta", "id") == "" {
		t.Errorf("ping: %v", m)
	}
	if a, b := New(Options{Transactions: 1}).Token(), New(Options{Transactions: 1}).Token(); a == b || len(a) != 64 {
		t.Error("generated tokens must be random 32-byte hex")
	}
}

func TestPaginationWalksEverythingNewestFirst(t *testing.T) {
	e := newEnv(t, Options{Seed: 3, Transactions: 1234})
	snap := e.bank.Snapshot()
	want := make([]string, len(snap.Transactions))
	for i, tx := range snap.Transactions {
		want[i] = tx.ID
	}
	for _, size := range []int{100, 7} {
		all := e.walk("/transactions?page[size]=" + strconv.Itoa(size))
		if got := ids(all); !slices.Equal(got, want) {
			t.Fatalf("page size %d: walked %d ids, want %d in snapshot order", size, len(got), len(want))
		}
		assertNewestFirst(t, all)
	}
	// Default page size is 20.
	page := e.mustGet("/transactions")
	if n := len(page["data"].([]any)); n != 20 {
		t.Errorf("default page size: %d", n)
	}
	next := attr(page, "links", "next").(string)
	if !strings.HasPrefix(next, e.base+"/transactions?") || strings.Contains(next, "page%5Bsize%5D") {
		t.Errorf("next link %q", next)
	}
}

func assertNewestFirst(t *testing.T, items []map[string]any) {
	t.Helper()
	var prev time.Time
	for i, it := range items {
		ts, err := time.Parse(time.RFC3339, attr(it, "attributes", "createdAt").(string))
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && ts.After(prev) {
			t.Fatalf("item %d (%v) is newer than the one before (%v)", i, ts, prev)
		}
		prev = ts
	}
}

func TestPaginationPrev(t *testing.T) {
	e := newEnv(t, Options{Seed: 3, Transactions: 300})
	p1 := e.mustGet("/transactions?page[size]=10")
	if attr(p1, "links", "prev") != nil {
		t.Fatal("first page has a prev link")
	}
	p2 := e.mustGet(attr(p1, "links", "next").(string))
	p3 := e.mustGet(attr(p2, "links", "next").(string))
	back2 := e.mustGet(attr(p3, "links", "prev").(string))
	back1 := e.mustGet(attr(back2, "links", "prev").(string))
	if !slices.Equal(pageIDs(back2), pageIDs(p2)) || !slices.Equal(pageIDs(back1), pageIDs(p1)) {
		t.Fatal("prev pages differ from the pages walked forward")
	}
	if attr(back1, "links", "prev") != nil {
		t.Error("page reached backwards to the top still has a prev link")
	}
	if !strings.Contains(attr(p2, "links", "prev").(string), "page%5Bsize%5D=10") {
		t.Error("prev link lost page[size]")
	}
	// Filtered listings page backwards too.
	f1 := e.mustGet("/transactions?page[size]=10&filter[status]=SETTLED&filter[category]=home")
	f2 := e.mustGet(attr(f1, "links", "next").(string))
	f3 := e.mustGet(attr(f2, "links", "next").(string))
	fb := e.mustGet(attr(e.mustGet(attr(f3, "links", "prev").(string)), "links", "prev").(string))
	if !slices.Equal(pageIDs(fb), pageIDs(f1)) || attr(fb, "links", "prev") != nil {
		t.Fatal("filtered prev pages differ")
	}
	// Last page: next is null.
	last := e.walk("/transactions?page[size]=100")
	if len(last) != 300 {
		t.Fatalf("walked %d", len(last))
	}
}

func pageIDs(page map[string]any) []string {
	var out []string
	for _, it := range page["data"].([]any) {
		out = append(out, it.(map[string]any)["id"].(string))
	}
	return out
}

func TestCursorStableUnderInserts(t *testing.T) {
	clock := fixedNow
	e := newEnv(t, Options{Seed: 5, Transactions: 200, Now: func() time.Time { return clock }})
	before := e.bank.Snapshot().Transactions
	p1 := e.mustGet("/transactions?page[size]=25")
	for i := range 5 {
		clock = clock.Add(time.Duration(i+1) * time.Second)
		e.bank.AddTransaction(NewTransaction{Description: "Inserted"})
	}
	p2 := e.mustGet(attr(p1, "links", "next").(string))
	want := make([]string, 0, 25)
	for _, tx := range before[25:50] {
		want = append(want, tx.ID)
	}
	if !slices.Equal(pageIDs(p2), want) {
		t.Fatal("second page moved after inserts at the top")
	}
	// Going back from page 2 now reaches the new transactions too.
	back := e.mustGet(attr(p2, "links", "prev").(string))
	if !slices.Equal(pageIDs(back), pageIDs(p1)) {
		t.Fatal("prev page changed")
	}
	top := e.mustGet(attr(back, "links", "prev").(string))
	if n := len(top["data"].([]any)); n != 5 {
		t.Fatalf("prev of the old first page has %d items, want the 5 inserted", n)
	}
	full := e.walk("/transactions?page[size]=100")
	if len(full) != 205 {
		t.Fatalf("walk after inserts: %d", len(full))
	}
	if attr(full[0], "attributes", "description") != "Inserted" {
		t.Error("inserted transaction is not at the top")
	}
}

func TestTransactionFilters(t *testing.T) {
	e := newEnv(t, Options{Seed: 11})
	snap := e.bank.Snapshot()
	check := func(query string, keep func(tx Transaction) bool) {
		t.Helper()
		var want []string
		for _, tx := range snap.Transactions {
			if keep(tx) {
				want = append(want, tx.ID)
			}
		}
		got := ids(e.walk("/transactions?page[size]=37&" + query))
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %d ids, want %d", query, len(got), len(want))
		}
		if len(want) == 0 && !strings.Contains(query, "nobody") {
			t.Errorf("%s: filter matches nothing; pick a better one", query)
		}
	}
	check("filter[status]=HELD", func(tx Transaction) bool { return tx.Status == "HELD" })
	check("filter[status]=SETTLED", func(tx Transaction) bool { return tx.Status == "SETTLED" })
	check("filter[category]=good-life", func(tx Transaction) bool { return tx.ParentCategoryID == "good-life" })
	check("filter[category]=groceries", func(tx Transaction) bool { return tx.CategoryID == "groceries" })
	check("filter[tag]="+url.QueryEscape("café"), func(tx Transaction) bool { return slices.Contains(tx.Tags, "café") })
	check("filter[tag]="+url.QueryEscape("🏖 beach"), func(tx Transaction) bool { return slices.Contains(tx.Tags, "🏖 beach") })
	check("filter[tag]=Holiday%202024", func(tx Transaction) bool { return slices.Contains(tx.Tags, "Holiday 2024") })
	check("filter[tag]=nobody", func(tx Transaction) bool { return false })

	since := time.Date(2023, 10, 1, 0, 0, 0, 0, zoneAEDT)
	until := time.Date(2024, 1, 15, 12, 0, 0, 0, zoneAEDT)
	q := url.Values{"filter[since]": {since.Format(time.RFC3339)}, "filter[until]": {until.Format(time.RFC3339)}}.Encode()
	if !strings.Contains(q, "%2B11%3A00") {
		t.Fatalf("query %q does not escape '+'", q)
	}
	inRange := func(tx Transaction) bool { return !tx.CreatedAt.Before(since) && tx.CreatedAt.Before(until) }
	check(q, inRange)
	check(q+"&filter[status]=SETTLED&filter[category]=home", func(tx Transaction) bool {
		return inRange(tx) && tx.Status == "SETTLED" && tx.ParentCategoryID == "home"
	})
	check("filter[since]=2024-02-01T00:00:00Z", func(tx Transaction) bool { return !tx.CreatedAt.Before(time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)) })

	// The filters are carried into links.
	page := e.mustGet("/transactions?page[size]=2&filter[status]=SETTLED&" + q)
	next := attr(page, "links", "next").(string)
	for _, want := range []string{"filter%5Bstatus%5D=SETTLED", "filter%5Bsince%5D=2023-10-01T00%3A00%3A00%2B11%3A00", "page%5Bsize%5D=2"} {
		if !strings.Contains(next, want) {
			t.Errorf("next link %q lacks %q", next, want)
		}
	}

	// Per-account listings, with filters too.
	for _, acc := range snap.Accounts {
		got := ids(e.walk("/accounts/" + acc.ID + "/transactions?page[size]=100"))
		var want []string
		for _, tx := range snap.Transactions {
			if tx.AccountID == acc.ID {
				want = append(want, tx.ID)
			}
		}
		if !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("account %s: %d ids, want %d", acc.DisplayName, len(got), len(want))
		}
	}
	acc := snap.Accounts[0].ID
	got := ids(e.walk("/accounts/" + acc + "/transactions?filter[status]=HELD"))
	for _, id := range got {
		tx := findTx(snap, id)
		if tx.AccountID != acc || tx.Status != "HELD" {
			t.Errorf("account+status filter returned %s", id)
		}
	}
}

func findTx(s Snapshot, id string) Transaction {
	for _, tx := range s.Transactions {
		if tx.ID == id {
			return tx
		}
	}
	return Transaction{}
}

func TestPatchCategory(t *testing.T) {
	e := newEnv(t, Options{Seed: 2, Transactions: 300})
	snap := e.bank.Snapshot()
	var catID, transferID string
	for _, tx := range snap.Transactions {
		if tx.IsCategorizable && catID == "" {
			catID = tx.ID
		}
		if tx.TransferAccountID != "" && transferID == "" {
			transferID = tx.ID
		}
	}
	path := "/transactions/" + catID + "/relationships/category"
	r := e.do("PATCH", path, map[string]any{"data": map[string]any{"type": "categories", "id": "restaurants-and-cafes"}})
	if r.status != http.StatusNoContent {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	m := e.mustGet("/transactions/" + catID)
	if attr(m, "data", "relationships", "category", "data", "id") != "restaurants-and-cafes" ||
		attr(m, "data", "relationships", "parentCategory", "data", "id") != "good-life" ||
		attr(m, "data", "relationships", "category", "links", "self") != e.base+path ||
		attr(m, "data", "relationships", "category", "links", "related") != e.base+"/categories/restaurants-and-cafes" {
		t.Errorf("category relationship after PATCH: %v", attr(m, "data", "relationships"))
	}
	if r := e.do("PATCH", path, `{"data":null}`); r.status != http.StatusNoContent {
		t.Fatalf("decategorize: %d", r.status)
	}
	m = e.mustGet("/transactions/" + catID)
	if attr(m, "data", "relationships", "category", "data") != nil || attr(m, "data", "relationships", "parentCategory", "data") != nil ||
		attr(m, "data", "relationships", "category", "links", "related") != nil {
		t.Errorf("after decategorize: %v", attr(m, "data", "relationships"))
	}
	r = e.do("PATCH", "/transactions/"+transferID+"/relationships/category", map[string]any{"data": map[string]any{"type": "categories", "id": "groceries"}})
	if r.status != http.StatusUnprocessableEntity {
		t.Errorf("categorize a transfer: %d", r.status)
	}
}

func TestTagsEndpoints(t *testing.T) {
	e := newEnv(t, Options{Seed: 2, Transactions: 300})
	var id string
	for _, tx := range e.bank.Snapshot().Transactions {
		if len(tx.Tags) == 0 {
			id = tx.ID
			break
		}
	}
	path := "/transactions/" + id + "/relationships/tags"
	tagBody := func(labels ...string) map[string]any {
		var data []map[string]string
		for _, l := range labels {
			data = append(data, map[string]string{"type": "tags", "id": l})
		}
		return map[string]any{"data": data}
	}
	if r := e.do("POST", path, tagBody("Ünïcode tag", "A b", "A b")); r.status != http.StatusNoContent {
		t.Fatalf("POST tags: %d %s", r.status, r.body)
	}
	if r := e.do("POST", path, tagBody("A b", "3", "4", "5")); r.status != http.StatusNoContent {
		t.Fatalf("POST dup tags: %d %s", r.status, r.body)
	}
	if got := e.bank.Snapshot(); !slices.Equal(findTx(got, id).Tags, []string{"Ünïcode tag", "A b", "3", "4", "5"}) {
		t.Fatalf("tags = %q", findTx(got, id).Tags)
	}
	if r := e.do("POST", path, tagBody("6", "7")); r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), "at most 6 tags") {
		t.Fatalf("7 tags: %d %s", r.status, r.body)
	}
	if got := findTx(e.bank.Snapshot(), id).Tags; len(got) != 5 {
		t.Fatalf("a refused POST changed the tags: %q", got)
	}
	if r := e.do("POST", path, tagBody("6")); r.status != http.StatusNoContent {
		t.Fatalf("6th tag: %d", r.status)
	}
	m := e.mustGet("/transactions/" + id)
	if n := len(attr(m, "data", "relationships", "tags", "data").([]any)); n != 6 {
		t.Errorf("tags relationship has %d", n)
	}
	if attr(m, "data", "relationships", "tags", "links", "self") != e.base+path {
		t.Error("tags links.self")
	}
	tags := ids(e.walk("/tags?page[size]=3"))
	if !slices.Contains(tags, "Ünïcode tag") || !slices.IsSorted(tags) {
		t.Errorf("tags list %q", tags)
	}
	if got := ids(e.walk("/transactions?filter[tag]=" + url.QueryEscape("Ünïcode tag"))); !slices.Equal(got, []string{id}) {
		t.Errorf("filter by new tag: %v", got)
	}
	if r := e.do("DELETE", path, tagBody("Ünïcode tag", "not there")); r.status != http.StatusNoContent {
		t.Fatalf("DELETE tags: %d", r.status)
	}
	if slices.Contains(ids(e.walk("/tags?page[size]=100")), "Ünïcode tag") {
		t.Error("unused tag still listed")
	}
}

func TestFaults(t *testing.T) {
	e := newEnv(t, Options{Seed: 1, Transactions: 60})
	e.bank.SetFaults(Faults{ErrorRate: 1})
	for range 20 {
		r := e.get("/transactions")
		if r.status != 500 && r.status != 502 && r.status != 503 && r.status != 504 {
			t.Fatalf("ErrorRate 1: status %d", r.status)
		}
	}
	if r := e.do("GET", "/transactions", nil, "Authorization", ""); r.status != http.StatusUnauthorized {
		t.Errorf("auth must come before faults: %d", r.status)
	}
	e.bank.SetFaults(Faults{RateLimitBurst: 3, ErrorRate: 1, Latency: time.Millisecond})
	for i := range 3 {
		r := e.get("/accounts")
		if r.status != http.StatusTooManyRequests || r.header.Get("X-RateLimit-Remaining") != "0" || r.header.Values("Retry-After") != nil {
			t.Fatalf("burst request %d: %d %v", i, r.status, r.header)
		}
	}
	if r := e.get("/accounts"); r.status == http.StatusTooManyRequests {
		t.Fatal("burst did not count down")
	}
	e.bank.SetFaults(Faults{RateLimitBurst: 2})
	statuses := []int{e.get("/util/ping").status, e.get("/util/ping").status, e.get("/util/ping").status}
	if !slices.Equal(statuses, []int{429, 429, 200}) {
		t.Errorf("burst of 2: %v", statuses)
	}
	if n := e.bank.Requests(); n != 20+1+4+3 {
		t.Errorf("Requests() = %d", n)
	}
}

func TestAttachments(t *testing.T) {
	e := newEnv(t, Options{Seed: 9})
	snap := e.bank.Snapshot()
	got := e.walk("/attachments?page[size]=3")
	if len(got) != len(snap.Attachments) || len(got) == 0 {
		t.Fatalf("walked %d attachments, want %d", len(got), len(snap.Attachments))
	}
	a := e.mustGet("/attachments/" + snap.Attachments[0].ID)
	exp, err := time.Parse(time.RFC3339, attr(a, "data", "attributes", "fileURLExpiresAt").(string))
	if err != nil || !exp.Equal(fixedNow.Add(15*time.Minute)) {
		t.Errorf("fileURLExpiresAt %v (%v)", exp, err)
	}
	txID := attr(a, "data", "relationships", "transaction", "data", "id").(string)
	tx := e.mustGet("/transactions/" + txID)
	if attr(tx, "data", "relationships", "attachment", "data", "id") != snap.Attachments[0].ID {
		t.Error("transaction does not point back at its attachment")
	}
}
