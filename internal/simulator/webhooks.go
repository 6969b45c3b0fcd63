package simulator

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Webhooks: registration, events and their asynchronous delivery.
//
// Every create, settle and delete (control API) calls emit, which makes one
// WebhookEventResource per webhook existing at that moment and hands it to
// the delivery machinery. A delivery POSTs {"data": <event>} to the
// webhook's URL, signed in X-Service-Authenticity-Signature (lowercase
// hex HMAC-SHA256 of the raw body, keyed with the webhook's secretKey), or
// in the header Options.WebhookSignatureHeader names: the real bank (Up)
// uses X-Up-Authenticity-Signature.
// HTTP 200 exactly is success; anything else is retried with exponential
// backoff, with the same event id and the same body. Every attempt is logged.
//
// Behaviour where the spec is silent:
//   - Backoff before attempt n+1 is WebhookRetryBase * 2^(n-1), capped at
//     WebhookRetryMax, no jitter; after WebhookMaxAttempts attempts the
//     event is given up silently (its logs remain).
//   - A response other than 200 is BAD_RESPONSE_CODE (redirects are not
//     followed); a connection error, a timeout or a failure while reading
//     the response body is UNDELIVERABLE with response null. At most 64 KiB
//     of the response body is kept.
//   - Deliveries run on a small pool of workers (WebhookWorkers, default 4)
//     started on first use; deliveries of one webhook run concurrently and
//     their order is not preserved.
//   - Deleting a webhook cancels its queued, scheduled and in-flight
//     deliveries; an attempt cut short by the deletion is not logged. Its
//     logs stay in DeliveryLog (truth) but GET /webhooks/{id}/logs is 404.
//   - Log createdAt is the event's createdAt plus the real time elapsed since
//     the event was emitted, so delivery workers never call Options.Now
//     (tests drive that clock from their own goroutine).
//   - Webhook, event and log ids and secrets come from crypto/rand, so
//     webhook activity does not change the seeded transaction data.
//   - Lists are ordered by creation sequence (webhooks oldest first, logs
//     newest first), not by createdAt, so that a fixed test clock still
//     gives a well-defined order.
//   - The event's links use the API base URL of the request that created
//     the webhook.
//   - Webhook faults (SetWebhookFaults) apply to every event, PING included.

// Webhook limits and enums (spec: Limits, WebhookDeliveryStatusEnum).
const (
	eventPing = "PING"

	maxWebhooks        = 10
	maxWebhookURLLen   = 300
	maxWebhookDescLen  = 64
	maxResponseBodyLog = 64 << 10

	deliveryDelivered       = "DELIVERED"
	deliveryUndeliverable   = "UNDELIVERABLE"
	deliveryBadResponseCode = "BAD_RESPONSE_CODE"

	// SignatureHeader carries the HMAC-SHA256 of a callback body, as the
	// spec names it; the default of Options.WebhookSignatureHeader.
	SignatureHeader = "X-Service-Authenticity-Signature"
	// UpSignatureHeader is the header the real bank (Up) signs in.
	UpSignatureHeader = "X-Up-Authenticity-Signature"
)

// Defaults of the webhook options.
const (
	defaultWebhookRetryBase   = 30 * time.Second
	defaultWebhookRetryMax    = time.Hour
	defaultWebhookMaxAttempts = 8
	defaultWebhookTimeout     = 30 * time.Second
	defaultWebhookWorkers     = 4
)

// WebhookFaults perturbs webhook delivery the way real banks do, to test a
// receiver. The zero value delivers every event promptly, once.
type WebhookFaults struct {
	// Duplicate is the probability that an event, once delivered (200), is
	// delivered again: DuplicateCopies more times (each a logged attempt
	// with the same event id and body). Duplicate=1 therefore delivers every
	// event exactly 1+DuplicateCopies times.
	Duplicate float64
	// DuplicateCopies is the number of extra deliveries of a duplicated
	// event: 1 (when 0) or 2, so that each event arrives 1-3 times.
	DuplicateCopies int
	// Reorder holds the first delivery attempt of every new event until
	// FlushDeliveries, which sends the batch in shuffled order, one at a
	// time (retries and duplicates are not held).
	Reorder bool
	// DeliverInReverse holds like Reorder, but FlushDeliveries sends the
	// batch in reverse order of emission, one delivery after the other:
	// emit CREATED then SETTLED, flush, and the receiver deterministically
	// gets SETTLED before CREATED (as long as both first attempts succeed).
	DeliverInReverse bool
	// Paused holds every delivery (first attempts, retries that come due
	// and duplicates) without sending. Unpausing with SetWebhookFaults
	// releases them to the worker pool (still held if Reorder or
	// DeliverInReverse is on, until FlushDeliveries).
	Paused bool
	// Drop is the fraction of events that are never delivered and never
	// logged (the "missing TRANSACTION_SETTLED" case). EventInfo.Dropped
	// records which ones.
	Drop float64
}

