package daemon_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// The daemon, run as serve runs it on :0 against the simulated bank,
// mirrors every transaction at start, and its staged stop leaves a last
// report saying it stopped (so that status does not take it for running).
func TestDaemonMirrorsAndStopsWithALastReport(t *testing.T) {
	sim := simulator.New(simulator.Options{Seed: 3, Transactions: 120, Token: "tok"})
	t.Cleanup(sim.Close)
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	db := filepath.Join(t.TempDir(), "mirror.db")
	cfg, err := config.Load(map[string]string{
		"BANKMIRROR_API_URL": srv.URL + "/api/v1", "BANKMIRROR_TOKEN": sim.Token(), "BANKMIRROR_DB": db,
		"BANKMIRROR_LISTEN": "127.0.0.1:0", "BANKMIRROR_ADMIN_LISTEN": "off", "BANKMIRROR_REQUESTS_PER_HOUR": "0",
		"BANKMIRROR_SYNC_SCHEDULE": "@every 1000h", "BANKMIRROR_RECONCILE_SCHEDULE": "@every 1000h",
	})
	if err != nil {
		t.Fatal(err)
	}
	d := daemon.New(cfg, zerolog.Nop())
	if err := d.Open(t.Context()); err != nil {
		_ = d.Close()
		t.Fatal(err)
	}
	select {
	case <-d.InitialSyncDone:
	case <-time.After(time.Minute):
		_ = d.Close()
		t.Fatal("the start-up sync did not end within a minute")
	}
	var n int
	if err := d.Store.Reader().QueryRowContext(t.Context(), "SELECT count(*) FROM transactions").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 120 {
		t.Errorf("mirrored %d transactions, want 120", n)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var r health.Report
	if _, ok, err := st.GetState(context.Background(), health.ReportKey, &r); err != nil || !ok || !r.Stopped {
		t.Errorf("last report %+v (found %v, %v), want one saying the daemon stopped", r, ok, err)
	}
}
