package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/receiver"
	"github.com/bankmirror/bankmirror/internal/store"
)

var _ receiver.Keys = (*SecretCache)(nil)

var (
	secretA = []byte("whsec-alpha-0123456789")
	secretB = []byte("whsec-bravo-9876543210")
)

// sign is what the bank sends: the lowercase hex HMAC-SHA256 of body.
func sign(body, secret []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// eventBody is a delivery's body for event id of eventType; a
// TRANSACTION_ event is about transaction tx-1.
func eventBody(id, eventType string) []byte { return hookBody("wh-1", id, eventType) }

// hookBody is eventBody naming webhook.
func hookBody(webhook, id, eventType string) []byte {
	tx := ""
	if strings.HasPrefix(eventType, "TRANSACTION_") {
		tx = `,"transaction":{"data":{"type":"transactions","id":"tx-1"},` +
			`"links":{"related":"https://bank.example/api/v1/transactions/tx-1"}}`
	}
	return fmt.Appendf(nil, `{"data":{"type":"webhook-events","id":%q,`+
		`"attributes":{"eventType":%q,"createdAt":"2024-08-05T12:20:07+10:00"},`+
		`"relationships":{"webhook":{"data":{"type":"webhooks","id":%q},`+
		`"links":{"related":"https://bank.example/api/v1/webhooks/%s"}}%s}}}`, id, eventType, webhook, webhook, tx)
}

// openStore opens a real SQLite file in a temporary directory.
func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "bankmirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return st
}

// serveWith returns the handler of a started receiver, on a real store,
// whose keys are c.
func serveWith(t *testing.T, c *SecretCache) http.Handler {
	t.Helper()
	r := receiver.New(openStore(t), receiver.Config{Keys: c, Log: zerolog.Nop()})
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r.Handler()
}

// post sends body to h signed with secret and returns the status.
func post(h http.Handler, body, secret []byte) int {
	return postCtx(context.Background(), h, body, secret)
}

