package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/receipts"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// bankEnv is a simulated bank on loopback.
type bankEnv struct {
	sim    *simulator.Bank
	apiURL string
	client *bank.Client
}

func newBank(t testing.TB, n int) *bankEnv {
	t.Helper()
	return newBankWith(t, simulator.Options{Seed: 3, Transactions: n, Token: "tok",
		WebhookRetryBase: time.Millisecond, WebhookRetryMax: 20 * time.Millisecond, WebhookMaxAttempts: 50})
}

func testConfig(t testing.TB, b *bankEnv) config.Config {
	t.Helper()
	cfg, err := config.Load(map[string]string{
		"BANKMIRROR_API_URL":            b.apiURL,
		"BANKMIRROR_TOKEN":              b.sim.Token(),
		"BANKMIRROR_DB":                 filepath.Join(t.TempDir(), "mirror.db"),
		"BANKMIRROR_LISTEN":             "127.0.0.1:0",
		"BANKMIRROR_ADMIN_LISTEN":       "127.0.0.1:0",
		"BANKMIRROR_REQUESTS_PER_HOUR":  "0",
		"BANKMIRROR_SYNC_SCHEDULE":      "@every 1000h",
		"BANKMIRROR_RECONCILE_SCHEDULE": "@every 1000h",
	})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// startMain runs the daemon in-process on :0 and waits for its start-up
// sync. applied receives every event id the worker applies.
func startMain(t *testing.T, cfg config.Config) (m *daemon.Daemon, applied chan string) {
	t.Helper()
	applied = make(chan string, 10000)
	m = daemon.New(cfg, zerolog.Nop())
	m.OnEventApplied = func(e store.InboxEvent, _ store.Change) { applied <- e.ID }
	if err := m.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	})
	<-m.InitialSyncDone
	return m, applied
}

// register creates a webhook at the bank for the daemon and stores its secret.
func register(t testing.TB, b *bankEnv, m *daemon.Daemon) bank.Webhook {
	t.Helper()
	h, err := b.client.CreateWebhook(context.Background(), m.URL()+m.Config.WebhookPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Store.SaveWebhook(context.Background(), store.Webhook{ID: h.ID, URL: h.URL, SecretKey: h.SecretKey, CreatedAt: h.CreatedAt}); err != nil {
		t.Fatal(err)
	}
	return h
}

// waitApplied waits until every given event id has been applied.
func waitApplied(t *testing.T, applied <-chan string, ids map[string]bool) {
	t.Helper()
	pending := len(ids)
	seen := map[string]bool{}
	timeout := time.After(60 * time.Second)
	for pending > 0 {
		select {
		case id := <-applied:
			if ids[id] && !seen[id] {
				seen[id] = true
				pending--
			}
		case <-timeout:
			t.Fatalf("%d of %d events not applied", pending, len(ids))
		}
	}
}

func deliveredEventIDs(b *bankEnv) map[string]bool {
	ids := map[string]bool{}
	for _, e := range b.sim.Events() {
		if !e.Dropped {
			ids[e.ID] = true
		}
	}
	return ids
}

func TestServeAppliesWebhookEventsExactlyOnce(t *testing.T) {
	b := newBank(t, 300)
	m, applied := startMain(t, testConfig(t, b))
	mirrortest.AssertEqualsTruth(t, b.sim, m.Store.Reader(), b.apiURL)
	register(t, b, m)

	// Every event delivered 1-3 times, in reverse order: SETTLED before
	// CREATED, DELETED before CREATED.
	b.sim.SetWebhookFaults(simulator.WebhookFaults{Duplicate: 0.7, DuplicateCopies: 2, DeliverInReverse: true})
	var held []string
	for i := range 6 {
		held = append(held, b.sim.AddTransaction(simulator.NewTransaction{Description: "Hold " + string(rune('A'+i)), AmountBaseUnits: -1000 - int64(i), Held: true}))
	}
	b.sim.AddTransaction(simulator.NewTransaction{Description: "Coffee", AmountBaseUnits: -450})
	must(t, b.sim.Settle(held[0]))
	must(t, b.sim.Settle(held[1]))
	must(t, b.sim.Delete(held[2]))
	_, err := b.sim.SettleAsReplacement(held[3])
	must(t, err)
	b.sim.FlushDeliveries()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	must(t, b.sim.WaitDeliveries(ctx))

	ids := deliveredEventIDs(b)
	if len(ids) != 7+2+1+2 {
		t.Fatalf("bank emitted %d events, want 12", len(ids))
	}
	waitApplied(t, applied, ids)

	mirrortest.AssertEqualsTruth(t, b.sim, m.Store.Reader(), b.apiURL)
	db := m.Store.Reader()
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM webhook_events WHERE processed_at IS NOT NULL"); n != len(ids) {
		t.Errorf("processed inbox rows = %d, want %d (one per event id)", n, len(ids))
	}
	// Exactly one effect per transaction: one 'created' each, and the
	// deleted holds have exactly one 'deleted'.
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM (SELECT transaction_id FROM transaction_history WHERE change = 'created' GROUP BY 1 HAVING count(*) > 1)"); n != 0 {
		t.Errorf("%d transactions created more than once", n)
	}
	// Delivered newest first, a deleted hold is never mirrored (or, if
	// its CREATED came first, mirrored and deleted once); a settled hold is
	// created once, as settled or as held and then settled.
	for _, id := range []string{held[2], held[3]} {
		if got := historyOf(t, db, id); got != "" && got != "created,deleted" {
			t.Errorf("history of deleted hold %s = %v", id, got)
		}
	}
	for _, id := range held[:2] {
		if got := historyOf(t, db, id); got != "created" && got != "created,settled" {
			t.Errorf("history of settled hold %s = %v", id, got)
		}
	}
}

