// Package receiver is the webhook endpoint: it authenticates each callback
// by its HMAC signature, validates the event, and stores it durably in the
// inbox before answering 200. Concurrent deliveries share one SQLite commit
// (group commit), so a burst of callbacks pays a few fsyncs, not one each.
//
// The endpoint faces the internet, so what a stranger can make it spend is
// bounded: it answers only POST on its path, refuses a request without a
// well-formed signature header (the spec's or the real bank's; see
// SignatureHeader) before reading its body, reads at most
// MaxBody bytes into pooled buffers under a read deadline of its own
// (BodyTimeout), checks signatures against secrets held in memory, holds an
// in-flight slot only while a verified event waits for its commit, and
// logs refusals as a count per interval rather than a line each. No refused
// request reaches the database. Serve Handler on a server made by
// httpserver.New, whose limits leave the receiver's deadlines room, with
// its connections capped by httpserver.LimitListener.
//
// The receiver only records events; applying them is the worker's job
// (internal/replica), which the receiver wakes through Config.Notify. The two
// packages do not import each other.
package receiver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
)

// The headers a delivery's signature (the lowercase hex HMAC-SHA256 of the
// raw body, keyed with the webhook's secret) may come in: the spec names
// SignatureHeader, the real bank (Up) sends UpSignatureHeader. Either is
// accepted, checked the same way against the same secrets.
//
// A delivery carrying both is accepted only if both verify: every
// signature a request carries must be the bank's. Neither sender puts both
// on a delivery, so the rule costs the bank nothing, while "either may
// match" would accept a request whose other header holds anything, and
// anything that looks at one header only (a proxy's filter, a log, a
// debugging session) could then disagree with what was accepted. For the
// same reason a header repeated within a request is refused as malformed.
const (
	SignatureHeader   = "X-Service-Authenticity-Signature"
	UpSignatureHeader = "X-Up-Authenticity-Signature"
)

// Defaults for Config.
const (
	DefaultPath = "/webhook"
	// DefaultMaxBody is the default Config.MaxBody: real events are under
	// 1 KiB; 64 KiB leaves room for fields the bank may add.
	DefaultMaxBody = 64 << 10
	// DefaultMaxInFlight is the default Config.MaxInFlight.
	DefaultMaxInFlight = 512
	// DefaultBodyTimeout is the default Config.BodyTimeout, as long as
	// httpserver.BodyTimeout. The bank sends a body of under 1 KiB (one or
	// two TCP segments) right behind its headers; 2 s covers a
	// retransmission on a lossy path (the first retransmission timeout is
	// 1 s), or 64 KiB at about 300 kbit/s, while a connection that trickles
	// its body is cut after 2 s (and sooner at the listener's connection
	// cap, where the one reading its body the longest is closed first).
	DefaultBodyTimeout = 2 * time.Second
	// DefaultMaxLargeBodies is the default Config.MaxLargeBodies: 32
	// buffers of 64 KiB, 2 MiB in all.
	DefaultMaxLargeBodies = 32
	// DefaultMaxConns is how many connections LimitListener lets the
	// public listener hold at once; more wait in the kernel's backlog.
	DefaultMaxConns = 1024
	// DefaultRefusedLogInterval is the default Config.RefusedLogInterval.
	DefaultRefusedLogInterval = time.Minute
)

const (
	// maxBatch caps the events one commit carries; it is also the queue's
	// buffer, so a full batch can wait while the previous one commits.
	maxBatch = 512
	// ackTimeout bounds how long a request waits for its commit. The bank
	// gives up after 30 s; answering 503 earlier lets it retry sooner.
	ackTimeout = 25 * time.Second
	// maxLoggedError caps a logged rejection cause, in bytes.
	maxLoggedError = 200
	// refusedReadGrace bounds what the server reads of a refused request
	// after answering it (see refuse).
	refusedReadGrace = 250 * time.Millisecond
)

// ErrClosed is the reply to requests still waiting when the receiver stops.
var ErrClosed = errors.New("receiver closed")

// Keys is where the receiver finds the secrets deliveries are signed with
// (webhooks.SecretCache in the daemon). Its methods run for every request
// whose signature header is well formed, when strangers choose: each must
// be cheap, must not touch the database on every call, and must bound what
// it costs.
type Keys interface {
	// SecretsOf returns the secrets a delivery naming webhook id may be
	// signed with: that webhook's own when it is known (two webhooks never
	// share one, so a household's people cannot sign for each other), and
	// for a webhook it does not know, the secret of a webhook made
	// elsewhere, if one is configured. None refuses the delivery. A
	// secret it starts returning is accepted at once. An error answers
	// the delivery 503 (the bank retries).
	SecretsOf(ctx context.Context, webhookID string) ([][]byte, error)
	// Registering reports whether a webhook is being registered (its
	// secret not yet stored). While it is, a delivery whose signature
	// matches no known secret is answered 503, so the bank retries it, not
	// 401: it may be signed with the secret about to be stored.
	Registering(ctx context.Context) bool
	// Miss is called when a signature matched none of the secrets (a
	// cache of them may be behind a new registration); the secrets are
	// then asked for again and checked once more. It reports whether it
	// reloaded them.
	Miss(ctx context.Context) bool
}

