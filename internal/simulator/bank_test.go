package simulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDeterminism(t *testing.T) {
	a := newEnv(t, Options{Seed: 42, Transactions: 500})
	b := newEnv(t, Options{Seed: 42, Transactions: 500})
	c := newEnv(t, Options{Seed: 43, Transactions: 500})
	sa, sb, sc := a.bank.Snapshot(), b.bank.Snapshot(), c.bank.Snapshot()
	if len(sa.Transactions) != 500 {
		t.Fatalf("%d transactions", len(sa.Transactions))
	}
	const base = "https://bank.test/api/v1"
	for i := range sa.Transactions {
		ja, _ := a.bank.RenderTransaction(base, sa.Transactions[i].ID)
		jb, err := b.bank.RenderTransaction(base, sb.Transactions[i].ID)
		if err != nil || !bytes.Equal(ja, jb) {
			t.Fatalf("transaction %d differs between two banks with the same seed", i)
		}
	}
	ja, _ := a.bank.RenderTransaction(base, sa.Transactions[0].ID)
	jc, _ := c.bank.RenderTransaction(base, sc.Transactions[0].ID)
	if bytes.Equal(ja, jc) || sa.Accounts[0].ID == sc.Accounts[0].ID {
		t.Error("different seeds gave the same data")
	}
	// Whole pages are byte-identical too, apart from the server address.
	pa := a.get("/transactions?page[size]=50").body
	pb := b.get("/transactions?page[size]=50").body
	if !bytes.Equal(bytes.ReplaceAll(pa, []byte(a.srv.URL), nil), bytes.ReplaceAll(pb, []byte(b.srv.URL), nil)) {
		t.Error("same seed, different page bytes")
	}
}

func TestRenderTransactionMatchesGET(t *testing.T) {
	e := newEnv(t, Options{Seed: 4, Transactions: 100})
	for _, tx := range e.bank.Snapshot().Transactions[:30] {
		body := e.get("/transactions/" + tx.ID).body
		var env struct{ Data json.RawMessage }
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatal(err)
		}
		want, err := e.bank.RenderTransaction(e.base+"/", tx.ID)
		if err != nil || !bytes.Equal(env.Data, want) {
			t.Fatalf("RenderTransaction differs from GET data for %s", tx.ID)
		}
	}
	if _, err := e.bank.RenderTransaction(e.base, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}

// TestSeededVariants checks that the seeded data shows every optional field
// both null and non-null, and the other required shapes.
func TestSeededVariants(t *testing.T) {
	for _, n := range []int{50, 2000} {
		s := New(Options{Seed: 99, Transactions: n, Now: fixedClock}).Snapshot()
		if len(s.Transactions) != n {
			t.Fatalf("%d transactions, want %d", len(s.Transactions), n)
		}
		has := map[string]bool{}
		mark := func(name string, v bool) {
			if v {
				has[name] = true
			} else {
				has["no "+name] = true
			}
		}
		methods := map[string]bool{}
		people := map[string]bool{}
		for _, tx := range s.Transactions {
			mark("rawText", tx.RawText != nil)
			mark("message", tx.Message != nil)
			mark("holdInfo", tx.HoldInfo != nil)
			mark("holdInfo.foreignAmount", tx.HoldInfo != nil && tx.HoldInfo.ForeignAmount != nil)
			mark("held amount differs", tx.HoldInfo != nil && tx.HoldInfo.Amount != tx.Amount)
			mark("roundUp", tx.RoundUp != nil)
			mark("boostPortion", tx.RoundUp != nil && tx.RoundUp.BoostPortion != nil)
			mark("cashback", tx.Cashback != nil)
			mark("foreignAmount", tx.ForeignAmount != nil)
			mark("cardPurchaseMethod", tx.CardPurchaseMethod != nil)
			mark("cardNumberSuffix", tx.CardPurchaseMethod != nil && tx.CardPurchaseMethod.CardNumberSuffix != nil)
			mark("settledAt", tx.SettledAt != nil)
			mark("HELD", tx.Status == "HELD")
			mark("transactionType", tx.TransactionType != nil)
			mark("note", tx.Note != nil)
			mark("performingCustomer", tx.PerformingCustomer != nil)
			mark("attachment", tx.AttachmentID != "")
			mark("transferAccount", tx.TransferAccountID != "")
			mark("category", tx.CategoryID != "")
			mark("isCategorizable", tx.IsCategorizable)
			mark("tags", len(tx.Tags) > 0)
			mark("6 tags", len(tx.Tags) == maxTags)
			if (tx.Status == "HELD") != (tx.SettledAt == nil) || (tx.Status == "HELD" && tx.HoldInfo == nil) {
				t.Errorf("inconsistent hold state: %+v", tx)
			}
			if tx.CardPurchaseMethod != nil {
				methods[tx.CardPurchaseMethod.Method] = true
			}
			if tx.PerformingCustomer != nil && tx.AccountID == jointAccount(s) {
				people[*tx.PerformingCustomer] = true
			}
		}
		for _, k := range []string{"rawText", "message", "holdInfo", "holdInfo.foreignAmount", "held amount differs", "roundUp", "boostPortion",
			"cashback", "foreignAmount", "cardPurchaseMethod", "cardNumberSuffix", "settledAt", "HELD", "transactionType", "note",
			"performingCustomer", "attachment", "transferAccount", "category", "isCategorizable", "tags", "6 tags"} {
			if !has[k] || !has["no "+k] {
				t.Errorf("n=%d: %q is not shown both ways (with %v, without %v)", n, k, has[k], has["no "+k])
			}
		}
		if len(methods) != len(cardMethods) {
			t.Errorf("n=%d: card methods %v", n, methods)
		}
		if len(people) < 2 {
			t.Errorf("n=%d: joint account performers %v", n, people)
		}
		checkTransfers(t, s)
		checkAccounts(t, s)
	}
}

