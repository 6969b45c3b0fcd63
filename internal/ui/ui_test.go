package ui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/throttle"
	"github.com/bankmirror/bankmirror/internal/ui"
)

// The test mirror: a real full sync of the simulated bank, with one
// transaction made through the simulator's control API whose description,
// message and note hold markup.
var (
	mirrorPath string
	melbourne  *time.Location
	simNow     time.Time
	scriptID   string
	spoofID    string
	hugeID     string
)

const (
	testToken         = "3f9c1e7a5b2d4086e1c7a9f3b5d20486"
	scriptDescription = `<script>alert("owned")</script> Café`
	scriptNote        = `<img src=x onerror=alert(1)> note`
	scriptTag         = `<b>bold</b>`
	spoofDescription  = "Netflix \u202Egnp.exe\x00"
)

var (
	hugeDescription = "Hugeword " + strings.Repeat("y", 200_000-9)
	longPayee       = "Longpayee " + strings.Repeat("Subscription ", 18) + strings.Repeat("z", 9)
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ui-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		if err := buildMirror(filepath.Join(dir, "mirror.db")); err != nil {
			fmt.Fprintln(os.Stderr, "build test mirror:", err)
			return 1
		}
		return m.Run()
	}()
	os.RemoveAll(dir)
	os.Exit(code)
}

