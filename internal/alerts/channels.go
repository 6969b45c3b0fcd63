// Package alerts delivers what the rules file asks to be told about (a
// rule's notify, the built-in [alert.*]) to its channels: ntfy, a generic
// webhook, email. Alerts go through a durable outbox in the mirror, so
// that each is delivered at least once, once per channel (a key per
// alert), retried with backoff, within each channel's rate limit and
// outside quiet hours.
package alerts

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/wneessen/go-mail"

	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/secretfile"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// Message is one alert, as a channel sends it. Its JSON is the generic
// webhook's body.
type Message struct {
	Kind          string `json:"kind"`
	Key           string `json:"key"`
	Title         string `json:"title"`
	Message       string `json:"message"`
	Rule          string `json:"rule"`
	TransactionID string `json:"transaction_id"`
	Amount        string `json:"amount"`
	Person        string `json:"person"`
	DashboardURL  string `json:"dashboard_url"`
	CreatedAt     string `json:"created_at"`
}

// Sender delivers a message to one channel.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// SignatureHeader carries the generic webhook's signature: the hex
// HMAC-SHA256 of the body under the channel's secret.
const SignatureHeader = "X-Bankmirror-Signature"

// sendTimeout bounds one delivery.
const sendTimeout = 15 * time.Second

// PermanentError is a failure that retrying cannot mend (a channel's
// configuration, a refusal of the message).
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Open makes the sender of a channel from its URL:
//
//	ntfy://[user@]host[:port]/topic[?scheme=http]  ntfy (a self-hosted server or ntfy.sh); the
//	                                              secret file holds an access token or the password
//	http://… https://…                            a POST of Message as JSON, signed when a secret file is set
//	smtp://[user@]host[:port]/?to=a@x,b@y[&from=…][&tls=starttls|opportunistic|none]
//	smtps://[user@]host[:port]/?to=…              email (STARTTLS required unless tls says otherwise;
//	                                              smtps is TLS from the start); the secret file holds the password
func Open(ch rules.Channel, client *http.Client) (Sender, error) {
	u, err := url.Parse(ch.URL)
	if err != nil {
		// Not the URL itself: it may hold the channel's token.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("channel %s: url: %w", ch.Name, err)
	}
	var secret string
	if ch.SecretFile != "" {
		if secret, err = secretfile.Read(ch.SecretFile); err != nil {
			return nil, fmt.Errorf("channel %s: secret file: %w", ch.Name, err)
		}
	}
	if client == nil {
		client = &http.Client{Timeout: sendTimeout}
	}
	switch u.Scheme {
	case "ntfy":
		return newNtfy(ch.Name, u, secret, client)
	case "http", "https":
		if u.Host == "" {
			return nil, fmt.Errorf("channel %s: url has no host", ch.Name)
		}
		return &webhook{url: u.String(), secret: []byte(secret), client: client}, nil
	case "smtp", "smtps":
		return newMailer(ch.Name, u, secret)
	default:
		return nil, fmt.Errorf("channel %s: url scheme %q: want ntfy, http, https, smtp or smtps", ch.Name, u.Scheme)
	}
}

// CheckChannel says what is wrong with a channel of the rules file, as
// Open finds it (its URL, its secret file); rules.Options.CheckChannel.
func CheckChannel(ch rules.Channel) error {
	_, err := Open(ch, nil)
	return err
}

// ntfy publishes to a topic through ntfy's JSON API (a POST of
// {"topic", "title", "message", "click", "tags"} to the server's root), so
// that a title from the bank's text, in any script and with any character,
// needs no header encoding.
type ntfy struct {
	url, topic, user, secret string
	client                   *http.Client
}

func newNtfy(name string, u *url.URL, secret string, client *http.Client) (*ntfy, error) {
	topic := strings.Trim(u.Path, "/")
	if u.Host == "" || topic == "" || strings.Contains(topic, "/") {
		return nil, fmt.Errorf("channel %s: want ntfy://host/topic", name)
	}
	scheme := "https"
	if s := u.Query().Get("scheme"); s == "http" {
		scheme = s
	}
	return &ntfy{url: scheme + "://" + u.Host + "/", topic: topic, user: u.User.Username(), secret: secret, client: client}, nil
}

