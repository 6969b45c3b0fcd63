// Package bank is the client of the bank's JSON:API (see the spec
// bank-api.md). It paces requests to an hourly budget, retries 429, 5xx and
// transport errors with capped backoff, follows pagination links and decodes
// resources keeping their exact JSON.
package bank

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/pause"
)

// DefaultBaseURL is the production API, version prefix included.
const DefaultBaseURL = "https://api.up.com.au/api/v1"

const (
	userAgent = "bankmirror"
	// maxBodySize caps one response of the bank. The largest answers are
	// pages of 100 resources: 100 transactions with every field set are
	// about 350 KB (the simulator's largest page is 160 KB), a page of
	// delivery logs carries each event's body (about 1 KB) and the
	// receiver's short answer. 4 MiB leaves ten times that and keeps a
	// refused answer's cost to a few MiB of memory.
	maxBodySize     = 4 << 20
	defaultPageSize = 100
)

// Client talks to the bank API. It is safe for concurrent use.
type Client struct {
	baseURL  string // without trailing slash
	base     *url.URL
	token    *token
	hc       *http.Client
	log      zerolog.Logger
	budget   *budget
	pageSize int

	backoffBase, backoffMax time.Duration
	maxAttempts             int
	unreachableWithin       time.Duration // WithUnreachableWithin
	budgetOpts              []func(*budget)

	requests atomic.Int64
	// onResponse, if set, sees the status of every HTTP attempt (0 for a
	// transport error).
	onResponse func(status int)
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient replaces the default HTTP client (20s timeout, 10s dial,
// 10s idle connections, keep-alive).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithLogger sets the logger for retries. Default: zerolog.Nop().
func WithLogger(l zerolog.Logger) Option { return func(c *Client) { c.log = l } }

// WithHourlyBudget caps the requests sent per hour (retries included)
// below what the bank allows. 0, the default, means no cap of our own: the
// client follows the budget the bank reports.
func WithHourlyBudget(n int) Option {
	return func(c *Client) { c.budgetOpts = append(c.budgetOpts, func(b *budget) { b.cap = max(n, 0) }) }
}

// WithReserve sets how many requests of the bank's budget syncs leave for
// webhook refetches. Default DefaultReserve.
func WithReserve(n int) Option {
	return func(c *Client) { c.budgetOpts = append(c.budgetOpts, func(b *budget) { b.reserve = max(n, 0) }) }
}

// WithBucket sets the length of the bank's rate-limit buckets, used to
// expect the next reset once one was seen. Default DefaultBucket.
func WithBucket(d time.Duration) Option {
	return func(c *Client) { c.budgetOpts = append(c.budgetOpts, func(b *budget) { b.bucket = d }) }
}

// WithBudgetObserver calls f (quickly, without blocking) whenever what the
// client knows of the bank's budget changes.
func WithBudgetObserver(f func(BudgetState)) Option {
	return func(c *Client) { c.budgetOpts = append(c.budgetOpts, func(b *budget) { b.onChange = f }) }
}

// WithResponseObserver calls f (quickly, without blocking) after every
// HTTP attempt with its status code, or 0 when no answer came (a timeout,
// a connection error).
func WithResponseObserver(f func(status int)) Option { return func(c *Client) { c.onResponse = f } }

// WithBackoff sets the backoff for 5xx, timeouts and connection errors.
// Default 500ms doubling to 30s, with full jitter.
func WithBackoff(base, maxWait time.Duration) Option {
	return func(c *Client) { c.backoffBase, c.backoffMax = base, maxWait }
}

// WithRateLimitBackoff sets the backoff between probes of a spent budget
// when neither Retry-After nor the bank's next reset is known. Default 1s
// doubling to 5m.
func WithRateLimitBackoff(base, maxWait time.Duration) Option {
	return func(c *Client) {
		c.budgetOpts = append(c.budgetOpts, func(b *budget) { b.probeBase, b.probeMax = base, maxWait })
	}
}

// WithMaxAttempts sets how many attempts a request gets on 5xx, timeouts and
// connection errors. 429 answers are not counted. Default 8.
func WithMaxAttempts(n int) Option { return func(c *Client) { c.maxAttempts = n } }

// WithPageSize sets page[size] of list requests (PageSize). Default 100.
func WithPageSize(n int) Option { return func(c *Client) { c.pageSize = n } }

// New returns a client for baseURL (DefaultBaseURL if empty) that
// authenticates with the personal access token.
func New(baseURL, token string, opts ...Option) *Client {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	c := &Client{
		baseURL:     strings.TrimRight(baseURL, "/"),
		token:       newToken(token),
		log:         zerolog.Nop(),
		pageSize:    defaultPageSize,
		backoffBase: 500 * time.Millisecond,
		backoffMax:  30 * time.Second,
		maxAttempts: 8,
	}
	for _, o := range opts {
		o(c)
	}
	defaultClient := c.hc == nil
	if c.maxAttempts < 1 {
		c.maxAttempts = 1
	}
	if c.pageSize < 1 {
		c.pageSize = defaultPageSize
	}
	// A malformed base URL leaves base nil; every request then fails with a
	// clear error instead of New panicking or returning an error.
	if u, err := url.Parse(c.baseURL); err == nil && u.Host != "" {
		c.base = u
	}
	if defaultClient {
		c.hc = defaultHTTPClient()
		c.hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			_, err := c.checkURL(req.URL.String())
			return err
		}
	}
	c.log = c.log.With().Str(logfield.Component, "bank").Logger()
	c.budget = newBudget(c.log)
	for _, o := range c.budgetOpts {
		o(c.budget)
	}
	return c
}

// Budget is what the client knows of the bank's request budget now.
func (c *Client) Budget() BudgetState { return c.budget.state() }

// PageSize is the number of resources the client asks for per page of a
// listing (WithPageSize).
func (c *Client) PageSize() int { return c.pageSize }

func defaultHTTPClient() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{
		Timeout: 20 * time.Second,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           dialer.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          16,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       10 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		},
	}
}

