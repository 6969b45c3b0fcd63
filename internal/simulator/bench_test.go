package simulator

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkListTransactionsPage lists a 100k-transaction bank at 100 per
// page over HTTP, following links.next (and starting over at the end). It
// reports transactions per second served and decoded by the client.
func BenchmarkListTransactionsPage(b *testing.B) {
	benchmarkList(b, func(*Bank) string { return "/transactions?page[size]=100" })
}

// BenchmarkListAccountTransactionsPage does the same for the main account's
// listing, which filters while it scans.
func BenchmarkListAccountTransactionsPage(b *testing.B) {
	benchmarkList(b, func(bank *Bank) string { return "/accounts/" + bank.mainAccount + "/transactions?page[size]=100" })
}

func benchmarkList(b *testing.B, path func(*Bank) string) {
	bank := New(Options{Seed: 1, Transactions: 100_000, Now: fixedClock})
	srv := httptest.NewServer(bank.Handler())
	defer srv.Close()
	client := srv.Client()
	first := srv.URL + apiPrefix + path(bank)
	next := first
	txs := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodGet, next, nil)
		req.Header.Set("Authorization", "Bearer "+bank.Token())
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d: %v", resp.StatusCode, err)
		}
		var page struct {
			Data  []json.RawMessage
			Links struct{ Next *string }
		}
		if err := json.Unmarshal(body, &page); err != nil {
			b.Fatal(err)
		}
		txs += len(page.Data)
		if page.Links.Next == nil {
			next = first
		} else {
			next = *page.Links.Next
		}
	}
	b.ReportMetric(float64(txs)/b.Elapsed().Seconds(), "tx/s")
}

// BenchmarkNew measures seeding a 100k-transaction bank.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		New(Options{Seed: 1, Transactions: 100_000, Now: fixedClock})
	}
}

// BenchmarkRenderPage measures rendering one uncached page in process.
func BenchmarkRenderPage(b *testing.B) {
	bank := New(Options{Seed: 1, Transactions: 100_000, Now: fixedClock, PageCacheBytes: -1})
	h := bank.Handler()
	req := httptest.NewRequest(http.MethodGet, apiPrefix+"/transactions?page[size]=100", nil)
	req.Header.Set("Authorization", "Bearer "+bank.Token())
	for b.Loop() {
		for _, t := range bank.txs[:100] {
			t.cache.Store(nil)
		}
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}
