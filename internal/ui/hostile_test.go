package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/ui"
)

// Text from the bank cannot break or spoof a page: a description that
// reverses what follows it (U+202E) shows the override as ⟨U+202E⟩ inside
// its own <bdi>, control characters show as ⟨U+XXXX⟩ too, a description of
// 200,000 characters is cut in the list and bounded on its own page, and
// a recurring payee whose description is longer than a search may be
// links to a list that answers.
func TestBankTextCannotBreakThePage(t *testing.T) {
	d := newDashboard(t)
	c := d.browser(t)
	for _, path := range []string{"/transactions?q=Netflix", "/transactions/" + spoofID} {
		code, _, body := get(t, c, d.base+path)
		if code != http.StatusOK {
			t.Fatalf("%s: %d", path, code)
		}
		if strings.ContainsRune(body, '\u202e') || strings.ContainsRune(body, 0) {
			t.Errorf("%s holds U+202E or NUL as is", path)
		}
		if !strings.Contains(body, "<bdi>Netflix ⟨U&#43;202E⟩gnp.exe⟨U&#43;0000⟩</bdi>") && !strings.Contains(body, `<bdi id="description">Netflix ⟨U&#43;202E⟩gnp.exe⟨U&#43;0000⟩</bdi>`) {
			i := strings.Index(body, "Netflix")
			t.Errorf("%s does not show the override visibly, isolated: %q", path, body[max(0, i-40):min(len(body), i+80)])
		}
	}
	if _, _, body := get(t, c, d.base+"/transactions/"+spoofID); !strings.Contains(body, "line⟨U&#43;0007⟩bell") {
		t.Error("the message's BEL is not shown as a symbol")
	}

	code, _, list := get(t, c, d.base+"/transactions?q=Hugeword")
	if code != http.StatusOK || !strings.Contains(list, `href="transactions/`+hugeID+`"`) {
		t.Fatalf("the list of the huge description: %d", code)
	}
	if len(list) > 20_000 || !strings.Contains(list, "yyy…</bdi>") {
		t.Errorf("the list of one transaction with 200,000 characters is %d bytes; want it cut with …", len(list))
	}
	code, _, page := get(t, c, d.base+"/transactions/"+hugeID)
	if code != http.StatusOK || len(page) > 40_000 || !strings.Contains(page, "more characters not shown") {
		t.Errorf("the page of the huge description: %d, %d bytes; want it bounded, saying what is not shown", code, len(page))
	}

	code, _, rec := get(t, c, d.base+"/recurring")
	if code != http.StatusOK {
		t.Fatalf("recurring: %d", code)
	}
	m := regexp.MustCompile(`href="(transactions\?q=Longpayee[^"]*)"`).FindStringSubmatch(rec)
	if m == nil {
		t.Fatal("the recurring page does not list the payee of 253 characters")
	}
	link := strings.ReplaceAll(m[1], "&amp;", "&")
	code, _, payments := get(t, c, d.base+"/"+link)
	if code != http.StatusOK || strings.Count(payments, "<bdi>Longpayee") != 3 {
		t.Errorf("the payee's link %s: %d with %d payments listed, want 200 with its 3", link, code, strings.Count(payments, "<bdi>Longpayee"))
	}
}

// blockingMirror holds every transactions list until released.
type blockingMirror struct {
	ui.Mirror
	entered chan struct{}
	release chan struct{}
}

func (b *blockingMirror) ListTransactions(ctx context.Context, f store.TxFilter) (store.TxList, error) {
	b.entered <- struct{}{}
	<-b.release
	return b.Mirror.ListTransactions(ctx, f)
}

// Heavy pages are bounded: with the heavy slots held by lists, the next
// list and an export are answered 503 with Retry-After at once, and the
// overview still answers.
func TestHeavyPagesBounded(t *testing.T) {
	st, err := store.OpenReadOnly(context.Background(), mirrorPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := &blockingMirror{Mirror: st, entered: make(chan struct{}), release: make(chan struct{})}
	d := newDashboardOf(t, m, func(o *ui.Options) { o.MaxHeavy = 2; o.Export = st.Reader() })
	c := d.browser(t)
	var wg sync.WaitGroup
	codes := make(chan int, 2)
	for range 2 {
		wg.Go(func() {
			resp, err := c.Get(d.base + "/transactions?spending=1")
			if err != nil {
				codes <- 0
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		})
		<-m.entered
	}
	for _, path := range []string{"/transactions?q=x", "/transactions.csv", "/transactions.xlsx"} {
		code, h, _ := get(t, c, d.base+path)
		if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
			t.Errorf("%s with the heavy slots held: %d, Retry-After %q; want 503 with Retry-After", path, code, h.Get("Retry-After"))
		}
	}
	if code, _, body := get(t, c, d.base+"/"); code != http.StatusOK || !strings.Contains(body, "Spent in") {
		t.Errorf("the overview with the heavy slots held: %d, want 200", code)
	}
	close(m.release)
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != http.StatusOK {
			t.Errorf("a held list: %d, want 200 once released", code)
		}
	}
	if code, _, _ := get(t, c, d.base+"/transactions.csv?month="+url.QueryEscape(simNow.In(melbourne).Format("2006-01"))); code != http.StatusOK {
		t.Errorf("an export once the slots are free: %d, want 200", code)
	}
}

// The stylesheet is served under a path named by its content, cached for
// a year; any other path under /static/ is 404.
func TestStaticFilesHashedAndCached(t *testing.T) {
	d := newDashboard(t)
	_, _, body := get(t, noRedirects(), d.url+"/")
	m := regexp.MustCompile(`href="(/static/[0-9a-f]{12}/ui\.css)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the page links no hashed stylesheet")
	}
	code, h, css := get(t, noRedirects(), d.url+m[1])
	if code != http.StatusOK || !strings.Contains(css, "--accent") || h.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
		!strings.HasPrefix(h.Get("Content-Type"), "text/css") {
		t.Errorf("the stylesheet: %d, Cache-Control %q, Content-Type %q; want 200 cached for a year", code, h.Get("Cache-Control"), h.Get("Content-Type"))
	}
	for _, p := range []string{"/static/ui.css", "/static/000000000000/ui.css", "/static/" + m[1][8:20] + "/../ui.css"} {
		if code, _, _ := get(t, noRedirects(), d.url+p); code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, code)
		}
	}
}
