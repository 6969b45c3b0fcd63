//go:build unix

package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/receiver"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Issue 30 item 1, as the couple met it: a daemon serving alex and sam,
// each with their own webhook, against the simulator. A delivery signed
// with alex's secret but naming sam's webhook (about an alex transaction)
// is refused 401 and queued nowhere; one naming alex's own webhook (so
// authentic) about one of sam's transactions is accepted and applied, and
// leaves sam's transaction in the mirror: alex's token answers 404 for it,
// which deletes nothing alex does not see. Both transactions are still in
// the mirror at the end.
func TestDaemonHouseholdPartnersSecretDeletesNothing(t *testing.T) {
	b, env, _ := householdCLI(t)
	env["BANKMIRROR_SYNC_SCHEDULE"], env["BANKMIRROR_RECONCILE_SCHEDULE"] = "@every 1000h", "@every 1000h"
	env["BANKMIRROR_POLL_INTERVAL"] = "0"
	cfg, err := config.Load(env)
	must(t, err)
	cfg.Listen, cfg.AdminListen = "127.0.0.1:0", "127.0.0.1:0"
	people, err := config.People(env)
	must(t, err)
	m := daemon.New(cfg, zerolog.Nop())
	m.Environ, m.People = env, people
	applied := make(chan string, 100)
	m.OnEventApplied = func(e store.InboxEvent, _ store.Change) { applied <- e.ID }
	if err := m.Open(context.Background()); err != nil {
		_ = m.Close()
		t.Fatalf("open the daemon: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	select {
	case <-m.InitialSyncDone:
	case <-time.After(convDrainWait):
		t.Fatalf("the start-up sync did not finish within %v", convDrainWait)
	}
	wantCode(t, runCLI(t, env, "webhook", "register", "--url", m.URL()+m.Config.WebhookPath), 0)

	ctx := context.Background()
	keys, err := m.Store.WebhookKeys(ctx)
	must(t, err)
	hook, secret := map[string]string{}, map[string][]byte{}
	for _, k := range keys {
		hook[k.Person], secret[k.Person] = k.WebhookID, k.Secret
	}
	if hook["alex"] == "" || hook["sam"] == "" {
		t.Fatalf("webhooks after register: %v", hook)
	}
	txOf := func(person string) string {
		t.Helper()
		ids := mirrortest.Strings(t, m.Store.Reader(), "SELECT id FROM transactions WHERE account_id = ? AND status = 'SETTLED' LIMIT 1",
			b.sim.PersonAccounts(person)[0])
		if len(ids) != 1 {
			t.Fatalf("no settled transaction of %s's in the mirror", person)
		}
		return ids[0]
	}
	alexTx, samTx := txOf("alex"), txOf("sam")

	post := func(eventID, webhook, txID string, key []byte) int {
		t.Helper()
		body := fmt.Appendf(nil, `{"data":{"type":"webhook-events","id":%q,"attributes":{"eventType":"TRANSACTION_DELETED",`+
			`"createdAt":%q},"relationships":{"webhook":{"data":{"type":"webhooks","id":%q}},`+
			`"transaction":{"data":{"type":"transactions","id":%q}}}}}`, eventID, b.sim.Now().Format(time.RFC3339), webhook, txID)
		mac := hmac.New(sha256.New, key)
		mac.Write(body)
		req, err := http.NewRequest(http.MethodPost, m.URL()+m.Config.WebhookPath, bytes.NewReader(body))
		must(t, err)
		req.Header.Set(receiver.UpSignatureHeader, hex.EncodeToString(mac.Sum(nil)))
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	inMirror := func(id string) int {
		return mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM transactions WHERE id = ?", id)
	}

	// alex's secret, sam's webhook, an alex transaction.
	if code := post("ev-forged-1", hook["sam"], alexTx, secret["alex"]); code != http.StatusUnauthorized {
		t.Errorf("a delivery naming sam's webhook signed with alex's secret: %d, want 401", code)
	}
	if n := mirrortest.Int(t, m.Store.Reader(), "SELECT count(*) FROM webhook_events WHERE id = 'ev-forged-1'"); n != 0 {
		t.Error("the delivery signed with the wrong webhook's secret was queued")
	}

	// alex's own webhook, one of sam's transactions.
	if code := post("ev-forged-2", hook["alex"], samTx, secret["alex"]); code != http.StatusOK {
		t.Fatalf("a delivery naming alex's webhook signed with alex's secret: %d, want 200", code)
	}
	deadline := time.After(30 * time.Second)
	for done := false; !done; {
		select {
		case id := <-applied:
			done = id == "ev-forged-2"
		case <-deadline:
			t.Fatal("the event naming sam's transaction was not applied")
		}
	}
	if inMirror(samTx) != 1 {
		t.Error("sam's transaction, named by a delivery of alex's webhook, was deleted from the mirror while the bank has it")
	}
	if inMirror(alexTx) != 1 {
		t.Error("alex's transaction, named by a delivery of sam's webhook signed with alex's secret, was deleted from the mirror")
	}
}
