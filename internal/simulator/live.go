package simulator

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"
)

// LiveStep makes one change of the kind a customer's bank sees over time,
// chosen with the bank's rng (so a seed replays the same changes): a new
// purchase (mostly held), the settlement of a held transaction (now and
// then as DELETED+CREATED), a refund, or a hold deleted (a returned
// deposit), each with its events. In a household the purchase is made by
// one of the people, on their Spending account or (one in three) the
// joint account, and now and then one pays another (an Up-to-Up payment).
// It returns what it did, e.g. "settle 3f2a...".
func (b *Bank) LiveStep() string {
	b.mu.Lock()
	r := b.rng.IntN(100)
	refund := 500 + b.rng.Int64N(5000)
	held := slices.Sorted(maps.Keys(b.held)) // sorted: the same seed picks the same
	var pick string
	if len(held) > 0 {
		pick = held[b.rng.IntN(len(held))]
	}
	var who, payee *person
	var account string
	var paid int64
	if b.household {
		who = b.people[b.rng.IntN(len(b.people))]
		account = who.own[0]
		if b.rng.IntN(3) == 0 {
			account = b.jointAccount
		}
		if len(b.people) > 1 {
			payee = b.people[(slices.Index(b.people, who)+1+b.rng.IntN(len(b.people)-1))%len(b.people)]
			paid = 500 + b.rng.Int64N(20000)
		}
	}
	b.mu.Unlock()

	if payee != nil && r >= 50 && r < 55 {
		if out, in, err := b.PayPerson(Payment{From: who.name, To: payee.name, AmountBaseUnits: paid, Message: "Thanks!"}); err == nil {
			return "payment " + out + " " + in
		}
	}

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
		nt := NewTransaction{AmountBaseUnits: refund, Description: "Refund", TransactionType: ptr("Refund")}
		if who != nil {
			nt.AccountID = who.own[0]
		}
		id := b.AddTransaction(nt)
		return "refund " + id
	}
	nt := NewTransaction{Held: r%4 != 0}
	if who != nil {
		nt.Person, nt.AccountID = who.name, account
	}
	id := b.AddTransaction(nt)
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

// liveRunner is the background loop of SetLive.
type liveRunner struct {
	mu    sync.Mutex
	every time.Duration
	stop  context.CancelFunc
	done  chan struct{}
}

// SetLive makes LiveStep run every interval in the background, replacing
// any earlier setting; 0 stops it. It returns once the previous loop has
// stopped, so no change happens after SetLive(0) returns.
func (b *Bank) SetLive(every time.Duration) {
	l := &b.live
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stop != nil {
		l.stop()
		<-l.done
		l.stop, l.done = nil, nil
	}
	l.every = max(every, 0)
	if every <= 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	l.stop, l.done = cancel, done
	go func() {
		defer close(done)
		b.RunLive(ctx, every)
	}()
}

// Live is the interval of SetLive, 0 when stopped.
func (b *Bank) Live() time.Duration {
	b.live.mu.Lock()
	defer b.live.mu.Unlock()
	return b.live.every
}
