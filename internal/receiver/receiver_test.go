package receiver

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/store"
)

// within guards channel waits so that a bug fails the test instead of
// hanging it; it is never used to synchronise.
const within = 10 * time.Second

func TestWebhook(t *testing.T) {
	created := eventBody("ev-created", "TRANSACTION_CREATED", "tx-1")
	ping := eventBody("ev-ping", "PING", "")
	big := append(eventBody("ev-big", "PING", ""), bytes.Repeat([]byte(" "), DefaultMaxBody)...)
	upper := strings.ToUpper(sign(created, secretA))
	exact := eventBody("ev-exact", "PING", "")
	exact = append(exact, bytes.Repeat([]byte(" "), DefaultMaxBody-len(exact))...)
	tests := []struct {
		name       string
		method     string
		path       string
		body       []byte
		sig        string
		chunked    bool // no Content-Length
		wantStatus int
		wantID     string // a row that must exist after a 200
		wantRows   int
	}{
		{name: "valid", body: created, sig: sign(created, secretA), wantStatus: 200, wantID: "ev-created", wantRows: 1},
		{name: "valid chunked", body: created, sig: sign(created, secretA), chunked: true, wantStatus: 200, wantID: "ev-created", wantRows: 1},
		{name: "ping without transaction", body: ping, sig: sign(ping, secretA), wantStatus: 200, wantID: "ev-ping", wantRows: 1},
		{name: "uppercase hex", body: created, sig: upper, wantStatus: 401},
		{name: "settled", body: eventBody("ev-s", "TRANSACTION_SETTLED", "tx-1"), sig: sign(eventBody("ev-s", "TRANSACTION_SETTLED", "tx-1"), secretA), wantStatus: 200, wantID: "ev-s", wantRows: 1},
		{name: "deleted", body: eventBody("ev-d", "TRANSACTION_DELETED", "tx-1"), sig: sign(eventBody("ev-d", "TRANSACTION_DELETED", "tx-1"), secretA), wantStatus: 200, wantID: "ev-d", wantRows: 1},

		{name: "missing signature", body: created, wantStatus: 401},
		{name: "wrong signature", body: created, sig: strings.Repeat("ab", 32), wantStatus: 401},
		{name: "not hex", body: created, sig: strings.Repeat("zz", 32), wantStatus: 401},
		{name: "short signature", body: created, sig: sign(created, secretA)[:62], wantStatus: 401},
		{name: "signature with another secret", body: created, sig: sign(created, []byte("someone-else")), wantStatus: 401},
		{name: "signature of another body", body: created, sig: sign(ping, secretA), wantStatus: 401},
		{name: "body changed after signing", body: append(bytes.Clone(created), ' '), sig: sign(created, secretA), wantStatus: 401},
		{name: "empty body", body: nil, wantStatus: 401},
		{name: "empty body with a signature", body: nil, sig: sign(created, secretA), wantStatus: 401},

		// A body that names no webhook has no secret to be signed with.
		{name: "malformed json", body: []byte(`{"data":`), sig: sign([]byte(`{"data":`), secretA), wantStatus: 401},
		{name: "signed empty body", body: nil, sig: sign(nil, secretA), wantStatus: 401},
		{name: "wrong data.type", body: bytes.Replace(created, []byte(`"webhook-events"`), []byte(`"transactions"`), 1),
			sig: sign(bytes.Replace(created, []byte(`"webhook-events"`), []byte(`"transactions"`), 1), secretA), wantStatus: 400},
		{name: "new eventType is stored", body: eventBody("ev-x", "TRANSACTION_EXPLODED", "tx-1"),
			sig: sign(eventBody("ev-x", "TRANSACTION_EXPLODED", "tx-1"), secretA), wantStatus: 200, wantRows: 1},
		{name: "malformed eventType", body: eventBody("ev-y", "exploded!", "tx-1"),
			sig: sign(eventBody("ev-y", "exploded!", "tx-1"), secretA), wantStatus: 400},
		{name: "created without transaction", body: eventBody("ev-y", "TRANSACTION_CREATED", ""),
			sig: sign(eventBody("ev-y", "TRANSACTION_CREATED", ""), secretA), wantStatus: 400},
		{name: "data not an object", body: []byte(`{"data":[1]}`), sig: sign([]byte(`{"data":[1]}`), secretA), wantStatus: 401},

		{name: "exactly the limit", body: exact, sig: sign(exact, secretA), wantStatus: 200, wantID: "ev-exact", wantRows: 1},
		{name: "exactly the limit chunked", body: exact, sig: sign(exact, secretA), chunked: true, wantStatus: 200, wantID: "ev-exact", wantRows: 1},
		{name: "over the limit", body: big, sig: sign(big, secretA), wantStatus: 413},
		{name: "over the limit chunked", body: big, sig: sign(big, secretA), chunked: true, wantStatus: 413},
		{name: "one byte over the limit chunked", body: append(bytes.Clone(exact), ' '), sig: sign(append(bytes.Clone(exact), ' '), secretA), chunked: true, wantStatus: 413},
		{name: "over the small buffer", body: append(eventBody("ev-mid", "PING", ""), bytes.Repeat([]byte(" "), 3*smallBody)...),
			sig: sign(append(eventBody("ev-mid", "PING", ""), bytes.Repeat([]byte(" "), 3*smallBody)...), secretA), chunked: true, wantStatus: 200, wantID: "ev-mid", wantRows: 1},

		{name: "GET", method: http.MethodGet, wantStatus: 405},
		{name: "HEAD", method: http.MethodHead, wantStatus: 405},
		{name: "PUT", method: http.MethodPut, body: created, sig: sign(created, secretA), wantStatus: 405},
		{name: "unknown path", path: "/webhooks", body: created, sig: sign(created, secretA), wantStatus: 404},
		{name: "subpath", path: "/webhook/x", body: created, sig: sign(created, secretA), wantStatus: 404},
		{name: "healthz is not public", method: http.MethodGet, path: "/healthz", wantStatus: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustOpenStore(t)
			r := mustStart(t, st, Config{})
			method, path := tt.method, tt.path
			if method == "" {
				method = http.MethodPost
			}
			if path == "" {
				path = "/webhook"
			}
			var body io.Reader = bytes.NewReader(tt.body)
			if tt.chunked {
				body = io.MultiReader(body) // hides the length
			}
			req := httptest.NewRequest(method, path, body)
			if tt.chunked {
				req.ContentLength = -1
			}
			if tt.sig != "" {
				req.Header.Set(SignatureHeader, tt.sig)
			}
			rec := httptest.NewRecorder()
			r.Handler().ServeHTTP(rec, req)

			if rec.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d (%s)", rec.Code, tt.wantStatus, rec.Body)
			}
			if got := countRows(t, st, ""); got != tt.wantRows {
				t.Errorf("rows = %d, want %d", got, tt.wantRows)
			}
			if tt.wantID != "" && countRows(t, st, tt.wantID) != 1 {
				t.Errorf("no row for %s", tt.wantID)
			}
			if tt.wantStatus == 405 {
				if got := rec.Header().Get("Allow"); got != "POST" {
					t.Errorf("Allow = %q, want POST", got)
				}
			}
		})
	}
}