// noKeys holds no secret: every signature is refused.
type noKeys struct{}

func (noKeys) SecretsOf(context.Context, string) ([][]byte, error) { return nil, nil }
func (noKeys) Registering(context.Context) bool                    { return false }
func (noKeys) Miss(context.Context) bool                           { return false }

// inbox is the one store method the receiver needs.
type inbox interface {
	InsertEvents(ctx context.Context, evs []store.InboxEvent) (inserted []string, err error)
}

var _ inbox = (*store.Store)(nil)

// Config configures a Receiver.
type Config struct {
	// Path is the webhook's path; DefaultPath when empty.
	Path string
	// Keys are the secrets deliveries are signed with; with none, every
	// signature is refused.
	Keys Keys
	// Notify, if set, is called by the writer after each commit that
	// inserted new events, with their ids. It runs on the writer goroutine:
	// it must not block (poke a channel).
	Notify func(ids []string)
	// MaxInFlight caps the verified deliveries waiting for their commit at
	// once; beyond it a delivery is answered 503 (the bank retries).
	// DefaultMaxInFlight when <= 0.
	MaxInFlight int
	// MaxBody is the largest body accepted; DefaultMaxBody when <= 0.
	MaxBody int64
	// MaxLargeBodies caps the bodies over 4 KiB read at once, each into a
	// buffer of MaxBody+1 bytes, before their signature can be checked;
	// beyond it such a delivery is answered 503 (real events are under
	// 1 KiB). DefaultMaxLargeBodies when <= 0.
	MaxLargeBodies int
	// BodyTimeout bounds reading a request's body, from the end of its
	// headers; a slower body is answered 408 and its connection closed.
	// DefaultBodyTimeout when <= 0.
	BodyTimeout time.Duration
	// OnRefused, if set, is called once for every request not answered
	// 200, with one of the Reason constants (see Reasons). It runs on the
	// request's goroutine: it must be cheap and safe for concurrent use (a
	// metrics counter).
	OnRefused func(reason string)
	// RefusedLogInterval is how often refusals are summarised in the log:
	// the first refusal of each reason is logged in full, the ones after it
	// are counted and reported in one line per interval, so a flood of
	// refused requests writes a line or two a minute.
	// DefaultRefusedLogInterval when <= 0.
	RefusedLogInterval time.Duration
	// Log is the logger; the receiver adds component=receiver.
	Log zerolog.Logger
}

// Receiver is the webhook handler plus the writer that makes the events it
// verifies durable.
type Receiver struct {
	cfg Config
	log zerolog.Logger
	w   eventWriter

	slots chan struct{} // one per verified delivery waiting for its commit
	large sync.Pool     // *[]byte of MaxBody+1 bytes, for bodies over smallBody
	// larges holds a token per large buffer in use (Config.MaxLargeBodies).
	larges  chan struct{}
	refused *refusalLog
}

// eventWriter makes verified events durable: store returns nil once ev is.
// The daemon's is the group-commit writer (groupWriter); the benchmark's
// baseline stores each event in a transaction of its own.
type eventWriter interface {
	start(ctx context.Context) error
	close()
	store(ctx context.Context, ev store.InboxEvent) error
}

// New returns a receiver storing into in (a *store.Store in production)
// through the group-commit writer. Call Start before serving and Close
// after the HTTP server has shut down.
func New(in inbox, cfg Config) *Receiver {
	cfg = cfg.withDefaults()
	log := cfg.Log.With().Str(logfield.Component, "receiver").Logger()
	return newReceiver(cfg, log, newGroupWriter(in, cfg.Notify, log))
}

