package receiver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

// These tests hold the endpoint to what it promises a stranger on the
// internet: over real loopback connections, with the production server
// settings (httpserver.New), nothing refused costs a database call, a body
// is never read before its signature header passed, slow bodies are cut
// and hold no slot, and refusals are logged as counts.

// serveLoopback serves h (a receiver's handler) with the production server
// settings and returns its address.
func serveLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	srv, err := httpserver.Start(t.Context(), "webhook listener", "127.0.0.1:0", httpserver.New(h))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(0) })
	return strings.TrimPrefix(srv.URL(), "http://")
}

// dial opens a connection whose reads fail after the test's guard rather
// than hang.
func dial(t *testing.T, addr string) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.SetReadDeadline(time.Now().Add(within)); err != nil {
		t.Fatal(err)
	}
	return c.(*net.TCPConn)
}

// head is a request's line and headers, ready to write; sig "" sends no
// signature header, length < 0 a chunked body.
func head(method, path, sig string, length int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: bank-hooks.example\r\nContent-Type: application/json\r\n", method, path)
	if sig != "" {
		fmt.Fprintf(&b, "%s: %s\r\n", SignatureHeader, sig)
	}
	if length >= 0 {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", length)
	} else {
		b.WriteString("Transfer-Encoding: chunked\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// readResponse reads one response from c and its body.
func readResponse(t *testing.T, c net.Conn) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// randomSig is a well-formed signature no secret produces.
func randomSig() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// reasonLog collects OnRefused's calls.
type reasonLog struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *reasonLog) add(reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[string]int{}
	}
	l.n[reason]++
}

func (l *reasonLog) counts() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for k, v := range l.n {
		out[k] = v
	}
	return out
}

// countingInbox counts the calls that reach the real store.
type countingInbox struct {
	in    inbox
	calls atomic.Int64
}

func (c *countingInbox) InsertEvents(ctx context.Context, evs []store.InboxEvent) ([]string, error) {
	c.calls.Add(1)
	return c.in.InsertEvents(ctx, evs)
}

// countingSecrets counts the reads of the store's secrets.
type countingSecrets struct {
	*store.Store
	loads atomic.Int64
}

func (c *countingSecrets) WebhookKeys(ctx context.Context) ([]store.WebhookKey, error) {
	c.loads.Add(1)
	return c.Store.WebhookKeys(ctx)
}