func buildMirror(path string) error {
	ctx := context.Background()
	var err error
	if melbourne, err = time.LoadLocation("Australia/Melbourne"); err != nil {
		return err
	}
	simNow = time.Now().Truncate(time.Second)
	sim := simulator.New(simulator.Options{Seed: 7, Transactions: 600, Token: "test-token", ControlToken: "control-token",
		Now: func() time.Time { return simNow }})
	defer sim.Close()
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	create := func(tx map[string]any) (string, error) {
		body, err := json.Marshal(tx)
		if err != nil {
			return "", err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/_sim/transactions", bytes.NewReader(body))
		if err != nil {
			return "", err
		}
		req.Header.Set("Authorization", "Bearer control-token")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		var created struct{ IDs []string }
		if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || resp.StatusCode != http.StatusCreated || len(created.IDs) != 1 {
			return "", fmt.Errorf("create through the control API: %s, %v, %v", resp.Status, err, created.IDs)
		}
		return created.IDs[0], nil
	}
	if scriptID, err = create(map[string]any{"description": scriptDescription, "amountBaseUnits": -4321,
		"note": scriptNote, "message": "<i>message</i>", "tags": []string{scriptTag}}); err != nil {
		return err
	}
	// What a hostile bank could send: text that reverses what follows it,
	// control characters, a description of 200,000 characters, and a
	// recurring payee whose description is longer than a search may be.
	if spoofID, err = create(map[string]any{"description": spoofDescription, "amountBaseUnits": -1299, "message": "line\x07bell"}); err != nil {
		return err
	}
	if hugeID, err = create(map[string]any{"description": hugeDescription, "amountBaseUnits": -100}); err != nil {
		return err
	}
	for i := range 3 {
		at := simNow.AddDate(0, -i, 0).Add(-time.Hour)
		if _, err = create(map[string]any{"description": longPayee, "amountBaseUnits": -1999, "createdAt": at}); err != nil {
			return err
		}
	}
	st, err := store.Open(ctx, path, store.WithTimeZone(melbourne))
	if err != nil {
		return err
	}
	defer st.Close()
	client := bank.New(srv.URL+"/api/v1", sim.Token(), bank.WithHourlyBudget(0))
	if _, err := replica.New(client, st, zerolog.Nop(), replica.Options{}).Full(ctx); err != nil {
		return err
	}
	mirrorPath = path
	return nil
}

// dashboard serves the test mirror, opened read-only as `bankmirror ui`
// opens it; base is the session's base URL once browser has signed in.
type dashboard struct {
	url, base string
	st        *store.Store
	h         *ui.Handler
}

func newDashboard(t *testing.T, mod ...func(*ui.Options)) *dashboard {
	t.Helper()
	return dashboardAt(t, mirrorPath, mod...)
}

// dashboardAt serves the mirror at path (the test mirror, or a copy
// closed for writing first), read-only, with mod's options.
func dashboardAt(t *testing.T, path string, mod ...func(*ui.Options)) *dashboard {
	t.Helper()
	st, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d := newDashboardOf(t, st, mod...)
	d.st = st
	return d
}

// newDashboardOf serves m (the test mirror, or a fake around it).
func newDashboardOf(t *testing.T, m ui.Mirror, mod ...func(*ui.Options)) *dashboard {
	t.Helper()
	st, err := store.OpenReadOnly(context.Background(), mirrorPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o := ui.Options{Token: testToken, Location: melbourne, Now: func() time.Time { return simNow }, Export: st.Reader(),
		Status: func(ctx context.Context) (health.Status, error) {
			return health.GatherStatus(ctx, st, health.StatusOptions{MaxAttempts: 12, Rules: health.Rules{StaleAfter: 2 * time.Hour}, Now: simNow})
		}}
	for _, m := range mod {
		m(&o)
	}
	h, err := ui.New(m, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &dashboard{url: srv.URL, st: st, h: h}
}

// noRedirects is a client that shows redirects rather than following them.
func noRedirects() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// browser is a client with a session of the dashboard, as a browser has
// after opening the printed link; d.base becomes the session's base URL.
func (d *dashboard) browser(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar}
	resp, err := c.Get(d.url + d.h.LoginLink())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Request.URL.Path, "/s/") {
		t.Fatalf("opening the printed link: %s at %s", resp.Status, resp.Request.URL)
	}
	d.base = d.url + strings.TrimSuffix(resp.Request.URL.Path, "/")
	return c
}

func get(t *testing.T, c *http.Client, u string) (int, http.Header, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// postLogin posts token to the login form with next, headers hdr in
// pairs, and shows the answer without following it.
func postLogin(t *testing.T, base, token, next string, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/login", strings.NewReader(url.Values{"token": {token}, "next": {next}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := noRedirects().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// withCookie asks u with cookie only.
func withCookie(t *testing.T, u string, c *http.Cookie) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c != nil {
		req.AddCookie(c)
	}
	resp, err := noRedirects().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The printed link's code opens a session once, within CodeLifetime: the
// browser is sent to the session's secret path with a cookie named after
// the listener's port, HttpOnly, SameSite=Strict, whose Path is that
// secret path; the link in the history then opens nothing.
func TestLoginLinkWorksOnceAndStartsASession(t *testing.T) {
	var mu sync.Mutex
	now := simNow
	d := newDashboard(t, func(o *ui.Options) {
		o.Now = func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			return now
		}
	})
	link := d.h.LoginLink()
	code, h, _ := get(t, noRedirects(), d.url+link)
	if code != http.StatusSeeOther {
		t.Fatalf("the printed link: %d, want 303", code)
	}
	loc := h.Get("Location")
	if !regexp.MustCompile(`^/s/[0-9a-f]{32}/$`).MatchString(loc) {
		t.Fatalf("redirect to %q, want the session's secret path", loc)
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(d.url, "http://"), ":")
	c := (&http.Response{Header: h}).Cookies()
	if len(c) != 1 || c[0].Name != ui.CookieName(port) || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode || c[0].Path != loc {
		t.Fatalf("cookie %+v: want one HttpOnly, SameSite=Strict cookie bankmirror_ui_%s for %s", c, port, loc)
	}
	if strings.Contains(c[0].Value, testToken) {
		t.Error("the cookie holds the token itself")
	}
	if code, body := withCookie(t, d.url+loc, c[0]); code != http.StatusOK || !strings.Contains(body, "Spent in") {
		t.Errorf("the session's page with its cookie: %d, want the overview", code)
	}
	if code, body := withCookie(t, d.url+link, nil); code != http.StatusUnauthorized || !strings.Contains(body, "used or has expired") {
		t.Errorf("the printed link a second time: %d, want 401 saying it is spent", code)
	}
	late := d.h.LoginLink()
	mu.Lock()
	now = now.Add(ui.CodeLifetime)
	mu.Unlock()
	if code, _ := withCookie(t, d.url+late, nil); code != http.StatusUnauthorized {
		t.Errorf("a printed link after %s: %d, want 401", ui.CodeLifetime, code)
	}
}

// The login form's redirect stays on this server, below the session.
func TestLoginRedirectStaysLocal(t *testing.T) {
	d := newDashboard(t)
	for next, want := range map[string]string{
		"//evil.example/":           "",
		"/%5Cevil.example/":         "",
		"https://evil.example/":     "",
		"/transactions?q=caf%C3%A9": "transactions?q=caf%C3%A9",
		"/transactions/a%20b":       "transactions/a%20b",
		"/categories?x=1":           "categories?x=1",
	} {
		resp := postLogin(t, d.url, testToken, next)
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || !regexp.MustCompile(`^/s/[0-9a-f]{32}/`+regexp.QuoteMeta(want)+`$`).MatchString(loc) {
			t.Errorf("login with next %s: %s to %q, want 303 to /s/SECRET/%s", next, resp.Status, loc, want)
		}
	}
}

// A session lasts SessionLifetime, only in the process that made it, and
// only whole: the cookie without its path, the path without its cookie, a
// cookie with its time moved, or another process's, get the form.
func TestSessionNeedsBothHalvesAndEnds(t *testing.T) {
	var mu sync.Mutex
	now := simNow
	clock := func(o *ui.Options) {
		o.Now = func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			return now
		}
	}
	d, again := newDashboard(t, clock), newDashboard(t, clock)
	resp := postLogin(t, d.url, testToken, "/")
	cookies := resp.Cookies()
	if len(cookies) != 1 || cookies[0].MaxAge != int(ui.SessionLifetime/time.Second) || ui.SessionLifetime != 7*24*time.Hour {
		t.Fatalf("cookie %+v: want one with Max-Age of 7 days", cookies)
	}
	c, page := cookies[0], resp.Header.Get("Location")
	if code, _ := withCookie(t, d.url+page, c); code != http.StatusOK {
		t.Fatalf("the session in its own process: %d, want 200", code)
	}
	for name, u := range map[string]string{"no path": d.url + "/", "another page without the path": d.url + "/transactions",
		"another session's path": d.url + "/s/" + strings.Repeat("0", 32) + "/", "another process": again.url + page} {
		if code, body := withCookie(t, u, c); code != http.StatusUnauthorized || strings.Contains(body, "data-cents") {
			t.Errorf("the cookie with %s: %d, want 401 and no data", name, code)
		}
	}
	if code, _ := withCookie(t, d.url+page, nil); code != http.StatusUnauthorized {
		t.Errorf("the path without the cookie: %d, want 401", code)
	}
	exp, rest, _ := strings.Cut(c.Value, ".")
	later, _ := strconv.ParseInt(exp, 10, 64)
	if code, _ := withCookie(t, d.url+page, &http.Cookie{Name: c.Name, Value: strconv.FormatInt(later+365*24*3600, 10) + "." + rest}); code != http.StatusUnauthorized {
		t.Errorf("the cookie with its expiry moved a year on: %d, want 401", code)
	}
	mu.Lock()
	now = now.Add(ui.SessionLifetime)
	mu.Unlock()
	if code, _ := withCookie(t, d.url+page, c); code != http.StatusUnauthorized {
		t.Errorf("the session after 7 days: %d, want 401", code)
	}
}

// Two dashboards on one host (ui's and serve's) keep their own sessions in
// one browser: their cookies are named after their ports.
func TestTwoDashboardsKeepTheirSessions(t *testing.T) {
	one, two := newDashboard(t), newDashboard(t)
	c := one.browser(t)
	resp, err := c.Get(two.url + two.h.LoginLink())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	two.base = two.url + strings.TrimSuffix(resp.Request.URL.Path, "/")
	for _, d := range []*dashboard{one, two} {
		if code, _, body := get(t, c, d.base+"/"); code != http.StatusOK || !strings.Contains(body, "Spent in") {
			t.Errorf("dashboard %s after signing in to both in one browser: %d, want the overview", d.url, code)
		}
	}
}

func TestWithoutSessionNoData(t *testing.T) {
	d := newDashboard(t)
	for _, path := range []string{"/", "/transactions", "/transactions/" + scriptID, "/categories", "/recurring", "/rules", "/alerts", "/feeds", "/transactions.csv",
		"/?token=" + testToken, "/transactions?token=" + testToken} {
		code, h, body := get(t, noRedirects(), d.url+path)
		if code != http.StatusUnauthorized {
			t.Errorf("%s without a session: %d, want 401", path, code)
		}
		if !strings.Contains(body, `name="token"`) || strings.Contains(body, testToken) {
			t.Errorf("%s without a session: no form asking for the token, or the token echoed", path)
		}
		for _, leak := range []string{"Spent in", "Café", "data-cents"} {
			if strings.Contains(body, leak) {
				t.Errorf("%s without a session shows %q", path, leak)
			}
		}
		if h.Get("Content-Security-Policy") == "" || len((&http.Response{Header: h}).Cookies()) != 0 {
			t.Errorf("%s: no Content-Security-Policy, or a cookie set", path)
		}
	}
	if resp := postLogin(t, d.url, "3f9c1e7a5b2d4086e1c7a9f3b5d2048X", "/"); resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 {
		t.Errorf("a wrong token: %s, want 401 and no cookie", resp.Status)
	}
}

// A source that keeps sending wrong tokens is answered 429, all of
// loopback as one source, while the right token still opens; every
// refusal is counted.
func TestWrongTokensAreThrottledButTheRightOneOpens(t *testing.T) {
	var mu sync.Mutex
	var refused []string
	d := newDashboard(t, func(o *ui.Options) {
		o.Throttle = throttle.Options{Burst: 3, Every: time.Hour}
		o.OnRefused = func(r string) {
			mu.Lock()
			refused = append(refused, r)
			mu.Unlock()
		}
	})
	for i := range 3 {
		if resp := postLogin(t, d.url, "wrong-token-"+strconv.Itoa(i), "/"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %s, want 401", i, resp.Status)
		}
	}
	if resp := postLogin(t, d.url, "wrong-token-x", "/"); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a wrong token after 3: %s, want 429 with Retry-After", resp.Status)
	}
	if resp := postLogin(t, d.url, testToken, "/"); resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Errorf("the right token from the throttled source: %s, want 303 with the cookie", resp.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{ui.RefusedWrongToken, ui.RefusedWrongToken, ui.RefusedWrongToken, ui.RefusedThrottled}; strings.Join(refused, ",") != strings.Join(want, ",") {
		t.Errorf("refusals %v, want %v", refused, want)
	}
}

// A token another site makes the browser send (a form posted to /login)
// is refused with 403, not checked and not counted; a printed link opened
// from another site's page is refused and stays unspent.
func TestCrossSiteTokensRefusedUncounted(t *testing.T) {
	var mu sync.Mutex
	var refused []string
	d := newDashboard(t, func(o *ui.Options) {
		o.Throttle = throttle.Options{Burst: 2, Every: time.Hour}
		o.OnRefused = func(r string) {
			mu.Lock()
			refused = append(refused, r)
			mu.Unlock()
		}
	})
	crossSite := [][]string{
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
		{"Origin", "https://evil.example"},
		{"Origin", "null"},
	}
	for _, hdr := range crossSite {
		for _, token := range []string{"wrong-token-0123456789", testToken} {
			if resp := postLogin(t, d.url, token, "/", hdr...); resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
				t.Errorf("%v token %q: %s with %d cookies, want 403 and none", hdr, token, resp.Status, len(resp.Cookies()))
			}
		}
	}
	link := d.h.LoginLink()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, d.url+link, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := noRedirects().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
		t.Errorf("the printed link from another site: %s, want 403", resp.Status)
	}
	if code, _, _ := get(t, noRedirects(), d.url+link); code != http.StatusSeeOther {
		t.Errorf("the printed link from the address bar after another site tried it: %d, want 303", code)
	}
	host := strings.TrimPrefix(d.url, "http://")
	if resp := postLogin(t, d.url, testToken, "/", "Sec-Fetch-Site", "same-origin", "Origin", "http://"+host); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the dashboard's own login form: %s, want 303", resp.Status)
	}
	if resp := postLogin(t, d.url, testToken, "/", "Sec-Fetch-Site", "same-origin", "Origin", "https://dash.example.com"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the login form behind a TLS proxy (its Origin not the Host passed on): %s, want 303", resp.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, r := range refused {
		if r != ui.RefusedCrossSite {
			t.Fatalf("refusals %v: want only %s", refused, ui.RefusedCrossSite)
		}
	}
	if len(refused) != 8 {
		t.Errorf("%d refusals counted, want 8", len(refused))
	}
}