func TestServeRejectsBadDeliveriesAndChangesNothing(t *testing.T) {
	b := newBank(t, 50)
	m, _ := startMain(t, testConfig(t, b))
	h := register(t, b, m)
	body := []byte(`{"data":{"type":"webhook-events","id":"ev-1","attributes":{"eventType":"PING","createdAt":"2026-01-01T00:00:00+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"` + h.ID + `"}}}}}`)
	malformed := bytes.Replace(body, []byte(`"PING"`), []byte(`"not an event type!"`), 1)
	for _, tc := range []struct {
		name string
		body []byte
		sig  string
		want int
	}{
		{"no signature", body, "", http.StatusUnauthorized},
		{"wrong secret", body, simulator.Sign("not-the-secret", body), http.StatusUnauthorized},
		// A body naming no webhook has no secret to be signed with; one
		// naming the webhook, signed with its secret, is the bank's but
		// not a valid event.
		{"unparsable but signed", []byte(`{"data":`), simulator.Sign(h.SecretKey, []byte(`{"data":`)), http.StatusUnauthorized},
		{"malformed but signed", malformed, simulator.Sign(h.SecretKey, malformed), http.StatusBadRequest},
		{"oversized", bytes.Repeat([]byte(" "), 2<<20), simulator.Sign(h.SecretKey, bytes.Repeat([]byte(" "), 2<<20)), http.StatusRequestEntityTooLarge},
		{"oversized without a signature", bytes.Repeat([]byte(" "), 2<<20), "", http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var resp *http.Response
			var err error
			// An answer before the whole 2 MiB is sent closes the
			// connection with data unread, and the client may see the
			// reset before the answer: ask again, a few times.
			for range 5 {
				req, _ := http.NewRequest(http.MethodPost, m.URL()+"/webhook", bytes.NewReader(tc.body))
				if tc.sig != "" {
					req.Header.Set("X-Service-Authenticity-Signature", tc.sig)
				}
				if resp, err = http.DefaultClient.Do(req); err == nil || (!errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE)) {
					break
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status = %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
	if n := mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM webhook_events"); n != 0 {
		t.Errorf("%d events stored from bad deliveries", n)
	}
	resp, err := http.Get(m.AdminURL() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK {
		t.Fatalf("readyz: %d\n%s", resp.StatusCode, b)
	}
	resp.Body.Close()
}

func TestWebhookRotationRejectsNothing(t *testing.T) {
	b := newBank(t, 50)
	cfg := testConfig(t, b)
	m, applied := startMain(t, cfg)
	old := register(t, b, m)

	// Deliveries are in flight while the rotation runs.
	for range 5 {
		b.sim.AddTransaction(simulator.NewTransaction{Description: "Before", AmountBaseUnits: -100})
	}
	var out bytes.Buffer
	a := &app{cfg: cfg, log: zerolog.Nop(), stdout: &out, stderr: io.Discard}
	w := &webhookCmd{app: a}
	w.use(m.Store, b.client)
	if err := w.rotate(context.Background(), old.ID); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		b.sim.AddTransaction(simulator.NewTransaction{Description: "After", AmountBaseUnits: -100})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	must(t, b.sim.WaitDeliveries(ctx))

	hooks := b.sim.Webhooks()
	if len(hooks) != 1 || hooks[0].ID == old.ID {
		t.Fatalf("after rotation the bank has %+v", hooks)
	}
	for _, id := range []string{old.ID, hooks[0].ID} {
		for _, l := range b.sim.DeliveryLog(id) {
			if l.DeliveryStatus != "DELIVERED" {
				t.Errorf("delivery %s of event %s to webhook %s: %s %+v at %v", l.ID, l.EventID, id, l.DeliveryStatus, l.Response, l.CreatedAt.Format("15:04:05.000"))
			}
		}
	}
	// Events the bank had not yet sent when the old webhook was deleted are
	// never sent (the spec: deleting a webhook stops its events); every
	// event that was delivered is applied, and the next sync covers the rest.
	delivered := map[string]bool{}
	for _, id := range []string{old.ID, hooks[0].ID} {
		for _, l := range b.sim.DeliveryLog(id) {
			delivered[l.EventID] = true
		}
	}
	waitApplied(t, applied, delivered)
	if _, err := m.Syncer.Incremental(context.Background()); err != nil {
		t.Fatal(err)
	}
	mirrortest.AssertEqualsTruth(t, b.sim, m.Store.Reader(), b.apiURL)
	if !strings.Contains(out.String(), "rotated webhook "+old.ID) {
		t.Errorf("output = %q", out.String())
	}
}

func historyOf(t *testing.T, db *sql.DB, id string) string {
	t.Helper()
	return strings.Join(mirrortest.Strings(t, db, "SELECT change FROM transaction_history WHERE transaction_id = ? ORDER BY seq", id), ",")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A first full sync killed halfway is resumed when the daemon starts, not
// left to the daily reconciliation.
func TestServeResumesAnInterruptedFirstSync(t *testing.T) {
	b := newBank(t, 700)
	cfg := testConfig(t, b)
	st, err := store.Open(context.Background(), cfg.DB)
	if err != nil {
		t.Fatal(err)
	}
	// A slow bank keeps the writer ahead, so the sync stops mid-listing.
	b.sim.SetFaults(simulator.Faults{Latency: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	s := replica.New(b.client, st, zerolog.Nop(), replica.Options{OnProgress: func(p replica.Progress) {
		if p.Pages >= 2 {
			cancel()
		}
	}})
	if _, err := s.Full(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted sync: %v", err)
	}
	b.sim.SetFaults(simulator.Faults{})
	st.Close()

	m, _ := startMain(t, cfg)
	runs, err := m.Store.RecentRuns(context.Background(), 1)
	if err != nil || len(runs) != 1 || runs[0].Kind != "full" || runs[0].Status != store.RunOK {
		t.Fatalf("start-up run = %+v, %v; want a successful full sync", runs, err)
	}
	mirrortest.AssertEqualsTruth(t, b.sim, m.Store.Reader(), b.apiURL)
}

// With BANKMIRROR_ATTACHMENTS_DIR set, a receipt that arrives by webhook
// is on disk soon after, before the daily full listing lists it.
func TestServeKeepsAReceiptSeenByWebhook(t *testing.T) {
	b := newBank(t, 100)
	cfg := testConfig(t, b)
	cfg.AttachmentsDir = filepath.Join(t.TempDir(), "receipts")
	passes := make(chan receipts.Result, 100)
	applied := make(chan string, 100)
	m := daemon.New(cfg, zerolog.Nop())
	m.OnReceipts = func(r receipts.Result, _ error) { passes <- r }
	m.OnEventApplied = func(e store.InboxEvent, _ store.Change) { applied <- e.ID }
	must(t, m.Open(context.Background()))
	t.Cleanup(func() { must(t, m.Close()) })
	<-m.InitialSyncDone
	register(t, b, m)

	id := b.sim.AddTransaction(simulator.NewTransaction{Description: "Bunnings", AmountBaseUnits: -8950, Attachment: "image/png"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	must(t, b.sim.WaitDeliveries(ctx))
	waitApplied(t, applied, deliveredEventIDs(b))
	for {
		var path string
		err := m.Store.Reader().QueryRow(`SELECT coalesce(a.local_path, '') FROM transactions AS t
			LEFT JOIN attachments AS a ON a.id = t.attachment_id WHERE t.id = ?`, id).Scan(&path)
		must(t, err)
		if path != "" {
			body, err := os.ReadFile(path)
			must(t, err)
			if !bytes.HasPrefix(body, []byte("\x89PNG")) {
				t.Errorf("the receipt on disk is not a PNG")
			}
			return
		}
		select {
		case <-passes:
		case <-ctx.Done():
			t.Fatal("the receipt was never downloaded")
		}
	}
}

// The stop budget leaves room below the unit's TimeoutStopSec, past which
// systemd kills the daemon (SIGKILL) instead of letting it stop.
func TestStopBudgetFitsTheUnitsStopTimeout(t *testing.T) {
	unit, err := os.ReadFile(filepath.Join("..", "..", "systemd", "bankmirror.service"))
	if err != nil {
		t.Fatal(err)
	}
	var timeout time.Duration
	for line := range strings.Lines(string(unit)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "TimeoutStopSec="); ok {
			s, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("TimeoutStopSec=%s: want whole seconds", v)
			}
			timeout = time.Duration(s) * time.Second
		}
	}
	if timeout == 0 {
		t.Fatal("the unit sets no TimeoutStopSec")
	}
	if daemon.StopBudget+5*time.Second > timeout {
		t.Errorf("stop budget %v leaves less than 5 s below TimeoutStopSec=%v", daemon.StopBudget, timeout)
	}
}

// InitialSyncDone exists before Open, and is the channel the start-up
// sync closes: one taken before Open is closed too.
func TestInitialSyncDoneIsOneChannel(t *testing.T) {
	b := newBank(t, 50)
	m := daemon.New(testConfig(t, b), zerolog.Nop())
	done := m.InitialSyncDone
	if err := m.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the channel taken before Open was never closed")
	}
	if done != m.InitialSyncDone {
		t.Error("Open replaced InitialSyncDone")
	}
}