// Requests returns how many HTTP requests were sent, retries included.
func (c *Client) Requests() int64 { return c.requests.Load() }

// endpoint returns the absolute URL of a path below the base URL.
func (c *Client) endpoint(path string, q url.Values) string {
	s := c.baseURL + path
	if len(q) > 0 {
		s += "?" + q.Encode()
	}
	return s
}

// pageQuery is page[size] for list endpoints.
func (c *Client) pageQuery() url.Values {
	return url.Values{"page[size]": {strconv.Itoa(c.pageSize)}}
}

// checkURL refuses URLs whose scheme or host differ from the base URL.
func (c *Client) checkURL(raw string) (*url.URL, error) {
	if c.base == nil {
		return nil, fmt.Errorf("invalid base url %q", c.baseURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parse url: %w", err)
	}
	if !strings.EqualFold(u.Scheme, c.base.Scheme) || !strings.EqualFold(u.Host, c.base.Host) {
		return nil, fmt.Errorf("%w: %s://%s", errForeignURL, u.Scheme, u.Host)
	}
	return u, nil
}

var errBodyTooLarge = fmt.Errorf("response body over %d MiB", maxBodySize>>20)

// bufPool holds response body buffers. Decoders copy what they keep, so a
// buffer goes back to the pool once the response is decoded.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// request describes one API call.
type request struct {
	method string
	url    string // absolute
	body   []byte // JSON, nil for none
	// sent, if set, receives when the attempt whose answer is decoded was
	// sent: the bank's state in the answer is no older than that.
	sent *time.Time
	// repeatable marks a POST that the spec makes idempotent all the same
	// (adding tags: duplicates are ignored), so it is retried like a PATCH.
	repeatable bool
}

// idempotent reports whether 5xx and timeouts may be retried.
func (r request) idempotent() bool {
	return r.method == http.MethodGet || r.method == http.MethodPatch || r.method == http.MethodDelete || r.repeatable
}

// label is "GET /path" (base path and query left out) for errors and logs;
// a path that names an overlong id is shortened as LogID does.
func (c *Client) label(r request, u *url.URL) string {
	p := u.Path
	if c.base != nil {
		p = strings.TrimPrefix(p, strings.TrimRight(c.base.Path, "/"))
	}
	return r.method + " " + LogID(p)
}

// do sends r with pacing and retries and calls decode with the status and
// body of the first 2xx answer. body is only valid during decode.
func (c *Client) do(ctx context.Context, r request, decode func(status int, body []byte) error) error {
	u, err := c.checkURL(r.url)
	if err != nil {
		return err
	}
	label := c.label(r, u)
	buf := bufPool.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxBodySize/4 {
			bufPool.Put(buf)
		}
	}()

	lane := laneOf(ctx)
	first := time.Now()
	failures, limited := 0, 0
	var lastErr error // the last failure, reported if the wait is cancelled
	for {
		if _, rejected := c.token.get(); rejected {
			// The bank refused this token: sending it again would only
			// spend the budget. A new one (SetToken) lifts this.
			return fmt.Errorf("%s: %w", label, errTokenRejected)
		}
		p, err := c.budget.acquire(ctx, lane)
		if err != nil {
			if lastErr != nil {
				return fmt.Errorf("%s: waiting for the bank's budget: %w: %w", label, err, lastErr)
			}
			return fmt.Errorf("%s: waiting for the bank's budget: %w", label, err)
		}
		if r.sent != nil {
			*r.sent = time.Now()
		}
		tok, _ := c.token.get()
		status, hdr, err := c.send(ctx, r, u, buf, tok)
		c.budget.done(p, status, hdr)
		var wait time.Duration
		switch {
		case err != nil:
			if ctxErr := ctx.Err(); ctxErr != nil {
				return fmt.Errorf("%s: %w", label, ctxErr)
			}
			failures++
			wait = fullJitter(c.backoffBase, c.backoffMax, failures)
			stop := !retryableTransport(err, r.idempotent()) || failures >= c.maxAttempts
			if c.unreachableWithin > 0 && Unreachable(err) && (stop || time.Since(first)+wait > c.unreachableWithin) {
				return &UnreachableError{Request: label, Attempts: failures, Took: time.Since(first), Err: err}
			}
			if stop {
				return fmt.Errorf("%s: attempt %d: %w", label, failures, err)
			}
			lastErr = err
			c.log.Warn().Str(logfield.Request, label).Int(logfield.Attempt, failures).Dur(logfield.Wait, wait).
				Str(zerolog.ErrorFieldName, err.Error()).Msg("bank request failed, retrying")
		case status >= 200 && status < 300:
			if decode == nil {
				return nil
			}
			if err := decode(status, buf.Bytes()); err != nil {
				return fmt.Errorf("%s: %w: %w", label, ErrDecode, err)
			}
			return nil
		case status == http.StatusTooManyRequests:
			// The budget waits (Retry-After, the next bucket, or a
			// backoff) before the next attempt; 429s never give up.
			limited++
			lastErr = newAPIError(status, buf.Bytes())
			c.log.Warn().Str(logfield.Request, label).Int(logfield.Status, status).Int(logfield.Attempt, limited).
				Str(logfield.RetryAfter, hdr.Get("Retry-After")).Str(logfield.Remaining, hdr.Get(RemainingHeader)).Msg("bank rate limited, waiting")
			continue
		case status >= 500:
			failures++
			apiErr := newAPIError(status, buf.Bytes())
			if !r.idempotent() || failures >= c.maxAttempts {
				return fmt.Errorf("%s: attempt %d: %w", label, failures, apiErr)
			}
			wait = fullJitter(c.backoffBase, c.backoffMax, failures)
			lastErr = apiErr
			c.log.Warn().Str(logfield.Request, label).Int(logfield.Status, status).Int(logfield.Attempt, failures).
				Dur(logfield.Wait, wait).Msg("bank server error, retrying")
		default:
			// 401 and the other 4xx are permanent; so is any 1xx/3xx left
			// over after the HTTP client's redirect handling.
			if status == http.StatusUnauthorized {
				c.token.reject(tok, time.Now())
			}
			return fmt.Errorf("%s: %w", label, newAPIError(status, buf.Bytes()))
		}
		if err := pause.For(ctx, wait); err != nil {
			return fmt.Errorf("%s: %w: %w", label, err, lastErr)
		}
	}
}

