package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// alertLog is a generic webhook channel counting the alerts it gets, by
// key.
type alertLog struct {
	mu   sync.Mutex
	keys map[string]int
}

func (l *alertLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var m struct {
		Key string `json:"key"`
	}
	_ = json.Unmarshal(b, &m)
	l.mu.Lock()
	l.keys[m.Key]++
	l.mu.Unlock()
}

func (l *alertLog) counts() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int, len(l.keys))
	for k, v := range l.keys {
		out[k] = v
	}
	return out
}

// TestServeKilledAppliesRulesOnce kills the daemon with SIGKILL while it
// writes rules back and sends their alerts, and restarts it: every rule
// purchase ends with the rule's category at the bank and in the mirror,
// each written back once (a kill between the bank's answer and the
// record sends it again, which costs the bank nothing: the mirror already
// has it, or the bank is asked for what it has), and every alert is
// delivered, at most once more than once per kill.
func TestServeKilledAppliesRulesOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills bankmirror subprocesses")
	}
	b := newBankWith(t, simulator.Options{Seed: 9, Transactions: 100, Token: "tok",
		WebhookRetryBase: 2 * time.Millisecond, WebhookRetryMax: 50 * time.Millisecond, WebhookMaxAttempts: 10000})
	alerts := &alertLog{keys: map[string]int{}}
	hookSrv := httptest.NewServer(alerts)
	t.Cleanup(hookSrv.Close)
	dir := t.TempDir()
	rulesFile := filepath.Join(dir, "rules.toml")
	must(t, os.WriteFile(rulesFile, []byte(`
[[rule]]
name = "servo"
when = 'description startsWith "Servo "'
category = "fuel"
tags = ["car"]
notify = ["hook"]

[channel.hook]
url = "`+hookSrv.URL+`"
per_hour = 100000
`), 0o600))
	out := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bankmirror output:\n%s", out.String())
		}
	})
	listen, adminListen := freeLoopbackAddr(t), freeLoopbackAddr(t)
	dbPath := filepath.Join(dir, "mirror.db")
	env := childEnviron(map[string]string{
		"BANKMIRROR_ADMIN_LISTEN":       adminListen,
		"BANKMIRROR_API_URL":            b.apiURL,
		"BANKMIRROR_TOKEN":              b.sim.Token(),
		"BANKMIRROR_DB":                 dbPath,
		"BANKMIRROR_LISTEN":             listen,
		"BANKMIRROR_RULES_FILE":         rulesFile,
		"BANKMIRROR_REQUESTS_PER_HOUR":  "0",
		"BANKMIRROR_SYNC_SCHEDULE":      "@every 1000h",
		"BANKMIRROR_RECONCILE_SCHEDULE": "@every 1000h",
		"BANKMIRROR_LOG_FORMAT":         "json",
		"BANKMIRROR_LOG_LEVEL":          "info",
	})
	d := startChild(t, env, out, "serve")
	waitReady(t, d, "http://"+adminListen)
	st, err := store.Open(context.Background(), dbPath)
	must(t, err)
	t.Cleanup(func() { _ = st.Close() })
	db := st.Reader()
	poll(t, d, 20*time.Second, "the start-up sync", func() bool {
		return mirrortest.Int(t, db, "SELECT count(*) FROM sync_runs WHERE status = 'ok'") > 0
	})
	h, err := b.client.CreateWebhook(context.Background(), "http://"+listen+"/webhook", nil)
	must(t, err)
	must(t, st.SaveWebhook(context.Background(), store.Webhook{ID: h.ID, URL: h.URL, SecretKey: h.SecretKey, CreatedAt: h.CreatedAt}))

	acc := b.sim.Snapshot().Accounts[0].ID
	var servo []string
	var mu sync.Mutex
	buy := func(n int) {
		for i := range n {
			id := b.sim.AddTransaction(simulator.NewTransaction{AccountID: acc, Description: fmt.Sprintf("Servo %d", i), AmountBaseUnits: -3000 - int64(i)})
			mu.Lock()
			servo = append(servo, id)
			mu.Unlock()
			time.Sleep(3 * time.Millisecond) // pacing the bank's own purchases, not synchronisation
		}
	}
	writes := func() int { return len(b.sim.APIWrites()) }
	const kills = 3
	for k := range kills {
		buy(40)
		seen := writes()
		poll(t, d, 30*time.Second, "write-backs under way", func() bool { return writes() > seen })
		must(t, d.cmd.Process.Kill())
		if err := d.wait(10 * time.Second); !killedBy(err, syscall.SIGKILL) {
			t.Fatalf("kill %d: daemon did not die of SIGKILL: %v", k, err)
		}
		d = startChild(t, env, out, "serve")
		waitReady(t, d, "http://"+adminListen)
	}
	buy(20)

	categorised := func() bool {
		mu.Lock()
		ids := slices.Clone(servo)
		mu.Unlock()
		for _, id := range ids {
			if bankTx(t, b, id).CategoryID != "fuel" {
				return false
			}
		}
		return true
	}
	poll(t, d, 60*time.Second, "every purchase categorised at the bank", categorised)
	poll(t, d, 60*time.Second, "every alert delivered", func() bool { return len(alerts.counts()) >= len(servo) })

	byTx := map[string]int{}
	for _, w := range b.sim.APIWrites() {
		if w.Op == "category" {
			byTx[w.TransactionID]++
		}
	}
	extra := 0
	for _, id := range servo {
		if byTx[id] == 0 {
			t.Errorf("purchase %s never written back", id)
		}
		extra += max(byTx[id]-1, 0)
	}
	if extra > kills {
		t.Errorf("%d category write-backs more than one per purchase over %d kills", extra, kills)
	}
	dup := 0
	for key, n := range alerts.counts() {
		if n > 1 {
			dup += n - 1
			t.Logf("alert %s delivered %d times", key, n)
		}
	}
	if dup > kills {
		t.Errorf("%d alerts delivered twice over %d kills", dup, kills)
	}
	poll(t, d, 30*time.Second, "the mirror to have every category", func() bool {
		return mirrortest.Int(t, db, "SELECT count(*) FROM transactions WHERE description LIKE 'Servo %' AND category_id = 'fuel'") == len(servo)
	})
	// The record of each write-back follows its refetch into the mirror.
	poll(t, d, 30*time.Second, "every category write-back recorded", func() bool {
		return mirrortest.Int(t, db, "SELECT count(*) FROM rule_applications WHERE action = 'category' AND written_back_at IS NULL") == 0
	})
}