// Every kind of refused request, sent over real connections to a receiver
// on a real store whose secrets come from the store through the daemon's
// webhooks.SecretCache (watching its WAL), runs no SQL: neither the inbox
// nor the secrets are read, whatever the refusal. Each is reported to
// OnRefused with its reason. A genuine delivery afterwards reaches the
// inbox's counter, so it does count.
func TestRefusedRequestsRunNoSQL(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t)
	if err := st.SaveWebhook(ctx, store.Webhook{ID: "wh-1", URL: "https://bank-hooks.example/webhook",
		SecretKey: string(secretA), CreatedAt: "2024-08-05T12:20:07+10:00"}); err != nil {
		t.Fatal(err)
	}
	secrets := &countingSecrets{Store: st}
	// As in the daemon: a miss reloads only if the database's WAL (every
	// commit writes it) changed since the last load.
	cache := webhooks.NewSecretCache(secrets, nil, time.Hour, zerolog.Nop())
	if err := cache.Load(ctx); err != nil {
		t.Fatal(err)
	}
	in := &countingInbox{in: st}
	var reasons reasonLog
	r := mustStart(t, in, Config{Keys: cache, BodyTimeout: 200 * time.Millisecond, OnRefused: reasons.add})
	addr := serveLoopback(t, r.Handler())

	signedBad := eventBody("ev-bad", "TRANSACTION_CREATED", "") // names wh-1, lacks its transaction
	big := bytes.Repeat([]byte(" "), DefaultMaxBody+1)
	cases := []struct {
		name       string
		send       func(c *net.TCPConn)
		wantStatus int
		wantReason string
	}{
		{"GET on the path", func(c *net.TCPConn) { _, _ = io.WriteString(c, head("GET", "/webhook", "", 0)) }, 405, ReasonMethod},
		{"PUT on the path", func(c *net.TCPConn) { _, _ = io.WriteString(c, head("PUT", "/webhook", randomSig(), 2)+"{}") }, 405, ReasonMethod},
		{"another path", func(c *net.TCPConn) { _, _ = io.WriteString(c, head("POST", "/readyz", randomSig(), 2)+"{}") }, 404, ReasonPath},
		{"OPTIONS *", func(c *net.TCPConn) { _, _ = io.WriteString(c, head("OPTIONS", "*", "", 0)) }, 404, ReasonPath},
		{"no signature", func(c *net.TCPConn) { _, _ = io.WriteString(c, head("POST", "/webhook", "", 2)+"{}") }, 401, ReasonSignatureMissing},
		{"uppercase signature", func(c *net.TCPConn) {
			_, _ = io.WriteString(c, head("POST", "/webhook", strings.ToUpper(sign([]byte("{}"), secretA)), 2)+"{}")
		}, 401, ReasonSignatureMalformed},
		{"short signature", func(c *net.TCPConn) { _, _ = io.WriteString(c, head("POST", "/webhook", randomSig()[:63], 2)+"{}") }, 401, ReasonSignatureMalformed},
		{"non-hex signature", func(c *net.TCPConn) {
			_, _ = io.WriteString(c, head("POST", "/webhook", strings.Repeat("zz", 32), 2)+"{}")
		}, 401, ReasonSignatureMalformed},
		{"declared too large", func(c *net.TCPConn) { _, _ = io.WriteString(c, head("POST", "/webhook", randomSig(), 1<<20)) }, 413, ReasonBodyTooLarge},
		{"chunked too large", func(c *net.TCPConn) {
			_, _ = io.WriteString(c, head("POST", "/webhook", randomSig(), -1)+fmt.Sprintf("%x\r\n", len(big)))
			go func() { _, _ = c.Write(big) }() // the server stops reading past the limit
		}, 413, ReasonBodyTooLarge},
		{"body never finished", func(c *net.TCPConn) { _, _ = io.WriteString(c, head("POST", "/webhook", randomSig(), 100)+`{"data":`) }, 408, ReasonBodyTimeout},
		{"connection half-closed mid-body", func(c *net.TCPConn) {
			_, _ = io.WriteString(c, head("POST", "/webhook", randomSig(), 100)+`{"data":`)
			_ = c.CloseWrite()
		}, 400, ReasonBodyIncomplete},
		{"signature of no secret", func(c *net.TCPConn) {
			b := eventBody("ev-x", "PING", "")
			_, _ = io.WriteString(c, head("POST", "/webhook", sign(b, []byte("not-a-secret")), len(b))+string(b))
		}, 401, ReasonSignatureInvalid},
		{"authentic but not an event", func(c *net.TCPConn) {
			_, _ = io.WriteString(c, head("POST", "/webhook", sign(signedBad, secretA), len(signedBad))+string(signedBad))
		}, 400, ReasonMalformed},
	}
	want := map[string]int{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, addr)
			tc.send(c)
			resp, _ := readResponse(t, c)
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			if tc.wantStatus == 405 && resp.Header.Get("Allow") != "POST" {
				t.Errorf("Allow = %q, want POST", resp.Header.Get("Allow"))
			}
			if tc.wantReason != ReasonMalformed && !resp.Close {
				t.Error("a stranger's connection is kept open")
			}
		})
		want[tc.wantReason]++
	}

	// During a registration, an unknown signature is 503: still no SQL.
	if err := st.BeginWebhookRegistration(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cache.Load(ctx); err != nil {
		t.Fatal(err)
	}
	c := dial(t, addr)
	b := eventBody("ev-y", "PING", "")
	_, _ = io.WriteString(c, head("POST", "/webhook", sign(b, secretB), len(b))+string(b))
	if resp, _ := readResponse(t, c); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("unknown signature during a registration: %d, want 503", resp.StatusCode)
	}
	want[ReasonRegistering]++

	if n := in.calls.Load(); n != 0 {
		t.Errorf("refused requests called the inbox %d times", n)
	}
	if n := secrets.loads.Load(); n != 2 {
		t.Errorf("secrets loaded %d times, want 2 (the test's own loads): refused requests read the database", n)
	}
	if got := reasons.counts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("OnRefused reasons %v, want %v", got, want)
	}
	for reason := range want {
		found := false
		for _, r := range Reasons() {
			found = found || r == reason
		}
		if !found {
			t.Errorf("reason %q is not in Reasons()", reason)
		}
	}
	if n := countRows(t, st, ""); n != 0 {
		t.Errorf("%d rows stored", n)
	}

	// The counters see a genuine delivery.
	good := eventBody("ev-good", "TRANSACTION_CREATED", "tx-1")
	c = dial(t, addr)
	_, _ = io.WriteString(c, head("POST", "/webhook", sign(good, secretA), len(good))+string(good))
	if resp, _ := readResponse(t, c); resp.StatusCode != http.StatusOK {
		t.Fatalf("genuine delivery: %d", resp.StatusCode)
	}
	if n := in.calls.Load(); n != 1 {
		t.Errorf("inbox calls after a genuine delivery: %d, want 1", n)
	}
}