// send makes one HTTP attempt and reads the whole body into buf.
func (c *Client) send(ctx context.Context, r request, u *url.URL, buf *bytes.Buffer, tok string) (int, http.Header, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return 0, nil, fmt.Errorf("new request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.requests.Add(1)
	resp, err := c.hc.Do(req)
	if c.onResponse != nil {
		status := 0
		if err == nil {
			status = resp.StatusCode
		}
		c.onResponse(status)
	}
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	buf.Reset()
	if resp.ContentLength > maxBodySize {
		// Refused unread: closing the body drops the connection.
		return 0, nil, errBodyTooLarge
	}
	if resp.ContentLength > 0 {
		// Room for the body and the read that sees its end: one
		// allocation, where growing by doubling makes a dozen.
		buf.Grow(int(resp.ContentLength) + bytes.MinRead)
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, maxBodySize+1))
	if err != nil {
		return 0, nil, fmt.Errorf("read body: %w", err)
	}
	if n > maxBodySize {
		return 0, nil, errBodyTooLarge
	}
	return resp.StatusCode, resp.Header, nil
}

// retryableTransport reports whether a transport error may be retried.
// Non-idempotent requests are retried only when the connection was refused,
// which means nothing was sent.
func retryableTransport(err error, idempotent bool) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	if !idempotent {
		return false
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) {
		return false
	}
	if errors.Is(err, errBodyTooLarge) || errors.Is(err, errForeignURL) {
		return false
	}
	return true
}

// fullJitter is a random wait in [0, Backoff(base, maxWait, n)].
func fullJitter(base, maxWait time.Duration, n int) time.Duration {
	d := Backoff(base, maxWait, n)
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1) //nolint:gosec // jitter needs no secrecy
}

// equalJitter is a wait in [d/2, d] with d = Backoff(base, maxWait, n),
// so a rate-limited client never probes again at once.
func equalJitter(base, maxWait time.Duration, n int) time.Duration {
	d := Backoff(base, maxWait, n)
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1) //nolint:gosec // jitter needs no secrecy
}

// Backoff is the delay after the nth failure in a row: base, doubling with
// each failure, at most maxWait (0 when base is not positive). The
// client's retries draw a random wait below it; the event worker waits it
// whole.
func Backoff(base, maxWait time.Duration, n int) time.Duration {
	if base <= 0 {
		return 0
	}
	d := base
	for i := 1; i < n && d < maxWait; i++ {
		d *= 2
	}
	return min(d, maxWait)
}

// retryAfter parses a Retry-After header: delay seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(min(s, int64(24*time.Hour/time.Second))) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