// A guesser rotating through 127.x.y.z addresses (real connections from
// each) is one source: throttled after the burst, while the owner's right
// token, from yet another loopback address, still opens.
func TestLoopbackRotationIsOneSource(t *testing.T) {
	d := newDashboard(t, func(o *ui.Options) { o.Throttle = throttle.Options{Burst: 3, Every: time.Hour} })
	from := func(ip, token string) *http.Response {
		t.Helper()
		dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		c := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext, DisableKeepAlives: true},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.PostForm(d.url+"/login", url.Values{"token": {token}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for i := range 3 {
		if resp := from("127.0.0."+strconv.Itoa(10+i), "wrong-token-"+strconv.Itoa(i)); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %s, want 401", i, resp.Status)
		}
	}
	for _, ip := range []string{"127.0.0.20", "127.1.2.3"} {
		if resp := from(ip, "wrong-token-x"); resp.StatusCode != http.StatusTooManyRequests {
			t.Errorf("a wrong token from %s after 3 from other loopback addresses: %s, want 429", ip, resp.Status)
		}
	}
	if resp := from("127.0.0.30", testToken); resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Errorf("the owner's right token from loopback meanwhile: %s, want 303 with the cookie", resp.Status)
	}
}

// The dashboard throttles the TCP peer: a client that names itself
// another address in X-Forwarded-For at each try is still one source.
func TestThrottleIgnoresForwardedFor(t *testing.T) {
	d := newDashboard(t, func(o *ui.Options) { o.Throttle = throttle.Options{Burst: 3, Every: time.Hour} })
	for i := range 3 {
		if resp := postLogin(t, d.url, "wrong-token-"+strconv.Itoa(i), "/", "X-Forwarded-For", "198.51.100."+strconv.Itoa(i)); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %d: %s, want 401", i, resp.Status)
		}
	}
	if resp := postLogin(t, d.url, "wrong-token-x", "/", "X-Forwarded-For", "203.0.113.77"); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a fourth wrong token under a new X-Forwarded-For: %s, want 429 (the peer is throttled)", resp.Status)
	}
}

