package replica

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/store"
)

// The ETA of a newest-first listing follows the dates it has covered.
func TestETAFollowsTheDatesCovered(t *testing.T) {
	top := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	e := etaEstimator{top: top, floor: top.AddDate(0, 0, -100)}
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	day := func(n int) string { return top.AddDate(0, 0, -n).Format(time.RFC3339) }
	if f, eta := e.update(t0, day(10)); f != 0.1 || eta != 0 {
		t.Errorf("first page: covered %v, eta %v; want 0.1 and no ETA yet", f, eta)
	}
	// 20 more days in 10 s: 70 days left take 35 s.
	if f, eta := e.update(t0.Add(10*time.Second), day(30)); f != 0.3 || eta != 35*time.Second {
		t.Errorf("covered %v, eta %v; want 0.3 and 35s", f, eta)
	}
	if f, eta := (&etaEstimator{top: top}).update(t0, day(1)); f != -1 || eta != 0 {
		t.Errorf("without a floor: %v %v, want unknown", f, eta)
	}
}

// The context of work in progress outlives a stop by the grace, and no
// more: then it ends, as it does when its cancel is called.
func TestAfterStopEndsGraceAfterItsParent(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	after, cancel := afterStop(ctx, time.Hour)
	stop()
	if err := after.Err(); err != nil {
		t.Fatalf("ended with its parent: %v; want it to outlive it by the grace", err)
	}
	cancel()
	if after.Err() == nil {
		t.Fatal("cancel did not end it")
	}

	ctx, stop = context.WithCancel(context.Background())
	after, cancel = afterStop(ctx, time.Millisecond)
	defer cancel()
	if after.Err() != nil {
		t.Fatal("ended before its parent")
	}
	stop()
	select {
	case <-after.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("still running long after the grace")
	}
}

// hangingPages is a bank whose listing answers its first page and then
// nothing: a request for a later page ends only with its context.
type hangingPages struct {
	Bank  // nil: consume asks for pages only
	asked chan struct{}
	ended chan struct{}
	pages atomic.Int32
}

func (b *hangingPages) TransactionsPage(ctx context.Context, _ string) (bank.Page[bank.Transaction], error) {
	if b.pages.Add(1) == 1 {
		return bank.Page[bank.Transaction]{Data: []bank.Transaction{{ID: "t1"}}, Next: "page-2"}, nil
	}
	close(b.asked)
	<-ctx.Done()
	close(b.ended)
	return bank.Page[bank.Transaction]{}, ctx.Err()
}

// consume returns only once its page fetcher has stopped: no request of a
// listing outlives it, nor the sync lock its caller holds.
func TestConsumeWaitsForItsPageFetcher(t *testing.T) {
	b := &hangingPages{asked: make(chan struct{}), ended: make(chan struct{})}
	s := New(b, nil, zerolog.Nop(), Options{})
	// Writing page 1 fails while page 2 is being fetched.
	write := func(bank.Page[bank.Transaction]) (store.UpsertResult, error) {
		<-b.asked
		return store.UpsertResult{}, errors.New("disk full")
	}
	if err := s.consume(context.Background(), KindFull, "page-1", time.Time{}, &Result{}, write); err == nil {
		t.Fatal("consume ignored the write's failure")
	}
	select {
	case <-b.ended:
	default:
		t.Error("consume returned while its fetcher's request was in flight")
	}
}
