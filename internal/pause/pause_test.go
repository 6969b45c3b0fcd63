package pause_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/pause"
)

func TestForEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- pause.For(ctx, time.Hour) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("For on a cancelled context: %v, want context.Canceled", err)
	}
	if err := pause.For(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("For(0) on an ended context: %v", err)
	}
}

func TestForWaits(t *testing.T) {
	if err := pause.For(context.Background(), time.Nanosecond); err != nil {
		t.Fatalf("For(1ns): %v", err)
	}
	if err := pause.For(context.Background(), -time.Second); err != nil {
		t.Fatalf("For(-1s): %v", err)
	}
}
