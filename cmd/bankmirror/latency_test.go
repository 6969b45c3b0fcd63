package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// eventsPerOp and eventInterval set the load: 500 events at 100 events/s,
// about 5 s per b.N.
const (
	eventsPerOp   = 500
	eventInterval = 10 * time.Millisecond
)

// BenchmarkEventVisibility measures how long a webhook event waits between
// its durable commit (the moment its delivery is acknowledged,
// Daemon.OnEventsStored) and the moment the worker has applied it to the
// mirror (Daemon.OnEventApplied), at a steady 100 events/s. As a baseline it
// times the bare work the worker must do per event, fetching the
// transaction and upserting it, for as many transactions at the same pace.
//
// Metrics (ns/op is meaningless here and not reported):
//
//	p50-ms p99-ms max-ms      stored -> applied
//	e2e-p99-ms                bank emits the event -> applied (adds delivery)
//	base-p50-ms base-p99-ms   Client.Transaction + Store.UpsertTransactions
//	events                    events measured
//
// Run: go test -tags sqlite_fts5 -run '^$' -bench BenchmarkEventVisibility -benchtime 1x ./cmd/bankmirror/
func BenchmarkEventVisibility(b *testing.B) {
	env := newBank(b, 300)
	cfg := testConfig(b, env)
	n := eventsPerOp * b.N
	rec := newVisibility(n)
	m := daemon.New(cfg, zerolog.Nop())
	m.OnEventsStored = rec.stored
	m.OnEventApplied = func(e store.InboxEvent, _ store.Change) { rec.applied(e.ID, e.TransactionID) }
	if err := m.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := m.Close(); err != nil {
			b.Error(err)
		}
	})
	<-m.InitialSyncDone
	ctx := context.Background()

	b.ResetTimer()
	// Baseline: transactions made before any webhook exists emit no event;
	// the mirror has never seen them, so each upsert is an insert, as the
	// worker's would be.
	baseline := make([]time.Duration, 0, n)
	tick := time.NewTicker(eventInterval)
	for range n {
		<-tick.C
		id := env.sim.AddTransaction(simulator.NewTransaction{Description: "Baseline", AmountBaseUnits: -1234})
		start := time.Now()
		tx, err := m.Bank.Transaction(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Store.UpsertTransactions(ctx, []bank.Transaction{tx}); err != nil {
			b.Fatal(err)
		}
		baseline = append(baseline, time.Since(start))
	}
	tick.Stop()

	register(b, env, m)
	tick = time.NewTicker(eventInterval)
	for i := range n {
		<-tick.C
		rec.emit(func() string {
			return env.sim.AddTransaction(simulator.NewTransaction{Description: fmt.Sprintf("Event %d", i), AmountBaseUnits: -1234})
		})
	}
	tick.Stop()
	select {
	case <-rec.done:
	case <-time.After(time.Minute):
		b.Fatalf("%d of %d events applied after a minute", rec.count(), n)
	}
	b.StopTimer()

	lat, e2e, early := rec.latencies()
	if early > 0 {
		// OnEventsStored runs before Worker.Notify, so this should not
		// happen; such an event would count as 0 ms.
		b.Logf("%d events applied before OnEventsStored recorded them", early)
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(len(lat)), "events")
	b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(lat, 99)), "p99-ms")
	b.ReportMetric(ms(percentile(lat, 100)), "max-ms")
	b.ReportMetric(ms(percentile(e2e, 99)), "e2e-p99-ms")
	b.ReportMetric(ms(percentile(baseline, 50)), "base-p50-ms")
	b.ReportMetric(ms(percentile(baseline, 99)), "base-p99-ms")
}

// visibility records, per event, when the bank emitted it, when it was
// stored and when it was applied.
type visibility struct {
	mu        sync.Mutex
	want      int
	emitted   map[string]time.Time // by transaction id
	storedAt  map[string]time.Time // by event id
	appliedAt map[string]time.Time // by event id
	txOf      map[string]string    // event id -> transaction id
	done      chan struct{}
}

func newVisibility(want int) *visibility {
	return &visibility{want: want, emitted: map[string]time.Time{}, storedAt: map[string]time.Time{},
		appliedAt: map[string]time.Time{}, txOf: map[string]string{}, done: make(chan struct{})}
}

// emit records the time just before add makes a transaction (and its event).
func (v *visibility) emit(add func() string) {
	at := time.Now()
	id := add()
	v.mu.Lock()
	v.emitted[id] = at
	v.mu.Unlock()
}

func (v *visibility) stored(ids []string) {
	now := time.Now()
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, id := range ids {
		v.storedAt[id] = now
	}
}

func (v *visibility) applied(eventID, txID string) {
	now := time.Now()
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.appliedAt[eventID]; ok {
		return
	}
	v.appliedAt[eventID] = now
	v.txOf[eventID] = txID
	if len(v.appliedAt) == v.want {
		close(v.done)
	}
}

func (v *visibility) count() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.appliedAt)
}

// latencies returns stored->applied and emitted->applied for every applied
// event, and how many were applied before their stored time was recorded.
func (v *visibility) latencies() (lat, e2e []time.Duration, early int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for id, applied := range v.appliedAt {
		stored, ok := v.storedAt[id]
		d := applied.Sub(stored)
		if !ok || d < 0 {
			early++
			d = 0
		}
		lat = append(lat, d)
		if at, ok := v.emitted[v.txOf[id]]; ok {
			e2e = append(e2e, applied.Sub(at))
		}
	}
	return lat, e2e, early
}

// percentile is the nearest-rank p-th percentile (p in (0, 100]).
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(rank, 0), len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