// WebhookInfo is the simulator's truth about a live webhook.
type WebhookInfo struct {
	Person      string // the person whose token created it
	ID          string
	URL         string
	Description *string
	Secret      string
	CreatedAt   time.Time
}

// EventInfo is one webhook event: one per webhook per transaction event,
// and one per ping.
type EventInfo struct {
	Person        string // the webhook's person
	ID            string
	Type          string // TRANSACTION_CREATED, TRANSACTION_SETTLED, TRANSACTION_DELETED, PING
	TransactionID string // "" for PING
	WebhookID     string
	CreatedAt     time.Time
	Body          []byte // the exact callback body, {"data": <event>}
	Dropped       bool   // WebhookFaults.Drop chose never to deliver it
}

// DeliveryResponse is the response to a delivery attempt.
type DeliveryResponse struct {
	StatusCode int    `json:"statusCode"`
	Body       string `json:"body"`
}

// DeliveryLogInfo is one delivery attempt.
type DeliveryLogInfo struct {
	ID             string
	WebhookID      string
	EventID        string
	EventType      string
	Attempt        int  // 1 for the first attempt of a delivery, 2 for its first retry, ...
	Duplicate      bool // a delivery made by WebhookFaults.Duplicate
	RequestBody    []byte
	Response       *DeliveryResponse // nil when no response was received (UNDELIVERABLE)
	DeliveryStatus string            // DELIVERED, BAD_RESPONSE_CODE, UNDELIVERABLE
	CreatedAt      time.Time
}

// WebhookRetry is the delivery schedule of webhook events. Zero fields
// take the defaults: 30s doubling to 1h, 8 attempts, 30s per attempt.
type WebhookRetry struct {
	Base     time.Duration // first retry delay, doubled per attempt
	Max      time.Duration // cap of the retry delay
	Attempts int           // attempts per delivery before giving up
	Timeout  time.Duration // per attempt
}

// SetWebhookRetry replaces the delivery schedule; it applies to the
// attempts and retries that start after the call.
func (b *Bank) SetWebhookRetry(r WebhookRetry) {
	wh := &b.wh
	wh.mu.Lock()
	defer wh.mu.Unlock()
	wh.cfg.setRetry(r)
}

// WebhookRetry returns the delivery schedule.
func (b *Bank) WebhookRetry() WebhookRetry {
	wh := &b.wh
	wh.mu.Lock()
	defer wh.mu.Unlock()
	c := &wh.cfg
	return WebhookRetry{Base: c.retryBase, Max: c.retryMax, Attempts: c.maxAttempts, Timeout: c.timeout}
}

func (c *webhookConfig) setRetry(r WebhookRetry) {
	c.retryBase = orDefault(r.Base, defaultWebhookRetryBase)
	c.retryMax = max(orDefault(r.Max, defaultWebhookRetryMax), c.retryBase)
	c.maxAttempts = orDefault(r.Attempts, defaultWebhookMaxAttempts)
	c.timeout = orDefault(r.Timeout, defaultWebhookTimeout)
}

// webhookConfig is the delivery configuration; the retry schedule is
// guarded by webhookState.mu, the rest is immutable.
type webhookConfig struct {
	retryBase   time.Duration
	retryMax    time.Duration
	maxAttempts int
	timeout     time.Duration
	workers     int
	sigHeader   string // canonical header name of the signature
	client      *http.Client
	transport   *http.Transport // of the default client, closed by Close; nil otherwise
}