// A signature header is checked before any of the body is read: a request
// whose body never comes is answered at once when its signature header is
// missing or malformed, or its declared length is over the limit. The body
// deadline is an hour, so an answer can only come from the header checks.
func TestSignatureCheckedBeforeBody(t *testing.T) {
	var reasons reasonLog
	var bodies atomic.Int64
	r := mustStart(t, &fakeInbox{}, Config{BodyTimeout: time.Hour, OnRefused: reasons.add})
	addr := serveLoopback(t, watchBody(r.Handler(), func() { bodies.Add(1) }, nil))
	for _, tc := range []struct {
		name, sig  string
		length     int
		wantStatus int
	}{
		{"missing", "", 1000, 401},
		{"malformed", strings.Repeat("g", 64), 1000, 401},
		{"uppercase", strings.ToUpper(randomSig()), 1000, 401},
		{"well-formed, declared over the limit", randomSig(), DefaultMaxBody + 1, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, addr)
			if _, err := io.WriteString(c, head("POST", "/webhook", tc.sig, tc.length)); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			// The server does not wait for the body it will not read:
			// the connection closes (the read deadline is the test's
			// guard; the server's own ReadTimeout is as long).
			if _, err := br.ReadByte(); !errors.Is(err, io.EOF) && !isReset(err) {
				t.Errorf("after the answer the connection gave %v, want it closed", err)
			}
		})
	}
	if n := bodies.Load(); n != 0 {
		t.Errorf("%d bodies were read", n)
	}
	if got := fmt.Sprint(reasons.counts()); got != "map[body_too_large:1 signature_malformed:2 signature_missing:1]" {
		t.Errorf("reasons %s", got)
	}
}

// trickle writes a byte to c every interval until stop is closed or a
// write fails.
func trickle(c net.Conn, every time.Duration, stop <-chan struct{}) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			if _, err := io.WriteString(c, " "); err != nil {
				return
			}
		}
	}
}

