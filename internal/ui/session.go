package ui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Sessions. A browser sends a cookie of 127.0.0.1 to every port of that
// host, so any other web service on the machine (a dev server, a printer's
// page) receives the dashboard's cookie: a cookie alone must not open a
// page. A session is therefore two halves bound to each other and to this
// listener by HMACs under the process's random key:
//
//   - a secret path, /s/SECRET/, under which every page of the session is
//     served; every link is relative to it (the pages carry a <base>), so
//     the pages work without JavaScript, and it leaves this origin never
//     (Referrer-Policy: no-referrer, no page links elsewhere);
//   - a cookie named after the listener's port (bankmirror_ui_PORT: two
//     dashboards on one host keep their own), HttpOnly, SameSite=Strict,
//     whose Path is the secret path, so that the browser sends it only
//     with the session's own pages.
//
// Another local service that receives the cookie lacks the path; the path
// in the browser's history lacks the cookie. Either alone gets the login
// form.
//
// A session starts from the printed link's one-time code (LoginLink: it
// works once, for CodeLifetime, so the history's copy of it is dead) or
// from the token typed into the login form. The token in an address
// (?token=) is not accepted: it would stay working in the history.

// SessionLifetime is how long a session lasts (the cookie's Max-Age, and
// as checked here); a restart ends it sooner.
const SessionLifetime = 7 * 24 * time.Hour

// CodeLifetime is how long the printed link's one-time code works.
const CodeLifetime = 10 * time.Minute

const (
	loginPath     = "/login"
	sessionPrefix = "/s/"
	// CodeParam is the query parameter of the printed link's code.
	CodeParam = "code"
	// CookiePrefix starts the session cookie's name, which ends with the
	// listener's port.
	CookiePrefix = "bankmirror_ui_"
)

// LoginLink returns the path of a new sign-in link (/login?code=CODE): its
// code opens a session once, within CodeLifetime.
func (h *Handler) LoginLink() string {
	code := NewToken()
	now := h.o.Now()
	h.mu.Lock()
	for k, exp := range h.codes {
		if !now.Before(exp) {
			delete(h.codes, k)
		}
	}
	h.codes[sha256.Sum256([]byte(code))] = now.Add(CodeLifetime)
	h.mu.Unlock()
	return loginPath + "?" + CodeParam + "=" + code
}

// useCode spends code: true if it was a live code, which then works no
// more.
func (h *Handler) useCode(code string) bool {
	sum := sha256.Sum256([]byte(code))
	h.mu.Lock()
	defer h.mu.Unlock()
	exp, ok := h.codes[sum]
	delete(h.codes, sum)
	return ok && h.o.Now().Before(exp)
}

// listener is the address (ip:port) of the listener r came in on, and its
// port ("0" when unknown).
func listener(r *http.Request) (addr, port string) {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		addr = a.String()
	}
	if _, p, err := net.SplitHostPort(addr); err == nil {
		port = p
	}
	if port == "" {
		port = "0"
	}
	return addr, port
}

// CookieName is the session cookie's name on the listener of port.
func CookieName(port string) string { return CookiePrefix + port }

func (h *Handler) sessionMAC(purpose, origin, exp, nonce string) []byte {
	mac := hmac.New(sha256.New, h.sessionKey)
	for _, s := range []string{"bankmirror ui " + purpose, origin, exp, nonce} {
		mac.Write([]byte(s))
		mac.Write([]byte{0})
	}
	return mac.Sum(nil)
}

// newSession returns a session's two halves for the listener at origin:
// the cookie's value (expiry, nonce, HMAC) and the secret of its path.
func (h *Handler) newSession(origin string) (cookie, secret string) {
	exp := strconv.FormatInt(h.o.Now().Add(SessionLifetime).Unix(), 10)
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather)
	nonce := hex.EncodeToString(b)
	return exp + "." + nonce + "." + hex.EncodeToString(h.sessionMAC("cookie", origin, exp, nonce)),
		hex.EncodeToString(h.sessionMAC("path", origin, exp, nonce)[:16])
}

