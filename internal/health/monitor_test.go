package health

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bmsync "github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// countingStore is a real store that counts its write probes and can be
// made to fail them.
type countingStore struct {
	*store.Store
	probes atomic.Int64
	fail   atomic.Bool
}

func (c *countingStore) ProbeWrite(ctx context.Context) error {
	c.probes.Add(1)
	if c.fail.Load() {
		return errors.New("disk I/O error")
	}
	return c.Store.ProbeWrite(ctx)
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Requests in the same instant share one write probe; one that comes
// ProbeMaxAge later probes again, and a failure is seen by the next probe.
func TestCheckSharesAProbeWithinMaxAge(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	cs := &countingStore{Store: st}
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	m := NewMonitor(MonitorConfig{Store: cs, Rules: Rules{StaleAfter: time.Hour}, Now: clk.now})

	const n = 50
	var wg sync.WaitGroup
	snaps := make([]Snapshot, n)
	for i := range n {
		wg.Go(func() { snaps[i] = m.Check(t.Context()) })
	}
	wg.Wait()
	if got := cs.probes.Load(); got != 1 {
		t.Fatalf("%d concurrent checks ran %d write probes, want 1", n, got)
	}
	for i, s := range snaps {
		if !s.Facts.Probed || s.Facts.ProbeErr != nil || s.Checks[0].Name != CheckDatabase || s.Checks[0].Level != OK {
			t.Fatalf("check %d: %+v", i, s.Facts)
		}
	}

	// Still within ProbeMaxAge: no new probe, even though it would fail.
	cs.fail.Store(true)
	clk.advance(DefaultProbeMaxAge / 2)
	if s := m.Check(t.Context()); s.Facts.ProbeErr != nil || cs.probes.Load() != 1 {
		t.Fatalf("a check within ProbeMaxAge: probes %d, error %v", cs.probes.Load(), s.Facts.ProbeErr)
	}
	// Older than that: the next check probes again and sees the failure,
	// and so do the checks that share it.
	clk.advance(DefaultProbeMaxAge)
	for range 3 {
		if s := m.Check(t.Context()); s.Facts.ProbeErr == nil || s.Ready {
			t.Fatalf("a check after ProbeMaxAge did not see the failing probe: %+v", s.Facts)
		}
	}
	if got := cs.probes.Load(); got != 2 {
		t.Errorf("%d write probes, want 2", got)
	}
	// Current never probes.
	if s := m.Current(t.Context()); s.Facts.ProbeErr == nil || cs.probes.Load() != 2 {
		t.Errorf("Current: probes %d, error %v", cs.probes.Load(), s.Facts.ProbeErr)
	}
}

// The daemon's checks (/readyz, the status line) show the outage the syncs
// recorded: DEGRADED, listed, but not a readiness failure.
func TestMonitorShowsTheBankOutage(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	m := NewMonitor(MonitorConfig{Store: st, Rules: Rules{StaleAfter: time.Hour}, Now: func() time.Time { return now }})
	o := bmsync.Outage{Since: now.Add(-10 * time.Minute), Syncs: 1, LastError: "lookup bank.example: no such host", LastAt: now}
	if err := st.PutState(t.Context(), bmsync.OutageKey, o); err != nil {
		t.Fatal(err)
	}
	s := m.Check(t.Context())
	var bank *Check
	for i, c := range s.Checks {
		if c.Name == CheckBank {
			bank = &s.Checks[i]
		}
	}
	if bank == nil || bank.Level != Degraded || bank.Readiness || !strings.Contains(bank.Detail, "no such host") || s.Facts.BankOutage != o {
		t.Fatalf("checks %+v, outage %+v", s.Checks, s.Facts.BankOutage)
	}
}