// Hundreds of connections trickling their bodies (well-formed signature
// headers, a byte now and then) hold no in-flight slot: with four slots and
// 300 of them reading, a genuine delivery is answered 200 and stored.
func TestSlowBodiesDoNotBlockAGenuineDelivery(t *testing.T) {
	const tricklers = 300
	st := mustOpenStore(t)
	reading := make(chan struct{}, tricklers+1)
	r := mustStart(t, st, Config{MaxInFlight: 4, BodyTimeout: within})
	addr := serveLoopback(t, watchBody(r.Handler(), func() { reading <- struct{}{} }, nil))

	stop := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() {
		close(stop)
		wg.Wait()
	})
	for range tricklers {
		c := dial(t, addr)
		if _, err := io.WriteString(c, head("POST", "/webhook", randomSig(), 1000)+"{"); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { trickle(c, 100*time.Millisecond, stop) })
	}
	for range tricklers {
		waitFor(t, reading)
	}

	good := eventBody("ev-genuine", "TRANSACTION_CREATED", "tx-1")
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(SignatureHeader, sign(good, secretA))
	resp, err := (&http.Client{Timeout: within}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("genuine delivery among %d slow bodies: %d, want 200", tricklers, resp.StatusCode)
	}
	if countRows(t, st, "ev-genuine") != 1 {
		t.Error("genuine event not stored")
	}
}

// At the listener's connection cap, every slot held by a connection
// trickling its body, a genuine delivery is not left waiting for a body
// deadline: the connection reading its body the longest is closed for it,
// and the delivery is answered 200 and stored.
func TestSlowBodiesAtTheConnectionCap(t *testing.T) {
	const slots = 8
	st := mustOpenStore(t)
	reading := make(chan struct{}, slots+1)
	r := mustStart(t, st, Config{BodyTimeout: time.Hour})
	h := watchBody(r.Handler(), func() { reading <- struct{}{} }, nil)
	srv, err := httpserver.Start(t.Context(), "webhook listener", "127.0.0.1:0", httpserver.New(h),
		httpserver.LimitListener(slots))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(0) })
	addr := strings.TrimPrefix(srv.URL(), "http://")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() {
		close(stop)
		wg.Wait()
	})
	var slow []*net.TCPConn
	for range slots {
		c := dial(t, addr)
		if _, err := io.WriteString(c, head("POST", "/webhook", randomSig(), 1000)+"{"); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { trickle(c, 100*time.Millisecond, stop) })
		waitFor(t, reading)
		slow = append(slow, c)
	}

	good := eventBody("ev-at-the-cap", "TRANSACTION_CREATED", "tx-1")
	c := dial(t, addr)
	_, _ = io.WriteString(c, head("POST", "/webhook", sign(good, secretA), len(good))+string(good))
	if resp, body := readResponse(t, c); resp.StatusCode != http.StatusOK {
		t.Fatalf("genuine delivery with every slot trickling a body: %d %q, want 200", resp.StatusCode, body)
	}
	if countRows(t, st, "ev-at-the-cap") != 1 {
		t.Error("genuine event not stored")
	}
	// The first trickler, reading its body the longest, was closed: its
	// next read finds the end of the stream (or a reset), never an answer.
	_ = slow[0].SetReadDeadline(time.Now().Add(within))
	if n, err := slow[0].Read(make([]byte, 1)); n != 0 || (!errors.Is(err, io.EOF) && !isReset(err)) {
		t.Errorf("the oldest slow body's connection: %d bytes, %v; want it closed", n, err)
	}
}

// A body that trickles in is cut at BodyTimeout: the client gets 408 and
// its connection is closed, however often it sends a byte.
func TestSlowBodyIsCut(t *testing.T) {
	var reasons reasonLog
	r := mustStart(t, &fakeInbox{}, Config{BodyTimeout: 200 * time.Millisecond, OnRefused: reasons.add})
	addr := serveLoopback(t, r.Handler())
	c := dial(t, addr)
	if _, err := io.WriteString(c, head("POST", "/webhook", randomSig(), DefaultMaxBody)); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		trickle(c, 20*time.Millisecond, stop)
	}()
	defer func() { close(stop); <-done }()
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
		t.Errorf("slow body: %d (close %v), want 408 and the connection closed", resp.StatusCode, resp.Close)
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Errorf("after the 408 the connection gave %v, want it closed", err)
	}
	if got := reasons.counts()[ReasonBodyTimeout]; got != 1 {
		t.Errorf("body_timeout reported %d times", got)
	}
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

