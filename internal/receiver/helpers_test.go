package receiver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/store"
)

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

// eventBody is a callback body for an event; txID "" omits the
// transaction relationship.
func eventBody(id, eventType, txID string) []byte { return hookBody("wh-1", id, eventType, txID) }

// hookBody is eventBody naming webhook.
func hookBody(webhook, id, eventType, txID string) []byte {
	rel := map[string]any{
		"webhook": map[string]any{
			"data":  map[string]string{"type": "webhooks", "id": webhook},
			"links": map[string]string{"related": "https://bank.example/api/v1/webhooks/" + webhook},
		},
	}
	if txID != "" {
		rel["transaction"] = map[string]any{
			"data":  map[string]string{"type": "transactions", "id": txID},
			"links": map[string]string{"related": "https://bank.example/api/v1/transactions/" + txID},
		}
	}
	b, err := json.Marshal(map[string]any{"data": map[string]any{
		"type":          "webhook-events",
		"id":            id,
		"attributes":    map[string]string{"eventType": eventType, "createdAt": "2024-08-05T12:20:07+10:00"},
		"relationships": rel,
	}})
	if err != nil {
		panic(err)
	}
	return b
}

// secretSet is a Keys the test can change while serving: the secrets it
// holds, which any webhook's delivery may be signed with (as the secret of
// a webhook made elsewhere), and Registering's answer. Miss reloads
// nothing.
type secretSet struct {
	mu          sync.Mutex
	s           [][]byte
	registering bool
}

var _ Keys = (*secretSet)(nil)

func newSecretSet(s ...[]byte) *secretSet { return &secretSet{s: s} }

func (ss *secretSet) add(s []byte) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.s = append(ss.s, s)
}

// setRegistering sets what Registering reports.
func (ss *secretSet) setRegistering(on bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.registering = on
}

func (ss *secretSet) SecretsOf(context.Context, string) ([][]byte, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return append([][]byte(nil), ss.s...), nil
}

func (ss *secretSet) Registering(context.Context) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.registering
}

func (ss *secretSet) Miss(context.Context) bool { return false }

// failingKeys is a Keys whose secrets cannot be loaded.
type failingKeys struct{ err error }

func (f failingKeys) SecretsOf(context.Context, string) ([][]byte, error) { return nil, f.err }
func (failingKeys) Registering(context.Context) bool                      { return false }
func (failingKeys) Miss(context.Context) bool                             { return false }

// mustOpenStore opens a real SQLite file in a temporary directory.
func mustOpenStore(tb testing.TB) *store.Store {
	tb.Helper()
	st, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "bankmirror.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := st.Close(); err != nil {
			tb.Error(err)
		}
	})
	return st
}

// mustStart starts a receiver on in and closes it at cleanup; its secret
// is secretA unless cfg says otherwise.
func mustStart(tb testing.TB, in inbox, cfg Config) *Receiver {
	tb.Helper()
	if cfg.Keys == nil {
		cfg.Keys = newSecretSet(secretA)
	}
	cfg.Log = zerolog.Nop()
	r := New(in, cfg)
	if err := r.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = r.Close() })
	return r
}

// perEventWriter stores each event in a transaction of its own, on the
// request's goroutine: no writer, no grouping (the benchmark's baseline).
type perEventWriter struct{ in inbox }

func (perEventWriter) start(context.Context) error { return nil }
func (perEventWriter) close()                      {}

func (p perEventWriter) store(ctx context.Context, ev store.InboxEvent) error {
	_, err := p.in.InsertEvents(ctx, []store.InboxEvent{ev})
	return err
}

// newPerEvent is a receiver on in that stores through perEventWriter; its
// secret is secretA.
func newPerEvent(tb testing.TB, in inbox) *Receiver {
	tb.Helper()
	cfg := Config{Keys: newSecretSet(secretA), Log: zerolog.Nop()}.withDefaults()
	r := newReceiver(cfg, cfg.Log, perEventWriter{in: in})
	tb.Cleanup(func() { _ = r.Close() })
	return r
}

// groupOf is r's group-commit writer.
func groupOf(r *Receiver) *groupWriter { return r.w.(*groupWriter) }

// watchBody wraps h so that onStart (if set) is called when the handler
// starts reading a request's body, and onLarge (if set) when it reads on
// past smallBody bytes: readBody has then taken a large buffer.
func watchBody(h http.Handler, onStart, onLarge func()) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		req.Body = &watchedBody{ReadCloser: req.Body, onStart: onStart, onLarge: onLarge}
		h.ServeHTTP(w, req)
	})
}

type watchedBody struct {
	io.ReadCloser
	onStart, onLarge func()
	reads, read      int
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if b.reads == 0 && b.onStart != nil {
		b.onStart()
	}
	if b.read >= smallBody && b.onLarge != nil {
		b.onLarge()
		b.onLarge = nil
	}
	b.reads++
	n, err := b.ReadCloser.Read(p)
	b.read += n
	return n, err
}

// post sends body to h with signature sig ("" for no header).
func post(h http.Handler, body []byte, sig string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set(SignatureHeader, sig)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// countRows counts webhook_events rows, all of them when id is "".
func countRows(tb testing.TB, st *store.Store, id string) int {
	tb.Helper()
	var n int
	q, args := "SELECT count(*) FROM webhook_events", []any{}
	if id != "" {
		q, args = q+" WHERE id = ?", append(args, id)
	}
	if err := st.Reader().QueryRow(q, args...).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// fakeInbox is a hand-written fake with a function field.
type fakeInbox struct {
	InsertEventsFn func(ctx context.Context, evs []store.InboxEvent) ([]string, error)
}

var _ inbox = (*fakeInbox)(nil)

func (f *fakeInbox) InsertEvents(ctx context.Context, evs []store.InboxEvent) ([]string, error) {
	return f.InsertEventsFn(ctx, evs)
}

// idsOf returns the ids of evs, as a store that inserted them all would.
func idsOf(evs []store.InboxEvent) []string {
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.ID
	}
	return ids
}

// eventID is the id in a body the bank package accepts, or "".
func eventID(body []byte) string {
	e, err := bank.ParseWebhookEvent(body)
	if err != nil {
		return ""
	}
	return e.ID
}
