package alerts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/alerts"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
)

// recorder is an HTTP server that keeps what it is sent; fail makes it
// answer 503 that many times first.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
	fail int
	srv  *httptest.Server
}

type recorded struct {
	Path   string
	Header http.Header
	Body   string
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.fail > 0 {
			r.fail--
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		r.reqs = append(r.reqs, recorded{Path: req.URL.Path, Header: req.Header.Clone(), Body: string(b)})
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) got() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.reqs...)
}

func (r *recorder) host() string { return strings.TrimPrefix(r.srv.URL, "http://") }

// mailbox is a real SMTP server (go-smtp) on loopback keeping each message.
type mailbox struct {
	mu   sync.Mutex
	msgs []mailMsg
	addr string
}

type mailMsg struct {
	From string
	To   []string
	Data string
}

type mailSession struct {
	box *mailbox
	cur mailMsg
}

func (b *mailbox) NewSession(*smtp.Conn) (smtp.Session, error) { return &mailSession{box: b}, nil }
func (s *mailSession) Reset()                                  { s.cur = mailMsg{} }
func (s *mailSession) Logout() error                           { return nil }
func (s *mailSession) Mail(from string, _ *smtp.MailOptions) error {
	s.cur.From = from
	return nil
}
func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.To = append(s.cur.To, to)
	return nil
}
func (s *mailSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.Data = string(b)
	s.box.mu.Lock()
	s.box.msgs = append(s.box.msgs, s.cur)
	s.box.mu.Unlock()
	return nil
}

