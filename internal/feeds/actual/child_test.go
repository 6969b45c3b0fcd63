package actual

import (
	"context"
	"errors"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds/actual/actualtest"
)

// A child holds its feed directory's lock for its life: a second child
// on the directory waits for the first to end (here the wait is cut short
// at once), so that one left over from a bankmirror that was killed never
// shares the budget's local copy with the next; once the first has ended
// the second starts.
func TestChildWaitsForTheOneHoldingItsDirectory(t *testing.T) {
	node := actualtest.Node(actualtest.Dir(t))
	dir := t.TempDir()
	first, _, err := startChild(testCtx(t), node, dir, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.kill() })
	// With a context already ended, lockDir tries the lock once.
	cut, cancel := context.WithCancel(testCtx(t))
	cancel()
	if f, err := lockDir(cut, dir); !errors.Is(err, context.Canceled) {
		if f != nil {
			_ = f.Close()
		}
		t.Fatalf("the directory's lock was free beside the first child: %v", err)
	}
	if err := first.kill(); err != nil {
		t.Fatal(err)
	}
	second, _, err := startChild(testCtx(t), node, dir, zerolog.Nop())
	if err != nil {
		t.Fatalf("after the first ended: %v", err)
	}
	if err := second.kill(); err != nil {
		t.Fatal(err)
	}
}
