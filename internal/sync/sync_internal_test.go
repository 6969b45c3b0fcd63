package sync

import (
	"testing"
	"time"
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
