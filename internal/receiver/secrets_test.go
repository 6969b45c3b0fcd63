package receiver

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
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
// many they send.
func TestSecretCacheBoundsReadsFromStrangers(t *testing.T) {
	src := &keySource{set: newSecretSet(secretA)}
	h := cachedReceiver(t, src, time.Hour)
	body := eventBody("ev-x", "TRANSACTION_CREATED", "tx-1")
	for range 500 {
		if rec := post(h, body, sign(body, []byte("not-a-secret"))); rec.Code != http.StatusUnauthorized {
			t.Fatalf("bad signature: %d", rec.Code)
		}
	}
	if n := src.loads.Load(); n != 1 {
		t.Errorf("secrets read %d times for 500 bad signatures within minGap, want only the start", n)
	}
}

// A miss reloads the secrets at most once per MissReloadGap, counted from
// any load, also during a registration: strangers' bad signatures cost one
// small read a second at most, together. A secret stored meanwhile is
// found by the first miss after the gap.
func TestSecretCacheMissReloadsAtMostOnceASecond(t *testing.T) {
	src := &keySource{set: newSecretSet(secretA)}
	registering := &atomic.Bool{}
	c := NewSecretCache(func(ctx context.Context) (Keys, error) {
		k, err := src.load(ctx)
		k.Registering = registering.Load()
		return k, err
	}, time.Hour, zerolog.Nop())
	now := time.Now()
	c.now = func() time.Time { return now }
	registering.Store(true)
	if err := c.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := mustStart(t, mustOpenStore(t), Config{Secrets: c.Secrets, Registering: c.Registering, Miss: c.Miss}).Handler()
	body := eventBody("ev-x", "TRANSACTION_CREATED", "tx-1")
	for range 1000 {
		if rec := post(h, body, sign(body, []byte("not-a-secret"))); rec.Code != http.StatusServiceUnavailable {
			t.Fatalf("bad signature during a registration: %d, want 503", rec.Code)
		}
	}
	if n := src.loads.Load(); n != 1 {
		t.Fatalf("1000 misses within the gap read the secrets %d times, want only the start", n)
	}
	// The registration ends with secretB stored; a gap later, the first
	// delivery signed with it reloads once and is accepted.
	src.set.add(secretB)
	registering.Store(false)
	now = now.Add(MissReloadGap - time.Nanosecond)
	if rec := post(h, body, sign(body, secretB)); rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("within the gap: %d, want 503 (the cached keys still say registering)", rec.Code)
	}
	now = now.Add(time.Nanosecond)
	if rec := post(h, body, sign(body, secretB)); rec.Code != http.StatusOK {
		t.Fatalf("after the gap: %d, want 200", rec.Code)
	}
	for range 1000 {
		if rec := post(h, body, sign(body, []byte("not-a-secret"))); rec.Code != http.StatusUnauthorized {
			t.Fatalf("bad signature: %d, want 401", rec.Code)
		}
	}
	if n := src.loads.Load(); n != 2 {
		t.Errorf("secrets read %d times, want 2", n)
	}
}