// slowInbox is a store whose commits take longer than a body deadline.
type slowInbox struct {
	in    inbox
	delay time.Duration
}

func (s slowInbox) InsertEvents(ctx context.Context, evs []store.InboxEvent) ([]string, error) {
	select {
	case <-time.After(s.delay): // a slow disk, not a synchronisation
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.in.InsertEvents(ctx, evs)
}

// The body's deadline ends with the body: a commit that takes longer than
// BodyTimeout is still waited for and acknowledged.
func TestCommitOutlastsTheBodyDeadline(t *testing.T) {
	st := mustOpenStore(t)
	r := mustStart(t, slowInbox{in: st, delay: 300 * time.Millisecond}, Config{BodyTimeout: 30 * time.Millisecond})
	addr := serveLoopback(t, r.Handler())
	good := eventBody("ev-slow-commit", "PING", "")
	c := dial(t, addr)
	_, _ = io.WriteString(c, head("POST", "/webhook", sign(good, secretA), len(good))+string(good))
	if resp, body := readResponse(t, c); resp.StatusCode != http.StatusOK {
		t.Fatalf("delivery with a slow commit: %d %q, want 200", resp.StatusCode, body)
	}
	if countRows(t, st, "ev-slow-commit") != 1 {
		t.Error("event not stored")
	}
}

// logLines parses a captured JSON log.
func logLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}

// 3,000 refused requests of three kinds write four log lines: the first of
// each kind in full, and one summary with the count of the others (at
// Close here, as the interval is an hour).
func TestRefusalLogIsBounded(t *testing.T) {
	const perKind = 1000
	var buf bytes.Buffer
	var mu sync.Mutex
	r := New(&fakeInbox{}, Config{Keys: newSecretSet(secretA), RefusedLogInterval: time.Hour,
		Log: zerolog.New(&lockedWriter{w: &buf, mu: &mu}).Level(zerolog.InfoLevel)})
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	addr := serveLoopback(t, r.Handler())
	heads := []string{
		head("POST", "/webhook", "", 0),
		head("POST", "/webhook", "xyz", 0),
		head("POST", "/", "", 0),
	}
	var wg sync.WaitGroup
	var failed atomic.Int64
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < 3*perKind; i += 16 {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					failed.Add(1)
					continue
				}
				_ = c.SetDeadline(time.Now().Add(within))
				if _, err := io.WriteString(c, heads[i%3]); err == nil {
					if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil && resp.StatusCode >= 400 {
						resp.Body.Close()
					} else {
						failed.Add(1)
					}
				}
				c.Close()
			}
		})
	}
	wg.Wait()
	if n := failed.Load(); n != 0 {
		t.Fatalf("%d requests got no refusal", n)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	lines := logLines(t, buf.String())
	mu.Unlock()
	if len(lines) != 4 {
		t.Fatalf("%d log lines for %d refused requests, want 4:\n%v", len(lines), 3*perKind, lines)
	}
	full := map[any]bool{}
	for _, l := range lines[:3] {
		full[l[logfield.Reason]] = true
	}
	if !full[ReasonSignatureMissing] || !full[ReasonSignatureMalformed] || !full[ReasonPath] {
		t.Errorf("first lines %v, want one for each reason", lines[:3])
	}
	sum := lines[3]
	want := map[string]any{ReasonSignatureMissing: float64(perKind - 1), ReasonSignatureMalformed: float64(perKind - 1), ReasonPath: float64(perKind - 1)}
	if fmt.Sprint(sum[logfield.Refused]) != fmt.Sprint(want) || sum[logfield.Total] != float64(3*perKind-3) {
		t.Errorf("summary %v, want refused=%v total=%d", sum, want, 3*perKind-3)
	}
}

