// Package ynab feeds YNAB (api.ynab.com, API v1, whose budgets are
// "plans") through its REST API: the feeds.Opener of kind "ynab".
//
// YNAB allows 200 requests per personal access token in any rolling hour
// and answers 429 beyond. The Opener counts every request per token,
// refuses to send one the hour has no room for (a *feeds.Unavailable
// saying when there will be), honours a 429's Retry-After, and keeps,
// per plan, a copy of the transactions it has read with YNAB's
// server_knowledge, so that a round reads only what changed since the
// last. Writes go in bulk: up to MaxBatch transactions per POST or PATCH.
// YNAB has no bulk delete: a deletion is a request of its own.
package ynab

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

const (
	// DefaultURL is YNAB's API.
	DefaultURL = "https://api.ynab.com/v1"
	// RequestLimit is YNAB's limit of requests per token per rolling hour.
	RequestLimit = 200
	// MaxBatch is the most transactions sent in one POST or PATCH. YNAB
	// documents no limit; a thousand keeps a request body near 300 kB
	// and a 100,000-transaction history at 100 POSTs.
	MaxBatch = 1000
	// basePace is the least time between two rounds at RequestLimit: a
	// round reads three times (accounts, categories, the transactions
	// changed), so 30 rounds an hour use 90 of the 200 requests and leave
	// the rest for writes.
	basePace = 2 * time.Minute
	// quickPace is the least time between two rounds while every token
	// has used at most a quarter of its hour: a purchase reaches YNAB
	// within seconds when the feed has been quiet, and under sustained
	// activity the pace falls back to basePace, which keeps the hour's
	// requests well inside the limit.
	quickPace = 15 * time.Second
)

// Errors of the API, by status.
var (
	ErrUnauthorized = errors.New("ynab refused the personal access token")
	ErrNotFound     = errors.New("ynab: not found")
	ErrBadRequest   = errors.New("ynab refused the request")
	ErrNoPlan       = errors.New("no such ynab plan")
	ErrNoAccount    = errors.New("no such ynab account")
)

// Opener opens sessions with YNAB. It keeps, across sessions, each
// token's request count and each plan's copy of its transactions.
type Opener struct {
	hc    *http.Client
	now   func() time.Time
	limit int
	batch int

	mu      sync.Mutex
	budgets map[string]*budget     // by token digest
	plans   map[string]*planCache  // by URL, token digest and plan id
	planIDs map[string]planSummary // by URL, token digest and the target's budget
}

var _ feeds.Opener = (*Opener)(nil)

// Option configures an Opener.
type Option func(*Opener)

// WithHTTPClient sets the HTTP client (default: 30 s timeout).
func WithHTTPClient(c *http.Client) Option { return func(o *Opener) { o.hc = c } }

// WithClock sets the clock the request budget follows (default time.Now).
func WithClock(now func() time.Time) Option { return func(o *Opener) { o.now = now } }

// WithLimit sets the requests allowed per token per rolling hour (default
// RequestLimit).
func WithLimit(n int) Option { return func(o *Opener) { o.limit = n } }

// WithBatch sets the most transactions sent in one request (default
// MaxBatch).
func WithBatch(n int) Option { return func(o *Opener) { o.batch = n } }

// New returns an Opener.
func New(opts ...Option) *Opener {
	o := &Opener{now: time.Now, limit: RequestLimit, budgets: map[string]*budget{},
		plans: map[string]*planCache{}, planIDs: map[string]planSummary{}}
	for _, opt := range opts {
		opt(o)
	}
	if o.hc == nil {
		o.hc = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
			Proxy:           http.ProxyFromEnvironment,
			DialContext:     (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			IdleConnTimeout: 10 * time.Second, TLSHandshakeTimeout: 10 * time.Second}}
	}
	if o.limit <= 0 {
		o.limit = RequestLimit
	}
	if o.batch <= 0 {
		o.batch = MaxBatch
	}
	return o
}

