package simulator

import (
	"bytes"
	"net/http"
	"slices"
	"testing"
)

// Every mutation invalidates the cached pages: the same request answers
// the new truth at once.
func TestPageCacheServesTheTruthAfterEveryMutation(t *testing.T) {
	e := newEnv(t, Options{Seed: 3, Transactions: 120})
	const first = "/transactions?page[size]=5"
	page := func() []byte {
		r := e.get(first)
		if r.status != http.StatusOK {
			t.Fatalf("status %d", r.status)
		}
		return r.body
	}
	before := page()
	if again := page(); !bytes.Equal(before, again) {
		t.Fatal("two reads of an unchanged bank differ")
	}
	if e.bank.gen.Load() != e.bank.pages.gen || len(e.bank.pages.pages) == 0 {
		t.Fatal("the page was not cached")
	}
	topID := func() string { return ids(e.walkFirst(first))[0] }

	id := e.bank.AddTransaction(NewTransaction{Description: "Cache buster", AmountBaseUnits: -100, Held: true})
	if got := topID(); got != id {
		t.Fatalf("after AddTransaction the first page starts with %s, want %s", got, id)
	}
	steps := []struct {
		name   string
		mutate func() error
		check  func(tx map[string]any) bool
	}{
		{"SetTags", func() error { return e.bank.SetTags(id, []string{"cached?"}) },
			func(tx map[string]any) bool { return len(attr(tx, "relationships", "tags", "data").([]any)) == 1 }},
		{"SetCategory", func() error { return e.bank.SetCategory(id, "groceries") },
			func(tx map[string]any) bool {
				return attr(tx, "relationships", "category", "data", "id") == "groceries"
			}},
		{"Settle", func() error { return e.bank.Settle(id) },
			func(tx map[string]any) bool { return attr(tx, "attributes", "status") == "SETTLED" }},
	}
	for _, s := range steps {
		page() // cache the current state
		if err := s.mutate(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if tx := e.walkFirst(first)[0]; !s.check(tx) {
			t.Errorf("after %s the cached page was served: %v", s.name, tx)
		}
	}
	held := e.bank.AddTransaction(NewTransaction{Description: "To delete", AmountBaseUnits: -100, Held: true})
	page()
	if err := e.bank.Delete(held); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ids(e.walkFirst(first)), held) {
		t.Error("after Delete the cached page was served")
	}
}

// A cache too small for the listing stores what fits and serves the same
// bytes as an uncached bank.
func TestPageCacheBoundedAndExact(t *testing.T) {
	cached := newEnv(t, Options{Seed: 4, Transactions: 300, PageCacheBytes: 40 << 10})
	plain := newEnv(t, Options{Seed: 4, Transactions: 300, PageCacheBytes: -1})
	for range 2 {
		a, b := cached.walkRaw("/transactions?page[size]=10"), plain.walkRaw("/transactions?page[size]=10")
		if len(a) != 30 || len(a) != len(b) {
			t.Fatalf("walked %d and %d pages", len(a), len(b))
		}
		for i := range a {
			a[i] = bytes.ReplaceAll(a[i], []byte(cached.base), nil)
			b[i] = bytes.ReplaceAll(b[i], []byte(plain.base), nil)
			if !bytes.Equal(a[i], b[i]) {
				t.Fatalf("page %d differs from the uncached bank's", i)
			}
		}
	}
	if s := cached.bank.pages.size; s == 0 || s > 40<<10 {
		t.Errorf("cache holds %d bytes, bound %d", s, 40<<10)
	}
	if len(plain.bank.pages.pages) != 0 {
		t.Error("PageCacheBytes -1 cached pages")
	}
}

func TestPrerender(t *testing.T) {
	e := newEnv(t, Options{Seed: 5, Transactions: 50})
	e.bank.Prerender(e.base + "/")
	for _, tx := range e.bank.txs {
		if c := tx.cache.Load(); c == nil || c.base != e.base {
			t.Fatalf("%s not rendered for %s", tx.ID, e.base)
		}
	}
	cached := e.bank.txs[0].cache.Load().json
	if got := e.mustGet("/transactions?page[size]=1"); attr(got, "data").([]any)[0].(map[string]any)["id"] != e.bank.txs[0].ID {
		t.Fatal("first page does not start with the newest transaction")
	}
	if &e.bank.txs[0].cache.Load().json[0] != &cached[0] {
		t.Error("the listing rendered the transaction again")
	}
}
