// Package ynab is a fake of YNAB's API v1 (budgets are "plans"), for
// testing a client that feeds YNAB without the network: plans, accounts,
// categories, payees and transactions kept in memory, with YNAB's
// server knowledge deltas, de-duplication by import id per account,
// transfers through an account's transfer payee, personal access token
// auth and its limit of 200 requests per rolling hour per token.
//
// Given a Spec (package ynabspec: YNAB's own OpenAPI description,
// version 1.85.0), every request is validated against it and refused with
// a 400 in YNAB's error shape when it does not match; every response the
// fake writes is validated too, and a mismatch is reported to
// Options.OnInvalid.
//
// Like the simulated bank, it imports none of the daemon's packages.
package ynab

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RequestLimit is YNAB's limit of requests per token in any rolling hour.
const RequestLimit = 200

// Options configure a Fake.
type Options struct {
	// Token is the personal access token accepted (default: a random one).
	Token string
	// Now is the fake's clock (default time.Now): the rate limit's
	// rolling hour and the server's "today" follow it.
	Now func() time.Time
	// Limit is the requests per token per rolling hour (0: RequestLimit,
	// negative: none).
	Limit int
	// Spec, when set, validates every request (one that does not match
	// is refused with a 400) and, with OnInvalid, every response.
	Spec Spec
	// OnInvalid, when set with Spec, is called with every response the
	// fake wrote that does not match YNAB's description (a bug in the
	// fake).
	OnInvalid func(error)
}

// Spec checks requests and responses against YNAB's API description
// (ynabspec.Spec); rel is the request's path relative to /v1.
type Spec interface {
	ValidateRequest(r *http.Request, rel string, body []byte) error
	ValidateResponse(r *http.Request, rel string, reqBody []byte, status int, header http.Header, body []byte) error
}

// Fake is the fake YNAB server. Its methods are safe for concurrent use.
type Fake struct {
	spec      Spec
	now       func() time.Time
	limit     int
	onInvalid func(error)

	mu     sync.Mutex
	tokens map[string][]time.Time // token -> times of its requests in the last hour
	plans  []*plan
	down   bool
	log    []string // "METHOD /path?query" of every request answered
}

// New returns a fake with no plans.
func New(opts Options) (*Fake, error) {
	f := &Fake{spec: opts.Spec, now: opts.Now, limit: opts.Limit, onInvalid: opts.OnInvalid, tokens: map[string][]time.Time{}}
	if f.now == nil {
		f.now = time.Now
	}
	if f.limit == 0 {
		f.limit = RequestLimit
	}
	tok := opts.Token
	if tok == "" {
		tok = randomHex(32)
	}
	f.tokens[tok] = nil
	return f, nil
}

// Token is the first personal access token the fake accepts.
func (f *Fake) Token() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for t := range f.tokens {
		return t
	}
	return ""
}

// AddToken makes the fake accept another personal access token, with a
// request budget of its own.
func (f *Fake) AddToken(tok string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.tokens[tok]; !ok {
		f.tokens[tok] = nil
	}
}

// RevokeToken makes the fake refuse a personal access token (401), as
// YNAB does once its owner revokes it; AddToken accepts it again.
func (f *Fake) RevokeToken(tok string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.tokens, tok)
}

// SetDown takes the app down (every request answered 503) or back up.
func (f *Fake) SetDown(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

// SetLimit changes the requests per token per rolling hour (negative:
// none), as a test's way to have the app answer 429 for a while.
func (f *Fake) SetLimit(n int) {
	f.mu.Lock()
	f.limit = n
	f.mu.Unlock()
}

// Requests returns "METHOD /v1/path?query" of every request answered
// (whatever its status), oldest first.
func (f *Fake) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

// apiError is YNAB's error response.
type apiError struct {
	status int
	id     string
	name   string
	detail string
}

func (e *apiError) Error() string { return e.id + " " + e.name + ": " + e.detail }

func badRequest(format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, id: "400", name: "bad_request", detail: fmt.Sprintf(format, args...)}
}

