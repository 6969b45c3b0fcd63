package simulator

import (
	"errors"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"
)

// checkBalances requires every account's balance to be its opening
// balance plus the amounts of its transactions, held ones included.
func checkBalances(t *testing.T, s Snapshot) {
	t.Helper()
	sums := map[string]int64{}
	for _, tx := range s.Transactions {
		sums[tx.AccountID] += tx.Amount.ValueInBaseUnits
	}
	for _, a := range s.Accounts {
		if got := a.OpeningBalance.ValueInBaseUnits + sums[a.ID]; got != a.Balance.ValueInBaseUnits {
			t.Errorf("%s: opening %d + transactions %d = %d, balance %d", a.DisplayName,
				a.OpeningBalance.ValueInBaseUnits, sums[a.ID], got, a.Balance.ValueInBaseUnits)
		}
	}
}

func TestBalancesReconcileUnderEveryMutation(t *testing.T) {
	e := newEnv(t, Options{Seed: 11, Transactions: 400})
	checkBalances(t, e.bank.Snapshot())
	for range 300 {
		e.bank.LiveStep()
	}
	s := e.bank.Snapshot()
	checkBalances(t, s)
	held := 0
	for _, tx := range s.Transactions {
		if tx.Status == "HELD" {
			held++
			if e.bank.held[tx.ID] == nil {
				t.Errorf("HELD %s missing from the held index", tx.ID)
			}
		}
	}
	if held != len(e.bank.held) {
		t.Errorf("%d HELD transactions, the held index has %d", held, len(e.bank.held))
	}
	// The API shows the same balances.
	for _, a := range s.Accounts {
		got := e.mustGet("/accounts/" + a.ID)
		if attr(got, "data", "attributes", "balance", "valueInBaseUnits") != float64(a.Balance.ValueInBaseUnits) {
			t.Errorf("%s: API balance %v, truth %d", a.DisplayName, attr(got, "data", "attributes", "balance"), a.Balance.ValueInBaseUnits)
		}
	}
}

func TestLiveStepMakesEveryKindOfChange(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 12, Transactions: 200})
	hook := e.createHook(newReceiver(t), "/hook", "")
	kinds := map[string]int{}
	for range 200 {
		s := e.bank.LiveStep()
		for _, k := range []string{"purchase", "refund", "delete", "settle"} {
			if len(s) > len(k) && s[:len(k)] == k {
				kinds[k]++
			}
		}
	}
	for _, k := range []string{"purchase", "refund", "delete", "settle"} {
		if kinds[k] == 0 {
			t.Errorf("200 live steps made no %s: %v", k, kinds)
		}
	}
	types := map[string]bool{}
	for _, ev := range e.bank.Events() {
		if ev.WebhookID == hook {
			types[ev.Type] = true
		}
	}
	if !types[eventCreated] || !types[eventSettled] || !types[eventDeleted] {
		t.Errorf("event types %v", types)
	}
	waitDeliveries(t, e.bank)
}

