package receiver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
)

// BenchmarkReceiver drives the receiver over loopback HTTP with a real
// SQLite store (synchronous=FULL) and reports acknowledgements per second
// and ack latency, beside two baselines:
//
//   - bare: signature check and parse, then 200 with nothing stored;
//   - tx-per-event: each request inserts its own event in its own
//     transaction (one fsync per request), no grouping;
//   - group: the production path, group commit.
//
// Run: go test -tags sqlite_fts5 -run '^$' -bench BenchmarkReceiver -benchtime 3000x ./internal/receiver/
func BenchmarkReceiver(b *testing.B) {
	modes := []string{"bare", "tx-per-event", "group"}
	levels := []int{1, 16, 128}
	type result struct{ acks, p50, p99 float64 }
	results := map[string]result{}
	for _, mode := range modes {
		for _, c := range levels {
			name := fmt.Sprintf("%s/c=%d", mode, c)
			b.Run(name, func(b *testing.B) {
				acks, p50, p99 := benchReceiver(b, mode, c)
				results[name] = result{acks, p50, p99}
			})
		}
	}
	if len(results) != len(modes)*len(levels) {
		return // filtered by -bench
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "\nconcurrency\tbare acks/s\ttx-per-event acks/s\tgroup acks/s\tgroup/tx-per-event\tgroup/bare\tgroup p50-ms\tgroup p99-ms\t")
	for _, c := range levels {
		bare := results[fmt.Sprintf("bare/c=%d", c)]
		tx := results[fmt.Sprintf("tx-per-event/c=%d", c)]
		g := results[fmt.Sprintf("group/c=%d", c)]
		fmt.Fprintf(w, "%d\t%.0f\t%.0f\t%.0f\t%.2fx\t%.2fx\t%.3f\t%.3f\t\n",
			c, bare.acks, tx.acks, g.acks, g.acks/tx.acks, g.acks/bare.acks, g.p50, g.p99)
	}
	_ = w.Flush()
}

var benchRun atomic.Int64

func benchReceiver(b *testing.B, mode string, concurrency int) (acks, p50, p99 float64) {
	var in inbox
	var st *store.Store
	switch mode {
	case "bare":
		in = &fakeInbox{InsertEventsFn: func(context.Context, []store.InboxEvent) ([]string, error) { return nil, nil }}
	default:
		st = mustOpenStore(b)
		in = st
	}
	var r *Receiver
	if mode == "group" {
		r = mustStart(b, in, Config{})
	} else {
		r = newPerEvent(b, in)
	}
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	tr := &http.Transport{MaxIdleConns: 2 * concurrency, MaxIdleConnsPerHost: 2 * concurrency}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	url := srv.URL + "/webhook"

	// Every request is a distinct, signed event.
	run := benchRun.Add(1)
	bodies := make([][]byte, b.N)
	sigs := make([]string, b.N)
	for i := range bodies {
		bodies[i] = eventBody(fmt.Sprintf("bench-%d-%d", run, i), "TRANSACTION_CREATED", fmt.Sprintf("tx-%d", i))
		sigs[i] = sign(bodies[i], secretA)
	}
	// Open the connections before timing, with one genuine delivery each:
	// the receiver keeps only the bank's connections alive (it closes a
	// refused request's).
	var wg sync.WaitGroup
	for i := range concurrency {
		wg.Go(func() {
			body := eventBody(fmt.Sprintf("warm-%d-%d", run, i), "PING", "")
			req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			if err != nil {
				return
			}
			req.Header.Set(SignatureHeader, sign(body, secretA))
			if resp, err := client.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	wg.Wait()

	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Value
	b.ResetTimer()
	start := time.Now()
	for range concurrency {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= b.N {
					return
				}
				req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(bodies[i]))
				if err != nil {
					failed.Store(err)
					return
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(SignatureHeader, sigs[i])
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					failed.Store(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat[i] = time.Since(t0)
				if resp.StatusCode != http.StatusOK {
					failed.Store(fmt.Errorf("status %d", resp.StatusCode))
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err := failed.Load(); err != nil {
		b.Fatal(err)
	}
	if st != nil {
		if n := countRows(b, st, ""); n != b.N+concurrency {
			b.Fatalf("rows = %d, want %d (and %d from the warm-up)", n, b.N+concurrency, concurrency)
		}
	}

	slices.Sort(lat)
	pct := func(p int) float64 {
		i := min(len(lat)*p/100, len(lat)-1)
		return float64(lat[i]) / float64(time.Millisecond)
	}
	acks, p50, p99 = float64(b.N)/elapsed.Seconds(), pct(50), pct(99)
	b.ReportMetric(acks, "acks/s")
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p99, "p99-ms")
	return acks, p50, p99
}