// Pace is the least time between two rounds: quickPace while every
// token has used at most a quarter of its requests of the last hour (and
// no 429 holds), else basePace at YNAB's limit, longer for a smaller one.
func (o *Opener) Pace() time.Duration {
	full := time.Duration(int64(basePace) * RequestLimit / int64(o.limit))
	now := o.now()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, b := range o.budgets {
		used := 0
		for _, t := range b.times {
			if t.After(now.Add(-time.Hour)) {
				used++
			}
		}
		if used > o.limit/4 || now.Before(b.blocked) {
			return full
		}
	}
	return min(quickPace, full)
}

// budget is one token's requests in the rolling hour.
type budget struct {
	times   []time.Time
	blocked time.Time // a 429 said: none before
}

// take counts a request now, or says when there is room for one.
func (o *Opener) take(key string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.budgets[key]
	if b == nil {
		b = &budget{}
		o.budgets[key] = b
	}
	now := o.now()
	i := 0
	for i < len(b.times) && !b.times[i].After(now.Add(-time.Hour)) {
		i++
	}
	b.times = b.times[i:]
	if now.Before(b.blocked) {
		return &feeds.Unavailable{Err: errors.New("ynab asked to wait (429)"), RetryAfter: b.blocked}
	}
	if len(b.times) >= o.limit {
		return &feeds.Unavailable{Err: fmt.Errorf("ynab request budget spent (%d an hour)", o.limit),
			RetryAfter: b.times[0].Add(time.Hour)}
	}
	b.times = append(b.times, now)
	return nil
}

// block records a 429: no request before until.
func (o *Opener) block(key string, until time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.budgets[key]
	if until.After(b.blocked) {
		b.blocked = until
	}
}

// Requests is the number of requests sent with token in the last hour.
func (o *Opener) Requests(token string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.budgets[digest(token)]
	if b == nil {
		return 0
	}
	n := 0
	for _, t := range b.times {
		if t.After(o.now().Add(-time.Hour)) {
			n++
		}
	}
	return n
}

func digest(token string) string {
	s := sha256.Sum256([]byte(token))
	return hex.EncodeToString(s[:])
}

// conn is one token on one server.
type conn struct {
	o     *Opener
	base  string
	token string
	key   string
	log   zerolog.Logger
}

// apiError is YNAB's error body.
type apiError struct {
	Error struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Detail string `json:"detail"`
	} `json:"error"`
}

// do sends one request and decodes a 2xx body into out.
func (c *conn) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	if err := c.o.take(c.key); err != nil {
		return err
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return fmt.Errorf("ynab request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.o.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("ynab %s %s: %w", method, path, ctx.Err())
		}
		return &feeds.Unavailable{Err: fmt.Errorf("ynab %s %s: %w", method, path, err)}
	}
	defer res.Body.Close()
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		if out == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			return nil
		}
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			if !jsonType(res.Header.Get("Content-Type")) {
				return c.notYNAB(method, path, res)
			}
			return &feeds.Unavailable{Err: fmt.Errorf("ynab %s %s: decode: %w", method, path, err)}
		}
		return nil
	}
	if res.StatusCode == http.StatusNotFound && !jsonType(res.Header.Get("Content-Type")) {
		return c.notYNAB(method, path, res)
	}
	var ae apiError
	_ = json.NewDecoder(io.LimitReader(res.Body, 64<<10)).Decode(&ae)
	detail := textsafe.Cut(ae.Error.Detail, 200)
	c.log.Debug().Str(logfield.Request, method+" "+path).Int(logfield.Status, res.StatusCode).
		Str(logfield.Reason, ae.Error.Name).Msg("ynab refused a request")
	switch {
	case res.StatusCode == http.StatusTooManyRequests:
		until := c.o.now().Add(time.Hour)
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 {
			until = c.o.now().Add(time.Duration(s) * time.Second)
		}
		c.o.block(c.key, until)
		return &feeds.Unavailable{Err: errors.New("ynab: too many requests (429)"), RetryAfter: until}
	case res.StatusCode == http.StatusUnauthorized:
		return &feeds.Unavailable{Err: ErrUnauthorized, Mend: "put a valid personal access token in the feed's token_file"}
	case res.StatusCode >= 500:
		return &feeds.Unavailable{Err: fmt.Errorf("ynab %s %s: status %d (%s)", method, path, res.StatusCode, detail)}
	case res.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: %s %s (%s)", ErrNotFound, method, path, detail)
	default:
		return fmt.Errorf("%w: %s %s: status %d (%s)", ErrBadRequest, method, path, res.StatusCode, detail)
	}
}

