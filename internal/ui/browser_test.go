package ui_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/bankmirror/bankmirror/internal/ui"
)

// screenshotEnv set to 1 makes TestBrowser write docs/dashboard.png.
const screenshotEnv = "BANKMIRROR_UPDATE_SCREENSHOT"

// chromium finds Debian's Chromium. Under CI (CI set) its absence fails
// the test; elsewhere it skips it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed (apt-get install chromium): CI runs the browser test")
	}
	t.Skip("chromium is not installed (apt-get install chromium)")
	return ""
}

// TestBrowser drives headless Chromium through the dashboard as a person
// would: it opens the printed link, reads the totals, follows a category,
// searches, and checks that no request left the dashboard. Then it attacks
// it as another local service would: a second server on another port of
// 127.0.0.1 captures what the browser sends it, and cannot read a page with
// that, nor with the dashboard's cookie itself; and the printed link left
// in the browser's history opens nothing.
func TestBrowser(t *testing.T) {
	exe := chromium(t)
	d := newDashboard(t)
	base, err := url.Parse(d.url)
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTime()

	var mu sync.Mutex
	var requests []string
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, e.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	run := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	location := func() string {
		t.Helper()
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	attr := func(sel, name string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.AttributeValue(sel, name))
		if err != nil || !v.Exists {
			t.Fatalf("%s [%s]: %v", sel, name, err)
		}
		return v.Value
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+strconv.Quote(sel)+`).length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// The printed link: its one-time code is exchanged for a session, whose
	// pages live under a secret path.
	link := d.h.LoginLink()
	run(chromedp.Navigate(d.url+link), chromedp.WaitVisible("#this-month"))
	session := location()
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(d.url) + `/s/[0-9a-f]{32}/$`).MatchString(session) {
		t.Fatalf("after the printed link the address is %q, want %s/s/SECRET/", session, d.url)
	}
	sessionBase := strings.TrimSuffix(session, "/")
	now := simNow.In(melbourne)
	this := now.Format("2006-01")
	last := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, melbourne).AddDate(0, -1, 0).Format("2006-01")
	if got, want := attr("#this-month a", "data-cents"), strconv.FormatInt(viewSpending(t, d.st, this), 10); got != want {
		t.Errorf("the browser shows %s cents spent this month; v_monthly_spending says %s", got, want)
	}
	if got, want := attr("#last-month a", "data-cents"), strconv.FormatInt(viewSpending(t, d.st, last), 10); got != want {
		t.Errorf("the browser shows %s cents spent last month; v_monthly_spending says %s", got, want)
	}
	if count("svg.hbar a") == 0 {
		t.Fatal("no category bar to follow")
	}
	// Every category's label, in the font the browser picked, ends a few
	// units before its bar starts (the labels' column is sized by an
	// estimate).
	gap, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`Math.min(...[...document.querySelectorAll("svg.hbar g")].map(
		g => g.querySelector("rect").x.baseVal.value - g.querySelector("text.label").getComputedTextLength()))`))
	if err != nil || gap < 4 {
		t.Errorf("a category's label ends %.1f units before its bar, want 4 or more (%v)", gap, err)
	}
	if os.Getenv(screenshotEnv) == "1" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "dashboard.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Follow the largest category: its list sums to minus its spending.
	loaded := func(trigger chromedp.Action[chromedp.Void]) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, trigger)); err != nil {
			t.Fatal(err)
		}
	}
	loaded(chromedp.Click("svg.hbar a", chromedp.NodeVisible))
	catURL := location()
	sum := attr("#summary [data-cents]", "data-cents")
	u, err := url.Parse(catURL)
	if err != nil || u.Scheme+"://"+u.Host+u.Path != sessionBase+"/transactions" || u.Query().Get("month") != this || u.Query().Get("category") == "" {
		t.Fatalf("the category bar led to %q", catURL)
	}
	cat := u.Query().Get("category")
	var want int64
	q := `SELECT coalesce(sum(total_spent_base_units), 0) FROM v_monthly_spending WHERE month = ? AND coalesce(category_id, 'none') = ?`
	if err := d.st.Reader().QueryRow(q, this, cat).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if sum != strconv.FormatInt(-want, 10) || want == 0 {
		t.Errorf("category %s this month: the list sums to %s cents, v_monthly_spending to %d spent", cat, sum, want)
	}

	// Search, as typed into the box: the description with markup is shown
	// as text and runs nothing.
	run(chromedp.Navigate(sessionBase+"/transactions"),
		chromedp.WaitVisible(`input[name="q"]`),
		chromedp.SendKeys(`input[name="q"]`, "cafe owned"))
	loaded(chromedp.Submit(`input[name="q"]`))
	text, err := chromedp.Run(ctx, chromedp.Text("#transactions tbody"))
	if err != nil {
		t.Fatal(err)
	}
	if rows := count("#transactions tbody tr"); rows != 1 || !strings.Contains(text, scriptDescription) {
		t.Errorf("search found %d rows, text %q; want the one transaction, its description as text", rows, text)
	}
	if loc := location(); !strings.Contains(loc, "q=cafe+owned") {
		t.Errorf("the search's address is %q", loc)
	}
	if n := count("script"); n != 0 {
		t.Errorf("the page holds %d script elements", n)
	}

	// A description of 200,000 characters does not push the list wider
	// than the window at 1280 px.
	run(chromedp.Navigate(sessionBase+"/transactions?q=Hugeword"), chromedp.WaitVisible("#transactions"))
	if wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)); err != nil || wide {
		t.Errorf("the list with a huge description scrolls sideways at 1280 px (%v)", err)
	}

	// The categories table, the category and thirteen columns of amounts,
	// fits the window at 1280 px.
	run(chromedp.Navigate(sessionBase+"/categories"), chromedp.WaitVisible("#categories"))
	if wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.querySelector("#categories").parentElement;
		return s.scrollWidth > s.clientWidth || document.documentElement.scrollWidth > window.innerWidth })()`)); err != nil || wide {
		t.Errorf("the categories table scrolls sideways at 1280 px (%v)", err)
	}

	// The nav's Rules and Alerts: the browser test's dashboard has no rules
	// file, which its rules page says, and no alert.
	loaded(chromedp.Click(`nav a[href="rules"]`, chromedp.NodeVisible))
	run(chromedp.WaitVisible("#rules-error"))
	loaded(chromedp.Click(`nav a[href="alerts"]`, chromedp.NodeVisible))
	if loc := location(); loc != sessionBase+"/alerts" {
		t.Errorf("the nav's Alerts led to %q", loc)
	}

	mu.Lock()
	seen := slices.Clone(requests)
	mu.Unlock()
	if len(seen) < 4 {
		t.Fatalf("only %d requests seen: the listener saw nothing", len(seen))
	}
	for _, r := range seen {
		ru, err := url.Parse(r)
		if err != nil || ru.Scheme == "data" {
			continue
		}
		if ru.Hostname() != "127.0.0.1" || ru.Host != base.Host {
			t.Errorf("a request left the dashboard: %s", r)
		}
	}

	// Another web service on this host, on another port: the browser
	// sends it the cookies it holds for 127.0.0.1 (ports are not part of a
	// cookie's scope). It captures them, and replays them to the dashboard.
	var capMu sync.Mutex
	var captured []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		capMu.Lock()
		captured = append(captured, r.Header.Values("Cookie")...)
		capMu.Unlock()
		_, _ = io.WriteString(w, "<!doctype html><title>another service</title><p id=other>printer page</p>")
	}))
	defer other.Close()
	for _, p := range []string{"/", "/transactions", "/s/"} {
		run(chromedp.Navigate(other.URL+p), chromedp.WaitVisible("#other"))
	}
	cookies, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{session, other.URL + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	// The other service may still be answering (a favicon): what it has
	// received so far is read under its lock.
	capMu.Lock()
	received := slices.Clone(captured)
	capMu.Unlock()
	replays := slices.Clone(received)
	dashCookies := 0
	for _, c := range cookies.Cookies {
		if strings.HasPrefix(c.Name, ui.CookiePrefix) {
			dashCookies++
		}
		// The most a thief of cookies could hold: the dashboard's own.
		replays = append(replays, c.Name+"="+c.Value)
	}
	if dashCookies != 1 {
		t.Fatalf("the browser holds %d dashboard cookies, want 1", dashCookies)
	}
	for _, h := range received {
		if strings.Contains(h, ui.CookiePrefix) {
			t.Errorf("the other service received the dashboard's cookie: %q", h)
		}
	}
	for _, cookie := range replays {
		for _, p := range []string{"/", "/transactions", "/categories", "/transactions.csv"} {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, d.url+p, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Cookie", cookie)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || strings.Contains(string(body), "data-cents") {
				t.Errorf("another service replaying %q to %s: %s, want 401 and no data", cookie, p, resp.Status)
			}
		}
	}

	// The printed link, as the history keeps it, opens nothing now.
	hist, err := chromedp.Call(ctx, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range append(hist.Entries, &page.NavigationEntry{URL: d.url + link}) {
		if !strings.Contains(e.URL, "code=") {
			continue
		}
		resp, err := noRedirects().Get(e.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 {
			t.Errorf("the history's %s: %s, want 401 (the code is spent)", e.URL, resp.Status)
		}
	}
}