// postCtx is post of a request whose context is ctx (cancelled when its
// sender hangs up).
func postCtx(ctx context.Context, h http.Handler, body, secret []byte) int {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/webhook", strings.NewReader(string(body)))
	req.Header.Set(receiver.SignatureHeader, sign(body, secret))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// keySource is the store's side of a SecretCache: the secrets it would
// read, whether a registration is under way, and how often it was read.
type keySource struct {
	mu          sync.Mutex
	secrets     [][]byte
	registering bool
	loads       atomic.Int64
}

func (k *keySource) add(s []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.secrets = append(k.secrets, s)
}

func (k *keySource) setRegistering(on bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.registering = on
}

func (k *keySource) load(_ context.Context, people map[string]bool) (*keys, error) {
	k.loads.Add(1)
	k.mu.Lock()
	defer k.mu.Unlock()
	all := make([]store.WebhookKey, len(k.secrets))
	for i, s := range k.secrets {
		all[i] = store.WebhookKey{WebhookID: fmt.Sprintf("wh-%d", i+1), Secret: slices.Clone(s)}
	}
	return newKeys(all, nil, people, k.registering), nil
}

func cachedReceiver(t *testing.T, src *keySource, minGap time.Duration) http.Handler {
	t.Helper()
	c := newSecretCache(src.load, time.Hour, zerolog.Nop())
	c.minGap = minGap
	if err := c.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	return serveWith(t, c)
}

// Authentic deliveries are checked against the secrets in memory: no read
// per request.
func TestSecretCacheServesFromMemory(t *testing.T) {
	src := &keySource{secrets: [][]byte{secretA}}
	h := cachedReceiver(t, src, time.Hour)
	for i := range 50 {
		body := eventBody(fmt.Sprintf("ev-%d", i), "TRANSACTION_CREATED")
		if code := post(h, body, secretA); code != http.StatusOK {
			t.Fatalf("delivery %d: %d", i, code)
		}
	}
	if n := src.loads.Load(); n != 1 {
		t.Errorf("secrets read %d times for 50 deliveries, want once (at start)", n)
	}
}

// A webhook registered after the cache was loaded is accepted on its first
// delivery: a signature that matches nothing reloads the secrets.
func TestSecretCacheReloadsOnAMiss(t *testing.T) {
	src := &keySource{secrets: [][]byte{secretA}}
	h := cachedReceiver(t, src, 0)
	src.add(secretB)
	if code := post(h, hookBody("wh-2", "ev-new", "TRANSACTION_CREATED"), secretB); code != http.StatusOK {
		t.Fatalf("first delivery signed with a newly stored secret: %d", code)
	}
}

// Strangers' bad signatures cost at most one read per minGap, however
// many they send, even with nothing watched to tell a change.
func TestSecretCacheBoundsReadsFromStrangers(t *testing.T) {
	src := &keySource{secrets: [][]byte{secretA}}
	h := cachedReceiver(t, src, time.Hour)
	body := eventBody("ev-x", "TRANSACTION_CREATED")
	for range 500 {
		if code := post(h, body, []byte("not-a-secret")); code != http.StatusUnauthorized {
			t.Fatalf("bad signature: %d", code)
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
	src := &keySource{secrets: [][]byte{secretA}}
	var version atomic.Int64 // what the watched file would show
	c := newSecretCache(src.load, time.Hour, zerolog.Nop())
	c.mark = func() string { return fmt.Sprint(version.Load()) }
	now := time.Now()
	c.now = func() time.Time { return now }
	src.setRegistering(true)
	if err := c.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := serveWith(t, c)
	body := eventBody("ev-x", "TRANSACTION_CREATED")
	stranger := func(want int) {
		t.Helper()
		for range 1000 {
			if code := post(h, body, []byte("not-a-secret")); code != want {
				t.Fatalf("bad signature: %d, want %d", code, want)
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
	src.add(secretB)
	src.setRegistering(false)
	version.Add(1)
	if code := post(h, hookBody("wh-2", "ev-b", "TRANSACTION_CREATED"), secretB); code != http.StatusOK {
		t.Fatalf("first delivery signed with the new secret: %d, want 200", code)
	}
	loads(2)

	// Another one, within the gap of that reload: not reloaded (401, the
	// bank retries) until the gap has passed.
	secretC := []byte("whsec-charlie")
	src.add(secretC)
	version.Add(1)
	c2 := hookBody("wh-3", "ev-c", "PING")
	now = now.Add(MissReloadGap - time.Nanosecond)
	if code := post(h, c2, secretC); code != http.StatusUnauthorized {
		t.Fatalf("within the gap: %d, want 401", code)
	}
	now = now.Add(time.Nanosecond)
	if code := post(h, c2, secretC); code != http.StatusOK {
		t.Fatalf("after the gap: %d, want 200", code)
	}
	loads(3)
	now = now.Add(time.Hour)
	stranger(http.StatusUnauthorized)
	loads(3)
}

// countingStore counts the reads of the store's secrets.
type countingStore struct {
	*store.Store
	loads atomic.Int64
}

func (c *countingStore) WebhookKeys(ctx context.Context) ([]store.WebhookKey, error) {
	c.loads.Add(1)
	return c.Store.WebhookKeys(ctx)
}

// The store-backed cache tells a commit from another process by the
// database's WAL.
func TestSecretCacheWatchesTheWAL(t *testing.T) {
	ctx := context.Background()
	st := &countingStore{Store: openStore(t)}
	c := NewSecretCache(st, nil, time.Hour, zerolog.Nop())
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
	if n := st.loads.Load(); n != 2 {
		t.Errorf("loads = %d, want 2", n)
	}
}

// hangingUpStore is a store whose next read of the secrets first runs
// hangUp (the sender of the request reloading them hangs up). It counts
// its reads of the secrets, and those not bounded by a deadline.
type hangingUpStore struct {
	*store.Store
	hangUp    func()
	loads     atomic.Int64
	unbounded atomic.Int64
}

func (h *hangingUpStore) WebhookKeys(ctx context.Context) ([]store.WebhookKey, error) {
	h.loads.Add(1)
	if _, ok := ctx.Deadline(); !ok {
		h.unbounded.Add(1)
	}
	if f := h.hangUp; f != nil {
		h.hangUp = nil
		f()
	}
	return h.Store.WebhookKeys(ctx)
}

// A delivery whose sender hangs up while it waits for a reload or during
// one (the bank cancels the deliveries of a webhook it deletes, as a
// rotation does) holds back none of the deliveries behind it: a reload it
// has not begun is left to them, one it began is not cut short. The
// delivery signed with the secret stored just before is accepted, though
// it comes within MissReloadGap. (A reload cut short used to take the
// gap's one reload: TestWebhookRotationRejectsNothing saw 401s.)
func TestSecretCacheAMissWhoseSenderHungUpHoldsNoneBack(t *testing.T) {
	for _, tc := range []struct {
		name      string
		duringIts bool // the sender hangs up during the reload, not before
		// reads of the secrets once the gone request is answered
		loadsAfterGone int64
	}{
		{"gone before its reload", false, 1}, // the start only
		{"gone during its reload", true, 2},  // the start, the reload it began
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := &hangingUpStore{Store: openStore(t)}
			c := NewSecretCache(st, nil, time.Hour, zerolog.Nop())
			now := time.Now() // the clock stands still: every miss is within the gap
			c.now = func() time.Time { return now }
			if err := c.Load(ctx); err != nil {
				t.Fatal(err)
			}
			h := serveWith(t, c)
			// The old webhook and the new one are stored, by another process.
			for _, w := range []store.Webhook{
				{ID: "wh-old", URL: "https://bank-hooks.example/webhook", SecretKey: string(secretA), CreatedAt: "2024-08-05T12:20:07+10:00"},
				{ID: "wh-new", URL: "https://bank-hooks.example/webhook", SecretKey: string(secretB), CreatedAt: "2024-08-05T12:20:08+10:00"},
			} {
				if err := st.SaveWebhook(ctx, w); err != nil {
					t.Fatal(err)
				}
			}
			// A delivery of the old webhook whose sender hangs up (its answer
			// goes nowhere, whatever it is).
			gone, hangUp := context.WithCancel(ctx)
			defer hangUp()
			if tc.duringIts {
				st.hangUp = hangUp
			} else {
				hangUp()
			}
			postCtx(gone, h, hookBody("wh-old", "ev-old", "TRANSACTION_CREATED"), secretA)
			if n := st.loads.Load(); n != tc.loadsAfterGone {
				t.Errorf("secrets read %d times once the gone request was answered, want %d", n, tc.loadsAfterGone)
			}
			if code := post(h, hookBody("wh-new", "ev-new", "TRANSACTION_CREATED"), secretB); code != http.StatusOK {
				t.Errorf("delivery signed with the new secret after one whose sender hung up: %d, want 200", code)
			}
			// One reload after the commits in all: the gone request's, or
			// the new secret's delivery's.
			if n := st.loads.Load(); n != 2 {
				t.Errorf("secrets read %d times, want 2", n)
			}
			// The start's (Load, with the caller's context) and nothing else.
			if n := st.unbounded.Load(); n != 1 {
				t.Errorf("%d reloads by a miss had no deadline", n-1)
			}
		})
	}
}

// The store-backed cache holds the stored secrets, then the configured one
// (a webhook made elsewhere), and the store's registration mark.
func TestSecretCacheReadsTheStoreAndTheConfiguredSecret(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	if err := st.SaveWebhook(ctx, store.Webhook{ID: "wh-1", URL: "https://bank-hooks.example/webhook",
		SecretKey: string(secretA), CreatedAt: "2024-08-05T12:20:07+10:00"}); err != nil {
		t.Fatal(err)
	}
	c := NewSecretCache(st, secretB, time.Hour, zerolog.Nop())
	if err := c.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if s, _ := c.Secrets(ctx); fmt.Sprintf("%s", s) != fmt.Sprintf("%s", [][]byte{secretA, secretB}) {
		t.Errorf("secrets = %q, want the stored one, then the configured one", s)
	}
	if c.Registering(ctx) {
		t.Error("registering before a registration began")
	}
	if err := st.BeginWebhookRegistration(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if !c.Registering(ctx) {
		t.Error("not registering after a registration began and a reload")
	}
	// Without a configured secret, only the stored ones.
	bare := NewSecretCache(st, nil, time.Hour, zerolog.Nop())
	if err := bare.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if s, _ := bare.Secrets(ctx); len(s) != 1 || string(s[0]) != string(secretA) {
		t.Errorf("secrets without a configured one = %q", s)
	}
}

// peopleKeys is a household of n people, person i's webhook wh-i signed
// with secret-i.
func peopleKeys(n int) []store.WebhookKey {
	out := make([]store.WebhookKey, n)
	for i := range out {
		out[i] = store.WebhookKey{WebhookID: fmt.Sprintf("wh-%d", i), Person: fmt.Sprintf("p%d", i),
			Secret: fmt.Appendf(nil, "whsec-person-%d", i)}
	}
	return out
}

// In a household of many people a delivery's signature is checked against
// the secret of the webhook its body names, not every person's: what a
// stranger's request costs does not grow with the household. Each
// person's own delivery is accepted; one naming a webhook but signed with
// another person's secret, or with the configured one, is refused; the
// configured one signs for webhooks the mirror does not know.
func TestSecretCacheManyPeopleCheckTheNamedWebhook(t *testing.T) {
	all := peopleKeys(32)
	c := newSecretCache(func(_ context.Context, people map[string]bool) (*keys, error) {
		return newKeys(all, secretB, people, false), nil
	}, time.Hour, zerolog.Nop())
	if err := c.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s, _ := c.Secrets(context.Background()); len(s) != 33 {
		t.Fatalf("%d secrets, want 33", len(s))
	}
	if got, _ := c.SecretsOf(context.Background(), "wh-1"); len(got) != 1 || string(got[0]) != string(all[1].Secret) {
		t.Errorf("SecretsOf(wh-1) = %q, want person 1's alone", got)
	}
	if got, _ := c.SecretsOf(context.Background(), "wh-unknown"); len(got) != 1 || string(got[0]) != string(secretB) {
		t.Errorf("SecretsOf(unknown) = %q, want the configured one only", got)
	}
	h := serveWith(t, c)
	body := eventBody("ev-1", "TRANSACTION_CREATED") // names wh-1
	if code := post(h, body, all[1].Secret); code != http.StatusOK {
		t.Errorf("delivery of wh-1 signed with its secret: %d", code)
	}
	if code := post(h, hookBody("wh-elsewhere", "ev-2", "TRANSACTION_CREATED"), secretB); code != http.StatusOK {
		t.Errorf("delivery of a webhook made elsewhere signed with the configured secret: %d", code)
	}
	if code := post(h, eventBody("ev-4", "TRANSACTION_CREATED"), secretB); code != http.StatusUnauthorized {
		t.Errorf("delivery naming wh-1 signed with the configured secret: %d, want 401", code)
	}
	if code := post(h, eventBody("ev-3", "TRANSACTION_CREATED"), all[7].Secret); code != http.StatusUnauthorized {
		t.Errorf("delivery naming wh-1 signed with person 7's secret: %d, want 401", code)
	}
	if code := post(h, []byte(`not json`), all[1].Secret); code != http.StatusUnauthorized {
		t.Errorf("a body naming no webhook, signed with a person's secret: %d, want 401", code)
	}
}

// Issue 30: in a household of two (few enough secrets that every one used
// to be tried), a delivery naming sam's webhook but signed with alex's
// secret is refused and stored nowhere, as is one naming a webhook the
// mirror does not know; each person's own is accepted.
func TestSecretCacheAPartnersSecretDoesNotSignForTheOther(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	alexSecret, samSecret := []byte("whsec-alex-0123456789"), []byte("whsec-sam-9876543210")
	for _, w := range []store.Webhook{
		{ID: "wh-alex", URL: "https://bank-hooks.example/webhook", SecretKey: string(alexSecret), CreatedAt: "2024-08-05T12:20:07+10:00", Person: "alex"},
		{ID: "wh-sam", URL: "https://bank-hooks.example/webhook", SecretKey: string(samSecret), CreatedAt: "2024-08-05T12:20:08+10:00", Person: "sam"},
	} {
		if err := st.UpsertPerson(ctx, store.PersonUpdate{Name: w.Person}); err != nil {
			t.Fatal(err)
		}
		if err := st.SaveWebhook(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	c := NewSecretCache(st, nil, time.Hour, zerolog.Nop())
	if err := c.SetPeople(ctx, []string{"alex", "sam"}); err != nil {
		t.Fatal(err)
	}
	r := receiver.New(st, receiver.Config{Keys: c, Log: zerolog.Nop()})
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	h := r.Handler()
	cases := []struct {
		name    string
		webhook string
		secret  []byte
		want    int
	}{
		{"sam's webhook, alex's secret", "wh-sam", alexSecret, http.StatusUnauthorized},
		{"alex's webhook, sam's secret", "wh-alex", samSecret, http.StatusUnauthorized},
		{"an unknown webhook, alex's secret", "wh-elsewhere", alexSecret, http.StatusUnauthorized},
		{"alex's own", "wh-alex", alexSecret, http.StatusOK},
		{"sam's own", "wh-sam", samSecret, http.StatusOK},
	}
	for i, tc := range cases {
		id := fmt.Sprintf("ev-%d", i)
		if code := post(h, hookBody(tc.webhook, id, "TRANSACTION_DELETED"), tc.secret); code != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.want)
		}
		var n int
		if err := st.Reader().QueryRow("SELECT count(*) FROM webhook_events WHERE id = ?", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if queued := n == 1; queued != (tc.want == http.StatusOK) {
			t.Errorf("%s: queued = %v", tc.name, queued)
		}
	}
}

// SetPeople drops a removed person's secrets at once, and keeps the
// webhooks of no person (from before the household).
func TestSecretCacheSetPeople(t *testing.T) {
	all := append(peopleKeys(3), store.WebhookKey{WebhookID: "wh-old", Secret: secretA})
	c := newSecretCache(func(_ context.Context, people map[string]bool) (*keys, error) {
		return newKeys(all, nil, people, false), nil
	}, time.Hour, zerolog.Nop())
	ctx := context.Background()
	if err := c.SetPeople(ctx, []string{"p0", "p2"}); err != nil {
		t.Fatal(err)
	}
	got, _ := c.Secrets(ctx)
	var names []string
	for _, s := range got {
		names = append(names, string(s))
	}
	slices.Sort(names)
	if want := []string{string(secretA), "whsec-person-0", "whsec-person-2"}; !slices.Equal(names, want) {
		t.Errorf("secrets = %q, want %q", names, want)
	}
	if s, _ := c.SecretsOf(ctx, "wh-1"); len(s) != 0 {
		t.Errorf("a removed person's webhook still has secrets: %q", s)
	}
}

// A stranger's request costs the same whatever the household's size: one
// parse and at most two HMACs.
func BenchmarkStrangerByHouseholdSize(b *testing.B) {
	for _, n := range []int{1, 4, 32} {
		b.Run(fmt.Sprintf("people=%d", n), func(b *testing.B) {
			all := peopleKeys(n)
			c := newSecretCache(func(_ context.Context, people map[string]bool) (*keys, error) {
				return newKeys(all, nil, people, false), nil
			}, time.Hour, zerolog.Nop())
			c.minGap = time.Hour
			if err := c.Load(context.Background()); err != nil {
				b.Fatal(err)
			}
			st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "m.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			r := receiver.New(st, receiver.Config{Keys: c, Log: zerolog.Nop()})
			if err := r.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			h := r.Handler()
			body := eventBody("ev-x", "TRANSACTION_CREATED")
			b.ResetTimer()
			for range b.N {
				if code := post(h, body, []byte("not-a-secret")); code != http.StatusUnauthorized {
					b.Fatalf("stranger: %d", code)
				}
			}
		})
	}
}