func TestStoredRow(t *testing.T) {
	st := mustOpenStore(t)
	r := mustStart(t, st, Config{})
	for _, b := range [][]byte{eventBody("ev-1", "TRANSACTION_CREATED", "tx-9"), eventBody("ev-2", "PING", "")} {
		if rec := post(r.Handler(), b, sign(b, secretA)); rec.Code != 200 {
			t.Fatalf("status = %d", rec.Code)
		}
	}
	rows, err := st.Reader().Query(`SELECT id, event_type, webhook_id, transaction_id, created_at, source, body
		FROM webhook_events ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id, typ, wh, created, source, body string
		var tx sql.NullString
		if err := rows.Scan(&id, &typ, &wh, &tx, &created, &source, &body); err != nil {
			t.Fatal(err)
		}
		if body != string(eventBody(id, typ, tx.String)) {
			t.Errorf("%s: body is not the raw body", id)
		}
		got = append(got, fmt.Sprintf("%s %s %s %v %q %s %s", id, typ, wh, tx.Valid, tx.String, created, source))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`ev-1 TRANSACTION_CREATED wh-1 true "tx-9" 2024-08-05T12:20:07+10:00 webhook`,
		`ev-2 PING wh-1 false "" 2024-08-05T12:20:07+10:00 webhook`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCustomPath(t *testing.T) {
	st := mustOpenStore(t)
	r := mustStart(t, st, Config{Path: "hooks/bank"})
	b := eventBody("ev-1", "PING", "")
	req := httptest.NewRequest(http.MethodPost, "/hooks/bank", bytes.NewReader(b))
	req.Header.Set(SignatureHeader, sign(b, secretA))
	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("status = %d", rec.Code)
	}
	if rec := post(r.Handler(), b, sign(b, secretA)); rec.Code != 404 {
		t.Errorf("default path = %d, want 404", rec.Code)
	}
}

func TestDuplicate(t *testing.T) {
	st := mustOpenStore(t)
	r := mustStart(t, st, Config{})
	b := eventBody("ev-dup", "TRANSACTION_SETTLED", "tx-1")
	for i := range 3 {
		if rec := post(r.Handler(), b, sign(b, secretA)); rec.Code != 200 {
			t.Fatalf("delivery %d: status = %d", i, rec.Code)
		}
	}
	// Concurrent redeliveries may share a batch: still one row, all 200.
	c := eventBody("ev-dup-2", "TRANSACTION_SETTLED", "tx-2")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if rec := post(r.Handler(), c, sign(c, secretA)); rec.Code != 200 {
				t.Errorf("status = %d", rec.Code)
			}
		})
	}
	wg.Wait()
	if n := countRows(t, st, ""); n != 2 {
		t.Errorf("rows = %d, want 2", n)
	}
}

func TestSecretRotation(t *testing.T) {
	st := mustOpenStore(t)
	secrets := newSecretSet(secretA, secretB)
	r := mustStart(t, st, Config{Keys: secrets})
	h := r.Handler()

	a, b := eventBody("ev-a", "PING", ""), eventBody("ev-b", "PING", "")
	if rec := post(h, a, sign(a, secretA)); rec.Code != 200 {
		t.Errorf("old secret: %d", rec.Code)
	}
	if rec := post(h, b, sign(b, secretB)); rec.Code != 200 {
		t.Errorf("new secret: %d", rec.Code)
	}

	// A secret registered while running is accepted without a restart.
	secretC := []byte("whsec-charlie")
	c := eventBody("ev-c", "PING", "")
	if rec := post(h, c, sign(c, secretC)); rec.Code != 401 {
		t.Fatalf("before registration: %d, want 401", rec.Code)
	}
	secrets.add(secretC)
	if rec := post(h, c, sign(c, secretC)); rec.Code != 200 {
		t.Errorf("after registration: %d, want 200", rec.Code)
	}
	if n := countRows(t, st, ""); n != 3 {
		t.Errorf("rows = %d, want 3", n)
	}
}

func TestEmptySecretNeverMatches(t *testing.T) {
	st := mustOpenStore(t)
	r := mustStart(t, st, Config{Keys: newSecretSet([]byte{})})
	b := eventBody("ev-1", "PING", "")
	if rec := post(r.Handler(), b, sign(b, nil)); rec.Code != 401 {
		t.Errorf("status = %d, want 401", rec.Code)
	}
}

func TestSecretsError(t *testing.T) {
	st := mustOpenStore(t)
	r := mustStart(t, st, Config{Keys: failingKeys{err: errors.New("vault sealed")}})
	b := eventBody("ev-1", "PING", "")
	if rec := post(r.Handler(), b, sign(b, secretA)); rec.Code != 503 {
		t.Errorf("status = %d, want 503", rec.Code)
	}
	if n := countRows(t, st, ""); n != 0 {
		t.Errorf("rows = %d", n)
	}
}

func TestNotify(t *testing.T) {
	st := mustOpenStore(t)
	notified := make(chan []string, 16)
	r := mustStart(t, st, Config{Notify: func(ids []string) { notified <- ids }})
	h := r.Handler()
	next := func() []string {
		t.Helper()
		select {
		case ids := <-notified:
			return ids
		case <-time.After(within):
			t.Fatal("Notify not called")
			return nil
		}
	}

	a := eventBody("ev-a", "TRANSACTION_CREATED", "tx-1")
	if rec := post(h, a, sign(a, secretA)); rec.Code != 200 {
		t.Fatalf("status = %d", rec.Code)
	}
	if got := next(); fmt.Sprint(got) != "[ev-a]" {
		t.Errorf("Notify(%v), want [ev-a]", got)
	}
	// A redelivery inserts nothing and does not notify: the next call is
	// for the next new event.
	if rec := post(h, a, sign(a, secretA)); rec.Code != 200 {
		t.Fatalf("status = %d", rec.Code)
	}
	b := eventBody("ev-b", "TRANSACTION_SETTLED", "tx-1")
	if rec := post(h, b, sign(b, secretA)); rec.Code != 200 {
		t.Fatalf("status = %d", rec.Code)
	}
	if got := next(); fmt.Sprint(got) != "[ev-b]" {
		t.Errorf("Notify(%v), want [ev-b]", got)
	}
}

func TestStoreFailure(t *testing.T) {
	var notified bool
	in := &fakeInbox{InsertEventsFn: func(context.Context, []store.InboxEvent) ([]string, error) {
		return nil, errors.New("disk I/O error")
	}}
	r := mustStart(t, in, Config{Notify: func([]string) { notified = true }})
	b := eventBody("ev-1", "PING", "")
	if rec := post(r.Handler(), b, sign(b, secretA)); rec.Code != 503 {
		t.Errorf("status = %d, want 503", rec.Code)
	}
	// The 503 is sent after the writer finished with the batch.
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if notified {
		t.Error("Notify called after a failed commit")
	}
}

func TestStoreFailureDirect(t *testing.T) {
	in := &fakeInbox{InsertEventsFn: func(context.Context, []store.InboxEvent) ([]string, error) {
		return nil, errors.New("disk I/O error")
	}}
	r := newPerEvent(t, in)
	b := eventBody("ev-1", "PING", "")
	if rec := post(r.Handler(), b, sign(b, secretA)); rec.Code != 503 {
		t.Errorf("status = %d, want 503", rec.Code)
	}
}

func TestNotStarted(t *testing.T) {
	st := mustOpenStore(t)
	r := New(st, Config{Keys: newSecretSet(secretA)})
	b := eventBody("ev-1", "PING", "")
	if rec := post(r.Handler(), b, sign(b, secretA)); rec.Code != 503 {
		t.Errorf("status = %d, want 503", rec.Code)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close = %v, want ErrClosed", err)
	}
}

func TestStartTwice(t *testing.T) {
	r := mustStart(t, &fakeInbox{}, Config{})
	if err := r.Start(context.Background()); err == nil {
		t.Error("second Start succeeded")
	}
}

// blockingInbox records batch sizes; the first InsertEvents announces
// itself on entered and waits for release.
type blockingInbox struct {
	fakeInbox
	mu      sync.Mutex
	sizes   []int
	entered chan struct{}
	release chan struct{}
}

func newBlockingInbox() *blockingInbox {
	b := &blockingInbox{entered: make(chan struct{}), release: make(chan struct{})}
	first := true
	b.InsertEventsFn = func(ctx context.Context, evs []store.InboxEvent) ([]string, error) {
		b.mu.Lock()
		b.sizes = append(b.sizes, len(evs))
		wait := first
		first = false
		b.mu.Unlock()
		if wait {
			close(b.entered)
			<-b.release
		}
		return idsOf(evs), nil
	}
	return b
}

func (b *blockingInbox) batchSizes() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]int(nil), b.sizes...)
}

// queuedRequests waits until every goroutine of the test's bubble is
// blocked (a request is then queued or waiting for its commit), and
// reports how many requests r's writer has queued.
func queuedRequests(r *Receiver) int {
	synctest.Wait()
	return len(groupOf(r).queue)
}

// Events queued while a commit runs go into the next one together. The test
// runs in a synctest bubble, where queuedRequests tells when they all wait.
func TestGroupCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 32
		in := newBlockingInbox()
		r := mustStart(t, in, Config{})
		h := r.Handler()

		var wg sync.WaitGroup
		send := func(i int) {
			b := eventBody(fmt.Sprintf("ev-%d", i), "PING", "")
			if rec := post(h, b, sign(b, secretA)); rec.Code != 200 {
				t.Errorf("event %d: status = %d", i, rec.Code)
			}
		}
		// The first event occupies the writer...
		wg.Go(func() { send(0) })
		waitFor(t, in.entered)
		// ...while n more queue up behind it.
		for i := 1; i <= n; i++ {
			wg.Go(func() { send(i) })
		}
		if q := queuedRequests(r); q != n {
			t.Fatalf("%d requests queued behind the first commit, want %d", q, n)
		}
		close(in.release)
		wg.Wait()

		sizes := in.batchSizes()
		if fmt.Sprint(sizes) != fmt.Sprint([]int{1, n}) {
			t.Errorf("batch sizes = %v, want [1 %d]", sizes, n)
		}
	})
}

// TestGroupCommitRealStore checks a concurrent burst against SQLite: every
// event stored once and acknowledged.
func TestGroupCommitRealStore(t *testing.T) {
	st := mustOpenStore(t)
	r := mustStart(t, st, Config{})
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	const n = 128
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			b := eventBody(fmt.Sprintf("ev-%d", i), "TRANSACTION_CREATED", fmt.Sprintf("tx-%d", i))
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhook", bytes.NewReader(b))
			req.Header.Set(SignatureHeader, sign(b, secretA))
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("event %d: status = %d", i, resp.StatusCode)
			}
		})
	}
	wg.Wait()
	if got := countRows(t, st, ""); got != n {
		t.Errorf("rows = %d, want %d", got, n)
	}
}

func TestCloseFailsQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := newBlockingInbox()
		r := mustStart(t, in, Config{})
		h := r.Handler()

		codes := make(chan int, 2)
		b1, b2 := eventBody("ev-1", "PING", ""), eventBody("ev-2", "PING", "")
		go func() { codes <- post(h, b1, sign(b1, secretA)).Code }()
		waitFor(t, in.entered)
		go func() { codes <- post(h, b2, sign(b2, secretA)).Code }()
		if q := queuedRequests(r); q != 1 {
			t.Fatalf("%d requests queued behind the first commit, want 1", q)
		}

		closed := make(chan error)
		go func() { closed <- r.Close() }()
		waitFor(t, groupOf(r).stop) // Close has begun; the writer is still inside the insert
		close(in.release)
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		got := []int{<-codes, <-codes}
		// The commit in progress completes (200); the queued request fails.
		if (got[0] != 200 || got[1] != 503) && (got[0] != 503 || got[1] != 200) {
			t.Errorf("codes = %v, want one 200 and one 503", got)
		}
		if sizes := in.batchSizes(); fmt.Sprint(sizes) != "[1]" {
			t.Errorf("batches = %v, want [1]", sizes)
		}
		// After Close, requests fail at once.
		if rec := post(h, b2, sign(b2, secretA)); rec.Code != 503 {
			t.Errorf("after Close: %d, want 503", rec.Code)
		}
	})
}

func TestRequestCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := newBlockingInbox()
		r := mustStart(t, in, Config{})
		h := r.Handler()

		b1, b2 := eventBody("ev-1", "PING", ""), eventBody("ev-2", "PING", "")
		done1 := make(chan int, 1)
		go func() { done1 <- post(h, b1, sign(b1, secretA)).Code }()
		waitFor(t, in.entered)

		// The second request gives up while queued: it returns without
		// waiting for the writer, and its event is not inserted.
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/webhook", bytes.NewReader(b2))
		req.Header.Set(SignatureHeader, sign(b2, secretA))
		done2 := make(chan int, 1)
		go func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			done2 <- rec.Code
		}()
		if q := queuedRequests(r); q != 1 {
			t.Fatalf("%d requests queued behind the first commit, want 1", q)
		}
		cancel()
		if code := <-done2; code != 503 {
			t.Errorf("canceled request: %d, want 503", code)
		}
		close(in.release)
		if code := <-done1; code != 200 {
			t.Errorf("first request: %d", code)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if sizes := in.batchSizes(); fmt.Sprint(sizes) != "[1]" {
			t.Errorf("batches = %v, want [1] (the canceled event dropped)", sizes)
		}
	})
}

// The receiver runs on the server httpserver.New makes, as in the daemon: a
// delivery over loopback is stored, and the server stops cleanly.
func TestServedByHTTPServer(t *testing.T) {
	st := mustOpenStore(t)
	r := mustStart(t, st, Config{})
	srv, err := httpserver.Start(t.Context(), "webhook listener", "127.0.0.1:0", httpserver.New(r.Handler()),
		httpserver.LimitListener(httpserver.DefaultMaxConns))
	if err != nil {
		t.Fatal(err)
	}
	b := eventBody("ev-1", "PING", "")
	req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/webhook", bytes.NewReader(b))
	req.Header.Set(SignatureHeader, sign(b, secretA))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("status = %d", resp.StatusCode)
	}
	if err := srv.Shutdown(within); err != nil {
		t.Fatal(err)
	}
	if countRows(t, st, "ev-1") != 1 {
		t.Error("event not stored")
	}
}

// The server's limits leave the receiver its own deadlines: with no
// deadline set by the handler, a body within DefaultBodyTimeout after the
// headers is still read, and the answer after the longest commit wait is
// still written.
func TestServerLimitsFitTheReceiver(t *testing.T) {
	if httpserver.ReadTimeout < httpserver.ReadHeaderTimeout+DefaultBodyTimeout {
		t.Errorf("ReadTimeout %s < ReadHeaderTimeout %s + DefaultBodyTimeout %s",
			httpserver.ReadTimeout, httpserver.ReadHeaderTimeout, DefaultBodyTimeout)
	}
	if httpserver.WriteTimeout <= DefaultBodyTimeout+ackTimeout {
		t.Errorf("WriteTimeout %s <= DefaultBodyTimeout %s + ackTimeout %s",
			httpserver.WriteTimeout, DefaultBodyTimeout, ackTimeout)
	}
}

func waitFor[T any](t *testing.T, ch <-chan T) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(within):
		t.Fatal("timed out waiting")
	}
}

func TestLogs(t *testing.T) {
	st := mustOpenStore(t)
	var buf bytes.Buffer
	var mu sync.Mutex
	w := &lockedWriter{w: &buf, mu: &mu}
	r := New(st, Config{Keys: newSecretSet(secretA), Log: zerolog.New(w).Level(zerolog.DebugLevel)})
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := r.Handler()
	good := eventBody("ev-good", "TRANSACTION_CREATED", "tx-good")
	bad := eventBody("ev-bad", "TRANSACTION_"+strings.Repeat("X", 1000), "tx-bad")
	post(h, good, sign(good, secretA))
	post(h, bad, sign(bad, secretA))
	post(h, good, sign(good, []byte("wrong")))
	post(h, good, "")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	out := buf.String()
	mu.Unlock()
	for _, forbidden := range []string{string(secretA), sign(good, secretA), sign(good, []byte("wrong")), `"relationships"`, "bank.example", strings.Repeat("X", 300)} {
		if strings.Contains(out, forbidden) {
			t.Errorf("log contains %q:\n%s", forbidden, out)
		}
	}
	for _, want := range []string{
		`"level":"debug","component":"receiver","event_id":"ev-good","event_type":"TRANSACTION_CREATED","transaction_id":"tx-good","status":200`,
		`"level":"warn","component":"receiver","reason":"malformed","status":400,"error":"decode webhook event`,
		`"level":"warn","component":"receiver","reason":"signature_invalid","status":401`,
		`"level":"warn","component":"receiver","reason":"signature_missing","status":401`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestStartContextEnds(t *testing.T) {
	st := mustOpenStore(t)
	r := New(st, Config{Keys: newSecretSet(secretA), Log: zerolog.Nop()})
	ctx, cancel := context.WithCancel(context.Background())
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	waitFor(t, groupOf(r).done)
	b := eventBody("ev-1", "PING", "")
	if rec := post(r.Handler(), b, sign(b, secretA)); rec.Code != 503 {
		t.Errorf("status = %d, want 503", rec.Code)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, st, ""); n != 0 {
		t.Errorf("rows = %d", n)
	}
}