// notifyWriter signals each write.
type notifyWriter struct {
	lockedWriter
	wrote chan struct{}
}

func (n *notifyWriter) Write(p []byte) (int, error) {
	k, err := n.lockedWriter.Write(p)
	select {
	case n.wrote <- struct{}{}:
	default:
	}
	return k, err
}

// While refusals keep coming, a summary is written each interval, without
// waiting for Close; after a quiet interval the next refusal is logged in
// full again.
func TestRefusalSummaryEachInterval(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	w := &notifyWriter{lockedWriter: lockedWriter{w: &buf, mu: &mu}, wrote: make(chan struct{}, 1)}
	r := New(&fakeInbox{}, Config{RefusedLogInterval: 20 * time.Millisecond, Log: zerolog.New(w)})
	h := r.Handler()
	logged := func() string {
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
	lines := func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return logLines(t, buf.String())
	}
	// count sums the full lines and the summaries' totals.
	count := func(ls []map[string]any) (full, summarised int) {
		for _, l := range ls {
			if l[logfield.Reason] == ReasonSignatureMissing {
				full++
			}
			if n, ok := l[logfield.Total].(float64); ok {
				summarised += int(n)
			}
		}
		return full, summarised
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.After(within)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for !cond() {
			select {
			case <-w.wrote:
			case <-tick.C:
			case <-deadline:
				t.Fatalf("waiting for %s; log:\n%s", what, logged())
			}
		}
	}
	for range 5 {
		post(h, []byte("{}"), "")
	}
	wait("a summary of 4", func() bool { full, sum := count(lines()); return full == 1 && sum == 4 })
	wait("the log to go quiet", r.refused.counts.Quiet)
	post(h, []byte("{}"), "")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if full, sum := count(lines()); full != 2 || sum != 4 {
		t.Errorf("%d full lines and %d summarised refusals, want 2 and 4:\n%s", full, sum, logged())
	}
}

// Bodies over 4 KiB are read into 64 KiB buffers before their signature can
// be checked; strangers sending them on many connections get 503 once
// MaxLargeBodies are in use (memory stays bounded), while genuine
// deliveries, which are small, are answered 200.
func TestLargeBodiesAreCapped(t *testing.T) {
	const holders = 4
	var reasons reasonLog
	st := mustOpenStore(t)
	r := mustStart(t, st, Config{MaxLargeBodies: holders, BodyTimeout: within, OnRefused: reasons.add})
	large := make(chan struct{}, holders+1)
	addr := serveLoopback(t, watchBody(r.Handler(), nil, func() { large <- struct{}{} }))
	part := strings.Repeat("x", 5000) // past the 4 KiB small buffer
	for range holders {
		c := dial(t, addr)
		if _, err := io.WriteString(c, head("POST", "/webhook", randomSig(), DefaultMaxBody)+part); err != nil {
			t.Fatal(err)
		}
		waitFor(t, large)
	}
	c := dial(t, addr)
	if _, err := io.WriteString(c, head("POST", "/webhook", randomSig(), DefaultMaxBody)+part); err != nil {
		t.Fatal(err)
	}
	if resp, _ := readResponse(t, c); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a large body beyond the cap: %d, want 503", resp.StatusCode)
	}
	if got := reasons.counts()[ReasonOverloaded]; got != 1 {
		t.Errorf("%d refusals as overloaded, want 1", got)
	}
	if got := len(r.larges); got != holders {
		t.Errorf("%d large buffers in use, want %d", got, holders)
	}

	good := eventBody("ev-small", "TRANSACTION_CREATED", "tx-1")
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(SignatureHeader, sign(good, secretA))
	resp, err := (&http.Client{Timeout: within}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || countRows(t, st, "ev-small") != 1 {
		t.Errorf("genuine delivery while the large buffers are taken: %d", resp.StatusCode)
	}
}