// validSession reports whether cookie and secret are the halves of one
// live session of this process on the listener at origin.
func (h *Handler) validSession(origin, cookie, secret string) bool {
	exp, rest, ok := strings.Cut(cookie, ".")
	if !ok || len(exp) > 20 || len(secret) != 32 {
		return false
	}
	nonce, sum, ok := strings.Cut(rest, ".")
	if !ok || len(nonce) != 32 {
		return false
	}
	if subtle.ConstantTimeCompare([]byte(sum), []byte(hex.EncodeToString(h.sessionMAC("cookie", origin, exp, nonce)))) != 1 ||
		subtle.ConstantTimeCompare([]byte(secret), []byte(hex.EncodeToString(h.sessionMAC("path", origin, exp, nonce)[:16]))) != 1 {
		return false
	}
	t, err := strconv.ParseInt(exp, 10, 64)
	return err == nil && h.o.Now().Unix() < t
}

// whereKey holds a session request's place in its context.
type whereKey struct{}

// where is the place of a session's request: the session's root
// (/s/SECRET/), the person whose pages these are ("" for the household's,
// else under ROOT/p/NAME/), the path below them with its query, and the
// household's people (those not removed).
type where struct {
	Root, Person, Path string
	People             []store.Person
}

// base is the path every link of the page is relative to.
func (w where) base() string {
	if w.Person == "" {
		return w.Root
	}
	return w.Root + personPrefix + w.Person + "/"
}

// personPrefix starts the pages of one person, below a session's root.
const personPrefix = "p/"

func whereOf(ctx context.Context) where {
	w, _ := ctx.Value(whereKey{}).(where)
	return w
}

// requireSession serves next the pages of a live session, with the path
// below the session's base; anything else gets the login form, which
// returns to the same page.
func (h *Handler) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		msg := ""
		if q := r.URL.Query(); q.Has(TokenParam) {
			// Out of the URL before anything can record it, and refused:
			// a token in an address stays working in the history.
			q.Del(TokenParam)
			r.URL.RawQuery = q.Encode()
			r.RequestURI = r.URL.RequestURI()
			msg = "A token in the address is not accepted (it would stay in the browser's history): type it here."
		}
		esc := r.URL.EscapedPath()
		rest, ok := strings.CutPrefix(esc, sessionPrefix)
		if !ok {
			h.login(w, r, http.StatusUnauthorized, msg, r.URL.RequestURI())
			return
		}
		secret, sub, _ := strings.Cut(rest, "/")
		sub = "/" + sub
		origin, port := listener(r)
		for _, c := range r.Cookies() {
			if c.Name != CookieName(port) || !h.validSession(origin, c.Value, secret) {
				continue
			}
			at := where{Root: sessionPrefix + secret + "/"}
			if rest, ok := strings.CutPrefix(sub, "/"+personPrefix); ok {
				at.Person, sub, _ = strings.Cut(rest, "/")
				sub = "/" + sub
			}
			path, err := url.PathUnescape(sub)
			if err != nil {
				break
			}
			at.Path = sub
			if r.URL.RawQuery != "" {
				at.Path += "?" + r.URL.RawQuery
			}
			if at.People, err = h.activePeople(r.Context()); err != nil {
				h.fail(w, r, err)
				return
			}
			if at.Person != "" && !slices.ContainsFunc(at.People, func(p store.Person) bool { return p.Name == at.Person }) {
				r = r.WithContext(context.WithValue(r.Context(), whereKey{}, where{Root: at.Root, People: at.People}))
				h.fail(w, r, errNoPerson)
				return
			}
			u := *r.URL
			u.Path, u.RawPath = path, sub
			r2 := r.WithContext(context.WithValue(r.Context(), whereKey{}, at))
			r2.URL = &u
			next.ServeHTTP(w, r2)
			return
		}
		if r.URL.RawQuery != "" {
			sub += "?" + r.URL.RawQuery
		}
		h.login(w, r, http.StatusUnauthorized, msg, sub)
	})
}

