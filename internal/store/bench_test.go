package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// benchPage makes page p of 100 distinct, realistic transactions.
func benchPage(p int) []bank.Transaction {
	txs := make([]bank.Transaction, 100)
	for i := range txs {
		n := p*100 + i
		id := fmt.Sprintf("%08x-%04x-4aaa-8bbb-%012x", n*2654435761%(1<<32), n%65536, n)
		t := tx(id, "SETTLED", int64(-n), "groceries")
		raw := make([]byte, 1800)
		copy(raw, t.Raw)
		t.Raw = raw
		t.CreatedAt = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(n) * time.Minute).Format(time.RFC3339)
		if n%3 == 0 {
			t.TagIDs = nil
		}
		txs[i] = t
	}
	return txs
}

// BenchmarkSaveListingPage measures a full sync's write path: one page of
// 100 new transactions per transaction, with history and checkpoint.
func BenchmarkSaveListingPage(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "m.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	l, err := s.BeginListing(ctx, "transactions", "http://x/1", time.Now().Add(-time.Hour))
	if err != nil {
		b.Fatal(err)
	}
	pages := make([][]bank.Transaction, b.N)
	for i := range pages {
		pages[i] = benchPage(i)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.SaveListingPage(ctx, &l, pages[i], "http://x/next"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "tx/s")
}
