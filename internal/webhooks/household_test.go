package webhooks_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/receiver"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

// household is a mirror shared by people, each with their own bank
// token: here each person's token is served by a simulated bank of its
// own, whose webhooks deliver that token's events only, as the bank does.
type household struct {
	st    *store.Store
	sims  map[string]*simulator.Bank
	hooks webhooks.Household
	keys  *webhooks.SecretCache
	url   string // the receiver's webhook URL
}

func newHousehold(t *testing.T, people ...string) *household {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := &household{st: st, sims: map[string]*simulator.Bank{}}
	clients := map[string]*bank.Client{}
	bankFor := func(p string) replica.HealBank {
		if c, ok := clients[p]; ok {
			return c
		}
		return nil
	}
	for i, p := range people {
		sim := simulator.New(simulator.Options{Seed: uint64(i + 1), Transactions: 3, Token: "tok-" + p,
			RateLimit: simulator.RateLimit{Limit: 1_000_000}, WebhookMaxAttempts: 1})
		t.Cleanup(sim.Close)
		srv := httptest.NewServer(sim.Handler())
		t.Cleanup(srv.Close)
		c := bank.New(srv.URL+"/api/v1", sim.Token(), bank.WithHourlyBudget(0))
		clients[p], h.sims[p] = c, sim
		healer := replica.NewHealer(c, st, zerolog.Nop(), replica.HealerOptions{BankFor: bankFor})
		h.hooks = append(h.hooks, webhooks.NewFor(p, c, st, healer, zerolog.Nop()))
		if err := st.NamePerson(ctx, p, false); err != nil {
			t.Fatal(err)
		}
	}
	h.keys = webhooks.NewSecretCache(st, nil, time.Hour, zerolog.Nop())
	if err := h.keys.SetPeople(ctx, people); err != nil {
		t.Fatal(err)
	}
	r := receiver.New(st, receiver.Config{Keys: h.keys, Log: zerolog.Nop()})
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	srv := httptest.NewServer(r.Handler())
	t.Cleanup(srv.Close)
	h.url = srv.URL + receiver.DefaultPath
	return h
}

// deliver makes a purchase at person's bank and returns the statuses of
// its deliveries to person's webhooks.
func (h *household) deliver(t *testing.T, person string) []string {
	t.Helper()
	sim := h.sims[person]
	sim.AddTransaction(simulator.NewTransaction{Description: "Coffee " + person, AmountBaseUnits: -450})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := sim.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range sim.Webhooks() {
		logs := sim.DeliveryLog(w.ID)
		if len(logs) == 0 {
			t.Fatalf("%s's webhook %s has no delivery", person, w.ID)
		}
		out = append(out, logs[len(logs)-1].DeliveryStatus)
	}
	return out
}

// Registering for a household of two makes one webhook at each person's
// bank and keeps both secrets (0600), each recorded as its person's. The
// receiver accepts each person's deliveries; once a person is removed from
// the configuration, deliveries signed with their secret are refused while
// the other person's are still accepted.
func TestHouseholdRegisterAndReceive(t *testing.T) {
	h := newHousehold(t, "alex", "sam")
	ctx := context.Background()
	done, err := h.hooks.Register(ctx, h.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 || done[0].Person != "alex" || done[1].Person != "sam" {
		t.Fatalf("registered = %+v", done)
	}
	stored, err := h.st.ActiveWebhooks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 2 {
		t.Fatalf("stored webhooks = %+v", stored)
	}
	for _, w := range stored {
		bankHooks := h.sims[w.Person].Webhooks()
		if len(bankHooks) != 1 || bankHooks[0].ID != w.ID || bankHooks[0].Secret != w.SecretKey {
			t.Errorf("%s's webhook %s (secret stored %t) is not the one at their bank: %+v", w.Person, w.ID, w.SecretKey != "", bankHooks)
		}
	}
	fi, err := os.Stat(store.SecretsPath(h.st.Path()))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("secrets file mode %v, want 0600", fi.Mode().Perm())
	}
	var doc struct{ Webhooks map[string]any }
	b, err := os.ReadFile(store.SecretsPath(h.st.Path()))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Webhooks) != 2 {
		t.Errorf("secrets file holds %d secrets (%v), want 2", len(doc.Webhooks), err)
	}

	for _, p := range []string{"alex", "sam"} {
		if got := h.deliver(t, p); !slices.Equal(got, []string{"DELIVERED"}) {
			t.Errorf("%s's delivery: %v, want DELIVERED", p, got)
		}
	}

	// sam leaves the configuration: their webhook's secret is refused at
	// once, though the webhook is still registered at their bank.
	if err := h.keys.SetPeople(ctx, []string{"alex"}); err != nil {
		t.Fatal(err)
	}
	if got := h.deliver(t, "sam"); !slices.Equal(got, []string{"BAD_RESPONSE_CODE"}) {
		t.Errorf("delivery signed with a removed person's secret: %v, want refused", got)
	}
	if got := h.deliver(t, "alex"); !slices.Equal(got, []string{"DELIVERED"}) {
		t.Errorf("alex's delivery after sam left: %v, want DELIVERED", got)
	}
	// A reload (another process's commit) does not bring sam back.
	if err := h.keys.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.deliver(t, "sam"); !slices.Equal(got, []string{"BAD_RESPONSE_CODE"}) {
		t.Errorf("after a reload, delivery signed with a removed person's secret: %v, want refused", got)
	}
}