func jointAccount(s Snapshot) string {
	for _, a := range s.Accounts {
		if a.OwnershipType == "JOINT" {
			return a.ID
		}
	}
	return ""
}

// checkTransfers requires transfers to come in mirrored pairs.
func checkTransfers(t *testing.T, s Snapshot) {
	t.Helper()
	pairs := 0
	for _, tx := range s.Transactions {
		if tx.TransferAccountID == "" {
			continue
		}
		if tx.IsCategorizable {
			t.Errorf("transfer %s is categorizable", tx.ID)
		}
		found := false
		for _, o := range s.Transactions {
			if o.AccountID == tx.TransferAccountID && o.TransferAccountID == tx.AccountID &&
				o.Amount.ValueInBaseUnits == -tx.Amount.ValueInBaseUnits && o.CreatedAt.Equal(tx.CreatedAt) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("transfer %s has no mirror", tx.ID)
		}
		pairs++
	}
	if pairs == 0 {
		t.Error("no transfers")
	}
}

func checkAccounts(t *testing.T, s Snapshot) {
	t.Helper()
	kinds := map[string]int{}
	for _, a := range s.Accounts {
		kinds[a.AccountType+"/"+a.OwnershipType]++
	}
	if kinds["TRANSACTIONAL/INDIVIDUAL"] != 1 || kinds["TRANSACTIONAL/JOINT"] != 1 || kinds["SAVER/INDIVIDUAL"] != 2 || kinds["HOME_LOAN/INDIVIDUAL"] != 1 {
		t.Errorf("accounts: %v", kinds)
	}
	if s.Accounts[0].DisplayName != "Spending" {
		t.Errorf("first account %q", s.Accounts[0].DisplayName)
	}
	if len(s.Categories) != 44 {
		t.Errorf("%d categories", len(s.Categories))
	}
}

func TestHistorySpan(t *testing.T) {
	for _, n := range []int{2000, 20000} {
		s := New(Options{Seed: 1, Transactions: n, Now: fixedClock}).Snapshot()
		newest, oldest := s.Transactions[0].CreatedAt, s.Transactions[n-1].CreatedAt
		if !newest.Before(fixedNow) || fixedNow.Sub(newest) > time.Hour {
			t.Errorf("n=%d: newest transaction at %v, now %v", n, newest, fixedNow)
		}
		span := newest.Sub(oldest)
		if span < 365*24*time.Hour {
			t.Errorf("n=%d: history spans only %v", n, span)
		}
		if perDay := float64(n) / span.Hours() * 24; perDay > 30 {
			t.Errorf("n=%d: %.1f transactions a day", n, perDay)
		}
	}
}

func TestAustralianOffsets(t *testing.T) {
	cases := map[string]string{
		"2024-04-06T15:59:59Z": "2024-04-07T02:59:59+11:00",
		"2024-04-06T16:00:00Z": "2024-04-07T02:00:00+10:00",
		"2024-10-05T15:59:59Z": "2024-10-06T01:59:59+10:00",
		"2024-10-05T16:00:00Z": "2024-10-06T03:00:00+11:00",
		"2024-01-01T00:00:00Z": "2024-01-01T11:00:00+11:00",
		"2024-07-01T00:00:00Z": "2024-07-01T10:00:00+10:00",
	}
	for in, want := range cases {
		ts, _ := time.Parse(time.RFC3339, in)
		if got := australian(ts).Format(time.RFC3339); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	// A year of history shows both offsets.
	e := newEnv(t, Options{Seed: 1, Transactions: 600})
	all := e.walk("/transactions?page[size]=100")
	seen := map[string]bool{}
	for _, tx := range all {
		ts := attr(tx, "attributes", "createdAt").(string)
		seen[ts[len(ts)-6:]] = true
	}
	if !seen["+10:00"] || !seen["+11:00"] || len(seen) != 2 {
		t.Errorf("offsets seen: %v", seen)
	}
}

func TestMoneyValue(t *testing.T) {
	cases := []struct {
		m    Money
		want string
	}{
		{Money{"AUD", -1250}, "-12.50"}, {Money{"AUD", 8}, "0.08"}, {Money{"AUD", -8}, "-0.08"},
		{Money{"AUD", 0}, "0.00"}, {Money{"JPY", -1500}, "-1500"}, {Money{"IDR", -105369877}, "-1053698.77"},
		{Money{"AUD", 100}, "1.00"},
	}
	for _, c := range cases {
		if got := c.m.Value(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.m, got, c.want)
		}
	}
}

