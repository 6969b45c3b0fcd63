package replica

import (
	"fmt"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/store"
)

// A batch is cut into parts of at most n transactions and n events, every
// event in the part of its transaction or a later one, every transaction
// and event exactly once, the events about none last.
func TestBatchPartsKeepEachEventWithOrAfterItsTransaction(t *testing.T) {
	var b store.EventBatch
	var evs []store.InboxEvent
	event := func(id, tx string) {
		evs = append(evs, store.InboxEvent{ID: id, TransactionID: tx})
		b.Events = append(b.Events, id)
	}
	for i := range 7 {
		b.Upserts = append(b.Upserts, bank.Transaction{ID: fmt.Sprintf("t%d", i)})
	}
	b.Deletes = []string{"gone"}
	for i := range 7 {
		event(fmt.Sprintf("e%d", i), fmt.Sprintf("t%d", i))
	}
	for i := range 9 { // one transaction with many events
		event(fmt.Sprintf("many%d", i), "t3")
	}
	event("ping", "")
	event("del", "gone")
	event("e0-again", "t0")

	for _, n := range []int{1, 2, 3, 8, 64} {
		p := splitBatch(b, evs)
		committed := map[string]bool{} // transactions in this part or an earlier one
		seen := map[string]int{}
		var order []string
		for parts := 0; !p.done(); parts++ {
			if parts > 100 {
				t.Fatalf("n=%d: no end to the parts", n)
			}
			part := p.next(n)
			if k := len(part.Upserts) + len(part.Deletes); k > n || len(part.Events) > n || k+len(part.Events) == 0 {
				t.Fatalf("n=%d: a part of %d transactions and %d events", n, k, len(part.Events))
			}
			for _, u := range part.Upserts {
				committed[u.ID] = true
				seen[u.ID]++
			}
			for _, d := range part.Deletes {
				committed[d] = true
				seen[d]++
			}
			for _, id := range part.Events {
				seen[id]++
				order = append(order, id)
				for _, e := range evs {
					if e.ID == id && e.TransactionID != "" && !committed[e.TransactionID] {
						t.Errorf("n=%d: event %s committed before its transaction %s", n, id, e.TransactionID)
					}
				}
			}
		}
		if len(seen) != 8+len(evs) {
			t.Errorf("n=%d: %d transactions and events committed, want %d", n, len(seen), 8+len(evs))
		}
		for id, k := range seen {
			if k != 1 {
				t.Errorf("n=%d: %s committed %d times", n, id, k)
			}
		}
		if last := order[len(order)-1]; last != "ping" {
			t.Errorf("n=%d: last event %s, want the one about no transaction", n, last)
		}
	}
}

// Parts shrink when a commit takes longer than the target and grow when it
// takes less than half of it, within their bounds.
func TestCommitSizeFollowsTheTimeACommitTakes(t *testing.T) {
	for _, c := range []struct {
		n    int
		took time.Duration
		want int
	}{
		{64, 10 * commitTarget, 32},
		{minCommit, 10 * commitTarget, minCommit},
		{64, commitTarget / 4, 128},
		{maxCommit, 0, maxCommit},
		{64, commitTarget * 3 / 4, 64},
	} {
		if got := nextCommitSize(c.n, c.took); got != c.want {
			t.Errorf("nextCommitSize(%d, %v) = %d, want %d", c.n, c.took, got, c.want)
		}
	}
}

// While deliveries arrive the worker yields, for at most Yield; once they
// pause it runs, and the next burst gets a Yield of its own.
func TestWorkerYieldsToABurstForAtMostYield(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	w := &Worker{opts: WorkerOptions{Yield: time.Second}}
	if d := w.yieldFor(t0); d != 0 {
		t.Fatalf("no delivery yet: yields %v", d)
	}
	deliver := func(at time.Time) { w.notified.Store(at.UnixNano()) }
	for at := t0; at.Before(t0.Add(time.Second)); at = at.Add(100 * time.Millisecond) {
		deliver(at)
		if d := w.yieldFor(at.Add(time.Millisecond)); d != yieldQuiet {
			t.Fatalf("%v into the burst: yields %v, want %v", at.Sub(t0), d, yieldQuiet)
		}
	}
	deliver(t0.Add(time.Second))
	if d := w.yieldFor(t0.Add(time.Second + time.Millisecond)); d != 0 {
		t.Fatalf("after a second of burst: yields %v, want 0", d)
	}
	if d := w.yieldFor(t0.Add(time.Second + yieldQuiet)); d != 0 {
		t.Fatalf("deliveries paused: yields %v, want 0", d)
	}
	deliver(t0.Add(2 * time.Second))
	if d := w.yieldFor(t0.Add(2*time.Second + time.Millisecond)); d != yieldQuiet {
		t.Fatalf("a new burst: yields %v, want %v", d, yieldQuiet)
	}
}