// errNoPerson: the address names a person the household does not have.
var errNoPerson = errors.New("no such person")

// activePeople are the household's people not removed.
func (h *Handler) activePeople(ctx context.Context) ([]store.Person, error) {
	all, err := h.m.People(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(p store.Person) bool { return p.RemovedAt != "" }), nil
}

// loginRoute is /login: GET with the printed link's code, POST from the
// form with the token; either starts a session and sends the browser to
// its page.
func (h *Handler) loginRoute(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		code := r.URL.Query().Get(CodeParam)
		if code == "" || r.Method == http.MethodHead {
			// A HEAD (a link checker, a preview) does not spend the code.
			h.login(w, r, http.StatusOK, "", "/")
			return
		}
		if httpserver.CrossSite(r) {
			// Another site's page sent the browser here: the code stays
			// unspent for the user's own click.
			h.login(w, r, http.StatusForbidden, "That link came from another site: paste it into the address bar, or enter the token here.", "/")
			return
		}
		if !h.useCode(code) {
			h.login(w, r, http.StatusUnauthorized, "This sign-in link has been used or has expired (each works once, for "+
				strconv.Itoa(int(CodeLifetime/time.Minute))+" minutes): enter the token, or start bankmirror ui again for a new link.", "/")
			return
		}
		h.startSession(w, r, "/")
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
		if err := r.ParseForm(); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		token, next := r.PostForm.Get(TokenParam), r.PostForm.Get("next")
		// The TCP peer, never X-Forwarded-For: the dashboard has no proxy of
		// its own, and any local process could name itself anything there.
		v := h.check.Check(r, httpserver.PeerAddr(r), token, token != "")
		switch {
		case v.OK:
			h.startSession(w, r, next)
		case v.Status == http.StatusForbidden:
			h.login(w, r, v.Status, "That form came from another site: enter the token on the dashboard's own page.", next)
		case v.Status == http.StatusTooManyRequests:
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(v.RetryAfter.Seconds()))))
			h.login(w, r, v.Status, "Too many wrong tokens lately: wait a little and try again.", next)
		default:
			h.login(w, r, v.Status, "That token is not this dashboard's.", next)
		}
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// startSession sets a new session's cookie and sends the browser to next
// (a path of this server, below the session's base).
func (h *Handler) startSession(w http.ResponseWriter, r *http.Request, next string) {
	origin, port := listener(r)
	cookie, secret := h.newSession(origin)
	base := sessionPrefix + secret + "/"
	// Secure only over TLS: the dashboard is plain HTTP on loopback, where a
	// browser would not send a Secure cookie back.
	http.SetCookie(w, &http.Cookie{Name: CookieName(port), Value: cookie, Path: base, MaxAge: int(SessionLifetime / time.Second), //nolint:gosec // see above
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	// Only to a path of this server: a request for //evil.example/ must not
	// send the browser, now signed in, elsewhere.
	path, rawQuery := localPath(next)
	http.Redirect(w, r, (&url.URL{Path: base + strings.TrimPrefix(path, "/"), RawQuery: rawQuery}).String(), http.StatusSeeOther)
}

// localPath is next if it is a path of this server (the login form's
// return address), else "/": never another host, nor "/\\host", which
// browsers read as "//host".
func localPath(next string) (path, rawQuery string) {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") ||
		strings.HasPrefix(u.Path, "//") || strings.HasPrefix(u.Path, "/\\") {
		return "/", ""
	}
	return u.Path, u.RawQuery
}

// login answers a request without a session: the form asking for the
// token, which returns to next.
func (h *Handler) login(w http.ResponseWriter, r *http.Request, status int, msg, next string) {
	h.render(w, r, status, "login", "Sign in", loginData{Message: msg, Next: next})
}

type loginData struct{ Message, Next string }
