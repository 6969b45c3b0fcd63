package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// A stuck event is listed by `events stuck`, requeued by `events retry`
// (with fresh attempts), and no longer counts as stuck.
func TestCLIEventsRetry(t *testing.T) {
	db := filepath.Join(t.TempDir(), "mirror.db")
	env := map[string]string{"BANKMIRROR_DB": db, "BANKMIRROR_EVENT_MAX_ATTEMPTS": "2", "BANKMIRROR_LOG_FORMAT": "json"}
	st, err := store.Open(context.Background(), db)
	must(t, err)
	ctx := context.Background()
	_, err = st.InsertEvents(ctx, []store.InboxEvent{
		{ID: "ev-stuck", EventType: bank.EventTransactionCreated, WebhookID: "w", TransactionID: "tx-1", CreatedAt: "2026-01-01T10:00:00+11:00", Body: "{}"},
		{ID: "ev-fine", EventType: bank.EventTransactionCreated, WebhookID: "w", TransactionID: "tx-2", CreatedAt: "2026-01-01T10:00:00+11:00", Body: "{}"},
	})
	must(t, err)
	cause := errors.New("decode transaction: missing id")
	for range 2 {
		must(t, st.FailEvents(ctx, []string{"ev-stuck"}, cause, time.Now()))
	}
	must(t, st.Close())

	r := runCLI(t, env, "events", "stuck")
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "ev-stuck") || strings.Contains(r.stdout, "ev-fine") || !strings.Contains(r.stdout, "1 stuck") {
		t.Errorf("events stuck:\n%s", r)
	}
	wantCode(t, runCLI(t, env, "events", "retry", "ev-fine"), 1) // not stuck: nothing to requeue
	r = runCLI(t, env, "events", "retry")
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "requeued 1 ") {
		t.Errorf("events retry:\n%s", r)
	}
	r = runCLI(t, env, "events", "stuck")
	if !strings.Contains(r.stdout, "0 stuck") {
		t.Errorf("after retry:\n%s", r)
	}
	wantCode(t, runCLI(t, env, "events"), 2)
	wantCode(t, runCLI(t, env, "events", "frob"), 2)
}

// status shows what the daemon reported: the bank's budget and a wait for
// it, a paused worker, a sync in progress with its ETA.
func TestCLIStatusShowsTheDaemonReport(t *testing.T) {
	db := filepath.Join(t.TempDir(), "mirror.db")
	env := map[string]string{"BANKMIRROR_DB": db, "BANKMIRROR_LOG_FORMAT": "json"}
	st, err := store.Open(context.Background(), db)
	must(t, err)
	must(t, st.Close())
	// Never synced: FAILING (exit 2) whatever else.
	r := runCLI(t, env, "status")
	wantCode(t, r, 2)
	if !strings.HasPrefix(r.stdout, "FAILING: sync: no successful sync yet") || !strings.Contains(r.stdout, "daemon: no report") {
		t.Errorf("status without a daemon:\n%s", r)
	}

	st, err = store.Open(context.Background(), db)
	must(t, err)
	must(t, st.PutState(context.Background(), health.ReportKey, health.Report{PID: 42,
		Budget: bank.BudgetState{Known: true, Remaining: 50, Reserve: 50, Waiting: true, WaitUntil: time.Now().Add(time.Hour),
			WaitReason: "keeping the reserve for webhook refetches"},
		Worker: replica.WorkerState{Paused: true, PausedUntil: time.Now().Add(time.Minute), PauseCause: "bank api: status 503"},
		Sync:   &replica.Progress{Kind: "full", Pages: 9, Transactions: 900, Covered: 0.25, ETA: 3 * time.Minute},
	}))
	must(t, st.Close())
	// The first sync is running: DEGRADED (exit 1), with the details.
	r = runCLI(t, env, "status")
	wantCode(t, r, 1)
	for _, want := range []string{"DEGRADED: sync: no successful sync yet; a full sync is running", "pid 42", "bank budget: WAITING until", "keeping the reserve", "(50 requests left)",
		"webhook worker: PAUSED", "status 503", "sync in progress: full, 9 pages, 900 transactions, 25% of the date range, about 3m0s left"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r)
		}
	}
}

// serve syncs at start: a mirror that already completed a full sync gets
// an incremental one right after a restart, catching what changed while
// the daemon was down.
func TestServeSyncsAtStart(t *testing.T) {
	b := newBank(t, 100)
	cfg := testConfig(t, b)
	m := daemon.New(cfg, zerolog.Nop())
	must(t, m.Open(context.Background()))
	<-m.InitialSyncDone
	must(t, m.Close())
	id := b.sim.AddTransaction(simulator.NewTransaction{Description: "While the daemon was down", AmountBaseUnits: -700})

	m2, _ := startMain(t, cfg)
	kinds := mirrortest.Strings(t, m2.Store.Reader(), "SELECT kind FROM sync_runs WHERE status = 'ok' ORDER BY id")
	if len(kinds) != 2 || kinds[0] != "full" || kinds[1] != "incremental" {
		t.Errorf("sync runs %v, want full then incremental", kinds)
	}
	if n := mirrortest.Int(t, m2.Store.Reader(), "SELECT count(*) FROM transactions WHERE id = ?", id); n != 1 {
		t.Error("the transaction made while the daemon was down is not mirrored after the restart")
	}
}