func newWebhookConfig(opts Options) webhookConfig {
	c := webhookConfig{
		workers:   orDefault(opts.WebhookWorkers, defaultWebhookWorkers),
		sigHeader: http.CanonicalHeaderKey(opts.WebhookSignatureHeader),
		client:    opts.HTTPClient,
	}
	if c.sigHeader == "" {
		c.sigHeader = SignatureHeader
	}
	c.setRetry(WebhookRetry{Base: opts.WebhookRetryBase, Max: opts.WebhookRetryMax, Attempts: opts.WebhookMaxAttempts, Timeout: opts.WebhookTimeout})
	if c.client == nil {
		// No client timeout: each attempt's context carries the current one.
		c.transport = http.DefaultTransport.(*http.Transport).Clone()
		c.client = &http.Client{
			Transport:     c.transport,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return c
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// backoff is the wait after the given number of failed attempts (>= 1).
func (c *webhookConfig) backoff(attempts int) time.Duration {
	d := c.retryBase
	for i := 1; i < attempts && d < c.retryMax; i++ {
		d *= 2
	}
	return min(d, c.retryMax)
}

// webhook is a registered webhook.
type webhook struct {
	id          string
	url         string
	description *string
	secret      string
	createdAt   time.Time
	seq         int64
	owner       *person // whose token created it: only they see it, it gets their events
	base        string  // API base URL at creation, for the links of its events
	ctx         context.Context
	cancel      context.CancelFunc
	deleted     bool           // guarded by webhookState.mu
	logs        []*deliveryLog // guarded by webhookState.mu; attempt order
}

// webhookEvent is an emitted event for one webhook.
type webhookEvent struct {
	id        string
	eventType string
	txID      string
	hook      *webhook
	createdAt time.Time
	emitted   time.Time // real (monotonic) time of emission
	body      []byte    // {"data": <event>}; never modified
	dropped   bool
}

// deliveryLog is one logged attempt.
type deliveryLog struct {
	id          string
	seq         int64
	event       *webhookEvent
	attempt     int
	duplicate   bool
	hasResponse bool
	statusCode  int
	respBody    string
	status      string
	createdAt   time.Time
}

// delivery is one delivery of an event (the original or a duplicate)
// across its attempts.
type delivery struct {
	ev        *webhookEvent
	attempts  int // attempts made so far
	duplicate bool
}

// webhookState is the webhook registry and the delivery machinery. It has
// its own lock: emit runs without b.mu and deliveries never touch b.mu.
//
// Accounting: active counts deliveries queued, in flight or waiting for a
// retry timer; idle is closed exactly when active is 0. Held deliveries
// (Paused, Reorder, DeliverInReverse) are not active.
type webhookState struct {
	cfg     webhookConfig // immutable after New
	mu      sync.Mutex
	rng     *mrand.Rand // guarded by mu; fault decisions
	faults  WebhookFaults
	seq     int64
	hooks   []*webhook // live, creation order
	byID    map[string]*webhook
	all     map[string]*webhook // every webhook ever created
	events  []*webhookEvent
	queue   []*delivery
	held    []*delivery
	timers  map[*time.Timer]*delivery
	active  int
	idle    chan struct{}
	work    *sync.Cond // signalled when queue grows or on close
	started int        // workers started
	closed  bool
	root    context.Context
	stop    context.CancelFunc
	wg      sync.WaitGroup // workers and flush lanes
}

func (wh *webhookState) init(opts Options) {
	wh.cfg = newWebhookConfig(opts)
	seed := opts.Seed
	wh.rng = mrand.New(mrand.NewPCG(seed, 0x3eb_4006))
	wh.byID = map[string]*webhook{}
	wh.all = map[string]*webhook{}
	wh.timers = map[*time.Timer]*delivery{}
	wh.idle = make(chan struct{})
	close(wh.idle)
	wh.work = sync.NewCond(&wh.mu)
	wh.root, wh.stop = context.WithCancel(context.Background())
}

func (wh *webhookState) incActiveLocked() {
	if wh.active == 0 {
		wh.idle = make(chan struct{})
	}
	wh.active++
}

func (wh *webhookState) doneLocked() {
	if wh.closed || wh.active == 0 {
		return
	}
	wh.active--
	if wh.active == 0 {
		close(wh.idle)
	}
}

// holds reports whether d must be held rather than sent now.
func (wh *webhookState) holds(d *delivery) bool {
	f := wh.faults
	first := d.attempts == 0 && !d.duplicate
	return f.Paused || (first && (f.Reorder || f.DeliverInReverse))
}

// randomID returns a random version-4 UUID from crypto/rand.
func randomID() string {
	var seed [32]byte
	if _, err := rand.Read(seed[:]); err != nil {
		panic("simulator: crypto/rand: " + err.Error())
	}
	return newUUID(mrand.New(mrand.NewChaCha8(seed)))
}

// randomSecret returns 64 random alphanumeric characters, like the real
// bank's secretKey.
func randomSecret() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	out := make([]byte, 0, 64)
	var buf [96]byte
	for len(out) < 64 {
		if _, err := rand.Read(buf[:]); err != nil {
			panic("simulator: crypto/rand: " + err.Error())
		}
		for _, c := range buf {
			if c < 248 && len(out) < 64 { // 248 = 4*62: no modulo bias
				out = append(out, alphabet[int(c)%len(alphabet)])
			}
		}
	}
	return string(out)
}

// Sign returns the signature of a callback body (the value of its
// signature header): the lowercase hex HMAC-SHA256 of body keyed with
// secret.
func Sign(secret string, body []byte) string {
	return hex.EncodeToString(hmacSHA256([]byte(secret), string(body)))
}

// hmacSHA256 is the HMAC-SHA256 of msg keyed with key.
func hmacSHA256(key []byte, msg string) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msg))
	return mac.Sum(nil)
}

