// Package ui is the dashboard of `bankmirror ui`: read-only pages of the
// mirror for a browser (overview, transactions with search, categories,
// recurring payments, rules, alerts), rendered on the server with html/template, charts
// as inline SVG each with a table of its numbers, and every asset embedded
// in the binary, so that a page loads nothing from elsewhere (its
// Content-Security-Policy is 'self').
//
// Every page needs a session (session.go): the printed link's one-time
// code, or the token typed into the login form, is exchanged for a
// session of two halves, a secret path (/s/SECRET/) under which every page
// of the session lives and a cookie named after the listener's port, so
// that neither a cookie that the browser also sends to other services of
// this host nor a page's address in the browser's history opens a page on
// its own. The files are split by page: one file a page (overview.go,
// transactions.go, transaction.go, categories.go, recurring.go, rules.go,
// alerts.go), the templates and assets in render.go.
package ui

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/export"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/throttle"
	"github.com/bankmirror/bankmirror/internal/tokencheck"
)

// Mirror is what the pages read: a read-only store.
type Mirror interface {
	FeedStatuses(ctx context.Context, feeds []string) ([]store.FeedStatus, error)
	SpendingByCategory(ctx context.Context, from, to string) ([]store.CategorySpending, error)
	IncomeByMonth(ctx context.Context, from, to string) (map[string]int64, error)
	AccountBalances(ctx context.Context) ([]store.AccountBalance, error)
	DailyBalances(ctx context.Context, from string) ([]store.DailyBalance, error)
	HeldTransactions(ctx context.Context, n int) ([]store.TxRow, error)
	PersonHeldTransactions(ctx context.Context, person string, n int) ([]store.TxRow, error)
	ListTransactions(ctx context.Context, f store.TxFilter) (store.TxList, error)
	TransactionDetail(ctx context.Context, id string) (store.TxDetail, error)
	CategoryTree(ctx context.Context) (map[string]store.CategoryNode, error)
	PaymentsOut(ctx context.Context, from string) ([]store.PaymentOut, error)

	// What the rules file did, and the alerts' outbox.
	NewestTransactionIDs(ctx context.Context, since int64, limit int) ([]string, error)
	RuleTransactions(ctx context.Context, q store.RuleQuery) ([]store.RuleTransaction, int64, error)
	RuleSummaries(ctx context.Context, since string) (map[string]store.RuleSummary, error)
	RuleAlertCounts(ctx context.Context, since string) (map[string]store.RuleAlerts, error)
	TransactionRules(ctx context.Context, id string) (store.TxRules, error)
	AlertCountsByChannel(ctx context.Context) ([]store.AlertCounts, error)
	RecentAlerts(ctx context.Context, limit int) ([]store.Alert, error)

	// A household's: its people, and what each spent.
	People(ctx context.Context) ([]store.Person, error)
	PersonSpendingByCategory(ctx context.Context, person, from, to string) ([]store.CategorySpending, error)
	PersonIncomeByMonth(ctx context.Context, person, from, to string) (map[string]int64, error)
	SpendingByPerson(ctx context.Context, month string) ([]store.PersonSpending, error)
	PersonAccounts(ctx context.Context, person string) ([]string, error)
}

// Reasons a request is refused for its token (tokencheck's), passed to
// Options.OnRefused and counted in the log's summaries.
const (
	RefusedWrongToken = tokencheck.WrongToken
	RefusedThrottled  = tokencheck.Throttled
	// RefusedCrossSite: a token sent by the browser for another site's
	// page (403); it is neither checked nor counted against the address.
	RefusedCrossSite = tokencheck.CrossSite
)

// RefusalReasons is every reason OnRefused is called with.
func RefusalReasons() []string {
	return []string{RefusedWrongToken, RefusedThrottled, RefusedCrossSite}
}

// TokenParam is the login form's field that carries the token.
const TokenParam = "token"

// DefaultMaxHeavy is how many heavy requests (lists, exports) run at once
// by default.
const DefaultMaxHeavy = 4

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
	// OnRefused, if set, is called for each refused token (a metric). It
	// must be cheap and safe for concurrent use.
	OnRefused func(reason string)
	// RefusedLogInterval is how often refusals are summarised in the log.
	RefusedLogInterval time.Duration
	// Throttle tunes how a source that keeps sending wrong tokens is
	// slowed down (throttle's defaults); GlobalBurst and GlobalEvery the
	// ceiling on wrong tokens from all sources (tokencheck's defaults).
	Throttle    throttle.Options
	GlobalBurst int
	GlobalEvery time.Duration
	// RulesFile is the rules file (BANKMIRROR_RULES_FILE) the rules page
	// shows, read at each visit; RulesFileSet says it was named, so that
	// its absence is an error (otherwise no file is no rules).
	RulesFile    string
	RulesFileSet bool
	// FeedsFile is the feeds file (BANKMIRROR_FEEDS_FILE) the feeds page
	// reads its feeds from at each visit; FeedsFileSet says it was named.
	FeedsFile    string
	FeedsFileSet bool
	// MaxHeavy is how many heavy requests (transaction lists, exports) run
	// at once (DefaultMaxHeavy); more are answered 503 with Retry-After,
	// and the other pages keep answering.
	MaxHeavy int
	Log      zerolog.Logger
}

