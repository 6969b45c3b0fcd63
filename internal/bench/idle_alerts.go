package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/bankmirror/bankmirror/internal/alerts"
	"github.com/bankmirror/bankmirror/internal/store"
)

// alertChannels are the channel kinds the daemon has, as the bench's
// rules file names them, in the order reported.
var alertChannels = []string{"ntfy", "webhook", "email"}

// Figures of bench idle --alerts that are settings, not measurements.
const (
	// alertsTopic is the ntfy topic the bench's rules file publishes to.
	alertsTopic = "bench-alerts"
	// alertsPurchase starts the description of the purchase each run
	// makes; the rule notifies the transactions whose description has it.
	alertsPurchase = "Bench alert purchase"
	// alertsLimit is how long the alerts may take to reach every channel.
	alertsLimit = 2 * time.Minute
)

// alertReceivers are the loopback servers the bench's alert channels
// point at: one HTTP server for ntfy (its JSON API, a POST to /) and the
// generic webhook (/hook, signed), and a real SMTP server (go-smtp).
type alertReceivers struct {
	httpURL, smtpAddr string
	secret            []byte // the webhook's

	mu      sync.Mutex
	got     map[string][]string // by channel: what each delivery said
	refused []string            // deliveries refused, and why
	poke    chan struct{}       // a delivery came
	stops   []func()
}

// startAlertReceivers starts the receivers on loopback.
func startAlertReceivers(ctx context.Context) (*alertReceivers, error) {
	r := &alertReceivers{secret: []byte(randomHex(16)), got: map[string][]string{}, poke: make(chan struct{}, 1)}
	url, stop, err := serve(ctx, "127.0.0.1:0", http.HandlerFunc(r.serveHTTP))
	if err != nil {
		return nil, err
	}
	r.httpURL, r.stops = url, append(r.stops, stop)
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		r.stop()
		return nil, fmt.Errorf("smtp server: %w", err)
	}
	srv := smtp.NewServer(mailBackend{r})
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = time.Minute, time.Minute
	srv.MaxMessageBytes = 1 << 20
	r.smtpAddr = ln.Addr().String()
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	r.stops = append(r.stops, func() {
		_ = srv.Close()
		<-served
	})
	return r, nil
}

func (r *alertReceivers) stop() {
	for i := len(r.stops) - 1; i >= 0; i-- {
		r.stops[i]()
	}
}

// received records a delivery to channel, or its refusal (why not "").
func (r *alertReceivers) received(channel, said, why string) {
	r.mu.Lock()
	if why != "" {
		r.refused = append(r.refused, channel+": "+why)
	} else {
		r.got[channel] = append(r.got[channel], said)
	}
	r.mu.Unlock()
	select {
	case r.poke <- struct{}{}:
	default:
	}
}

func (r *alertReceivers) serveHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, 1<<20))
	if err != nil || req.Method != http.MethodPost {
		http.Error(w, "want a POST", http.StatusBadRequest)
		return
	}
	switch req.URL.Path {
	case "/":
		var pub struct{ Topic, Title, Message string }
		if err := json.Unmarshal(body, &pub); err != nil || pub.Topic != alertsTopic {
			r.received("ntfy", "", fmt.Sprintf("not a publication to %s: %.200s", alertsTopic, body))
			http.Error(w, "wrong topic", http.StatusBadRequest)
			return
		}
		r.received("ntfy", pub.Title+"\n"+pub.Message, "")
	case "/hook":
		if req.Header.Get(alerts.SignatureHeader) != alerts.Sign(r.secret, body) {
			r.received("webhook", "", "a bad signature")
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		r.received("webhook", string(body), "")
	default:
		http.NotFound(w, req)
	}
}

// mailBackend keeps each message the SMTP server is sent.
type mailBackend struct{ r *alertReceivers }

func (b mailBackend) NewSession(*smtp.Conn) (smtp.Session, error) { return &mailSession{r: b.r}, nil }

type mailSession struct {
	r  *alertReceivers
	to []string
}

func (s *mailSession) Reset()                               { s.to = nil }
func (s *mailSession) Logout() error                        { return nil }
func (s *mailSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *mailSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.r.received("email", "To: "+strings.Join(s.to, ",")+"\n"+string(b), "")
	return nil
}

// rulesFile writes, in dir, a rules file with a rule notifying every
// channel of the purchases the bench makes, a channel of each kind
// pointed at the receivers, and the webhook's secret file; it returns the
// rules file's path.
func (r *alertReceivers) rulesFile(dir string) (string, error) {
	secret := filepath.Join(dir, "hook.secret")
	if err := os.WriteFile(secret, r.secret, 0o600); err != nil {
		return "", err
	}
	text := fmt.Sprintf(`[[rule]]
name = "bench alert"
when = 'description contains %q'
notify = [%q, %q, %q]

[channel.ntfy]
url = "ntfy://%s/%s?scheme=http"

[channel.webhook]
url = "%s/hook"
secret_file = %q

[channel.email]
url = "smtp://%s/?to=alex@example.org&from=bankmirror@example.org&tls=none"
`, alertsPurchase, alertChannels[0], alertChannels[1], alertChannels[2],
		strings.TrimPrefix(r.httpURL, "http://"), alertsTopic, r.httpURL, secret, r.smtpAddr)
	path := filepath.Join(dir, "rules.toml")
	return path, os.WriteFile(path, []byte(text), 0o600)
}

