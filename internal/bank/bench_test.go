package bank

import (
	"bytes"
	"fmt"
	"testing"
)

// benchPage builds a list document of n transactions, alternating the
// fixture with every field set and the one with every field null.
func benchPage(b *testing.B, n int) []byte {
	full := fixture(b, "transaction_all_set.json", "")
	null := fixture(b, "transaction_all_null.json", "")
	var buf bytes.Buffer
	buf.WriteString(`{"data":[`)
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		src, id := full, "20f1a541-356b-4363-aeba-18e21661b8e5"
		if i%2 == 1 {
			src, id = null, "7d1b4f3e-3c2a-4b8e-9f21-0c6a5e1d2b77"
		}
		buf.Write(bytes.ReplaceAll(src, []byte(id), fmt.Appendf(nil, "%08d-356b-4363-aeba-18e21661b8e5", i)))
	}
	buf.WriteString(`],"links":{"prev":null,"next":"https://api.up.com.au/api/v1/transactions?page%5Bafter%5D=WyJ4Il0%3D&page%5Bsize%5D=100"}}`)
	return buf.Bytes()
}

func BenchmarkDecodeTransactionsPage(b *testing.B) {
	const n = 100
	page := benchPage(b, n)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := decodePage(page, "transaction", parseTransaction)
		if err != nil || len(p.Data) != n {
			b.Fatal(len(p.Data), err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "tx/s")
}
