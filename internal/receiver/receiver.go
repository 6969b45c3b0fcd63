// Package receiver is the webhook endpoint: it authenticates each callback
// by its HMAC signature, validates the event, and stores it durably in the
// inbox before answering 200. Concurrent deliveries share one SQLite commit
// (group commit), so a burst of callbacks pays a few fsyncs, not one each.
//
// The receiver only records events; applying them is the worker's job
// (internal/sync), which the receiver wakes through Config.Notify. The two
// packages do not import each other.
package receiver

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/store"
)

// SignatureHeader carries the lowercase hex HMAC-SHA256 of the raw body.
const SignatureHeader = "X-Service-Authenticity-Signature"

// Defaults for Config.
const (
	DefaultPath    = "/webhook"
	DefaultMaxBody = 1 << 20 // 1 MiB
	// DefaultMaxInFlight is the default Config.MaxInFlight.
	DefaultMaxInFlight = 512
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
)

// Log field names.
const (
	logComponent     = "component"
	logEventID       = "event_id"
	logEventType     = "event_type"
	logTransactionID = "transaction_id"
	logStatus        = "status"
	logReason        = "reason"
	logBatch         = "batch"
	logInserted      = "inserted"
)

// ErrClosed is the reply to requests still waiting when the receiver stops.
var ErrClosed = errors.New("receiver closed")

// inbox is the one store method the receiver needs.
type inbox interface {
	InsertEvents(ctx context.Context, evs []store.InboxEvent) (inserted []string, err error)
}

var _ inbox = (*store.Store)(nil)

// Config configures a Receiver.
type Config struct {
	// Path is the webhook's path; DefaultPath when empty.
	Path string
	// Secrets returns every secret currently valid (two during a rotation).
	// It is called once per request, so it must be cheap (an in-memory
	// snapshot); a secret it starts returning is accepted at once.
	Secrets func(ctx context.Context) ([][]byte, error)
	// Notify, if set, is called by the writer after each commit that
	// inserted new events, with their ids. It runs on the writer goroutine:
	// it must not block (poke a channel).
	Notify func(ids []string)
	// Registering, if set, reports whether a webhook is being registered
	// (its secret not yet stored). While it is, a delivery whose signature
	// matches no known secret is answered 503, so the bank retries it, not
	// 401: it may be signed with the secret about to be stored.
	Registering func(ctx context.Context) bool
	// Miss, if set, is called when a signature matched none of the
	// secrets (a cache of them may be behind a new registration); the
	// secrets are then asked for again and checked once more.
	Miss func(ctx context.Context) bool
	// MaxInFlight caps the deliveries handled at once; beyond it a delivery
	// is answered 503 (the bank retries) before its body is read.
	// DefaultMaxInFlight when <= 0.
	MaxInFlight int
	// MaxBody is the largest body accepted; DefaultMaxBody when <= 0.
	MaxBody int64
	// Log is the logger; the receiver adds component=receiver.
	Log zerolog.Logger
}

// request is one event waiting for its commit.
type request struct {
	ctx   context.Context
	ev    store.InboxEvent
	reply chan error // buffered: the writer never blocks on it
}

// Receiver is the webhook handler plus its group-commit writer.
type Receiver struct {
	in  inbox
	cfg Config
	log zerolog.Logger

	queue   chan *request
	slots   chan struct{} // one per delivery being handled
	stop    chan struct{} // closed by Close
	done    chan struct{} // closed when the writer has exited
	started atomic.Bool
	mu      sync.Mutex // serialises Start and Close
	closed  bool

	// direct makes each request insert its own event in its own
	// transaction, bypassing the writer (the benchmark's baseline).
	direct bool
	// onEnqueue, if set, is called after a request is queued (tests).
	onEnqueue func()
}

// New returns a receiver storing into in (a *store.Store in production).
// Call Start before serving and Close after the HTTP server has shut down.
func New(in inbox, cfg Config) *Receiver {
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
	if cfg.Secrets == nil {
		cfg.Secrets = func(context.Context) ([][]byte, error) { return nil, nil }
	}
	return &Receiver{
		in:    in,
		cfg:   cfg,
		log:   cfg.Log.With().Str(logComponent, "receiver").Logger(),
		queue: make(chan *request, maxBatch),
		slots: make(chan struct{}, cfg.MaxInFlight),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
}

// Start runs the writer goroutine until ctx ends or Close is called. The
// writer's inserts use ctx, so pass a context that outlives the HTTP
// server's graceful shutdown and stop with Close.
func (r *Receiver) Start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	if r.started.Load() {
		return errors.New("receiver already started")
	}
	r.started.Store(true)
	go r.run(ctx)
	return nil
}