// emit creates one event per live webhook whose owner sees the account
// and submits their delivery; in a household, none for the joint account
// unless Options.JointWebhooks. It is called without b.mu held, once per
// create, settle and delete, in order.
func (b *Bank) emit(eventType, txID, accountID string) {
	if b.household && accountID == b.jointAccount && !b.opts.JointWebhooks {
		return
	}
	now := b.now()
	wh := &b.wh
	wh.mu.Lock()
	defer wh.mu.Unlock()
	for _, h := range wh.hooks {
		if h.owner.canSee(accountID) {
			b.newEventLocked(h, eventType, txID, now)
		}
	}
}

// newEventLocked records an event for h and submits (or drops) its
// delivery; wh.mu is held.
func (b *Bank) newEventLocked(h *webhook, eventType, txID string, now time.Time) *webhookEvent {
	wh := &b.wh
	ev := &webhookEvent{id: randomID(), eventType: eventType, txID: txID, hook: h, createdAt: now, emitted: time.Now()}
	ev.body = single(appendWebhookEvent(nil, ev))
	wh.events = append(wh.events, ev)
	if wh.faults.Drop > 0 && wh.rng.Float64() < wh.faults.Drop {
		ev.dropped = true
		return ev
	}
	wh.submitLocked(&delivery{ev: ev})
	return ev
}

// submitLocked queues d for a worker, or holds it; wh.mu is held.
func (wh *webhookState) submitLocked(d *delivery) {
	if wh.closed || d.ev.hook.deleted {
		return
	}
	if wh.holds(d) {
		wh.held = append(wh.held, d)
		return
	}
	wh.incActiveLocked()
	wh.enqueueLocked(d)
}

// enqueueLocked appends an active delivery to the queue, starting a worker
// if the pool is not full yet; wh.mu is held.
func (wh *webhookState) enqueueLocked(d *delivery) {
	wh.queue = append(wh.queue, d)
	if wh.started < wh.cfg.workers {
		wh.started++
		wh.wg.Add(1)
		go wh.worker()
	}
	wh.work.Signal()
}

// worker sends queued deliveries until Close.
func (wh *webhookState) worker() {
	defer wh.wg.Done()
	wh.mu.Lock()
	for {
		for len(wh.queue) == 0 && !wh.closed {
			wh.work.Wait()
		}
		if wh.closed {
			wh.mu.Unlock()
			return
		}
		d := wh.queue[0]
		wh.queue[0] = nil
		wh.queue = wh.queue[1:]
		wh.mu.Unlock()
		wh.attempt(d)
		wh.mu.Lock()
	}
}

// attemptResult is the outcome of one POST.
type attemptResult struct {
	status      string
	hasResponse bool
	statusCode  int
	body        string
}