// withDefaults fills in what cfg leaves unset.
func (cfg Config) withDefaults() Config {
	if cfg.Path == "" {
		cfg.Path = DefaultPath
	}
	if cfg.Path[0] != '/' {
		cfg.Path = "/" + cfg.Path
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.MaxLargeBodies <= 0 {
		cfg.MaxLargeBodies = DefaultMaxLargeBodies
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.RefusedLogInterval <= 0 {
		cfg.RefusedLogInterval = DefaultRefusedLogInterval
	}
	if cfg.Keys == nil {
		cfg.Keys = noKeys{}
	}
	return cfg
}

// newReceiver returns a receiver for cfg (defaults filled in) storing
// through w.
func newReceiver(cfg Config, log zerolog.Logger, w eventWriter) *Receiver {
	r := &Receiver{
		cfg:     cfg,
		log:     log,
		w:       w,
		slots:   make(chan struct{}, cfg.MaxInFlight),
		larges:  make(chan struct{}, cfg.MaxLargeBodies),
		refused: newRefusalLog(log, cfg.RefusedLogInterval),
	}
	r.large.New = func() any {
		b := make([]byte, cfg.MaxBody+1)
		return &b
	}
	return r
}

// Start runs the writer goroutine until ctx ends or Close is called. The
// writer's inserts use ctx, so pass a context that outlives the HTTP
// server's graceful shutdown and stop with Close.
func (r *Receiver) Start(ctx context.Context) error { return r.w.start(ctx) }

// Close stops the writer and waits for it: a commit in progress finishes,
// and requests still queued are answered 503. Refusals not yet reported
// are logged. It is safe to call more than once, and before Start.
func (r *Receiver) Close() error {
	r.w.close()
	r.refused.flush()
	return nil
}

// Handler serves POST on the webhook path and nothing else: another method
// on the path is answered 405, any other path 404. It is meant for the
// internet-facing listener; health and metrics belong on another one.
func (r *Receiver) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch {
		case req.URL.Path != r.cfg.Path:
			r.refuse(w, refusal{reason: ReasonPath, status: http.StatusNotFound})
		case req.Method != http.MethodPost:
			w.Header().Set("Allow", http.MethodPost)
			r.refuse(w, refusal{reason: ReasonMethod, status: http.StatusMethodNotAllowed})
		default:
			r.serveWebhook(w, req)
		}
	})
}

// serveWebhook checks, in order of cost: the signature header's form, the
// declared length, the body (read under its own deadline), the signature,
// the event; only a verified event takes an in-flight slot, to wait for its
// commit.
func (r *Receiver) serveWebhook(w http.ResponseWriter, req *http.Request) {
	sig, reason := requestSignatures(req.Header)
	if reason != "" {
		r.refuse(w, refusal{reason: reason, status: http.StatusUnauthorized})
		return
	}
	raw, ref := r.readBody(w, req)
	if ref.reason != "" {
		r.refuse(w, ref)
		return
	}
	ev, ref := r.authenticate(req.Context(), raw.b, sig)
	raw.free() // the event holds copies
	if ref.reason != "" {
		r.refuse(w, ref)
		return
	}

	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	default:
		r.refuse(w, refusal{reason: ReasonOverloaded, status: http.StatusServiceUnavailable, eventID: ev.ID, authentic: true})
		return
	}
	ctx, cancel := context.WithTimeout(req.Context(), ackTimeout)
	defer cancel()
	if err := r.w.store(ctx, ev); err != nil {
		r.refuse(w, refusal{reason: ReasonUnavailable, status: http.StatusServiceUnavailable, eventID: ev.ID, cause: err, authentic: true})
		return
	}
	r.log.Debug().Str(logfield.EventID, bank.LogID(ev.ID)).Str(logfield.EventType, ev.EventType).
		Str(logfield.TransactionID, bank.LogID(ev.TransactionID)).Int(logfield.Status, http.StatusOK).Msg("webhook accepted")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, "ok")
}

// signatures are the signature values a request carries: one, or two
// different ones when both headers hold one (the same value in both is
// kept once).
type signatures struct {
	first, second string // second is "" when there is only one
}

// verify reports whether every signature verifies under one of secrets.
// It stops at the first that does not: which one failed tells the sender
// nothing it does not know.
func (s signatures) verify(body []byte, secrets [][]byte) bool {
	return VerifySignature(body, s.first, secrets) && (s.second == "" || VerifySignature(body, s.second, secrets))
}

// requestSignatures returns the signatures in h's signature headers, or
// the reason to refuse the request before reading its body: neither header
// (an empty value counts as none, as it always has), a header given twice,
// or a value that is not 64 lowercase hex digits. It does not allocate.
func requestSignatures(h http.Header) (signatures, string) {
	spec, ok1 := headerValue(h, SignatureHeader)
	up, ok2 := headerValue(h, UpSignatureHeader)
	switch {
	case !ok1 || !ok2:
		return signatures{}, ReasonSignatureMalformed
	case spec == "" && up == "":
		return signatures{}, ReasonSignatureMissing
	case spec != "" && !WellFormedSignature(spec), up != "" && !WellFormedSignature(up):
		return signatures{}, ReasonSignatureMalformed
	case spec == "":
		return signatures{first: up}, ""
	case up == "" || up == spec:
		return signatures{first: spec}, ""
	default:
		return signatures{first: spec, second: up}, ""
	}
}

