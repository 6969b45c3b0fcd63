package alerts_test

import (
	"context"
	"encoding/json"
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
	set, err := rules.Parse("rules.toml", []byte(text))
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