// attempt makes one delivery attempt of an active delivery, logs it and
// schedules what follows (retry, duplicates) or finishes the delivery.
func (wh *webhookState) attempt(d *delivery) {
	h := d.ev.hook
	wh.mu.Lock()
	if wh.closed {
		wh.mu.Unlock()
		return
	}
	if h.deleted {
		wh.doneLocked()
		wh.mu.Unlock()
		return
	}
	timeout := wh.cfg.timeout
	wh.mu.Unlock()

	res := wh.send(h, d.ev.body, timeout)

	wh.mu.Lock()
	defer wh.mu.Unlock()
	if wh.closed {
		return
	}
	if h.deleted {
		wh.doneLocked()
		return
	}
	d.attempts++
	wh.seq++
	h.logs = append(h.logs, &deliveryLog{
		id: randomID(), seq: wh.seq, event: d.ev, attempt: d.attempts, duplicate: d.duplicate,
		hasResponse: res.hasResponse, statusCode: res.statusCode, respBody: res.body, status: res.status,
		createdAt: d.ev.createdAt.Add(time.Since(d.ev.emitted)),
	})
	switch {
	case res.status == deliveryDelivered:
		if !d.duplicate && wh.faults.Duplicate > 0 && wh.rng.Float64() < wh.faults.Duplicate {
			copies := min(max(wh.faults.DuplicateCopies, 1), 2)
			for range copies {
				wh.submitLocked(&delivery{ev: d.ev, duplicate: true})
			}
		}
	case d.attempts < wh.cfg.maxAttempts:
		wh.scheduleRetryLocked(d) // stays active
		return
	}
	wh.doneLocked()
}

// scheduleRetryLocked arms a timer for the next attempt of d, which stays
// active meanwhile; wh.mu is held.
func (wh *webhookState) scheduleRetryLocked(d *delivery) {
	var t *time.Timer
	t = time.AfterFunc(wh.cfg.backoff(d.attempts), func() {
		wh.mu.Lock()
		defer wh.mu.Unlock()
		if _, ok := wh.timers[t]; !ok {
			return // stopped by deletion or Close
		}
		delete(wh.timers, t)
		switch {
		case wh.closed:
		case d.ev.hook.deleted:
			wh.doneLocked()
		case wh.holds(d):
			wh.held = append(wh.held, d)
			wh.doneLocked()
		default:
			wh.enqueueLocked(d) // still counted as active
		}
	})
	wh.timers[t] = d
}

// send POSTs body to h's URL.
func (wh *webhookState) send(h *webhook, body []byte, timeout time.Duration) attemptResult {
	undeliverable := attemptResult{status: deliveryUndeliverable}
	ctx, cancel := context.WithTimeout(h.ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return undeliverable
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "bankmirror-simulator-webhooks/1")
	req.Header.Set(wh.cfg.sigHeader, Sign(h.secret, body))
	resp, err := wh.cfg.client.Do(req)
	if err != nil {
		return undeliverable
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBodyLog))
	if err != nil {
		return undeliverable
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // let the connection be reused
	res := attemptResult{status: deliveryBadResponseCode, hasResponse: true, statusCode: resp.StatusCode, body: string(got)}
	if resp.StatusCode == http.StatusOK {
		res.status = deliveryDelivered
	}
	return res
}

// SetWebhookFaults replaces the webhook fault configuration. Deliveries
// held by the previous configuration and no longer held by the new one are
// released to the worker pool.
func (b *Bank) SetWebhookFaults(f WebhookFaults) {
	wh := &b.wh
	wh.mu.Lock()
	defer wh.mu.Unlock()
	wh.faults = f
	held := wh.held
	wh.held = nil
	for _, d := range held {
		wh.submitLocked(d)
	}
}

// FlushDeliveries releases every held delivery (even while Paused): in
// reverse order of emission with DeliverInReverse, shuffled with Reorder,
// else in emission order. The batch is sent one delivery at a time, each
// first attempt finishing before the next starts; retries and duplicates
// then go to the worker pool. It returns at once; use WaitDeliveries.
func (b *Bank) FlushDeliveries() {
	wh := &b.wh
	wh.mu.Lock()
	defer wh.mu.Unlock()
	batch := slices.DeleteFunc(wh.held, func(d *delivery) bool { return d.ev.hook.deleted })
	wh.held = nil
	if wh.closed || len(batch) == 0 {
		return
	}
	switch {
	case wh.faults.DeliverInReverse:
		slices.Reverse(batch)
	case wh.faults.Reorder:
		wh.rng.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
	}
	for range batch {
		wh.incActiveLocked()
	}
	wh.wg.Add(1)
	go func() {
		defer wh.wg.Done()
		for _, d := range batch {
			wh.attempt(d)
		}
	}()
}

