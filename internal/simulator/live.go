package simulator

import (
	"context"
	"time"
)

// LiveStep makes one change of the kind a customer's bank sees over time,
// chosen with the bank's rng (so a seed replays the same changes): a new
// purchase (mostly held), the settlement of a held transaction (now and
// then as DELETED+CREATED), a refund, or a hold deleted (a returned
// deposit), each with its events. It returns what it did, e.g.
// "settle 3f2a...".
func (b *Bank) LiveStep() string {
	b.mu.Lock()
	r := b.rng.IntN(100)
	refund := 500 + b.rng.Int64N(5000)
	var held []string
	for _, t := range b.txs {
		if t.Status == "HELD" {
			held = append(held, t.ID)
		}
	}
	var pick string
	if len(held) > 0 {
		pick = held[b.rng.IntN(len(held))]
	}
	b.mu.Unlock()

	switch {
	case r < 30 && pick != "":
		if b.Settle(pick) == nil {
			return "settle " + pick
		}
	case r < 35 && pick != "":
		if id, err := b.SettleAsReplacement(pick); err == nil {
			return "settle " + pick + " as " + id
		}
	case r < 42 && pick != "":
		if b.Delete(pick) == nil {
			return "delete " + pick
		}
	case r < 50:
		id := b.AddTransaction(NewTransaction{AmountBaseUnits: refund, Description: "Refund", TransactionType: ptr("Refund")})
		return "refund " + id
	}
	id := b.AddTransaction(NewTransaction{Held: r%4 != 0})
	return "purchase " + id
}

// RunLive calls LiveStep every interval until ctx is done.
func (b *Bank) RunLive(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			b.LiveStep()
		}
	}
}
