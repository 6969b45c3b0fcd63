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

// An event on its own does not make the worker yield; a burst (deliveries
// less than burstGap apart) does, for at most Yield, and until burstQuiet
// passes without one; the next burst gets a Yield of its own.
func TestWorkerYieldsToABurstForAtMostYield(t *testing.T) {
	t0 := time.Now()
	w := &Worker{opts: WorkerOptions{Yield: time.Second}}
	deliver := func(at time.Time) {
		// Notify with the time it is called at.
		now := at.UnixNano()
		if prev := w.notified.Swap(now); now-prev < int64(burstGap) {
			w.burst.Store(now)
		}
	}
	deliver(t0)
	if d := w.yieldFor(t0.Add(time.Millisecond)); d != 0 {
		t.Fatalf("one delivery: yields %v, want 0", d)
	}
	for at := t0.Add(100 * time.Millisecond); at.Before(t0.Add(1100 * time.Millisecond)); at = at.Add(10 * time.Millisecond) {
		deliver(at)
		if d := w.yieldFor(at.Add(time.Millisecond)); at.After(t0.Add(110*time.Millisecond)) && d != yieldPoll {
			t.Fatalf("%v into the burst: yields %v, want %v", at.Sub(t0), d, yieldPoll)
		}
	}
	// It began to yield at 111 ms.
	deliver(t0.Add(1110 * time.Millisecond))
	if d := w.yieldFor(t0.Add(1112 * time.Millisecond)); d != 0 {
		t.Fatalf("after a second of burst: yields %v, want 0", d)
	}
	if d := w.yieldFor(t0.Add(1110*time.Millisecond + burstQuiet)); d != 0 {
		t.Fatalf("burst over: yields %v, want 0", d)
	}
	deliver(t0.Add(2 * time.Second))
	deliver(t0.Add(2*time.Second + time.Millisecond))
	if d := w.yieldFor(t0.Add(2*time.Second + 2*time.Millisecond)); d != yieldPoll {
		t.Fatalf("a new burst: yields %v, want %v", d, yieldPoll)
	}
	if d := w.yieldFor(t0.Add(2*time.Second + 50*time.Millisecond)); d != yieldPoll {
		t.Fatalf("50 ms after the new burst's last pair: yields %v, want %v", d, yieldPoll)
	}
}