// Handler serves the dashboard.
type Handler struct {
	m          Mirror
	o          Options
	sessionKey []byte // random per process: a restart ends every session
	check      *tokencheck.Checker
	pages      map[string]*template.Template
	mux        *http.ServeMux
	log        zerolog.Logger
	static     *staticFiles
	heavy      chan struct{}

	mu    sync.Mutex
	codes map[[32]byte]time.Time // one-time login codes' SHA-256 sums, to their expiry
}

// NewToken returns a random token of 128 bits, as 32 hex digits.
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather)
	return hex.EncodeToString(b)
}

// route is a page: its pattern, the template it renders, its handler,
// and whether it is heavy (its requests share MaxHeavy slots).
type route struct {
	pattern, template string
	heavy             bool
	serve             func(h *Handler, w http.ResponseWriter, r *http.Request)
}

// routes are the dashboard's pages, each in a file of its own.
var routes = []route{
	{"GET /{$}", "overview", false, (*Handler).overview},
	{"GET /transactions", "transactions", true, (*Handler).transactions},
	{"GET /transactions/{id}", "transaction", false, (*Handler).transaction},
	{"GET /transactions/{id}/receipt", "", false, (*Handler).receipt},
	{"GET /transactions.csv", "", true, (*Handler).exportList},
	{"GET /transactions.xlsx", "", true, (*Handler).exportList},
	{"GET /categories", "categories", false, (*Handler).categories},
	{"GET /recurring", "recurring", true, (*Handler).recurring},
	{"GET /rules", "rules", true, (*Handler).rules},
	{"GET /alerts", "alerts", false, (*Handler).alerts},
	{"GET /feeds", "feeds", false, (*Handler).feeds},
}

// sharedTemplates are rendered by the handler itself, for any page.
var sharedTemplates = []string{"login", "error"}

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
	if o.MaxHeavy <= 0 {
		o.MaxHeavy = DefaultMaxHeavy
	}
	log := o.Log.With().Str(logfield.Component, "ui").Logger()
	key := make([]byte, 32)
	_, _ = rand.Read(key) // never fails (crypto/rand panics rather)
	h := &Handler{m: m, o: o, sessionKey: key, log: log, heavy: make(chan struct{}, o.MaxHeavy),
		codes: map[[32]byte]time.Time{},
		check: tokencheck.New(o.Token, tokencheck.Options{Name: "dashboard", Throttle: o.Throttle,
			GlobalBurst: o.GlobalBurst, GlobalEvery: o.GlobalEvery,
			OnRefused: o.OnRefused, RefusedLogInterval: o.RefusedLogInterval, Log: log})}
	var err error
	if h.static, err = newStaticFiles(staticFS, "static"); err != nil {
		return nil, err
	}
	used := append([]string(nil), sharedTemplates...)
	for _, rt := range routes {
		if rt.template != "" {
			used = append(used, rt.template)
		}
	}
	if h.pages, err = parsePages(templateFS, used, h.static.path); err != nil {
		return nil, err
	}
	h.mux = http.NewServeMux()
	for _, rt := range routes {
		serve := rt.serve
		var handler http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serve(h, w, r) })
		if rt.heavy {
			handler = h.limitHeavy(handler)
		}
		h.mux.Handle(rt.pattern, handler)
	}
	return h, nil
}

// Close writes the refusals not reported yet to the log.
func (h *Handler) Close() { h.check.Close() }

// securityHeaders go on every answer: nothing but this origin's own
// files, no framing, no referrer (a page's secret path never leaves it),
// nothing cached.
func securityHeaders(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; base-uri 'self'; form-action 'self'; frame-ancestors 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
}

// ServeHTTP serves the static files, the login, and the pages of a
// session (requireSession).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = r.WithContext(context.WithValue(r.Context(), startKey{}, time.Now()))
	securityHeaders(w)
	switch {
	case strings.HasPrefix(r.URL.Path, staticPrefix):
		h.static.ServeHTTP(w, r)
	case r.URL.Path == loginPath:
		h.loginRoute(w, r)
	default:
		h.requireSession(h.mux).ServeHTTP(w, r)
	}
}

// startKey holds the time a request arrived in its context.
type startKey struct{}

// limitHeavy lets at most MaxHeavy requests through next at once; the
// others are answered 503 with Retry-After at once, so that a burst of
// heavy lists or exports neither queues without bound nor slows the
// overview.
func (h *Handler) limitHeavy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case h.heavy <- struct{}{}:
			defer func() { <-h.heavy }()
		default:
			w.Header().Set("Retry-After", "5")
			h.render(w, r, http.StatusServiceUnavailable, "error", "Busy",
				errorData{Message: "The dashboard is busy with other lists and exports: try again in a few seconds."})
			return
		}
		next.ServeHTTP(w, r)
	})
}
