package replica_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// healEnv is a simulator whose webhook deliveries give up fast (2 attempts,
// millisecond backoff), the real bank client and a real store. Its helpers
// are self-contained so that this file does not depend on sync_test.go.
type healEnv struct {
	sim    *simulator.Bank
	base   string
	client *bank.Client
	store  *store.Store
}

// healWait bounds every wait of these tests; it is a guard against hanging,
// never a synchronisation delay.
const healWait = 30 * time.Second

func newHealEnv(t *testing.T, pageSize int) *healEnv {
	t.Helper()
	sim := simulator.New(simulator.Options{
		Seed: 7, Transactions: 300, Token: "test-token",
		WebhookRetryBase: time.Millisecond, WebhookRetryMax: 2 * time.Millisecond,
		WebhookMaxAttempts: 2, WebhookTimeout: 5 * time.Second, RateLimit: ampleBudget,
	})
	t.Cleanup(sim.Close)
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	base := srv.URL + "/api/v1"
	opts := []bank.Option{bank.WithHourlyBudget(0),
		bank.WithBackoff(time.Millisecond, 4*time.Millisecond),
		bank.WithRateLimitBackoff(time.Millisecond, 4*time.Millisecond)}
	if pageSize > 0 {
		opts = append(opts, bank.WithPageSize(pageSize))
	}
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &healEnv{sim: sim, base: base, client: bank.New(base, sim.Token(), opts...), store: st}
}

func (he *healEnv) check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// deadWebhook registers a webhook at the bank whose URL nothing listens on
// (every delivery is UNDELIVERABLE) and saves it, with its secret, as the
// daemon's webhook register command does.
func (he *healEnv) deadWebhook(t *testing.T) store.Webhook {
	t.Helper()
	dead := httptest.NewServer(http.NotFoundHandler())
	u := dead.URL + "/bank-hook"
	dead.Close()
	w, err := he.client.CreateWebhook(context.Background(), u, nil)
	he.check(t, err)
	sw := store.Webhook{ID: w.ID, URL: w.URL, Description: w.Description, SecretKey: w.SecretKey, CreatedAt: w.CreatedAt}
	he.check(t, he.store.SaveWebhook(context.Background(), sw))
	return sw
}

func (he *healEnv) waitDeliveries(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), healWait)
	defer cancel()
	he.check(t, he.sim.WaitDeliveries(ctx))
}

func (he *healEnv) heal(t *testing.T, b interface {
	WebhookLogsURL(id string) string
	WebhookLogsPage(ctx context.Context, pageURL string) (bank.Page[bank.DeliveryLog], error)
}) replica.HealResult {
	t.Helper()
	r, err := replica.NewHealer(b, he.store, zerolog.Nop(), replica.HealerOptions{}).Heal(context.Background())
	if err != nil {
		t.Fatalf("heal: %v", err)
	}
	return r
}

func (he *healEnv) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := he.store.Reader().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// inbox maps the id of every inbox event to its source.
func (he *healEnv) inbox(t *testing.T) map[string]string {
	t.Helper()
	rows, err := he.store.Reader().Query("SELECT id, source FROM webhook_events")
	he.check(t, err)
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, src string
		he.check(t, rows.Scan(&id, &src))
		out[id] = src
	}
	he.check(t, rows.Err())
	return out
}

// eventsOf lists the events the simulator emitted for one webhook.
func (he *healEnv) eventsOf(webhookID string) []simulator.EventInfo {
	return slices.DeleteFunc(he.sim.Events(), func(e simulator.EventInfo) bool { return e.WebhookID != webhookID })
}

// addTransactions creates n settled transactions (one event each per webhook).
func (he *healEnv) addTransactions(n int) {
	for i := range n {
		he.sim.AddTransaction(simulator.NewTransaction{Description: "Heal test", AmountBaseUnits: -100 - int64(i)})
	}
}

func eventIDs(evs []simulator.EventInfo) []string {
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
	}
	slices.Sort(ids)
	return ids
}

