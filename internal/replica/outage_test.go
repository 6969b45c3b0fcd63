package replica_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
)

// Syncs that fail because the bank is down are recorded as an outage,
// since the first of them; a failure of another cause changes nothing, and
// the next successful sync clears it.
func TestOutageRecordedUntilASyncSucceeds(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, 50)
	e.full(t)
	outage := func() replica.Outage {
		t.Helper()
		var o replica.Outage
		if _, _, err := e.store.GetState(ctx, replica.OutageKey, &o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	if o := outage(); o.Syncs != 0 {
		t.Fatalf("outage after a good sync: %+v", o)
	}

	// The bank stopped: nothing listens where it was.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := ln.Addr().String()
	must(t, ln.Close())
	down := replica.New(bank.New("http://"+addr+"/api/v1", e.sim.Token(), bank.WithHourlyBudget(0),
		bank.WithBackoff(time.Millisecond, 4*time.Millisecond), bank.WithMaxAttempts(2)), e.store, zerolog.Nop(), replica.Options{})
	before := time.Now().UTC()
	for range 2 {
		if _, err := down.Incremental(ctx); !bank.Outage(err) {
			t.Fatalf("sync against a stopped bank: %v", err)
		}
	}
	o := outage()
	if o.Syncs != 2 || o.Since.Before(before.Truncate(time.Second)) || o.LastAt.Before(o.Since) ||
		!strings.Contains(o.LastError, "connection refused") || strings.Contains(o.LastError, "incremental sync") {
		t.Errorf("outage = %+v, want 2 syncs since %v", o, before)
	}

	// A run that ends for another cause (cancelled) leaves it as it is.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := down.Incremental(cancelled); err == nil {
		t.Fatal("a cancelled sync succeeded")
	}
	if got := outage(); got.Syncs != 2 || !got.Since.Equal(o.Since) {
		t.Errorf("after a cancelled sync: %+v, want %+v", got, o)
	}

	e.incremental(t)
	if got := outage(); got.Syncs != 0 {
		t.Errorf("after a good sync: %+v", got)
	}
}