func (n *ntfy) Send(ctx context.Context, m Message) error {
	body, err := json.Marshal(map[string]any{"topic": n.topic, "title": m.Title, "message": m.Message,
		"click": m.DashboardURL, "tags": []string{"moneybag"}})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	switch {
	case n.secret != "" && n.user != "":
		req.SetBasicAuth(n.user, n.secret)
	case n.secret != "":
		req.Header.Set("Authorization", "Bearer "+n.secret)
	}
	return do(n.client, req)
}

// webhook POSTs the message as JSON.
type webhook struct {
	url    string
	secret []byte
	client *http.Client
}

func (w *webhook) Send(ctx context.Context, m Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if len(w.secret) > 0 {
		req.Header.Set(SignatureHeader, Sign(w.secret, body))
	}
	return do(w.client, req)
}

// Sign is the generic webhook's signature of body.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// do sends req: a 2xx is delivered, a 4xx other than 408 and 429 is
// permanent, anything else is retried.
func do(client *http.Client, req *http.Request) error {
	resp, err := client.Do(req)
	if err != nil {
		// The URL may be the channel's secret (a chat service's webhook
		// holds its token in the path): the error names the host only.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("send to %s: %w", req.URL.Host, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return nil
	case c >= 400 && c < 500 && c != http.StatusRequestTimeout && c != http.StatusTooManyRequests:
		return &PermanentError{Err: fmt.Errorf("the channel answered %s", resp.Status)}
	default:
		return fmt.Errorf("the channel answered %s", resp.Status)
	}
}

// mailer sends email through an SMTP server.
type mailer struct {
	host     string
	opts     []mail.Option
	from, to []string
}

func newMailer(name string, u *url.URL, password string) (*mailer, error) {
	q := u.Query()
	to := splitList(q.Get("to"))
	if u.Hostname() == "" || len(to) == 0 {
		return nil, fmt.Errorf("channel %s: want %s://[user@]host[:port]/?to=address", name, u.Scheme)
	}
	from := q.Get("from")
	if from == "" {
		from = "bankmirror@" + u.Hostname()
	}
	opts := []mail.Option{mail.WithTimeout(sendTimeout)}
	if u.Scheme == "smtps" {
		opts = append(opts, mail.WithSSLPort(false))
	} else {
		switch q.Get("tls") {
		case "", "starttls":
			opts = append(opts, mail.WithTLSPortPolicy(mail.TLSMandatory))
		case "opportunistic":
			opts = append(opts, mail.WithTLSPortPolicy(mail.TLSOpportunistic))
		case "none":
			opts = append(opts, mail.WithTLSPortPolicy(mail.NoTLS))
		default:
			return nil, fmt.Errorf("channel %s: tls=%q: want starttls, opportunistic or none", name, q.Get("tls"))
		}
	}
	if p := u.Port(); p != "" {
		port, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("channel %s: port %q", name, p)
		}
		opts = append(opts, mail.WithPort(port))
	}
	if user := u.User.Username(); user != "" {
		if password == "" {
			return nil, fmt.Errorf("channel %s: a user needs a secret_file with the password", name)
		}
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover), mail.WithUsername(user), mail.WithPassword(password))
	}
	return &mailer{host: u.Hostname(), opts: opts, from: []string{from}, to: to}, nil
}

func (m *mailer) Send(ctx context.Context, msg Message) error {
	e := mail.NewMsg()
	if err := e.From(m.from[0]); err != nil {
		return &PermanentError{Err: fmt.Errorf("from: %w", err)}
	}
	if err := e.To(m.to...); err != nil {
		return &PermanentError{Err: fmt.Errorf("to: %w", err)}
	}
	// Bank text in the subject or the body is one line each: it cannot
	// start a header (a Bcc:) or a line of its own.
	e.Subject(textsafe.Line(msg.Title))
	body := textsafe.Line(msg.Message)
	if msg.DashboardURL != "" {
		body += "\n\n" + msg.DashboardURL
	}
	e.SetBodyString(mail.TypeTextPlain, body+"\n")
	c, err := mail.NewClient(m.host, m.opts...)
	if err != nil {
		return &PermanentError{Err: err}
	}
	if err := c.DialAndSendWithContext(ctx, e); err != nil {
		return fmt.Errorf("send mail: %w", err)
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// IsPermanent says whether err will not mend by retrying.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}