func notFound(what string) *apiError {
	return &apiError{status: http.StatusNotFound, id: "404.2", name: "resource_not_found", detail: what + " not found"}
}

// Handler serves the API under /v1/.
func (f *Fake) Handler() http.Handler { return http.HandlerFunc(f.serve) }

// recorder buffers a response so that it can be validated before it is
// sent.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<20))
	if err != nil {
		writeError(w, &apiError{status: http.StatusRequestEntityTooLarge, id: "400", name: "bad_request", detail: "request body too large"})
		return
	}
	rec := &recorder{header: http.Header{}}
	rel, _ := strings.CutPrefix(r.URL.Path, "/v1")
	op, params := match(r.Method, rel)
	f.handle(rec, r, rel, body, op, params)
	if f.spec != nil && f.onInvalid != nil {
		if err := f.spec.ValidateResponse(r, rel, body, rec.status, rec.header, rec.body.Bytes()); err != nil {
			f.onInvalid(fmt.Errorf("%s %s: %d: %w", r.Method, r.URL.Path, rec.status, err))
		}
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
}

func (f *Fake) handle(w *recorder, r *http.Request, rel string, body []byte, op string, params map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, r.Method+" "+r.URL.RequestURI())
	if f.down {
		w.fail(&apiError{status: http.StatusServiceUnavailable, id: "503", name: "service_unavailable",
			detail: "We're down for maintenance. Please try again later."})
		return
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	times, known := f.tokens[tok]
	if !ok || !known {
		w.fail(&apiError{status: http.StatusUnauthorized, id: "401", name: "unauthorized", detail: "Unauthorized"})
		return
	}
	now := f.now()
	times = pruneHour(times, now)
	if f.limit > 0 && len(times) >= f.limit {
		f.tokens[tok] = times
		wait := times[0].Add(time.Hour).Sub(now)
		w.header.Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		w.fail(&apiError{status: http.StatusTooManyRequests, id: "429", name: "too_many_requests", detail: "Too many requests"})
		return
	}
	f.tokens[tok] = append(times, now)
	h := f.operations()[op]
	if h == nil {
		w.fail(&apiError{status: http.StatusNotFound, id: "404.1", name: "not_found", detail: "The specified URI does not exist."})
		return
	}
	if f.spec != nil {
		if err := f.spec.ValidateRequest(r, rel, body); err != nil {
			w.fail(badRequest("%s", shortReason(err)))
			return
		}
	}
	q := r.URL.Query()
	status, v, aerr := h(call{params: params, query: q, body: body, now: now})
	if aerr != nil {
		w.fail(aerr)
		return
	}
	w.json(status, v)
}

// pruneHour drops the times more than an hour before now.
func pruneHour(times []time.Time, now time.Time) []time.Time {
	i := 0
	for i < len(times) && !times[i].After(now.Add(-time.Hour)) {
		i++
	}
	return times[i:]
}

func (w *recorder) json(status int, v any) {
	w.header.Set("Content-Type", "application/json; charset=utf-8")
	w.status = status
	if err := json.NewEncoder(&w.body).Encode(v); err != nil {
		w.body.Reset()
		w.fail(&apiError{status: http.StatusInternalServerError, id: "500", name: "internal_server_error", detail: "encode response"})
	}
}

func (w *recorder) fail(e *apiError) {
	w.json(e.status, errorBody(e))
}

func errorBody(e *apiError) map[string]any {
	return map[string]any{"error": map[string]string{"id": e.id, "name": e.name, "detail": e.detail}}
}

func writeError(w http.ResponseWriter, e *apiError) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(errorBody(e))
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// shortReason is the first line of a validation error, for an error
// body's detail.
func shortReason(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

var errNoPlan = errors.New("no such plan")