func TestHealRecoversEventsTheReceiverMissed(t *testing.T) {
	he := newHealEnv(t, 0)
	ctx := context.Background()
	if _, err := replica.New(he.client, he.store, zerolog.Nop(), replica.Options{}).Full(ctx); err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, tx := range he.sim.Snapshot().Transactions {
		if tx.Status == "HELD" {
			held = append(held, tx.ID)
		}
	}
	if len(held) < 2 {
		t.Fatalf("simulator has %d HELD transactions, need 2", len(held))
	}
	hook := he.deadWebhook(t)

	newHeld := he.sim.AddTransaction(simulator.NewTransaction{Description: "New hold", AmountBaseUnits: -1234, Held: true})
	newSettled := he.sim.AddTransaction(simulator.NewTransaction{Description: "New purchase", AmountBaseUnits: -999})
	he.check(t, he.sim.Settle(held[0]))
	he.check(t, he.sim.Delete(held[1]))
	he.waitDeliveries(t)

	events := he.sim.Events()
	if len(events) != 4 {
		t.Fatalf("simulator emitted %d events, want 4", len(events))
	}
	if n := he.count(t, "SELECT count(*) FROM webhook_events"); n != 0 {
		t.Fatalf("inbox has %d events before the heal", n)
	}
	truthLogs := he.sim.DeliveryLog(hook.ID)

	r := he.heal(t, he.client)
	if r.Webhooks != 1 || r.Recovered != len(events) || r.LogsSeen != len(truthLogs) || r.LogsNew != len(truthLogs) {
		t.Errorf("heal result %+v; want 1 webhook, %d recovered, %d logs seen and new", r, len(events), len(truthLogs))
	}
	if got := slices.Sorted(slices.Values(r.RecoveredIDs)); !slices.Equal(got, eventIDs(events)) {
		t.Errorf("recovered ids %v, want %v", got, eventIDs(events))
	}
	for _, ev := range events {
		var typ, txID, hookID, src, body string
		err := he.store.Reader().QueryRow(`SELECT event_type, coalesce(transaction_id, ''), webhook_id, source, body
			FROM webhook_events WHERE id = ?`, ev.ID).Scan(&typ, &txID, &hookID, &src, &body)
		if err != nil {
			t.Errorf("event %s (%s) not in the inbox: %v", ev.ID, ev.Type, err)
			continue
		}
		if typ != ev.Type || txID != ev.TransactionID || hookID != hook.ID || src != store.SourceDeliveryLog || body != string(ev.Body) {
			t.Errorf("event %s stored as %s/%s/%s/%s, want %s/%s/%s/delivery_log (body equal: %v)",
				ev.ID, typ, txID, hookID, src, ev.Type, ev.TransactionID, hook.ID, body == string(ev.Body))
		}
	}
	if n := he.count(t, "SELECT count(*) FROM webhook_delivery_logs WHERE webhook_id = ?", hook.ID); n != len(truthLogs) {
		t.Errorf("stored %d delivery logs, bank has %d", n, len(truthLogs))
	}
	for _, l := range truthLogs {
		var body, status string
		err := he.store.Reader().QueryRow("SELECT request_body, delivery_status FROM webhook_delivery_logs WHERE id = ?", l.ID).
			Scan(&body, &status)
		if err != nil || body != string(l.RequestBody) || status != l.DeliveryStatus {
			t.Errorf("delivery log %s stored wrong (err %v, status %s)", l.ID, err, status)
		}
	}

	// The worker applies the recovered events.
	applied := make(chan string, 4*len(events))
	w := replica.NewWorker(he.client, he.store, zerolog.Nop(), replica.WorkerOptions{
		RetryBase: time.Millisecond, RetryMax: 10 * time.Millisecond,
		OnApplied: func(e store.InboxEvent, _ store.Change) { applied <- e.ID },
	})
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	w.Notify()
	guard, cancelGuard := context.WithTimeout(ctx, healWait)
	defer cancelGuard()
	for range events {
		select {
		case <-applied:
		case <-guard.Done():
			stop()
			t.Fatal("worker did not apply the recovered events")
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st, err := he.store.InboxStats(ctx, w.MaxAttempts())
	he.check(t, err)
	if st.Pending != 0 || st.Stuck != 0 || st.Recovered != int64(len(events)) {
		t.Errorf("inbox stats after the worker %+v", st)
	}
	for _, id := range []string{newHeld, newSettled, held[0]} {
		want, err := he.sim.RenderTransaction(he.base, id)
		he.check(t, err)
		var raw string
		if err := he.store.Reader().QueryRow("SELECT raw FROM transactions WHERE id = ?", id).Scan(&raw); err != nil || raw != string(want) {
			t.Errorf("transaction %s: mirror differs from the bank (err %v)", id, err)
		}
	}
	if n := he.count(t, "SELECT count(*) FROM transactions WHERE id = ?", held[1]); n != 0 {
		t.Errorf("deleted hold %s still mirrored", held[1])
	}
	if n := he.count(t, "SELECT count(*) FROM transaction_history WHERE transaction_id = ? AND change = 'deleted'", held[1]); n != 1 {
		t.Errorf("deleted hold %s has %d 'deleted' history rows", held[1], n)
	}
	if n := he.count(t, "SELECT count(*) FROM transaction_history WHERE transaction_id = ? AND change = 'settled'", held[0]); n != 1 {
		t.Errorf("settled hold %s has %d 'settled' history rows", held[0], n)
	}
}

func TestHealOnAQuietDayFetchesOnePage(t *testing.T) {
	he := newHealEnv(t, 3)
	hook := he.deadWebhook(t)
	he.addTransactions(4) // 8 log entries: 3 pages of 3
	he.waitDeliveries(t)
	first := he.heal(t, he.client)
	if first.Pages != 3 || first.Recovered != 4 || first.LogsNew != 8 {
		t.Fatalf("first heal %+v; want 3 pages, 4 recovered, 8 new logs", first)
	}

	req0 := he.sim.Requests()
	r := he.heal(t, he.client)
	if r.Recovered != 0 || r.LogsNew != 0 || r.Pages != 1 || len(r.RecoveredIDs) != 0 {
		t.Errorf("quiet heal %+v; want 1 page, nothing new", r)
	}
	if n := he.sim.Requests() - req0; n != 1 {
		t.Errorf("quiet heal made %d requests, want 1", n)
	}

	// New activity after a completed heal: the new entries are on the first
	// page, and the walk stops at the first page of old ones.
	he.addTransactions(1) // 2 new log entries
	he.waitDeliveries(t)
	r = he.heal(t, he.client)
	if r.Recovered != 1 || r.LogsNew != 2 || r.Pages != 2 {
		t.Errorf("heal after new activity %+v; want 1 recovered, 2 new logs, 2 pages", r)
	}
	if got, want := slices.Sorted(func(yield func(string) bool) {
		for id, src := range he.inbox(t) {
			if src == store.SourceDeliveryLog && !yield(id) {
				return
			}
		}
	}), eventIDs(he.eventsOf(hook.ID)); !slices.Equal(got, want) {
		t.Errorf("inbox %v, want every event %v", got, want)
	}
	if n := he.count(t, "SELECT count(*) FROM webhook_delivery_logs"); n != len(he.sim.DeliveryLog(hook.ID)) {
		t.Errorf("stored %d delivery logs, bank has %d", n, len(he.sim.DeliveryLog(hook.ID)))
	}
}

func TestHealLeavesReceivedEventsAlone(t *testing.T) {
	he := newHealEnv(t, 0)
	hook := he.deadWebhook(t)
	he.addTransactions(4)
	he.waitDeliveries(t)
	events := he.eventsOf(hook.ID)

	// The receiver got the first two before it went down.
	var received []store.InboxEvent
	for _, ev := range events[:2] {
		e, err := bank.ParseWebhookEvent(ev.Body)
		he.check(t, err)
		received = append(received, store.InboxEvent{ID: e.ID, EventType: e.EventType, WebhookID: e.WebhookID,
			TransactionID: e.TransactionID, CreatedAt: e.CreatedAt, Source: store.SourceWebhook, Body: string(ev.Body)})
	}
	_, err := he.store.InsertEvents(context.Background(), received)
	he.check(t, err)

	r := he.heal(t, he.client)
	if got, want := slices.Sorted(slices.Values(r.RecoveredIDs)), eventIDs(events[2:]); !slices.Equal(got, want) {
		t.Errorf("recovered %v, want only the missed %v", got, want)
	}
	if r.Recovered != 2 {
		t.Errorf("recovered %d, want 2", r.Recovered)
	}
	in := he.inbox(t)
	for i, ev := range events {
		want := store.SourceDeliveryLog
		if i < 2 {
			want = store.SourceWebhook
		}
		if in[ev.ID] != want {
			t.Errorf("event %s has source %q, want %q", ev.ID, in[ev.ID], want)
		}
	}
}

// cancellingBank cancels the heal's context just before the second page.
type cancellingBank struct {
	*bank.Client
	cancel context.CancelFunc
	calls  int
}

func (b *cancellingBank) WebhookLogsPage(ctx context.Context, pageURL string) (bank.Page[bank.DeliveryLog], error) {
	b.calls++
	if b.calls == 2 {
		b.cancel()
	}
	return b.Client.WebhookLogsPage(ctx, pageURL)
}

func TestHealAfterAnInterruptedHealWalksEveryPage(t *testing.T) {
	he := newHealEnv(t, 2)
	hook := he.deadWebhook(t)
	state := func() (next bool, errCount int) {
		t.Helper()
		err := he.store.Reader().QueryRow("SELECT next_page_url IS NOT NULL, error_count FROM sync_state WHERE name = ?",
			"heal:"+hook.ID).Scan(&next, &errCount)
		he.check(t, err)
		return next, errCount
	}
	he.addTransactions(1) // 2 entries
	he.waitDeliveries(t)
	he.heal(t, he.client) // completes

	he.addTransactions(4) // 8 new entries: 4 pages
	he.waitDeliveries(t)
	newEvents := he.eventsOf(hook.ID)[1:]

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := replica.NewHealer(&cancellingBank{Client: he.client, cancel: cancel}, he.store, zerolog.Nop(), replica.HealerOptions{}).Heal(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted heal: err = %v, want context.Canceled", err)
	}
	if r.Pages != 1 || r.LogsNew != 2 {
		t.Errorf("interrupted heal %+v; want 1 page, 2 new logs", r)
	}
	if next, errs := state(); !next || errs != 1 {
		t.Errorf("after the interruption: in progress %v, error count %d", next, errs)
	}
	in := he.inbox(t)
	missing := 0
	for _, ev := range newEvents {
		if in[ev.ID] == "" {
			missing++
		}
	}
	if missing == 0 {
		t.Fatal("the interrupted heal already had every event; the test proves nothing")
	}

	// The first page is all stored now, yet the heal must not stop there.
	r = he.heal(t, he.client)
	if r.Pages != 5 || r.LogsNew != 6 || r.Recovered != missing {
		t.Errorf("heal after the interruption %+v; want 5 pages, 6 new logs, %d recovered", r, missing)
	}
	in = he.inbox(t)
	for _, ev := range he.eventsOf(hook.ID) {
		if in[ev.ID] != store.SourceDeliveryLog {
			t.Errorf("event %s not recovered", ev.ID)
		}
	}
	if n := he.count(t, "SELECT count(*) FROM webhook_delivery_logs"); n != 10 {
		t.Errorf("stored %d delivery logs, want 10", n)
	}
	if next, errs := state(); next || errs != 0 {
		t.Errorf("after completion: in progress %v, error count %d", next, errs)
	}
	if r := he.heal(t, he.client); r.Pages != 1 {
		t.Errorf("heal after a completed one fetched %d pages, want 1", r.Pages)
	}
}

func TestHealSkipsAWebhookDeletedAtTheBank(t *testing.T) {
	he := newHealEnv(t, 0)
	gone := he.deadWebhook(t)
	live := he.deadWebhook(t)
	he.addTransactions(2)
	he.waitDeliveries(t)
	he.check(t, he.client.DeleteWebhook(context.Background(), gone.ID))

	r := he.heal(t, he.client)
	if r.Webhooks != 1 || r.Recovered != 2 {
		t.Errorf("heal %+v; want the live webhook's 2 events", r)
	}
	in := he.inbox(t)
	for _, ev := range he.eventsOf(live.ID) {
		if in[ev.ID] != store.SourceDeliveryLog {
			t.Errorf("event %s of the live webhook not recovered", ev.ID)
		}
	}
	if n := he.count(t, "SELECT count(*) FROM webhook_delivery_logs WHERE webhook_id = ?", gone.ID); n != 0 {
		t.Errorf("%d delivery logs stored for the deleted webhook", n)
	}
}

// tamperingBank replaces the request body of every entry about one event.
type tamperingBank struct {
	*bank.Client
	eventID, body string
}

func (b tamperingBank) WebhookLogsPage(ctx context.Context, pageURL string) (bank.Page[bank.DeliveryLog], error) {
	p, err := b.Client.WebhookLogsPage(ctx, pageURL)
	for i := range p.Data {
		if p.Data[i].EventID == b.eventID {
			p.Data[i].RequestBody = b.body
		}
	}
	return p, err
}

func TestHealSkipsUnparsableBodiesWithoutLoggingThem(t *testing.T) {
	he := newHealEnv(t, 0)
	hook := he.deadWebhook(t)
	he.addTransactions(3)
	he.waitDeliveries(t)
	events := he.eventsOf(hook.ID)
	const marker = "MARKER-d41d8cd98f00"
	var buf bytes.Buffer
	log := zerolog.New(&buf).Level(zerolog.DebugLevel)
	b := tamperingBank{Client: he.client, eventID: events[0].ID, body: `{"data": not json ` + marker}

	r, err := replica.NewHealer(b, he.store, log, replica.HealerOptions{}).Heal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Recovered != 2 || r.LogsNew != len(he.sim.DeliveryLog(hook.ID)) {
		t.Errorf("heal %+v; want 2 recovered and every log stored", r)
	}
	if in := he.inbox(t); in[events[0].ID] != "" || in[events[1].ID] == "" || in[events[2].ID] == "" {
		t.Errorf("inbox %v: want all but the unparsable event", in)
	}
	out := buf.String()
	if !strings.Contains(out, "not a webhook event") || !strings.Contains(out, `"recovered":2`) {
		t.Errorf("log lacks the warning or the summary:\n%s", out)
	}
	for _, secret := range []string{marker, hook.SecretKey, string(events[1].Body), `"relationships"`} {
		if strings.Contains(out, secret) {
			t.Errorf("log contains %.40q", secret)
		}
	}
}
