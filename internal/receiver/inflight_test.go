package receiver

import (
	"context"
	"net/http"
	"testing"

	"github.com/bankmirror/bankmirror/internal/store"
)

// Beyond MaxInFlight deliveries at once, a delivery is answered 503 at once
// (the bank retries it) and nothing is stored for it.
func TestDeliveriesBeyondTheLimitAreRetried(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	fake := &fakeInbox{InsertEventsFn: func(ctx context.Context, evs []store.InboxEvent) ([]string, error) {
		entered <- struct{}{}
		<-release
		return idsOf(evs), nil
	}}
	r := mustStart(t, fake, Config{MaxInFlight: 1})
	h := r.Handler()
	first := eventBody("ev-1", "PING", "")
	done := make(chan int)
	go func() { done <- post(h, first, sign(first, secretA)).Code }()
	<-entered // the first delivery holds the only slot, waiting on its commit

	second := eventBody("ev-2", "PING", "")
	if code := post(h, second, sign(second, secretA)).Code; code != http.StatusServiceUnavailable {
		t.Fatalf("second delivery: %d, want 503", code)
	}
	close(release)
	if code := <-done; code != http.StatusOK {
		t.Fatalf("first delivery: %d, want 200", code)
	}
	// The slot is free again.
	third := eventBody("ev-3", "PING", "")
	go func() { <-entered }()
	if code := post(h, third, sign(third, secretA)).Code; code != http.StatusOK {
		t.Fatalf("third delivery: %d, want 200", code)
	}
}