func TestWeakTokenRefused(t *testing.T) {
	st, err := store.OpenReadOnly(context.Background(), mirrorPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := ui.New(st, ui.Options{Token: "aaaaaaaaaaaaaaaaaaaa"}); err == nil {
		t.Error("a weak token was accepted")
	}
	if tok := ui.NewToken(); len(tok) != 32 || ui.NewToken() == tok {
		t.Errorf("NewToken gave %q: want 32 hex digits, different each time", tok)
	}
}

// cents reads the data-cents attribute of the element with id.
func cents(t *testing.T, body, id string) int64 {
	t.Helper()
	m := regexp.MustCompile(`(?s)id="` + id + `".*?data-cents="(-?\d+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no #%s with data-cents in the page", id)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

func viewSpending(t *testing.T, st *store.Store, month string) int64 {
	t.Helper()
	var n int64
	if err := st.Reader().QueryRow(`SELECT coalesce(sum(total_spent_base_units), 0) FROM v_monthly_spending WHERE month = ?`, month).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOverviewTotalsEqualTheView(t *testing.T) {
	d := newDashboard(t)
	code, _, body := get(t, d.browser(t), d.base+"/")
	if code != http.StatusOK {
		t.Fatalf("overview: %d", code)
	}
	now := simNow.In(melbourne)
	this := now.Format("2006-01")
	last := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, melbourne).AddDate(0, -1, 0).Format("2006-01")
	gotThis, gotLast := cents(t, body, "this-month"), cents(t, body, "last-month")
	wantThis, wantLast := viewSpending(t, d.st, this), viewSpending(t, d.st, last)
	if gotThis != wantThis || gotLast != wantLast {
		t.Errorf("overview says %d this month, %d last month; v_monthly_spending says %d and %d", gotThis, gotLast, wantThis, wantLast)
	}
	if wantThis == 0 && wantLast == 0 {
		t.Error("the test mirror has no spending in either month: the comparison proves nothing")
	}
	// The category table of this month sums to the month's total.
	_, table, _ := strings.Cut(body, `id="categories-table"`)
	table, _, _ = strings.Cut(table, "</table>")
	var sum int64
	for _, m := range regexp.MustCompile(`data-cents="(-?\d+)"`).FindAllStringSubmatch(table, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		sum += n
	}
	if sum != wantThis {
		t.Errorf("this month's categories sum to %d, the view's month to %d", sum, wantThis)
	}
	for _, want := range []string{"<svg", `id="months-table"`, "Accounts", "Waiting to settle"} {
		if !strings.Contains(body, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
}

func TestOverviewHealthLineFollowsStatus(t *testing.T) {
	d := newDashboard(t)
	s, err := health.GatherStatus(context.Background(), d.st, health.StatusOptions{MaxAttempts: 12, Rules: health.Rules{StaleAfter: 2 * time.Hour}, Now: simNow})
	if err != nil {
		t.Fatal(err)
	}
	_, _, body := get(t, d.browser(t), d.base+"/")
	m := regexp.MustCompile(`<p class="health level-(\w+)" id="health">([^<]*)</p>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no health line")
	}
	if m[1] != s.Level.String() || !strings.Contains(m[2], "last sync") || !strings.Contains(m[2], "pending") || !strings.Contains(m[2], "token") {
		t.Errorf("health line %q (%s); status says %s: %s", m[2], m[1], s.Level, s.Reason)
	}
}

func TestValuesFromTheBankAreEscaped(t *testing.T) {
	d := newDashboard(t)
	c := d.browser(t)
	for _, path := range []string{"/transactions", "/transactions/" + url.PathEscape(scriptID), "/transactions?tag=" + url.QueryEscape(scriptTag)} {
		code, _, body := get(t, c, d.base+path)
		if code != http.StatusOK {
			t.Fatalf("%s: %d", path, code)
		}
		if !strings.Contains(body, "&lt;script&gt;alert(&#34;owned&#34;)&lt;/script&gt; Café") {
			t.Errorf("%s does not show the description as text", path)
		}
		for _, raw := range []string{"<script>", "<img src=x", "<b>bold", "<i>message"} {
			if strings.Contains(body, raw) {
				t.Errorf("%s holds %q unescaped", path, raw)
			}
		}
	}
	_, _, body := get(t, c, d.base+"/transactions/"+url.PathEscape(scriptID))
	for _, want := range []string{"&lt;img src=x onerror=alert(1)&gt; note", "&lt;b&gt;bold&lt;/b&gt;", "History", "created"} {
		if !strings.Contains(body, want) {
			t.Errorf("the transaction's page lacks %q", want)
		}
	}
}

func TestTransactionsFiltersAndBadInput(t *testing.T) {
	d := newDashboard(t)
	c := d.browser(t)
	month := simNow.In(melbourne).Format("2006-01")
	code, _, body := get(t, c, d.base+"/transactions?spending=1&month="+month)
	if code != http.StatusOK {
		t.Fatalf("list: %d", code)
	}
	// The list's sum of what v_monthly_spending counts is minus its total.
	if got, want := cents(t, body, "summary"), -viewSpending(t, d.st, month); got != want {
		t.Errorf("the list of this month's spending sums to %d, the view to %d", got, want)
	}
	for _, bad := range []string{"month=2026-13", "status=PENDING", "before=abc", "q=" + strings.Repeat("x", 201)} {
		code, _, body := get(t, c, d.base+"/transactions?"+bad)
		if code != http.StatusBadRequest || !strings.Contains(body, "must") && !strings.Contains(body, "longer") {
			t.Errorf("%s: %d, want 400 with the reason", bad, code)
		}
	}
	if code, _, _ := get(t, c, d.base+"/transactions/no-such-id"); code != http.StatusNotFound {
		t.Errorf("an unknown transaction: %d, want 404", code)
	}
}

func TestExportLinks(t *testing.T) {
	d := newDashboard(t)
	c := d.browser(t)
	month := simNow.In(melbourne).Format("2006-01")
	code, h, body := get(t, c, d.base+"/transactions.csv?status=SETTLED&month="+month)
	if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") {
		t.Fatalf("csv: %d %s", code, h.Get("Content-Type"))
	}
	lines := strings.Count(body, "\r\n")
	var want int
	if err := d.st.Reader().QueryRow(`SELECT count(*) FROM v_transactions WHERE status = 'SETTLED' AND created_month = ?`, month).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if lines != want+1 {
		t.Errorf("csv has %d lines, want a header and %d rows", lines, want)
	}
	code, h, body = get(t, c, d.base+"/transactions.xlsx?month="+month)
	if code != http.StatusOK || !strings.HasPrefix(body, "PK") || !strings.Contains(h.Get("Content-Disposition"), "transactions-"+month+".xlsx") {
		t.Errorf("xlsx: %d, %q", code, h.Get("Content-Disposition"))
	}
}

