// Package ui is the dashboard of `bankmirror ui`: read-only pages of the
// mirror for a browser (overview, transactions with search, categories,
// recurring payments), rendered on the server with html/template, charts
// as inline SVG each with a table of its numbers, and every asset embedded
// in the binary, so that a page loads nothing from elsewhere (its
// Content-Security-Policy is 'self').
//
// Every page needs the token: given once as ?token=TOKEN (the printed
// link), it is exchanged for an HttpOnly, SameSite=Strict cookie, good
// for SessionLifetime in this process only, and the browser is sent to
// the URL without it; without either a page shows a
// small form asking for it, and no data.
package ui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/export"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/refusals"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/throttle"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Mirror is what the pages read: a read-only store.
type Mirror interface {
	SpendingByCategory(ctx context.Context, from, to string) ([]store.CategorySpending, error)
	IncomeByMonth(ctx context.Context, from, to string) (map[string]int64, error)
	AccountBalances(ctx context.Context) ([]store.AccountBalance, error)
	DailyBalances(ctx context.Context, from string) ([]store.DailyBalance, error)
	HeldTransactions(ctx context.Context, n int) ([]store.TxRow, error)
	ListTransactions(ctx context.Context, f store.TxFilter) (store.TxList, error)
	TransactionDetail(ctx context.Context, id string) (store.TxDetail, error)
	CategoryTree(ctx context.Context) (map[string]store.CategoryNode, error)
	Payments(ctx context.Context, from string) ([]store.Payment, error)
}

// Reasons a request is refused for its token, passed to
// Options.OnRefused and counted in the log's summaries.
const (
	RefusedWrongToken = "wrong_token"
	RefusedThrottled  = "throttled"
	// RefusedCrossSite: a token sent by the browser for another site's
	// page (403); it is neither checked nor counted against the address.
	RefusedCrossSite = "cross_site"
)

// TokenParam is the query parameter that carries the token.
const TokenParam = "token"

// cookieName is the cookie that stands for the token once given.
const cookieName = "bankmirror_ui"

// Options tune a Handler.
type Options struct {
	// Token guards every page; it must pass export.CheckToken (NewToken
	// makes one).
	Token string
	// Location is the customer's zone: this month, last month, days.
	Location *time.Location
	// Status, if set, gives the overview's health line (the rules of
	// `bankmirror status`).
	Status func(ctx context.Context) (health.Status, error)
	// Export, if set, is the read-only pool the exporter reads for the
	// CSV and XLSX links of the transactions list.
	Export *sql.DB
	// AttachmentsDir is where receipts' files are kept
	// (BANKMIRROR_ATTACHMENTS_DIR); empty, no receipt is served.
	AttachmentsDir string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// OnRefused, if set, is called for each wrong token and each throttled
	// request (a metric). It must be cheap and safe for concurrent use.
	OnRefused func(reason string)
	// RefusedLogInterval is how often refusals are summarised in the log.
	RefusedLogInterval time.Duration
	// Throttle tunes how an address that keeps sending wrong tokens is
	// slowed down (throttle's defaults).
	Throttle throttle.Options
	Log      zerolog.Logger
}

// Handler serves the dashboard.
type Handler struct {
	m          Mirror
	o          Options
	sessionKey []byte // random per process: a restart ends every session
	tokenSum   [sha256.Size]byte
	pages      map[string]*template.Template
	mux        *http.ServeMux
	throttle   *throttle.Table
	refused    *refusals.Counter
	log        zerolog.Logger
	staticSub  http.Handler
}

// NewToken returns a random token of 128 bits, as 32 hex digits.
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather)
	return hex.EncodeToString(b)
}

// New returns the dashboard of m.
func New(m Mirror, o Options) (*Handler, error) {
	if err := export.CheckToken(o.Token); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	log := o.Log.With().Str(logfield.Component, "ui").Logger()
	key := make([]byte, 32)
	_, _ = rand.Read(key) // never fails (crypto/rand panics rather)
	h := &Handler{m: m, o: o, sessionKey: key, tokenSum: sha256.Sum256([]byte(o.Token)),
		throttle: throttle.New(o.Throttle), log: log,
		refused: refusals.New(refusals.Options{Log: log, Level: zerolog.InfoLevel, Every: o.RefusedLogInterval,
			Reasons: []string{RefusedWrongToken, RefusedThrottled, RefusedCrossSite}, Message: "dashboard requests refused since the last report"})}
	var err error
	if h.pages, err = parsePages(); err != nil {
		return nil, err
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, fmt.Errorf("dashboard assets: %w", err)
	}
	h.staticSub = http.StripPrefix("/static/", http.FileServerFS(static))
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET /{$}", h.overview)
	h.mux.HandleFunc("GET /transactions", h.transactions)
	h.mux.HandleFunc("GET /transactions/{id}", h.transaction)
	h.mux.HandleFunc("GET /transactions/{id}/receipt", h.receipt)
	h.mux.HandleFunc("GET /transactions.csv", h.exportList)
	h.mux.HandleFunc("GET /transactions.xlsx", h.exportList)
	h.mux.HandleFunc("GET /categories", h.categories)
	h.mux.HandleFunc("GET /recurring", h.recurring)
	return h, nil
}

// Close writes the refusals not reported yet to the log.
func (h *Handler) Close() { h.refused.Flush() }

// securityHeaders go on every answer: nothing but this origin's own
// files, no framing, no referrer, nothing cached.
func securityHeaders(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
}

