package simulator

import (
	"net/http"
	"testing"
)

// The bank records the write-backs clients make through the API, not the
// changes the customer's app (the control API) makes.
func TestAPIWritesAreRecorded(t *testing.T) {
	e := newEnv(t, Options{Seed: 5, Transactions: 30})
	c := newCtl(t, e)
	var id string
	for _, tx := range e.bank.Snapshot().Transactions {
		if tx.IsCategorizable && tx.TransferAccountID == "" {
			id = tx.ID
			break
		}
	}
	auth := []string{"Authorization", "Bearer " + e.bank.Token(), "Content-Type", "application/json"}
	if r := e.do(http.MethodPatch, "/transactions/"+id+"/relationships/category",
		map[string]any{"data": map[string]string{"type": "categories", "id": "fuel"}}, auth...); r.status != http.StatusNoContent {
		t.Fatalf("PATCH category: %d", r.status)
	}
	if r := e.do(http.MethodPost, "/transactions/"+id+"/relationships/tags",
		map[string]any{"data": []map[string]string{{"type": "tags", "id": "car"}}}, auth...); r.status != http.StatusNoContent {
		t.Fatalf("POST tags: %d", r.status)
	}
	// The customer's app: not a write-back.
	c.must(204, http.MethodPut, "/transactions/"+id+"/category", map[string]any{"categoryId": "groceries"})

	got := e.bank.APIWrites()
	if len(got) != 2 || got[0].Op != "category" || got[0].CategoryID != "fuel" || got[1].Op != "tags add" ||
		len(got[1].Tags) != 1 || got[1].Tags[0] != "car" || got[0].TransactionID != id || got[0].Person == "" {
		t.Fatalf("writes %+v", got)
	}
	list := c.must(200, http.MethodGet, "/writes?transaction="+id, nil)["data"].([]any)
	if len(list) != 2 || list[0].(map[string]any)["categoryId"] != "fuel" {
		t.Fatalf("GET /_sim/writes: %v", list)
	}
	if n := len(c.must(200, http.MethodGet, "/writes?transaction=nope", nil)["data"].([]any)); n != 0 {
		t.Fatalf("writes of another transaction: %d", n)
	}
}