// Close stops the writer and waits for it: a commit in progress finishes,
// and requests still queued are answered 503. It is safe to call more than
// once, and before Start.
func (r *Receiver) Close() error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.stop)
	}
	started := r.started.Load()
	r.mu.Unlock()
	if started {
		<-r.done
	}
	return nil
}

// run is the single writer: it takes the first queued request, drains what
// else is already queued (no waiting window), commits them together and
// answers them all.
func (r *Receiver) run(ctx context.Context) {
	defer close(r.done)
	defer r.failQueued()
	batch := make([]*request, 0, maxBatch)
	for {
		// Stopping wins over queued work: Close answers the queue with 503.
		select {
		case <-r.stop:
			return
		default:
		}
		select {
		case <-ctx.Done():
			return
		case <-r.stop:
			return
		case req := <-r.queue:
			batch = append(batch[:0], req)
		drain:
			for len(batch) < maxBatch {
				select {
				case req := <-r.queue:
					batch = append(batch, req)
				default:
					break drain
				}
			}
			r.commit(ctx, batch)
			clear(batch) // drop references to bodies
		}
	}
}

// commit stores the batch in one transaction and answers each request.
// Requests whose client has gone are dropped before the insert: they were
// never acknowledged, so the bank will send them again.
func (r *Receiver) commit(ctx context.Context, batch []*request) {
	evs := make([]store.InboxEvent, 0, len(batch))
	live := batch[:0]
	for _, req := range batch {
		if err := req.ctx.Err(); err != nil {
			req.reply <- err
			continue
		}
		evs = append(evs, req.ev)
		live = append(live, req)
	}
	if len(evs) == 0 {
		return
	}
	inserted, err := r.in.InsertEvents(ctx, evs)
	for _, req := range live {
		req.reply <- err
	}
	if err != nil {
		r.log.Error().Err(err).Int(logBatch, len(evs)).Msg("store webhook events")
		return
	}
	r.log.Debug().Int(logBatch, len(evs)).Int(logInserted, len(inserted)).Msg("committed webhook events")
	if len(inserted) > 0 && r.cfg.Notify != nil {
		r.cfg.Notify(inserted)
	}
}

// failQueued answers every request still queued when the writer exits.
func (r *Receiver) failQueued() {
	for {
		select {
		case req := <-r.queue:
			req.reply <- ErrClosed
		default:
			return
		}
	}
}

// store hands ev to the writer and waits until the commit holding it
// returns. A nil result means the event is durable.
func (r *Receiver) store(ctx context.Context, ev store.InboxEvent) error {
	if r.direct {
		_, err := r.in.InsertEvents(ctx, []store.InboxEvent{ev})
		return err
	}
	if !r.started.Load() {
		return errors.New("receiver not started")
	}
	req := &request{ctx: ctx, ev: ev, reply: make(chan error, 1)}
	select {
	case r.queue <- req:
	case <-r.done:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("queue event: %w", ctx.Err())
	}
	if r.onEnqueue != nil {
		r.onEnqueue()
	}
	select {
	case err := <-req.reply:
		return err
	case <-r.done:
		// The writer answers before it exits: a reply may be waiting.
		select {
		case err := <-req.reply:
			return err
		default:
			return ErrClosed
		}
	case <-ctx.Done():
		return fmt.Errorf("wait for commit: %w", ctx.Err())
	}
}

// Handler serves POST on the webhook path and GET /healthz (liveness: the
// process answers). Readiness is the caller's business. Everything else is
// 404.
func (r *Receiver) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case r.cfg.Path:
			if req.Method != http.MethodPost {
				w.Header().Set("Allow", http.MethodPost)
				http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
				return
			}
			r.serveWebhook(w, req)
		case "/healthz":
			if req.Method != http.MethodGet && req.Method != http.MethodHead {
				w.Header().Set("Allow", "GET, HEAD")
				http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = io.WriteString(w, "ok")
		default:
			http.NotFound(w, req)
		}
	})
}

