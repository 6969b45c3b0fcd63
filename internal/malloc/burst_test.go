package malloc

import (
	"runtime/debug"
	"testing"
)

// A burst raises GOGC to BurstGCPercent and puts it back after; a GOGC
// already higher, or off, is left alone.
func TestBurstRaisesGOGCUntilItEnds(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	var b Burst
	b.Begin()
	b.Begin()
	if got := debug.SetGCPercent(BurstGCPercent); got != BurstGCPercent {
		t.Fatalf("GOGC during a burst = %d, want %d", got, BurstGCPercent)
	}
	b.End()
	b.End()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC after the burst = %d, want 100", got)
	}
	for _, gogc := range []int{-1, 500} {
		debug.SetGCPercent(gogc)
		b.Begin()
		if got := debug.SetGCPercent(gogc); got != gogc {
			t.Errorf("GOGC %d during a burst = %d, want it left alone", gogc, got)
		}
		b.End()
		if got := debug.SetGCPercent(gogc); got != gogc {
			t.Errorf("GOGC %d after a burst = %d, want it left alone", gogc, got)
		}
	}
}
