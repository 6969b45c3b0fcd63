package ui_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
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
// searches, and checks that no request left 127.0.0.1.
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
		chromedp.WindowSize(1100, 900),
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

	// The printed link: the token is exchanged for the cookie, and the
	// address bar ends without it.
	run(chromedp.Navigate(d.url+"/?token="+testToken), chromedp.WaitVisible("#this-month"))
	if loc := location(); loc != d.url+"/" {
		t.Errorf("after the token link the address is %q, want %q", loc, d.url+"/")
	}
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
	if err != nil || u.Path != "/transactions" || u.Query().Get("month") != this || u.Query().Get("category") == "" {
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
	run(chromedp.Navigate(d.url+"/transactions"),
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

	mu.Lock()
	defer mu.Unlock()
	if len(requests) < 4 {
		t.Fatalf("only %d requests seen: the listener saw nothing", len(requests))
	}
	for _, r := range requests {
		ru, err := url.Parse(r)
		if err != nil || ru.Scheme == "data" {
			continue
		}
		if ru.Hostname() != "127.0.0.1" || ru.Host != base.Host {
			t.Errorf("a request left the dashboard: %s", r)
		}
	}
}