// HeldDeliveries is the number of deliveries held by Paused, Reorder or
// DeliverInReverse, waiting for SetWebhookFaults or FlushDeliveries.
func (b *Bank) HeldDeliveries() int {
	b.wh.mu.Lock()
	defer b.wh.mu.Unlock()
	return len(b.wh.held)
}

// WaitDeliveries blocks until no delivery is queued, in flight or waiting
// for a retry, or until ctx is done. Held deliveries (see WebhookFaults) do
// not count: they cannot progress until released, so WaitDeliveries does
// not wait for them. It returns at once after Close.
func (b *Bank) WaitDeliveries(ctx context.Context) error {
	b.wh.mu.Lock()
	idle := b.wh.idle
	b.wh.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops SetLive's changes and webhook delivery: pending, held and scheduled deliveries are
// discarded, in-flight requests cancelled (and not logged), and the workers
// waited for. Later events are recorded but never delivered. The HTTP API
// keeps working. Close is idempotent; a bank that is never closed leaks
// nothing unless webhooks deliver (workers then idle until Close).
func (b *Bank) Close() {
	b.SetLive(0)
	wh := &b.wh
	wh.mu.Lock()
	if wh.closed {
		wh.mu.Unlock()
		return
	}
	wh.closed = true
	for t := range wh.timers {
		t.Stop()
	}
	clear(wh.timers)
	wh.queue, wh.held = nil, nil
	if wh.active > 0 {
		wh.active = 0
		close(wh.idle)
	}
	wh.stop()
	wh.work.Broadcast()
	wh.mu.Unlock()
	wh.wg.Wait()
	if wh.cfg.transport != nil {
		wh.cfg.transport.CloseIdleConnections()
	}
}

// Webhooks lists the live webhooks, oldest first, with their secrets.
func (b *Bank) Webhooks() []WebhookInfo {
	b.wh.mu.Lock()
	defer b.wh.mu.Unlock()
	out := make([]WebhookInfo, len(b.wh.hooks))
	for i, h := range b.wh.hooks {
		out[i] = WebhookInfo{Person: h.owner.name, ID: h.id, URL: h.url, Description: clonePtr(h.description), Secret: h.secret, CreatedAt: h.createdAt}
	}
	return out
}

// DeliveryLog lists every logged delivery attempt to a webhook (deleted
// ones included), oldest first; nil for an unknown id.
func (b *Bank) DeliveryLog(webhookID string) []DeliveryLogInfo {
	b.wh.mu.Lock()
	defer b.wh.mu.Unlock()
	h, ok := b.wh.all[webhookID]
	if !ok {
		return nil
	}
	out := make([]DeliveryLogInfo, len(h.logs))
	for i, l := range h.logs {
		out[i] = DeliveryLogInfo{
			ID: l.id, WebhookID: h.id, EventID: l.event.id, EventType: l.event.eventType,
			Attempt: l.attempt, Duplicate: l.duplicate, RequestBody: slices.Clone(l.event.body),
			DeliveryStatus: l.status, CreatedAt: l.createdAt,
		}
		if l.hasResponse {
			out[i].Response = &DeliveryResponse{StatusCode: l.statusCode, Body: l.respBody}
		}
	}
	return out
}

// Events lists every event emitted, in emission order.
func (b *Bank) Events() []EventInfo {
	b.wh.mu.Lock()
	defer b.wh.mu.Unlock()
	out := make([]EventInfo, len(b.wh.events))
	for i, ev := range b.wh.events {
		out[i] = EventInfo{Person: ev.hook.owner.name, ID: ev.id, Type: ev.eventType, TransactionID: ev.txID, WebhookID: ev.hook.id,
			CreatedAt: ev.createdAt, Body: slices.Clone(ev.body), Dropped: ev.dropped}
	}
	return out
}

// SetSettleAsReplacement makes Settle take the rare path when on: the held
// transaction is deleted (TRANSACTION_DELETED) and a SETTLED copy with a new
// id is created (TRANSACTION_CREATED), as SettleAsReplacement does. The new
// id is in Events() and Snapshot().
func (b *Bank) SetSettleAsReplacement(on bool) { b.replaceOnSettle.Store(on) }