// notYNAB is an answer that is not YNAB's API (a web page, another
// server): the feed's url is wrong.
func (c *conn) notYNAB(method, path string, res *http.Response) error {
	what := res.Header.Get("Content-Type")
	if what == "" {
		what = "no content type"
	}
	return &feeds.Unavailable{
		Err:  fmt.Errorf("ynab %s %s: %s answered %d (%s), not ynab's json", method, path, c.base, res.StatusCode, textsafe.Cut(what, 60)),
		Mend: "set the feed's url to ynab's api, " + DefaultURL + ", or leave it out",
	}
}

// jsonType reports whether a Content-Type is JSON's.
func jsonType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// planSummary is a plan as GET /plans lists it.
type planSummary struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Open finds the plan target.Budget names (its id, or its name when one
// plan has it) and starts a session with it.
func (o *Opener) Open(ctx context.Context, t feeds.Target) (feeds.Session, error) {
	if t.Secret == "" {
		return nil, &feeds.Unavailable{Err: ErrUnauthorized, Mend: "put a personal access token in the feed's token_file"}
	}
	base := strings.TrimRight(t.URL, "/")
	if base == "" {
		base = DefaultURL
	}
	c := &conn{o: o, base: base, token: t.Secret, key: digest(t.Secret), log: t.Log}
	ck := base + "\x00" + c.key + "\x00" + t.Budget
	o.mu.Lock()
	p, ok := o.planIDs[ck]
	o.mu.Unlock()
	if !ok {
		var err error
		if p, err = c.findPlan(ctx, t.Budget); err != nil {
			return nil, err
		}
		o.mu.Lock()
		o.planIDs[ck] = p
		o.mu.Unlock()
	}
	pk := base + "\x00" + c.key + "\x00" + p.ID
	o.mu.Lock()
	defer o.mu.Unlock()
	st := o.plans[pk]
	if st == nil {
		st = newPlanCache()
		if file := planFileName(t.Dir, p.ID); file != "" {
			st.file = file
			if err := st.load(); err != nil {
				t.Log.Warn().Err(err).Msg("the plan's copy is read afresh from YNAB")
				st = newPlanCache()
				st.file = file
			}
		}
		o.plans[pk] = st
	}
	return &session{c: c, plan: p.ID, pk: pk, st: st}, nil
}

// findPlan resolves a plan id or name.
func (c *conn) findPlan(ctx context.Context, want string) (planSummary, error) {
	var res struct {
		Data struct {
			Plans []planSummary `json:"plans"`
		} `json:"data"`
	}
	if err := c.do(ctx, http.MethodGet, "/plans", nil, nil, &res); err != nil {
		return planSummary{}, fmt.Errorf("list ynab plans: %w", err)
	}
	var named []planSummary
	for _, p := range res.Data.Plans {
		if p.ID == want {
			return p, nil
		}
		if p.Name == want {
			named = append(named, p)
		}
	}
	if len(named) == 1 {
		return named[0], nil
	}
	var cands []string
	for _, p := range res.Data.Plans {
		cands = append(cands, fmt.Sprintf("%q (%s)", p.Name, p.ID))
	}
	if len(named) > 1 {
		return planSummary{}, fmt.Errorf("%w: %d plans are named %q, give its id: %s", ErrNoPlan, len(named), want, strings.Join(cands, ", "))
	}
	if len(cands) == 0 {
		return planSummary{}, fmt.Errorf("%w: %q (the token sees no plan)", ErrNoPlan, want)
	}
	return planSummary{}, fmt.Errorf("%w: %q; the plans are %s", ErrNoPlan, want, strings.Join(cands, ", "))
}