// headerValue returns the value of the header name in h ("" when absent or
// empty); ok is false when the header is given more than once. name must
// be in canonical form.
func headerValue(h http.Header, name string) (value string, ok bool) {
	switch vs := h[name]; len(vs) {
	case 0:
		return "", true
	case 1:
		return vs[0], true
	default:
		return "", false
	}
}

// authenticate parses the event, then verifies body's signatures against
// the secrets of the webhook the body names, held in memory: a delivery
// counts only if signed with that webhook's secret (Keys.SecretsOf), and
// a stranger's request costs one parse and an HMAC or two, however many
// webhooks the mirror has. A refusal with a reason means it failed.
func (r *Receiver) authenticate(ctx context.Context, body []byte, sig signatures) (store.InboxEvent, refusal) {
	keys := r.cfg.Keys
	e, perr := bank.ParseWebhookEvent(body)
	webhook := e.WebhookID
	if perr != nil {
		// An event the decoder refuses may still be the bank's (a field it
		// changed): it is told apart by the signature of the webhook named.
		webhook = bank.WebhookOf(body)
	}
	if webhook == "" {
		// No webhook named: no secret it could be signed with.
		return store.InboxEvent{}, refusal{reason: ReasonSignatureInvalid, status: http.StatusUnauthorized}
	}
	secrets, err := keys.SecretsOf(ctx, webhook)
	if err != nil {
		return store.InboxEvent{}, refusal{reason: ReasonUnavailable, status: http.StatusServiceUnavailable,
			cause: fmt.Errorf("load webhook secrets: %w", err)}
	}
	if !sig.verify(body, secrets) {
		// The secrets may have changed since this request read them (a
		// webhook registered by another process, a reload by Miss or by
		// another request's): check again.
		keys.Miss(ctx)
		if secrets, err = keys.SecretsOf(ctx, webhook); err != nil {
			secrets = nil
		}
		if !sig.verify(body, secrets) {
			if keys.Registering(ctx) {
				// It may be signed with the secret about to be stored: the
				// bank retries a 503.
				return store.InboxEvent{}, refusal{reason: ReasonRegistering, status: http.StatusServiceUnavailable}
			}
			return store.InboxEvent{}, refusal{reason: ReasonSignatureInvalid, status: http.StatusUnauthorized}
		}
	}
	if perr != nil {
		// The decoder's message names fields and values, never the body.
		return store.InboxEvent{}, refusal{reason: ReasonMalformed, status: http.StatusBadRequest, cause: perr, authentic: true}
	}
	return store.NewInboxEvent(e, store.SourceWebhook, string(body)), refusal{}
}

// refuse answers a refused request, reports it to OnRefused and to the
// aggregated log. It never logs the body, the signature or a secret.
//
// A request not verified as the bank's has its connection closed after the
// answer, so a stranger's connection serves one request. Its unread body
// (the server drains up to 256 KiB before closing, so that the client
// reads the answer rather than a reset) gets refusedReadGrace more at
// most: what has already arrived is drained, a trickle is cut.
func (r *Receiver) refuse(w http.ResponseWriter, ref refusal) {
	if r.cfg.OnRefused != nil {
		r.cfg.OnRefused(ref.reason)
	}
	r.refused.record(ref)
	if !ref.authentic {
		w.Header().Set("Connection", "close")
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(refusedReadGrace))
	}
	http.Error(w, http.StatusText(ref.status), ref.status)
}

// WellFormedSignature reports whether s has the form of the signature the
// bank sends: 64 lowercase hex digits (a SHA-256 HMAC).
func WellFormedSignature(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// VerifySignature reports whether signatureHex is the hex HMAC-SHA256 of
// body under one of secrets. Only the form the bank sends is accepted: 64
// lowercase hex digits. Empty secrets never match (anyone could sign with
// them). Each secret is tried, in constant time, even after a match.
func VerifySignature(body []byte, signatureHex string, secrets [][]byte) bool {
	if !WellFormedSignature(signatureHex) {
		return false
	}
	var got [sha256.Size]byte
	if _, err := hex.Decode(got[:], []byte(signatureHex)); err != nil {
		return false
	}
	ok := false
	for _, s := range secrets {
		if len(s) == 0 {
			continue
		}
		m := hmac.New(sha256.New, s)
		m.Write(body)
		if hmac.Equal(m.Sum(nil), got[:]) {
			ok = true
		}
	}
	return ok
}
