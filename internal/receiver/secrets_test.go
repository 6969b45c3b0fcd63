package receiver

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/store"
)

// keySource is the store's side of a SecretCache: the secrets it would
// read, and how often it was read.
type keySource struct {
	set   *secretSet
	loads atomic.Int64
}

func (k *keySource) load(ctx context.Context) (Keys, error) {
	k.loads.Add(1)
	s, err := k.set.get(ctx)
	return Keys{Secrets: s}, err
}

func cachedReceiver(t *testing.T, src *keySource, minGap time.Duration) http.Handler {
	t.Helper()
	c := NewSecretCache(src.load, time.Hour, zerolog.Nop())
	c.minGap = minGap
	if err := c.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := mustStart(t, mustOpenStore(t), Config{Secrets: c.Secrets, Registering: c.Registering, Miss: c.Miss})
	return r.Handler()
}

// Authentic deliveries are checked against the secrets in memory: no read
// per request.
func TestSecretCacheServesFromMemory(t *testing.T) {
	src := &keySource{set: newSecretSet(secretA)}
	h := cachedReceiver(t, src, time.Hour)
	for i := range 50 {
		body := eventBody("ev-"+string(rune('a'+i%26))+string(rune('a'+i/26)), "TRANSACTION_CREATED", "tx-1")
		if rec := post(h, body, sign(body, secretA)); rec.Code != http.StatusOK {
			t.Fatalf("delivery %d: %d", i, rec.Code)
		}
	}
	if n := src.loads.Load(); n != 1 {
		t.Errorf("secrets read %d times for 50 deliveries, want once (at start)", n)
	}
}

// A webhook registered after the cache was loaded is accepted on its first
// delivery: a signature that matches nothing reloads the secrets.
func TestSecretCacheReloadsOnAMiss(t *testing.T) {
	src := &keySource{set: newSecretSet(secretA)}
	h := cachedReceiver(t, src, 0)
	src.set.add(secretB)
	body := eventBody("ev-new", "TRANSACTION_CREATED", "tx-1")
	if rec := post(h, body, sign(body, secretB)); rec.Code != http.StatusOK {
		t.Fatalf("first delivery signed with a newly stored secret: %d", rec.Code)
	}
}

// Strangers' bad signatures cost at most one read per minGap, however
// many they send, even with nothing watched to tell a change.
func TestSecretCacheBoundsReadsFromStrangers(t *testing.T) {
	src := &keySource{set: newSecretSet(secretA)}
	h := cachedReceiver(t, src, time.Hour)
	body := eventBody("ev-x", "TRANSACTION_CREATED", "tx-1")
	for range 500 {
		if rec := post(h, body, sign(body, []byte("not-a-secret"))); rec.Code != http.StatusUnauthorized {
			t.Fatalf("bad signature: %d", rec.Code)
		}
	}
	if n := src.loads.Load(); n != 2 {
		t.Errorf("secrets read %d times for 500 bad signatures within minGap, want 2 (the start, the first miss)", n)
	}
}

// A miss reloads the secrets only when what the cache watches changed
// since its last load, and at most once per MissReloadGap, during a
// registration too: strangers' bad signatures cost nothing while nothing
// changes and one small read a second at most while something does. A
// secret stored meanwhile is found by the first miss that may reload.
func TestSecretCacheMissReloadsOnlyOnAChange(t *testing.T) {
	src := &keySource{set: newSecretSet(secretA)}
	var registering atomic.Bool
	var version atomic.Int64 // what the watched file would show
	c := NewSecretCache(func(ctx context.Context) (Keys, error) {
		k, err := src.load(ctx)
		k.Registering = registering.Load()
		return k, err
	}, time.Hour, zerolog.Nop())
	c.mark = func() string { return fmt.Sprint(version.Load()) }
	now := time.Now()
	c.now = func() time.Time { return now }
	registering.Store(true)
	if err := c.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := mustStart(t, mustOpenStore(t), Config{Secrets: c.Secrets, Registering: c.Registering, Miss: c.Miss}).Handler()
	body := eventBody("ev-x", "TRANSACTION_CREATED", "tx-1")
	stranger := func(want int) {
		t.Helper()
		for range 1000 {
			if rec := post(h, body, sign(body, []byte("not-a-secret"))); rec.Code != want {
				t.Fatalf("bad signature: %d, want %d", rec.Code, want)
			}
		}
	}
	loads := func(want int64) {
		t.Helper()
		if n := src.loads.Load(); n != want {
			t.Fatalf("secrets read %d times, want %d", n, want)
		}
	}
	stranger(http.StatusServiceUnavailable) // during a registration
	now = now.Add(time.Hour)
	stranger(http.StatusServiceUnavailable)
	loads(1) // nothing changed: no miss reloaded

	// The registration ends with secretB stored: the first miss reloads.
	src.set.add(secretB)
	registering.Store(false)
	version.Add(1)
	if rec := post(h, body, sign(body, secretB)); rec.Code != http.StatusOK {
		t.Fatalf("first delivery signed with the new secret: %d, want 200", rec.Code)
	}
	loads(2)

	// Another one, within the gap of that reload: not reloaded (401, the
	// bank retries) until the gap has passed.
	secretC := []byte("whsec-charlie")
	src.set.add(secretC)
	version.Add(1)
	c2 := eventBody("ev-c", "PING", "")
	now = now.Add(MissReloadGap - time.Nanosecond)
	if rec := post(h, c2, sign(c2, secretC)); rec.Code != http.StatusUnauthorized {
		t.Fatalf("within the gap: %d, want 401", rec.Code)
	}
	now = now.Add(time.Nanosecond)
	if rec := post(h, c2, sign(c2, secretC)); rec.Code != http.StatusOK {
		t.Fatalf("after the gap: %d, want 200", rec.Code)
	}
	loads(3)
	now = now.Add(time.Hour)
	stranger(http.StatusUnauthorized)
	loads(3)
}

// Watch tells a commit from another process by the WAL file.
func TestSecretCacheWatchesTheWAL(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t)
	var loads atomic.Int64
	c := NewSecretCache(func(ctx context.Context) (Keys, error) {
		loads.Add(1)
		s, err := st.WebhookSecrets(ctx)
		return Keys{Secrets: s}, err
	}, time.Hour, zerolog.Nop())
	c.Watch(st.Path() + "-wal")
	if err := c.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Miss(ctx) {
		t.Fatal("a miss reloaded with nothing written")
	}
	// Another process (a second store on the same file) stores a secret.
	other, err := store.Open(ctx, st.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.SaveWebhook(ctx, store.Webhook{ID: "wh-2", URL: "https://bank-hooks.example/webhook",
		SecretKey: string(secretB), CreatedAt: "2024-08-05T12:20:07+10:00"}); err != nil {
		t.Fatal(err)
	}
	if !c.Miss(ctx) {
		t.Fatal("a miss after another process's commit did not reload")
	}
	if s, _ := c.Secrets(ctx); len(s) != 1 || string(s[0]) != string(secretB) {
		t.Errorf("secrets after the reload: %q", s)
	}
	if n := loads.Load(); n != 2 {
		t.Errorf("loads = %d, want 2", n)
	}
}