func TestCategoriesAndRecurringPages(t *testing.T) {
	d := newDashboard(t)
	c := d.browser(t)
	code, _, body := get(t, c, d.base+"/categories")
	if code != http.StatusOK || !strings.Contains(body, `id="categories"`) {
		t.Fatalf("categories: %d", code)
	}
	month := simNow.In(melbourne).Format("2006-01")
	m := regexp.MustCompile(`href="(transactions\?category=[^"]+&amp;month=` + month + `&amp;spending=1)" data-cents="(-?\d+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no cell of this month links to its transactions")
	}
	link := strings.ReplaceAll(m[1], "&amp;", "&")
	_, _, list := get(t, c, d.base+"/"+link)
	cell, _ := strconv.ParseInt(m[2], 10, 64)
	if got := cents(t, list, "summary"); got != -cell {
		t.Errorf("the cell says %d spent; its transactions sum to %d", cell, got)
	}
	if code, _, body := get(t, c, d.base+"/recurring"); code != http.StatusOK || !strings.Contains(body, "Recurring payments") {
		t.Errorf("recurring: %d", code)
	}
}

func TestSearch(t *testing.T) {
	d := newDashboard(t)
	c := d.browser(t)
	for _, q := range []string{"café", "CAFE", "owned", "bold", "<script>", "message"} {
		code, _, body := get(t, c, d.base+"/transactions?q="+url.QueryEscape(q))
		if code != http.StatusOK || !strings.Contains(body, `href="transactions/`+scriptID+`"`) {
			t.Errorf("search %q: %d, the transaction not listed", q, code)
		}
	}
	for _, q := range []string{`"`, `a OR`, `NEAR(`, `*`, `-x`, `col:x`} {
		if code, _, _ := get(t, c, d.base+"/transactions?q="+url.QueryEscape(q)); code != http.StatusOK {
			t.Errorf("search %q: %d, want 200 (words are words, not FTS5 syntax)", q, code)
		}
	}
	code, _, body := get(t, c, d.base+"/transactions?q=zzzznotaword")
	if code != http.StatusOK || !strings.Contains(body, "No transaction matches") {
		t.Errorf("a search without a match: %d", code)
	}
}
