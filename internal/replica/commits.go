package replica

import (
	"context"
	"maps"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/store"
)

// The worker's commits are small. The receiver's group commit, which a
// webhook's acknowledgement waits for, shares the database's one writer
// with them and waits behind one in progress, however long: a round's
// whole batch in one commit held it long enough to show in the
// acknowledgements (docs/performance.md, "The worker's commits", has the
// figures). A round's batch is therefore applied in parts of a few
// transactions, each with the events about them, sized so that a commit
// holds the lock about commitTarget (store.BatchResult.Held, its fsync
// aside); between two parts a receiver commit that waits goes first
// (store.ApplyEvents gives the writer back, unbegun, while an insert is
// queued for it).
//
// An event is committed with its transaction's new state or after it, never
// before: a stop or a crash between two parts leaves the later parts' events
// pending, and applying them again makes the mirror the bank's copy again
// (the events carry no state of their own).
const (
	commitTarget = 2 * time.Millisecond
	// minCommit and maxCommit bound a part's transactions and events.
	minCommit, maxCommit = 8, 512
	// firstCommit is the size of the worker's first part.
	firstCommit = 64
)

// nextCommitSize is the size of the next part after one of n took took.
func nextCommitSize(n int, took time.Duration) int {
	switch {
	case took > commitTarget:
		return max(n/2, minCommit)
	case took < commitTarget/2:
		return min(2*n, maxCommit)
	}
	return n
}

// commit applies b, whose events are among evs, in parts (see above),
// calling applied after each commit with the events it marked processed,
// what the commit changed, and every change so far (per transaction). It
// stops at the first failure.
func (w *Worker) commit(ctx context.Context, b store.EventBatch, evs []store.InboxEvent,
	applied func(events []store.InboxEvent, out store.BatchResult, changes map[string]store.Change)) error {
	parts := splitBatch(b, evs)
	changes := map[string]store.Change{}
	var done []store.InboxEvent
	for !parts.done() {
		n := w.commitSize
		if n == 0 {
			n = firstCommit
		}
		part := parts.next(n)
		out, err := w.inbox.ApplyEvents(ctx, part)
		if err != nil {
			return err
		}
		w.commitSize = nextCommitSize(n, out.Held)
		maps.Copy(changes, out.Changes)
		done = done[:0]
		for _, id := range part.Events {
			done = append(done, parts.events[id])
		}
		applied(done, out, changes)
	}
	return nil
}

// batchParts is a batch being cut into parts: each transaction with the
// events about it, in order, then the events about none of them.
type batchParts struct {
	txs    []partTx
	queue  []string                    // events whose transaction is in a part already cut
	other  []string                    // events about no transaction of the batch
	events map[string]store.InboxEvent // the batch's events by id
}

// partTx is a transaction to upsert (upsert set) or delete, and its events.
type partTx struct {
	upsert *bank.Transaction
	del    string
	events []string
}

// splitBatch prepares b, whose events are among evs, to be cut by next.
func splitBatch(b store.EventBatch, evs []store.InboxEvent) *batchParts {
	p := &batchParts{txs: make([]partTx, 0, len(b.Upserts)+len(b.Deletes)), events: make(map[string]store.InboxEvent, len(evs))}
	for _, e := range evs {
		p.events[e.ID] = e
	}
	index := make(map[string]int, cap(p.txs)) // transaction id -> its place in txs
	for i := range b.Upserts {
		index[b.Upserts[i].ID] = len(p.txs)
		p.txs = append(p.txs, partTx{upsert: &b.Upserts[i]})
	}
	for _, id := range b.Deletes {
		index[id] = len(p.txs)
		p.txs = append(p.txs, partTx{del: id})
	}
	for _, id := range b.Events {
		if i, ok := index[p.events[id].TransactionID]; ok {
			p.txs[i].events = append(p.txs[i].events, id)
		} else {
			p.other = append(p.other, id)
		}
	}
	return p
}

func (p *batchParts) done() bool { return len(p.txs) == 0 && len(p.queue) == 0 && len(p.other) == 0 }

// next cuts the next part: at most n transactions and n events, the events
// only of transactions in this part or an earlier one.
func (p *batchParts) next(n int) store.EventBatch {
	var part store.EventBatch
	for len(p.txs) > 0 && len(part.Upserts)+len(part.Deletes) < n && len(p.queue) < n {
		t := p.txs[0]
		p.txs = p.txs[1:]
		if t.upsert != nil {
			part.Upserts = append(part.Upserts, *t.upsert)
		} else {
			part.Deletes = append(part.Deletes, t.del)
		}
		p.queue = append(p.queue, t.events...)
	}
	if len(p.txs) == 0 {
		p.queue = append(p.queue, p.other...)
		p.other = nil
	}
	k := min(n, len(p.queue))
	part.Events = p.queue[:k:k]
	p.queue = p.queue[k:]
	return part
}