// --person: Only keeps one person's manager, or names the people there
// are; Owner finds a webhook's person through the mirror, else through
// the bank.
func TestHouseholdOnlyAndOwner(t *testing.T) {
	h := newHousehold(t, "alex", "sam")
	ctx := context.Background()
	sam, err := h.hooks.Only("sam")
	if err != nil || len(sam) != 1 || sam[0].Person() != "sam" {
		t.Fatalf("Only(sam) = %v, %v", sam, err)
	}
	if _, err := h.hooks.Only("kim"); err == nil || err.Error() != `no person "kim" in the household (people: alex, sam)` {
		t.Errorf("Only(kim): %v", err)
	}
	if _, err := sam.Register(ctx, h.url, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(h.sims["alex"].Webhooks()); n != 0 {
		t.Errorf("register --person sam made %d webhooks at alex's bank", n)
	}
	samHook := h.sims["sam"].Webhooks()[0]
	if m, err := h.hooks.Owner(ctx, samHook.ID); err != nil || m.Person() != "sam" {
		t.Errorf("owner of sam's webhook = %v, %v", m, err)
	}
	// One made elsewhere with sam's token: found through the bank.
	made, err := h.hooks[1].Bank().CreateWebhook(ctx, h.url+"/elsewhere", nil)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := h.hooks.Owner(ctx, made.ID); err != nil || m.Person() != "sam" {
		t.Errorf("owner of a webhook made elsewhere = %v, %v", m, err)
	}
	listed, err := h.hooks.List(ctx)
	if err != nil || len(listed) != 2 || listed[0].Person != "sam" {
		t.Errorf("list = %+v, %v", listed, err)
	}
	if _, err := h.hooks.Owner(ctx, "no-such-webhook"); err == nil {
		t.Error("owner of an unknown webhook: no error")
	}
}

// The gap check reads each webhook's delivery logs through its own
// person's token: each person's bank is asked for its own webhook's logs
// only.
func TestHouseholdHealsThroughEachToken(t *testing.T) {
	h := newHousehold(t, "alex", "sam")
	ctx := context.Background()
	if _, err := h.hooks.Register(ctx, h.url, nil); err != nil {
		t.Fatal(err)
	}
	h.deliver(t, "alex")
	h.deliver(t, "sam")
	healer := replica.NewHealer(h.hooks[0].Bank().(*bank.Client), h.st, zerolog.Nop(), replica.HealerOptions{
		BankFor: func(p string) replica.HealBank {
			for _, m := range h.hooks {
				if m.Person() == p {
					return m.Bank().(*bank.Client)
				}
			}
			return nil
		}})
	r, err := healer.Heal(ctx)
	if err != nil {
		t.Fatalf("heal: %v", err)
	}
	if r.Webhooks != 2 || r.LogsSeen != 2 {
		t.Errorf("heal = %+v, want both webhooks' logs read, one delivery each", r)
	}
}