func (r *Receiver) serveWebhook(w http.ResponseWriter, req *http.Request) {
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	default:
		r.reject(w, http.StatusServiceUnavailable, "too many deliveries at once", nil)
		return
	}
	body, status, reason := r.readBody(w, req)
	if status != 0 {
		r.reject(w, status, reason, nil)
		return
	}
	secrets, err := r.cfg.Secrets(req.Context())
	if err != nil {
		r.log.Error().Err(err).Msg("load webhook secrets")
		r.reject(w, http.StatusServiceUnavailable, "secrets unavailable", nil)
		return
	}
	sig := req.Header.Get(SignatureHeader)
	if sig == "" {
		r.reject(w, http.StatusUnauthorized, "missing signature", nil)
		return
	}
	if !VerifySignature(body, sig, secrets) && r.cfg.Miss != nil {
		// The secrets may have changed since this request read them (a
		// reload by Miss, or by another request's): check again.
		r.cfg.Miss(req.Context())
		if secrets, err = r.cfg.Secrets(req.Context()); err != nil {
			secrets = nil
		}
	}
	if !VerifySignature(body, sig, secrets) {
		if r.cfg.Registering != nil && r.cfg.Registering(req.Context()) {
			r.reject(w, http.StatusServiceUnavailable, "unknown signature during a webhook registration", nil)
			return
		}
		r.reject(w, http.StatusUnauthorized, "bad signature", nil)
		return
	}
	e, err := bank.ParseWebhookEvent(body)
	if err != nil {
		// The decoder's message names fields and values, never the body.
		r.reject(w, http.StatusBadRequest, "invalid event", err)
		return
	}
	ev := store.InboxEvent{
		ID:            e.ID,
		EventType:     e.EventType,
		WebhookID:     e.WebhookID,
		TransactionID: e.TransactionID,
		CreatedAt:     e.CreatedAt,
		Source:        store.SourceWebhook,
		Body:          string(body),
	}
	ctx, cancel := context.WithTimeout(req.Context(), ackTimeout)
	defer cancel()
	if err := r.store(ctx, ev); err != nil {
		r.log.Warn().Err(err).Str(logEventID, ev.ID).Str(logEventType, ev.EventType).
			Str(logTransactionID, ev.TransactionID).Int(logStatus, http.StatusServiceUnavailable).
			Str(logReason, "not stored").Msg("webhook rejected")
		http.Error(w, "event not stored, retry", http.StatusServiceUnavailable)
		return
	}
	r.log.Debug().Str(logEventID, ev.ID).Str(logEventType, ev.EventType).
		Str(logTransactionID, ev.TransactionID).Int(logStatus, http.StatusOK).Msg("webhook accepted")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, "ok")
}

// readBody reads the whole body, at most MaxBody bytes. A non-zero status
// means the request is refused.
func (r *Receiver) readBody(w http.ResponseWriter, req *http.Request) (body []byte, status int, reason string) {
	limit := r.cfg.MaxBody
	if req.ContentLength > limit {
		return nil, http.StatusRequestEntityTooLarge, "body too large"
	}
	var buf bytes.Buffer
	// Trust a declared length only up to what a real event needs, so that
	// requests that never send their body cannot pin memory.
	if n := req.ContentLength; n > 0 {
		buf.Grow(int(min(n, 64<<10)))
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, req.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, http.StatusRequestEntityTooLarge, "body too large"
		}
		return nil, http.StatusBadRequest, "read body"
	}
	return buf.Bytes(), 0, ""
}

// reject answers a refused request and logs why, at warn. It never logs the
// body, the signature or a secret.
func (r *Receiver) reject(w http.ResponseWriter, status int, reason string, cause error) {
	l := r.log.Warn().Int(logStatus, status).Str(logReason, reason)
	if cause != nil {
		// Decoder messages quote field values; cap them.
		msg := cause.Error()
		if len(msg) > maxLoggedError {
			msg = msg[:maxLoggedError] + "..."
		}
		l = l.Str(zerolog.ErrorFieldName, msg)
	}
	l.Msg("webhook rejected")
	http.Error(w, http.StatusText(status), status)
}

// VerifySignature reports whether signatureHex is the hex HMAC-SHA256 of
// body under one of secrets. Hex is accepted in either case; the spec sends
// lowercase. Empty secrets never match (anyone could sign with them). Each
// secret is tried, in constant time, even after a match.
func VerifySignature(body []byte, signatureHex string, secrets [][]byte) bool {
	if len(signatureHex) != 2*sha256.Size {
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