func TestCreateTransactionEveryField(t *testing.T) {
	e := newEnv(t, Options{Seed: 13, Transactions: 60})
	s := e.bank.Snapshot()
	saver := ""
	for _, a := range s.Accounts {
		if a.AccountType == "SAVER" {
			saver = a.ID
			break
		}
	}
	at := fixedNow.Add(-time.Hour)
	ids, err := e.bank.CreateTransaction(NewTransaction{
		Description: "Bookshop", AmountBaseUnits: -2345, Held: true, CategoryID: "news-magazines-and-books",
		Tags: []string{"books", "books", "gift"}, CreatedAt: at,
		ForeignAmount: &Money{CurrencyCode: "EUR", ValueInBaseUnits: -1430},
		RawText:       ptr("BOOKSHOP PARIS"), Message: ptr("hi"), Note: ptr("for mum"), TransactionType: ptr("Purchase"),
		PerformingCustomer: ptr("Alex"), CardPurchaseMethod: &CardPurchaseMethod{Method: "ECOMMERCE", CardNumberSuffix: ptr("0001")},
		RoundUp:  &RoundUp{Amount: Money{"AUD", -155}, BoostPortion: &Money{"AUD", -100}},
		Cashback: &Cashback{Description: "Book club", Amount: Money{"AUD", 200}}, Attachment: "application/pdf",
	})
	if err != nil || len(ids) != 1 {
		t.Fatalf("CreateTransaction: %v, %v", ids, err)
	}
	tx := e.mustGet("/transactions/" + ids[0])["data"].(map[string]any)
	checks := map[string]any{
		"status": "HELD", "description": "Bookshop", "rawText": "BOOKSHOP PARIS", "message": "hi",
		"transactionType": "Purchase", "createdAt": "2024-03-03T19:30:00+11:00", "settledAt": nil,
	}
	for k, want := range checks {
		if got := attr(tx, "attributes", k); got != want {
			t.Errorf("%s = %v, want %v", k, got, want)
		}
	}
	for path, want := range map[[3]string]any{
		{"attributes", "note", "text"}:                      "for mum",
		{"attributes", "performingCustomer", "displayName"}: "Alex",
		{"attributes", "cardPurchaseMethod", "method"}:      "ECOMMERCE",
		{"attributes", "foreignAmount", "currencyCode"}:     "EUR",
		{"attributes", "holdInfo", "foreignAmount"}:         attr(tx, "attributes", "foreignAmount"),
		{"attributes", "roundUp", "boostPortion"}:           map[string]any{"currencyCode": "AUD", "value": "-1.00", "valueInBaseUnits": float64(-100)},
		{"attributes", "cashback", "description"}:           "Book club",
		{"relationships", "category", "data"}:               map[string]any{"type": "categories", "id": "news-magazines-and-books"},
	} {
		if got := attr(tx, path[:]...); !reflect.DeepEqual(got, want) {
			t.Errorf("%v = %v, want %v", path, got, want)
		}
	}
	if tags := attr(tx, "relationships", "tags", "data").([]any); len(tags) != 2 {
		t.Errorf("tags %v, want books and gift once each", tags)
	}
	attID, _ := attr(tx, "relationships", "attachment", "data", "id").(string)
	att := e.mustGet("/attachments/" + attID)
	if attr(att, "data", "attributes", "fileContentType") != "application/pdf" || attr(att, "data", "attributes", "fileExtension") != "pdf" {
		t.Errorf("attachment %v", att)
	}

	pair, err := e.bank.CreateTransaction(NewTransaction{AmountBaseUnits: -5000, TransferAccountID: saver, Message: ptr("Top up")})
	if err != nil || len(pair) != 2 {
		t.Fatalf("transfer: %v, %v", pair, err)
	}
	out, in := e.mustGet("/transactions/" + pair[0])["data"], e.mustGet("/transactions/" + pair[1])["data"]
	if attr(out.(map[string]any), "attributes", "amount", "valueInBaseUnits") != float64(-5000) ||
		attr(in.(map[string]any), "attributes", "amount", "valueInBaseUnits") != float64(5000) ||
		attr(out.(map[string]any), "relationships", "transferAccount", "data", "id") != saver ||
		attr(in.(map[string]any), "relationships", "transferAccount", "data", "id") != e.bank.mainAccount {
		t.Errorf("transfer pair:\n%v\n%v", out, in)
	}
	checkBalances(t, e.bank.Snapshot())

	for name, nt := range map[string]NewTransaction{
		"unknown account":  {AccountID: "nope"},
		"parent category":  {CategoryID: "home"},
		"seven tags":       {Tags: []string{"1", "2", "3", "4", "5", "6", "7"}},
		"bad attachment":   {Attachment: "text/plain"},
		"self transfer":    {TransferAccountID: e.bank.mainAccount},
		"unknown transfer": {TransferAccountID: "nope"},
	} {
		if _, err := e.bank.CreateTransaction(nt); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if ids, err := e.bank.CreateTransaction(NewTransaction{NotCategorizable: true}); err != nil {
		t.Errorf("a default purchase that is not categorizable: %v", err)
	} else if tx := e.mustGet("/transactions/" + ids[0]); attr(tx, "data", "attributes", "isCategorizable") != false ||
		attr(tx, "data", "relationships", "category", "data") != nil {
		t.Errorf("not categorizable: %v", tx)
	}
	if _, err := e.bank.CreateTransaction(NewTransaction{AccountID: "nope"}); !errors.Is(err, ErrUnknownAccount) {
		t.Errorf("unknown account: %v", err)
	}
}

func TestDeleteWithoutEvent(t *testing.T) {
	e := newHookEnv(t, Options{Seed: 14, Transactions: 60})
	e.createHook(newReceiver(t), "/hook", "")
	id := e.bank.AddTransaction(NewTransaction{Held: true})
	if err := e.bank.DeleteWithoutEvent(id); err != nil {
		t.Fatal(err)
	}
	if r := e.get("/transactions/" + id); r.status != http.StatusNotFound {
		t.Errorf("deleted transaction: %d", r.status)
	}
	var types []string
	for _, ev := range e.bank.Events() {
		types = append(types, ev.Type)
	}
	if !slices.Equal(types, []string{eventCreated}) {
		t.Errorf("events %v, want only the creation", types)
	}
	if err := e.bank.DeleteWithoutEvent(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

func TestStatusRates(t *testing.T) {
	e := newEnv(t, Options{Seed: 1, Transactions: 60})
	e.bank.SetFaults(Faults{Rate503: 1})
	for range 5 {
		if r := e.get("/util/ping"); r.status != http.StatusServiceUnavailable {
			t.Fatalf("status %d, want 503", r.status)
		}
	}
	e.bank.SetFaults(Faults{Rate500: 0.5, Rate502: 0.5})
	seen := map[int]int{}
	for range 40 {
		seen[e.get("/util/ping").status]++
	}
	if seen[500] == 0 || seen[502] == 0 || seen[500]+seen[502] != 40 {
		t.Errorf("statuses %v, want only 500 and 502", seen)
	}
}

func TestResetRestoresTheSeed(t *testing.T) {
	clock := newTestClock(fixedNow)
	e := newHookEnv(t, Options{Seed: 15, Transactions: 150, Now: clock.Now})
	before := e.walkRaw("/transactions?page[size]=100")
	e.createHook(newReceiver(t), "/hook", "")
	for range 20 {
		e.bank.LiveStep()
	}
	e.bank.SetFaults(Faults{Latency: time.Millisecond})
	e.bank.RotateToken("other")
	clock.Set(fixedNow.Add(24 * time.Hour))
	e.bank.Reset()
	if e.bank.Token() != e.bank.opts.Token || len(e.bank.Webhooks()) != 0 || len(e.bank.Events()) != 0 || e.bank.Faults().Latency != 0 {
		t.Error("Reset kept the token, webhooks, events or faults")
	}
	if len(e.bank.RequestCounts()) != 0 {
		t.Error("Reset kept the request record")
	}
	after := e.walkRaw("/transactions?page[size]=100")
	if len(before) != len(after) {
		t.Fatalf("%d pages before, %d after", len(before), len(after))
	}
	for i := range before {
		if string(before[i]) != string(after[i]) {
			t.Fatalf("page %d differs after Reset", i)
		}
	}
	checkBalances(t, e.bank.Snapshot())
}