// ServeHTTP checks the token (the query's, the login form's or the
// cookie's) and serves the page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = r.WithContext(context.WithValue(r.Context(), startKey{}, time.Now()))
	securityHeaders(w)
	if strings.HasPrefix(r.URL.Path, "/static/") {
		w.Header().Set("Cache-Control", "max-age=3600")
		h.staticSub.ServeHTTP(w, r)
		return
	}
	query := r.URL.Query()
	given, inQuery := query[TokenParam]
	var token string
	switch {
	case inQuery:
		// Out of the URL before anything can record it.
		query.Del(TokenParam)
		r.URL.RawQuery = query.Encode()
		r.RequestURI = r.URL.RequestURI()
		token = strings.Join(given, "")
	case r.Method == http.MethodPost && r.URL.Path == "/login":
		r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		token = r.PostForm.Get(TokenParam)
		r.URL.Path, r.URL.RawQuery = localPath(r.PostForm.Get("next"))
	default:
		if c, err := r.Cookie(cookieName); err == nil && h.validSession(c.Value) {
			h.mux.ServeHTTP(w, r)
			return
		}
		h.login(w, r, http.StatusUnauthorized, "")
		return
	}
	// The TCP peer, never X-Forwarded-For: the dashboard has no proxy of
	// its own, and any local process could name itself anything there.
	client := httpserver.PeerAddr(r)
	if httpserver.CrossSite(r) {
		// Another site made the browser send this token: refused unheard,
		// and not counted, or any page could lock the user out.
		h.refuse(client, RefusedCrossSite)
		h.login(w, r, http.StatusForbidden, "That link came from another site: paste it into the address bar, or enter the token here.")
		return
	}
	key := throttle.Key(client)
	if wait := h.throttle.Wait(key); wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		h.refuse(client, RefusedThrottled)
		h.login(w, r, http.StatusTooManyRequests, "Too many wrong tokens from this address: wait a little and try again.")
		return
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(sum[:], h.tokenSum[:]) != 1 {
		h.throttle.Fail(key)
		h.refuse(client, RefusedWrongToken)
		h.login(w, r, http.StatusUnauthorized, "That token is not this dashboard's.")
		return
	}
	// Secure only over TLS: the dashboard is plain HTTP on loopback, where a
	// browser would not send a Secure cookie back.
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: h.newSession(), Path: "/", MaxAge: int(SessionLifetime / time.Second), //nolint:gosec // see above
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	// Only to a path of this server: a request for //evil.example/ must not
	// send the browser, now signed in, elsewhere.
	path, rawQuery := localPath(r.URL.RequestURI())
	http.Redirect(w, r, (&url.URL{Path: path, RawQuery: rawQuery}).String(), http.StatusSeeOther)
}

// SessionLifetime is how long the cookie a token is exchanged for lasts
// (in the browser, and as checked here); a restart ends it sooner.
const SessionLifetime = 7 * 24 * time.Hour

// newSession is a cookie's value: when it expires (Unix seconds) and an
// HMAC of that and the token under the process's random key.
func (h *Handler) newSession() string {
	exp := strconv.FormatInt(h.o.Now().Add(SessionLifetime).Unix(), 10)
	return exp + "." + h.sessionMAC(exp)
}

func (h *Handler) sessionMAC(exp string) string {
	mac := hmac.New(sha256.New, h.sessionKey)
	mac.Write([]byte("bankmirror ui session\x00"))
	mac.Write(h.tokenSum[:])
	mac.Write([]byte(exp))
	return hex.EncodeToString(mac.Sum(nil))
}

// validSession reports whether v is a cookie of this process, unexpired.
func (h *Handler) validSession(v string) bool {
	exp, sum, ok := strings.Cut(v, ".")
	if !ok || len(exp) > 20 {
		return false
	}
	if subtle.ConstantTimeCompare([]byte(sum), []byte(h.sessionMAC(exp))) != 1 {
		return false
	}
	t, err := strconv.ParseInt(exp, 10, 64)
	return err == nil && h.o.Now().Unix() < t
}

// startKey holds the time a request arrived in its context.
type startKey struct{}

// localPath is next if it is a path of this server (the login form's
// return address, the URL a token came with), else "/": never another
// host, nor "/\\host", which browsers read as "//host".
func localPath(next string) (path, rawQuery string) {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") ||
		strings.HasPrefix(u.Path, "//") || strings.HasPrefix(u.Path, "/\\") {
		return "/", ""
	}
	return u.Path, u.RawQuery
}

// refuse counts a refused request and logs it if it is the first of its
// reason lately; the rest are summarised once per interval.
func (h *Handler) refuse(client netip.Addr, reason string) {
	if h.o.OnRefused != nil {
		h.o.OnRefused(reason)
	}
	if h.refused.Note(reason) {
		h.log.Info().Str(logfield.Reason, reason).Str(logfield.Client, client.String()).
			Msg("dashboard request refused; more refusals for this reason are counted and summarised once per interval")
	}
}

// login answers a request without a valid token: the form asking for it.
func (h *Handler) login(w http.ResponseWriter, r *http.Request, status int, msg string) {
	next := r.URL.Path
	if r.URL.RawQuery != "" {
		next += "?" + r.URL.RawQuery
	}
	h.render(w, r, status, "login", struct {
		Title, Message, Next string
	}{"Sign in", msg, next})
}
