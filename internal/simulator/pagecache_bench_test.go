package simulator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// discardWriter is a ResponseWriter that keeps only the status and the
// last body, so that a benchmark measures the bank and not a client.
type discardWriter struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.status = code }
func (w *discardWriter) Write(p []byte) (int, error) { return w.body.Write(p) }

// BenchmarkServeListingPages serves a 100k-transaction listing at 100 per
// page in process, following links.next and starting over at the end, so
// that every page is served many times (as a benchmark of repeated full
// syncs does), with the page cache off (each page assembled per request
// from the cached transaction JSON) and on. It reports pages per second.
func BenchmarkServeListingPages(b *testing.B) {
	b.Run("assembled", func(b *testing.B) { benchmarkServePages(b, -1) })
	b.Run("cached", func(b *testing.B) { benchmarkServePages(b, 0) })
}

func benchmarkServePages(b *testing.B, cacheBytes int64) {
	bank := New(Options{Seed: 1, Transactions: 100_000, Now: fixedClock, PageCacheBytes: cacheBytes})
	h := bank.Handler()
	first := "http://bank.test" + apiPrefix + "/transactions?page[size]=100"
	// One walk to collect the page URLs (and warm the caches).
	var urls []string
	for next := first; next != ""; {
		urls = append(urls, next)
		w := serveOnce(b, h, bank, next)
		var page struct{ Links struct{ Next *string } }
		if err := json.Unmarshal(w.body.Bytes(), &page); err != nil {
			b.Fatal(err)
		}
		next = ""
		if page.Links.Next != nil {
			next = *page.Links.Next
		}
	}
	req := make([]*http.Request, len(urls))
	for i, u := range urls {
		req[i] = httptest.NewRequest(http.MethodGet, u, nil)
		req[i].Header.Set("Authorization", "Bearer "+bank.Token())
	}
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		w.body.Reset()
		clear(w.h)
		h.ServeHTTP(w, req[i%len(req)])
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "pages/s")
}

func serveOnce(tb testing.TB, h http.Handler, bank *Bank, target string) *discardWriter {
	tb.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.Header.Set("Authorization", "Bearer "+bank.Token())
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, r)
	if w.status != http.StatusOK {
		tb.Fatalf("GET %s: status %d: %s", target, w.status, w.body.Bytes())
	}
	return w
}
