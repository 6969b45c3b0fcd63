package export

import (
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// Log keys of the feed.
const (
	logComponent = "component"
	logView      = "view"
	logFormat    = "format"
	logRows      = "rows"
	logStatus    = "status"
	logDuration  = "duration"
	logReason    = "reason"
)

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
	Log           zerolog.Logger
}

// Feed serves the mirror's views as CSV or JSON lines over HTTP, for
// spreadsheets that refresh from a URL:
//
//	GET /export/v_transactions.csv?since=2025-01-01&category=groceries
//
// with the filters of `bankmirror export` as query parameters. Every
// request must carry the token, as "Authorization: Bearer TOKEN" or as
// ?token=TOKEN; without it the answer is 401 and no query runs.
type Feed struct {
	db    *sql.DB
	token [sha256.Size]byte
	loc   *time.Location
	sem   chan struct{}
	log   zerolog.Logger
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
	return &Feed{db: db, token: sha256.Sum256([]byte(token)), loc: opts.Location,
		sem: make(chan struct{}, opts.MaxConcurrent), log: opts.Log.With().Str(logComponent, "export-feed").Logger()}, nil
}

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
	if !hasToken || !f.authorized(token) {
		h.Set("WWW-Authenticate", `Bearer realm="bankmirror export"`)
		http.Error(w, "unauthorized: a token is required (Authorization: Bearer TOKEN or ?token=TOKEN)", http.StatusUnauthorized)
		// Debug only: anyone reaching the proxy can cause these.
		reason := "no token"
		if hasToken {
			reason = "wrong token"
		}
		f.log.Debug().Int(logStatus, http.StatusUnauthorized).Str(logReason, reason).Msg("export feed: refused")
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
	f.log.WithLevel(level).Err(err).Str(logView, view).Str(logFormat, string(format)).Int64(logRows, res.Rows).
		Dur(logDuration, time.Since(start)).Msg("export feed: served")
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
	f.log.Info().Err(err).Str(logView, view).Str(logFormat, string(format)).Int(logStatus, status).Msg("export feed: refused")
	http.Error(w, msg, status)
}

// authorized compares the token in constant time (of hashes, so that the
// length leaks nothing either).
func (f *Feed) authorized(token string) bool {
	sum := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(sum[:], f.token[:]) == 1
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