func newMailbox(t *testing.T) *mailbox {
	box := &mailbox{}
	srv := smtp.NewServer(box)
	srv.Domain = "localhost"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	box.addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return box
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func secretFile(t *testing.T, v string, mode os.FileMode) string {
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte(v+"\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func configure(t *testing.T, d *alerts.Dispatcher, text string) {
	t.Helper()
	set, err := rules.Parse("rules.toml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Configure(set, nil); err != nil {
		t.Fatal(err)
	}
}

var purchase = alerts.Message{Kind: alerts.KindRule, Key: "rule:big:tx-1", Title: "Big purchase: -1,250.00 AUD",
	Message: "Alex spent 1,250.00 AUD at JB Hi-Fi", Rule: "big", TransactionID: "tx-1", Amount: "-1250.00", Person: "alex",
	DashboardURL: "http://127.0.0.1:8083/transactions/tx-1"}

func TestChannelsDeliverOnce(t *testing.T) {
	ctx := context.Background()
	ntfy, hook := newRecorder(t), newRecorder(t)
	box := newMailbox(t)
	secret := secretFile(t, "hook-secret", 0o600)
	st := openStore(t)
	d := alerts.NewDispatcher(st, nil, zerolog.Nop())
	configure(t, d, `
[channel.phone]
url = "ntfy://`+ntfy.host()+`/our-money?scheme=http"
[channel.hook]
url = "`+hook.srv.URL+`/hooks/money"
secret_file = "`+secret+`"
[channel.mail]
url = "smtp://`+box.addr+`/?to=alex@example.org,sam@example.org&from=bankmirror@example.org&tls=none"
`)
	if err := d.Enqueue(ctx, purchase, []string{"phone", "hook", "mail"}); err != nil {
		t.Fatal(err)
	}
	// The same alert again (a settlement of the same purchase) is not queued twice.
	if err := d.Enqueue(ctx, purchase, []string{"phone", "hook", "mail"}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Round(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Round(ctx); err != nil {
		t.Fatal(err)
	}

	got := ntfy.got()
	var pub map[string]any
	if len(got) == 1 {
		_ = json.Unmarshal([]byte(got[0].Body), &pub)
	}
	if len(got) != 1 || got[0].Path != "/" || pub["topic"] != "our-money" || pub["title"] != purchase.Title ||
		pub["message"] != purchase.Message || pub["click"] != purchase.DashboardURL {
		t.Fatalf("ntfy got %+v", got)
	}
	hooks := hook.got()
	if len(hooks) != 1 {
		t.Fatalf("webhook got %d requests", len(hooks))
	}
	if sig := hooks[0].Header.Get(alerts.SignatureHeader); sig != alerts.Sign([]byte("hook-secret"), []byte(hooks[0].Body)) {
		t.Fatalf("signature %q does not verify", sig)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(hooks[0].Body), &body); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"kind", "title", "message", "rule", "transaction_id", "amount", "person", "dashboard_url"} {
		if v, _ := body[k].(string); v == "" {
			t.Fatalf("webhook body has no %s: %s", k, hooks[0].Body)
		}
	}
	box.mu.Lock()
	msgs := append([]mailMsg(nil), box.msgs...)
	box.mu.Unlock()
	if len(msgs) != 1 || len(msgs[0].To) != 2 || !strings.Contains(msgs[0].Data, "Subject: Big purchase") ||
		!strings.Contains(msgs[0].Data, "JB Hi-Fi") {
		t.Fatalf("mail %+v", msgs)
	}
	counts, err := st.AlertCountsByChannel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range counts {
		if c.Sent != 1 || c.Pending != 0 || c.Failed != 0 {
			t.Fatalf("counts %+v", counts)
		}
	}
}

// A channel that fails is retried with backoff; a dispatcher started anew
// on the same mirror (a restart after kill -9) sends what is pending, once.
func TestOutboxSurvivesARestartAndRetries(t *testing.T) {
	ctx := context.Background()
	hook := newRecorder(t)
	hook.fail = 1
	st := openStore(t)
	text := "[channel.hook]\nurl = \"" + hook.srv.URL + "\"\n"
	d := alerts.NewDispatcher(st, nil, zerolog.Nop())
	configure(t, d, text)
	if err := d.Enqueue(ctx, purchase, []string{"hook"}); err != nil {
		t.Fatal(err)
	}
	next, err := d.Round(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(hook.got()) != 0 || !next.After(time.Now()) {
		t.Fatalf("after a 503: %d delivered, next %v", len(hook.got()), next)
	}
	pending, err := st.RecentAlerts(ctx, 10)
	if err != nil || len(pending) != 1 || pending[0].Attempts != 1 || pending[0].Error == "" || pending[0].NotBefore == "" {
		t.Fatalf("pending %+v %v", pending, err)
	}

	// The restart: a new dispatcher, the retry falls due.
	d2 := alerts.NewDispatcher(st, nil, zerolog.Nop())
	configure(t, d2, text)
	d2.SetClock(func() time.Time { return time.Now().Add(time.Hour) })
	for range 2 {
		if _, err := d2.Round(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(hook.got()); n != 1 {
		t.Fatalf("%d deliveries after the restart, want 1", n)
	}
}

func TestSecretFileReadableByOthersIsRefused(t *testing.T) {
	p := secretFile(t, "s", 0o644)
	_, err := alerts.Open(rules.Channel{Name: "hook", URL: "https://example.org/h", SecretFile: p}, nil)
	if err == nil || !strings.Contains(err.Error(), "can be read by others") {
		t.Fatalf("error %v", err)
	}
	// A secret of two lines (a key pasted with something else) is refused,
	// as the feeds' secrets are.
	_, err = alerts.Open(rules.Channel{Name: "hook", URL: "https://example.org/h", SecretFile: secretFile(t, "s\nmore", 0o600)}, nil)
	if err == nil || !strings.Contains(err.Error(), "holds more than one line") {
		t.Fatalf("a secret file of two lines: %v", err)
	}
	_, err = alerts.Open(rules.Channel{Name: "chat", URL: "https://chat.example.org/hooks/T0KEN%zz"}, nil)
	if err == nil || strings.Contains(err.Error(), "T0KEN") {
		t.Fatalf("a bad URL's error: %v", err)
	}
	for _, bad := range []string{"ftp://x/y", "ntfy://host", "smtp://host/", "https:///path"} {
		if _, err := alerts.Open(rules.Channel{Name: "c", URL: bad}, nil); err == nil {
			t.Fatalf("%s: no error", bad)
		}
	}
}

// Beyond a channel's burst, alerts wait their turn; in quiet hours they
// wait for the morning.
func TestRateLimitAndQuietHours(t *testing.T) {
	ctx := context.Background()
	hook := newRecorder(t)
	st := openStore(t)
	d := alerts.NewDispatcher(st, nil, zerolog.Nop())
	configure(t, d, "[channel.hook]\nurl = \""+hook.srv.URL+"\"\nper_hour = 6\n")
	for i := range 8 {
		m := purchase
		m.Key = "k" + string(rune('a'+i))
		if err := d.Enqueue(ctx, m, []string{"hook"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Round(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(hook.got()); n != 5 {
		t.Fatalf("%d sent at once, want the burst of 5", n)
	}
	counts, _ := st.AlertCountsByChannel(ctx)
	if counts[0].Pending != 3 {
		t.Fatalf("counts %+v", counts)
	}

	quiet := newRecorder(t)
	st2 := openStore(t)
	q := alerts.NewDispatcher(st2, nil, zerolog.Nop())
	configure(t, q, "[alerts]\nquiet_hours = \"22:00-07:00\"\n[channel.hook]\nurl = \""+quiet.srv.URL+"\"\n")
	night := time.Date(2025, 3, 3, 23, 30, 0, 0, time.UTC)
	q.SetClock(func() time.Time { return night })
	if err := q.Enqueue(ctx, purchase, []string{"hook"}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Round(ctx); err != nil {
		t.Fatal(err)
	}
	a, _ := st2.RecentAlerts(ctx, 1)
	if len(quiet.got()) != 0 || a[0].NotBefore != "2025-03-04T07:00:00.000000Z" {
		t.Fatalf("in quiet hours: sent %d, not before %q", len(quiet.got()), a[0].NotBefore)
	}
}

// A title made of the bank's text stays one line: no header of an email
// or a notification can be forged through it.
func TestTitleIsOneLine(t *testing.T) {
	ctx := context.Background()
	box := newMailbox(t)
	st := openStore(t)
	d := alerts.NewDispatcher(st, nil, zerolog.Nop())
	configure(t, d, "[channel.mail]\nurl = \"smtp://"+box.addr+"/?to=alex@example.org&tls=none\"\n")
	m := purchase
	m.Title = "Shop\r\nBcc: mallory@example.org\r\nX: y"
	if err := d.Enqueue(ctx, m, []string{"mail"}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Round(ctx); err != nil {
		t.Fatal(err)
	}
	box.mu.Lock()
	defer box.mu.Unlock()
	if len(box.msgs) != 1 || len(box.msgs[0].To) != 1 || strings.Contains(box.msgs[0].Data, "\r\nBcc:") {
		t.Fatalf("mail %+v", box.msgs)
	}
}

// A channel's URL may be its secret (a chat service's webhook URL holds
// its token in the path): a failed delivery's error, logged and kept in
// the outbox, never holds it.
func TestFailedDeliveryHidesTheURL(t *testing.T) {
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close() // no answer at all
		}
	}()
	t.Cleanup(func() { ln.Close() })
	const token = "T0KEN-in-the-path"
	var logs strings.Builder
	var mu sync.Mutex
	st := openStore(t)
	d := alerts.NewDispatcher(st, nil, zerolog.New(zerolog.SyncWriter(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(p)
	}))))
	configure(t, d, "[channel.chat]\nurl = \"http://"+ln.Addr().String()+"/hooks/"+token+"?key="+token+"\"\n")
	if err := d.Enqueue(ctx, purchase, []string{"chat"}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Round(ctx); err != nil {
		t.Fatal(err)
	}
	a, err := st.RecentAlerts(ctx, 1)
	if err != nil || len(a) != 1 || a[0].Error == "" {
		t.Fatalf("alerts %+v, %v", a, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(a[0].Error, token) || strings.Contains(logs.String(), token) {
		t.Fatalf("the URL's token leaked: error %q, log %s", a[0].Error, logs.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// Bank text cannot reorder what an alert shows: a right-to-left override
// in a description would print the amount after it backwards.
func TestTitleHasNoBidiControls(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	d := alerts.NewDispatcher(st, nil, zerolog.Nop())
	hook := newRecorder(t)
	configure(t, d, "[channel.hook]\nurl = \""+hook.srv.URL+"\"\n")
	m := purchase
	m.Title = "Coffee \u202e -4.50 AUD\u2066x\u2069\u2028y"
	m.Message = "Alex spent 4.50 AUD at Coffee \u202e, Mon"
	if err := d.Enqueue(ctx, m, []string{"hook"}); err != nil {
		t.Fatal(err)
	}
	a, err := st.RecentAlerts(ctx, 1)
	if err != nil || len(a) != 1 {
		t.Fatal(a, err)
	}
	for _, s := range []string{a[0].Title, a[0].Message, a[0].Payload} {
		if strings.ContainsAny(s, "\u202e\u2066\u2069\u2028") || strings.Contains(s, `\u202e`) || strings.Contains(s, `\u2028`) {
			t.Fatalf("bidi controls kept: %q", s)
		}
	}
}

// deferCounter is the store, counting the alerts deferred.
type deferCounter struct {
	*store.Store
	deferred int
}

func (c *deferCounter) DeferAlert(ctx context.Context, id int64, until time.Time) error {
	c.deferred++
	return c.Store.DeferAlert(ctx, id, until)
}

// Alerts waiting for their channel's rate limit are each given their own
// turn: a backlog is not written again whole every time one is sent.
func TestRateLimitedBacklogIsDeferredOnce(t *testing.T) {
	ctx := context.Background()
	hook := newRecorder(t)
	st := &deferCounter{Store: openStore(t)}
	d := alerts.NewDispatcher(st, nil, zerolog.Nop())
	now := time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC)
	d.SetClock(func() time.Time { return now })
	configure(t, d, "[channel.hook]\nurl = \""+hook.srv.URL+"\"\nper_hour = 6\n")
	const n = 60
	for i := range n {
		m := purchase
		m.Key = fmt.Sprintf("k%d", i)
		if err := d.Enqueue(ctx, m, []string{"hook"}); err != nil {
			t.Fatal(err)
		}
	}
	start := now
	for range 1000 {
		if len(hook.got()) >= 15 {
			break
		}
		next, err := d.Round(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// 5 at once, then one every 10 minutes.
		if sent, most := len(hook.got()), 5+int(now.Sub(start)/(10*time.Minute)); sent > most {
			t.Fatalf("%d sent by %s, past the rate limit (%d)", sent, now.Format(time.TimeOnly), most)
		}
		if next.After(now) {
			now = next
		}
	}
	if sent := len(hook.got()); sent < 15 {
		t.Fatalf("%d sent", sent)
	}
	if st.deferred > n+5 {
		t.Fatalf("%d deferrals to send 15 of %d alerts at the rate limit", st.deferred, n)
	}
}

// A channel that never answers holds up only its own alerts: another
// channel's go out meanwhile.
func TestAHungChannelHoldsUpOnlyItself(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hung.Close)
	delivered := make(chan struct{}, 1)
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		delivered <- struct{}{}
	}))
	t.Cleanup(good.Close)
	st := openStore(t)
	d := alerts.NewDispatcher(st, nil, zerolog.Nop())
	configure(t, d, "[channel.hung]\nurl = \""+hung.URL+"\"\n[channel.good]\nurl = \""+good.URL+"\"\n")
	if err := d.Enqueue(ctx, purchase, []string{"hung"}); err != nil {
		t.Fatal(err)
	}
	other := purchase
	other.Key = "rule:big:tx-2"
	if err := d.Enqueue(ctx, other, []string{"good"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _, _ = d.Round(ctx) }()
	select {
	case <-delivered:
	case <-time.After(10 * time.Second):
		t.Error("the good channel's alert waited for the hung channel")
	}
	close(release)
	<-done
}
