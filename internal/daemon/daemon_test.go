package daemon_test

import (
	"context"
	"net/http/httptest"
	"os"
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

// serve --no-feeds (NoFeeds) leaves the feeds to `bankmirror feeds serve`:
// it starts whatever the feeds file says (here a feed whose token file is
// missing, which would stop a daemon that reads it), and the feeds' state
// in the mirror, their places in the history above all, stays as the
// other process left it.
func TestNoFeedsLeavesTheFeedsStateAlone(t *testing.T) {
	sim := simulator.New(simulator.Options{Seed: 3, Transactions: 20, Token: "tok"})
	t.Cleanup(sim.Close)
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	db := filepath.Join(dir, "mirror.db")
	st, err := store.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RecordFeedRound(t.Context(), store.FeedRound{Feed: "ynab", Cursor: 42}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	feedsFile := filepath.Join(dir, "feeds.toml")
	if err := os.WriteFile(feedsFile, []byte("[[feed]]\nname = \"ynab\"\nkind = \"ynab\"\ntoken_file = \"missing\"\nbudget = \"Plan\"\n[feed.accounts]\n\"Spending\" = \"Checking\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	environ := map[string]string{
		"BANKMIRROR_API_URL": srv.URL + "/api/v1", "BANKMIRROR_TOKEN": sim.Token(), "BANKMIRROR_DB": db,
		"BANKMIRROR_LISTEN": "127.0.0.1:0", "BANKMIRROR_ADMIN_LISTEN": "off", "BANKMIRROR_REQUESTS_PER_HOUR": "0",
		"BANKMIRROR_SYNC_SCHEDULE": "@every 1000h", "BANKMIRROR_RECONCILE_SCHEDULE": "@every 1000h",
		"BANKMIRROR_FEEDS_FILE": feedsFile,
	}
	cfg, err := config.Load(environ)
	if err != nil {
		t.Fatal(err)
	}
	d := daemon.New(cfg, zerolog.Nop())
	d.Environ = environ
	d.NoFeeds = true
	if err := d.Open(t.Context()); err != nil {
		_ = d.Close()
		t.Fatal(err)
	}
	<-d.InitialSyncDone
	if err := d.Reload(); err != nil {
		t.Errorf("reload: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := store.OpenReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	list, err := ro.FeedStatuses(context.Background(), []string{"ynab"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Cursor != 42 || list[0].LastPushAt == "" {
		t.Errorf("the feed's state after serve --no-feeds: %+v, want its cursor 42 and its last push kept", list)
	}
}