// counts are the deliveries each channel received, in alertChannels'
// order.
func (r *alertReceivers) counts() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := make([]int, len(alertChannels))
	for i, ch := range alertChannels {
		n[i] = len(r.got[ch])
	}
	return n
}

// missing are the channels that received nothing mentioning about, and
// the deliveries refused so far.
func (r *alertReceivers) missing(about string) (channels, refused []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ch := range alertChannels {
		if !slices.ContainsFunc(r.got[ch], func(s string) bool { return strings.Contains(s, about) }) {
			channels = append(channels, ch)
		}
	}
	return channels, slices.Clone(r.refused)
}

// wait waits until every channel received a delivery mentioning about,
// for at most limit; a refused delivery is an error at once.
func (r *alertReceivers) wait(ctx context.Context, about string, limit time.Duration, d *serveChild) error {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		channels, refused := r.missing(about)
		switch {
		case len(refused) > 0:
			return fmt.Errorf("the alert servers refused deliveries: %s", strings.Join(refused, "; "))
		case len(channels) == 0:
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-d.done:
			return errors.New("the daemon exited")
		case <-deadline.C:
			return fmt.Errorf("no alert of %q reached %s within %s", about, strings.Join(channels, ", "), limit)
		case <-r.poke:
		}
	}
}

// idleMemory is what serve holds after its idle period, and the
// deliveries each channel received during the run.
type idleMemory struct {
	serveMemory
	alerts []int
}

// idleAlerts is bench idle --alerts: serve started twice on the
// backfilled mirror, without a rules file then with the bench's, each
// time a purchase at the bank (by webhook), then the idle period; the
// second's alert must reach every channel.
func (env Env) idleAlerts(ctx context.Context, o IdleOptions, sim *benchSim, set map[string]string, admin string) error {
	cfg, _, err := env.config(set)
	if err != nil {
		return err
	}
	if _, err := os.Stat(cfg.RulesFile); cfg.RulesFileSet || err == nil {
		return fmt.Errorf("bench idle --alerts measures serve without a rules file first, and there is one: %s", cfg.RulesFile)
	}
	recv, err := startAlertReceivers(ctx)
	if err != nil {
		return err
	}
	defer recv.stop()
	rules, err := recv.rulesFile(o.Dir)
	if err != nil {
		return err
	}
	st, err := store.OpenReadOnly(ctx, set["DB"])
	if err != nil {
		return err
	}
	defer st.Close()
	w := env.Stdout
	fmt.Fprintf(w, "alerts: serve started twice on the backfilled mirror, without a rules file, then with one (a rule notifying %s, the servers on loopback run by the bench); in each a purchase at the bank, by webhook, then %s idle\n",
		strings.Join(alertChannels, ", "), o.Idle)
	var runs [2]idleMemory
	for i, withRules := range []bool{false, true} {
		s := map[string]string{}
		for k, v := range set {
			s[k] = v
		}
		if withRules {
			s["RULES_FILE"] = rules
		}
		_, user, err := env.config(s)
		if err != nil {
			return err
		}
		before := recv.counts()
		about := fmt.Sprintf("%s %d", alertsPurchase, i+1)
		mem, err := env.serveSettled(ctx, benchChildEnv(env.Environ, user, s, o.MemLimit), admin, o.Idle, func(ctx context.Context, d *serveChild) error {
			id, err := sim.purchase(ctx, about, -1234)
			if err != nil {
				return err
			}
			if err := waitMirrored(ctx, st, id); err != nil {
				return err
			}
			if withRules {
				return recv.wait(ctx, about, alertsLimit, d)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("alerts: serve %s: %w", idleAlertsRows[i], err)
		}
		m := idleMemory{serveMemory: mem}
		for c, n := range recv.counts() {
			m.alerts = append(m.alerts, n-before[c])
		}
		if _, refused := recv.missing(about); len(refused) > 0 {
			return fmt.Errorf("alerts: the alert servers refused deliveries: %s", strings.Join(refused, "; "))
		}
		if !withRules && slices.Max(m.alerts) > 0 {
			return fmt.Errorf("alerts: serve without a rules file sent alerts: %v", m.alerts)
		}
		runs[i] = m
	}
	printIdleAlerts(w, runs[0], runs[1])
	return nil
}

// idleAlertsRows name the two runs of bench idle --alerts.
var idleAlertsRows = [2]string{"without a rules file", "with the rules file (1 rule, 3 channels)"}

// printIdleAlerts prints the table of bench idle --alerts.
func printIdleAlerts(w io.Writer, without, with idleMemory) {
	fmt.Fprintf(w, "\n| serve | RSS (VmRSS) | anonymous + file-backed | peak (VmHWM) | alerts received (%s) |\n|---|---|---|---|---|\n",
		strings.Join(alertChannels, ", "))
	for i, m := range []idleMemory{without, with} {
		n := make([]string, len(m.alerts))
		for c, v := range m.alerts {
			n[c] = fmt.Sprint(v)
		}
		fmt.Fprintf(w, "| %s | %.1f MiB | %.1f + %.1f MiB | %.1f MiB | %s |\n", idleAlertsRows[i], m.rss, m.anon, m.file, m.hwm, strings.Join(n, ", "))
	}
	fmt.Fprintf(w, "| difference | %+.1f MiB | %+.1f anonymous, %+.1f file-backed | %+.1f MiB | |\n",
		with.rss-without.rss, with.anon-without.anon, with.file-without.file, with.hwm-without.hwm)
}
