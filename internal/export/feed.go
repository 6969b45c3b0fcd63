package export

import (
	"database/sql"
	"fmt"
	"math"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/throttle"
	"github.com/bankmirror/bankmirror/internal/tokencheck"
)

// Reasons a request is refused before any query runs, passed to
// FeedOptions.OnRefused and counted in the log's summaries (tokencheck's).
const (
	// RefusedNoToken: no token in the request (401).
	RefusedNoToken = tokencheck.NoToken
	// RefusedWrongToken: a token that is not the feed's (401).
	RefusedWrongToken = tokencheck.WrongToken
	// RefusedThrottled: too many wrong tokens lately, from the client's
	// source or from all together (429 with Retry-After).
	RefusedThrottled = tokencheck.Throttled
	// RefusedCrossSite: a browser sent the request for another site's
	// page (Sec-Fetch-Site or Origin say so): 403, its token not looked at
	// and nothing counted against the address.
	RefusedCrossSite = tokencheck.CrossSite
)

// RefusalReasons is every reason OnRefused is called with, so that a
// metric can start each at zero.
func RefusalReasons() []string { return tokencheck.Reasons() }

// FeedPrefix is where the feed is served: FeedPrefix + "v_transactions.csv".
const FeedPrefix = "/export/"

// TokenParam is the query parameter that may carry the token, for
// spreadsheet programs that cannot send a header (Google Sheets'
// IMPORTDATA).
const TokenParam = "token"

// MinTokenLength is the shortest token the feed accepts as configuration.
const MinTokenLength = 16

// FeedOptions tune a Feed. Zero values take the defaults.
type FeedOptions struct {
	// Location is the customer's zone, for days in since and until.
	Location *time.Location
	// MaxConcurrent is how many exports run at once (default 2); more get
	// 503 with Retry-After.
	MaxConcurrent int
	// OnRefused, if set, is called for each request refused for its token
	// or its address, with one of the Refused reasons (a metric). It must
	// be cheap and safe for concurrent use.
	OnRefused func(reason string)
	// RefusedLogInterval is how often refusals are summarised in the log
	// (package refusals): default a minute.
	RefusedLogInterval time.Duration
	// Throttle tunes how an address that keeps failing is slowed down
	// (throttle's defaults: 10 failures in a row, then one per 6 s; 4,096
	// addresses remembered).
	Throttle throttle.Options
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client (BANKMIRROR_TRUSTED_PROXIES); none by default, so that
	// no client can name itself another address.
	TrustedProxies []netip.Prefix
	Log            zerolog.Logger
}

// Feed serves the mirror's views as CSV or JSON lines over HTTP, for
// spreadsheets that refresh from a URL:
//
//	GET /export/v_transactions.csv?since=2025-01-01&category=groceries
//
// with the filters of `bankmirror export` as query parameters. Every
// request must carry the token, as "Authorization: Bearer TOKEN" or as
// ?token=TOKEN; without it the answer is 401 and no query runs. Tokens are
// checked by package tokencheck: a source that keeps sending wrong ones is
// answered 429, and a global ceiling bounds the guesses of all sources
// together. The client's address is the peer's or, when the peer is one of
// TrustedProxies, the address that X-Forwarded-For names beyond them.
type Feed struct {
	db      *sql.DB
	loc     *time.Location
	sem     chan struct{}
	log     zerolog.Logger
	check   *tokencheck.Checker
	proxies []netip.Prefix
}

// NewFeed returns the feed reading the mirror through db (read-only
// connections). token must pass CheckToken: the feed is off without one.
func NewFeed(db *sql.DB, token string, opts FeedOptions) (*Feed, error) {
	if err := CheckToken(token); err != nil {
		return nil, fmt.Errorf("export feed: %w", err)
	}
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = 2
	}
	log := opts.Log.With().Str(logfield.Component, "export-feed").Logger()
	return &Feed{db: db, loc: opts.Location, sem: make(chan struct{}, opts.MaxConcurrent), log: log,
		proxies: opts.TrustedProxies,
		check: tokencheck.New(token, tokencheck.Options{Name: "export feed", Throttle: opts.Throttle,
			OnRefused: opts.OnRefused, RefusedLogInterval: opts.RefusedLogInterval, Log: log})}, nil
}

// Close writes the refusals not reported yet to the log.
func (f *Feed) Close() { f.check.Close() }

// Tracked is how many client addresses the throttle remembers.
func (f *Feed) Tracked() int { return f.check.Tracked() }

// Register mounts the feed on mux at FeedPrefix.
func (f *Feed) Register(mux *http.ServeMux) { mux.Handle(FeedPrefix, f) }