func TestControlAPI(t *testing.T) {
	clock := fixedNow
	e := newEnv(t, Options{Seed: 8, Transactions: 100, Now: func() time.Time { return clock }})
	b := e.bank
	main := b.Snapshot().Accounts[0]

	clock = clock.Add(time.Minute)
	id := b.AddTransaction(NewTransaction{Description: "Corner Store", AmountBaseUnits: -1999, Held: true, CategoryID: "groceries", Tags: []string{"café", "café"}})
	top := e.mustGet("/transactions?page[size]=1")
	got := top["data"].([]any)[0].(map[string]any)
	if got["id"] != id || attr(got, "attributes", "status") != "HELD" || attr(got, "attributes", "settledAt") != nil ||
		attr(got, "attributes", "amount", "value") != "-19.99" || attr(got, "relationships", "account", "data", "id") != main.ID ||
		attr(got, "relationships", "category", "data", "id") != "groceries" || len(attr(got, "relationships", "tags", "data").([]any)) != 1 {
		t.Fatalf("added transaction: %v", got)
	}
	created, _ := time.Parse(time.RFC3339, attr(got, "attributes", "createdAt").(string))
	if !created.Equal(clock) {
		t.Errorf("createdAt %v, want %v", created, clock)
	}
	if bal := accountByID(b.Snapshot(), main.ID).Balance.ValueInBaseUnits; bal != main.Balance.ValueInBaseUnits-1999 {
		t.Errorf("balance %d, want %d", bal, main.Balance.ValueInBaseUnits-1999)
	}

	// Defaults: random merchant, negative amount, main account, categorized.
	defID := b.AddTransaction(NewTransaction{})
	def := findTx(b.Snapshot(), defID)
	if def.Description == "" || def.Amount.ValueInBaseUnits >= 0 || def.AccountID != main.ID || def.CategoryID == "" || def.Status != "SETTLED" || def.SettledAt == nil {
		t.Errorf("default transaction: %+v", def)
	}
	foreignID := b.AddTransaction(NewTransaction{AccountID: jointAccount(b.Snapshot()), Foreign: true, Held: true})
	foreign := findTx(b.Snapshot(), foreignID)
	if foreign.ForeignAmount == nil || foreign.HoldInfo == nil || foreign.HoldInfo.ForeignAmount == nil || foreign.PerformingCustomer == nil {
		t.Errorf("foreign held transaction: %+v", foreign)
	}

	// Settle.
	clock = clock.Add(time.Hour)
	if err := b.Settle(id); err != nil {
		t.Fatal(err)
	}
	m := e.mustGet("/transactions/" + id)
	if attr(m, "data", "attributes", "status") != "SETTLED" || attr(m, "data", "attributes", "holdInfo", "amount", "value") != "-19.99" {
		t.Errorf("settled: %v", attr(m, "data", "attributes"))
	}
	if settled, _ := time.Parse(time.RFC3339, attr(m, "data", "attributes", "settledAt").(string)); !settled.Equal(clock) {
		t.Errorf("settledAt %v", settled)
	}
	if err := b.Settle(id); !errors.Is(err, ErrNotHeld) {
		t.Errorf("settle twice: %v", err)
	}
	if err := b.Settle("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("settle unknown: %v", err)
	}
	if err := b.Settle(foreign.ID); err != nil {
		t.Fatal(err)
	}

	// Settle as replacement.
	held := b.AddTransaction(NewTransaction{Held: true, AmountBaseUnits: -500, Description: "Hotel deposit"})
	newID, err := b.SettleAsReplacement(held)
	if err != nil || newID == held {
		t.Fatalf("SettleAsReplacement: %q %v", newID, err)
	}
	if r := e.get("/transactions/" + held); r.status != http.StatusNotFound {
		t.Errorf("replaced transaction still served: %d", r.status)
	}
	repl := findTx(b.Snapshot(), newID)
	if repl.Status != "SETTLED" || repl.HoldInfo == nil || repl.Description != "Hotel deposit" {
		t.Errorf("replacement: %+v", repl)
	}

	// Delete: held only.
	held = b.AddTransaction(NewTransaction{Held: true})
	if err := b.Delete(newID); !errors.Is(err, ErrNotHeld) {
		t.Errorf("delete settled: %v", err)
	}
	before := len(b.Snapshot().Transactions)
	if err := b.Delete(held); err != nil {
		t.Fatal(err)
	}
	if r := e.get("/transactions/" + held); r.status != http.StatusNotFound || len(b.Snapshot().Transactions) != before-1 {
		t.Errorf("deleted transaction: %d", r.status)
	}
	if err := b.Delete(held); !errors.Is(err, ErrNotFound) {
		t.Errorf("delete twice: %v", err)
	}

	// Silent changes.
	if err := b.SetTags(id, []string{"1", "2", "3", "4", "5", "6", "7"}); !errors.Is(err, ErrTooManyTags) {
		t.Errorf("7 tags: %v", err)
	}
	if err := b.SetTags(id, []string{"Zebra 🦓"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ids(e.walk("/tags")), "Zebra 🦓") {
		t.Error("new tag not listed")
	}
	if err := b.SetCategory(id, "good-life"); !errors.Is(err, ErrInvalidCategory) {
		t.Errorf("parent category: %v", err)
	}
	if err := b.SetCategory(id, "fuel"); err != nil {
		t.Fatal(err)
	}
	m = e.mustGet("/transactions/" + id)
	if attr(m, "data", "relationships", "category", "data", "id") != "fuel" || attr(m, "data", "relationships", "parentCategory", "data", "id") != "transport" {
		t.Error("SetCategory not visible")
	}
	if err := b.SetCategory(id, ""); err != nil || findTx(b.Snapshot(), id).CategoryID != "" {
		t.Errorf("decategorize: %v", err)
	}
	var transfer string
	for _, tx := range b.Snapshot().Transactions {
		if tx.TransferAccountID != "" {
			transfer = tx.ID
		}
	}
	if err := b.SetCategory(transfer, "fuel"); !errors.Is(err, ErrNotCategorizable) {
		t.Errorf("categorize transfer: %v", err)
	}
}

func accountByID(s Snapshot, id string) Account {
	for _, a := range s.Accounts {
		if a.ID == id {
			return a
		}
	}
	return Account{}
}

func TestSnapshotIsDeepCopy(t *testing.T) {
	b := New(Options{Seed: 1, Transactions: 100, Now: fixedClock})
	s := b.Snapshot()
	for i := range s.Transactions {
		s.Transactions[i].Tags = append(s.Transactions[i].Tags, "mutated")
		if s.Transactions[i].HoldInfo != nil {
			s.Transactions[i].HoldInfo.Amount.ValueInBaseUnits = 1
		}
	}
	s.Accounts[0].DisplayName = "mutated"
	again := b.Snapshot()
	for _, tx := range again.Transactions {
		if slices.Contains(tx.Tags, "mutated") || (tx.HoldInfo != nil && tx.HoldInfo.Amount.ValueInBaseUnits == 1) {
			t.Fatal("snapshot shares memory with the bank")
		}
	}
	if again.Accounts[0].DisplayName == "mutated" {
		t.Fatal("snapshot shares accounts")
	}
}

// TestConcurrentUse lists while mutating; run with -race.
func TestConcurrentUse(t *testing.T) {
	e := newEnv(t, Options{Seed: 6, Transactions: 400, Now: time.Now})
	client := e.srv.Client()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			next := e.base + "/transactions?page[size]=50"
			for next != "" {
				req, _ := http.NewRequest(http.MethodGet, next, nil)
				req.Header.Set("Authorization", "Bearer "+e.bank.Token())
				resp, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				var page struct {
					Links struct{ Next *string }
				}
				err = json.NewDecoder(resp.Body).Decode(&page)
				resp.Body.Close()
				if err != nil || page.Links.Next == nil {
					return
				}
				next = *page.Links.Next
			}
		})
	}
	wg.Go(func() {
		for i := range 50 {
			id := e.bank.AddTransaction(NewTransaction{Held: true})
			switch i % 3 {
			case 0:
				_ = e.bank.Settle(id)
			case 1:
				_ = e.bank.Delete(id)
			default:
				_, _ = e.bank.SettleAsReplacement(id)
			}
			_ = e.bank.SetTags(id, []string{"x"})
			_ = e.bank.Snapshot()
		}
	})
	wg.Wait()
	if !strings.HasPrefix(e.base, "http://") {
		t.Fatal(e.base)
	}
}
