package webhooks_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

type env struct {
	sim   *simulator.Bank
	store *store.Store
	m     *webhooks.Manager
}

func newEnv(t *testing.T) *env {
	t.Helper()
	sim := simulator.New(simulator.Options{Seed: 1, Transactions: 5, Token: "tok", RateLimit: simulator.RateLimit{Limit: 1_000_000}})
	t.Cleanup(sim.Close)
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	client := bank.New(srv.URL+"/api/v1", sim.Token(), bank.WithHourlyBudget(0))
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &env{sim: sim, store: st, m: webhooks.New(client, st, replica.NewHealer(client, st, zerolog.Nop(), replica.HealerOptions{}), zerolog.Nop())}
}

func (e *env) secrets(t *testing.T) []string {
	t.Helper()
	sec, err := e.store.WebhookSecrets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range sec {
		out = append(out, string(s))
	}
	slices.Sort(out)
	return out
}

// Register stores the bank's secret; Rotate makes a new webhook for the
// same URL, keeps both secrets valid, deletes the old one; Delete marks it.
func TestRegisterRotateDelete(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	hook, err := e.m.Register(ctx, "https://example.org/hook", nil)
	if err != nil {
		t.Fatal(err)
	}
	bankHooks := e.sim.Webhooks()
	if len(bankHooks) != 1 || bankHooks[0].ID != hook.ID {
		t.Fatalf("bank webhooks = %+v", bankHooks)
	}
	if got := e.secrets(t); !slices.Equal(got, []string{bankHooks[0].Secret}) {
		t.Errorf("secrets after register = %q", got)
	}
	if e.store.WebhookRegistering(ctx) {
		t.Error("registration mark left set")
	}
	listed, err := e.m.List(ctx)
	if err != nil || len(listed) != 1 || !listed[0].SecretStored {
		t.Errorf("list = %+v, %v", listed, err)
	}

	r, err := e.m.Rotate(ctx, hook.ID)
	if err != nil {
		t.Fatal(err)
	}
	bankHooks = e.sim.Webhooks()
	if len(bankHooks) != 1 || bankHooks[0].ID != r.New.ID || r.New.ID == hook.ID || r.Old.ID != hook.ID {
		t.Fatalf("after rotate: bank %+v, rotation %+v", bankHooks, r)
	}
	want := []string{hook.SecretKey, bankHooks[0].Secret}
	slices.Sort(want)
	if got := e.secrets(t); !slices.Equal(got, want) {
		t.Errorf("secrets after rotate = %q, want both (the old one in its grace hour)", got)
	}

	existed, err := e.m.Delete(ctx, r.New.ID)
	if err != nil || !existed {
		t.Fatalf("delete = %v, %v", existed, err)
	}
	if w, err := e.store.Webhook(ctx, r.New.ID); err != nil || w.DeletedAt == nil {
		t.Errorf("deleted webhook stored as %+v, %v", w, err)
	}
	if existed, err := e.m.Delete(ctx, r.New.ID); err != nil || existed {
		t.Errorf("second delete = %v, %v; want not existing, no error", existed, err)
	}
	if _, err := e.m.Rotate(ctx, "no-such-id"); !errors.Is(err, bank.ErrNotFound) {
		t.Errorf("rotate of an unknown id: err = %v", err)
	}
}

// A webhook whose secret cannot be stored is deleted at the bank again:
// no webhook delivers events signed with a secret nobody holds.
func TestRegisterTakesBackAWebhookItCannotStore(t *testing.T) {
	e := newEnv(t)
	// The secrets file cannot be read or replaced: a directory is there.
	if err := os.Mkdir(store.SecretsPath(e.store.Path()), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := e.m.Register(context.Background(), "https://example.org/hook", nil)
	if err == nil || !strings.Contains(err.Error(), "deleted it again") {
		t.Fatalf("err = %v, want the secret not stored and the webhook deleted again", err)
	}
	if hooks := e.sim.Webhooks(); len(hooks) != 0 {
		t.Errorf("bank keeps %d webhooks", len(hooks))
	}
	if e.store.WebhookRegistering(context.Background()) {
		t.Error("registration mark left set")
	}
}

// At the bank's limit, Register explains what to do.
func TestRegisterAtTheLimit(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for range webhooks.MaxWebhooks {
		if _, err := e.m.Register(ctx, "https://example.org/hook", nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.m.Register(ctx, "https://example.org/hook", nil)
	if !errors.Is(err, webhooks.ErrTooMany) || !strings.Contains(err.Error(), "bankmirror webhook delete") {
		t.Fatalf("err = %v, want ErrTooMany with advice", err)
	}
}