// ServeHTTP serves GET FeedPrefix + VIEW.csv or VIEW.json.
func (f *Feed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	// The token may be in the URL: take it out before anything (a
	// middleware's access log after us included) can record the URL.
	token, hasToken, query := takeToken(r)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if v := f.check.Check(r, clientAddr(r, f.proxies), token, hasToken); !v.OK {
		switch v.Status {
		case http.StatusForbidden:
			http.Error(w, "forbidden: the feed does not answer requests made for another site's page", http.StatusForbidden)
		case http.StatusTooManyRequests:
			h.Set("Retry-After", strconv.Itoa(int(math.Ceil(v.RetryAfter.Seconds()))))
			http.Error(w, "too many requests: too many refused tokens lately; retry after the time in Retry-After", http.StatusTooManyRequests)
		default:
			h.Set("WWW-Authenticate", `Bearer realm="bankmirror export"`)
			http.Error(w, "unauthorized: a token is required (Authorization: Bearer TOKEN or ?token=TOKEN)", http.StatusUnauthorized)
		}
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, FeedPrefix)
	ext := path.Ext(name)
	view := strings.TrimSuffix(name, ext)
	var format Format
	switch ext {
	case ".csv":
		format = CSV
	case ".json", ".jsonl":
		format = JSON
	default:
		ok = false
	}
	if !ok || view == "" || strings.Contains(view, "/") {
		http.Error(w, "not found: use "+FeedPrefix+"VIEW.csv or "+FeedPrefix+"VIEW.json", http.StatusNotFound)
		return
	}
	filter, err := FilterFromQuery(query)
	if err != nil {
		f.fail(w, view, format, err)
		return
	}
	select {
	case f.sem <- struct{}{}:
		defer func() { <-f.sem }()
	default:
		h.Set("Retry-After", "5")
		http.Error(w, "busy: other exports are running, retry shortly", http.StatusServiceUnavailable)
		return
	}
	plan, err := Prepare(r.Context(), f.db, Request{Format: format, Views: []string{view}, Filter: filter, Location: f.loc})
	if err != nil {
		f.fail(w, view, format, err)
		return
	}
	if format == CSV {
		h.Set("Content-Type", "text/csv; charset=utf-8; header=present")
	} else {
		h.Set("Content-Type", "application/x-ndjson; charset=utf-8")
	}
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": view + "." + string(format)}))
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	cw := &countingWriter{w: w}
	res, err := plan.Write(r.Context(), f.db, cw)
	level := zerolog.InfoLevel
	if err != nil {
		level = zerolog.WarnLevel
	}
	f.log.WithLevel(level).Err(err).Str(logfield.View, view).Str(logfield.Format, string(format)).Int64(logfield.Rows, res.Rows).
		Dur(logfield.Duration, time.Since(start)).Msg("export feed: served")
	if err != nil {
		if cw.n == 0 && r.Context().Err() == nil {
			http.Error(w, "export failed", http.StatusInternalServerError)
			return
		}
		// Headers and part of the rows are out: break the connection so
		// the client sees a failed download, not a short sheet.
		panic(http.ErrAbortHandler)
	}
}

// fail answers a refused request: 404 for an unknown view, 400 otherwise.
func (f *Feed) fail(w http.ResponseWriter, view string, format Format, err error) {
	status := http.StatusInternalServerError
	msg := "export failed"
	if IsInvalid(err) {
		status, msg = http.StatusBadRequest, err.Error()
		if strings.Contains(msg, "no view") {
			status = http.StatusNotFound
		}
	}
	f.log.Info().Err(err).Str(logfield.View, view).Str(logfield.Format, string(format)).Int(logfield.Status, status).Msg("export feed: refused")
	http.Error(w, msg, status)
}

// clientAddr is the address request r comes from: the TCP peer's or, when
// the peer is one of the trusted proxies, the nearest address in
// X-Forwarded-For that is not one of them (each proxy appends the address
// it was reached from; what lies beyond the first untrusted one is the
// client's to choose). Without trusted proxies the header is ignored.
func clientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	addr := httpserver.PeerAddr(r)
	if !inPrefixes(addr, trusted) {
		return addr
	}
	fwd := r.Header.Values("X-Forwarded-For")
	for i := len(fwd) - 1; i >= 0; i-- {
		hops := strings.Split(fwd[i], ",")
		for j := len(hops) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.TrimSpace(hops[j]))
			if err != nil {
				return addr
			}
			addr = a.Unmap()
			if !inPrefixes(addr, trusted) {
				return addr
			}
		}
	}
	return addr
}

// ParseTrustedProxies reads a comma-separated list of IP addresses and
// CIDR prefixes (BANKMIRROR_TRUSTED_PROXIES); "" is none.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR prefix", f)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

func inPrefixes(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// takeToken returns the request's token, from the Authorization header or
// else the token query parameter, and the query without it. The token
// parameter is removed from r's URL and RequestURI in place, so that
// whatever logs the request afterwards cannot log the token.
func takeToken(r *http.Request) (token string, ok bool, query url.Values) {
	query = r.URL.Query()
	fromQuery, inQuery := query[TokenParam]
	if inQuery {
		query.Del(TokenParam)
		r.URL.RawQuery = query.Encode()
		r.RequestURI = r.URL.RequestURI()
		r.Form, r.PostForm = nil, nil
	}
	// A bearer header wins; another scheme (a proxy's Basic) is not ours.
	if scheme, t, found := strings.Cut(r.Header.Get("Authorization"), " "); found && strings.EqualFold(scheme, "Bearer") {
		t = strings.TrimSpace(t)
		return t, t != "", query
	}
	if inQuery && len(fromQuery) == 1 && fromQuery[0] != "" {
		return fromQuery[0], true, query
	}
	return "", false, query
}

// countingWriter counts what reached the response.
type countingWriter struct {
	w http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
