package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
)

// TestCLIUIServesTheMirror: `ui` prints one line with the address and a
// random token, serves the overview to whoever opens it, shows the rules
// of BANKMIRROR_RULES_FILE, and stops on the signal (the context).
func TestCLIUIServesTheMirror(t *testing.T) {
	db := syntheticMirror(t, 300)
	rulesFile := filepath.Join(t.TempDir(), "rules.toml")
	if err := os.WriteFile(rulesFile, []byte("[[rule]]\nname = \"the cli's rule\"\nwhen = 'amount < 0'\ntags = [\"cli\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr cliBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"ui", "--listen", "127.0.0.1:0"}, map[string]string{"BANKMIRROR_DB": db, "BANKMIRROR_RULES_FILE": rulesFile}, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no line from ui: %v (stderr: %s)", err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	link, ok := strings.CutPrefix(strings.TrimSpace(line), "dashboard: ")
	if !ok || !strings.HasPrefix(link, "http://127.0.0.1:") || !strings.Contains(link, "/login?code=") || len(link[strings.Index(link, "code=")+5:]) != 32 {
		t.Fatalf("ui printed %q, want dashboard: http://127.0.0.1:PORT/login?code=<32 hex digits>", line)
	}
	if stderr.String() != "" {
		t.Errorf("ui on loopback wrote to stderr: %q", stderr.String())
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Spent in") {
		t.Errorf("the printed link: %s, want the overview", resp.Status)
	}
	rules, err := browser.Get(resp.Request.URL.String() + "rules")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(rules.Body)
	rules.Body.Close()
	if rules.StatusCode != http.StatusOK || !strings.Contains(string(body), `<tr data-rule-line="1"><td class="num">1</td><td class="text desc"><bdi>the cli&#39;s rule</bdi>`) {
		t.Errorf("the rules page: %s, without the rule of BANKMIRROR_RULES_FILE: %s", rules.Status, body)
	}
	if resp, err := http.Get(link); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the printed link a second time: %v, want 401 (it works once)", resp.Status)
	} else {
		resp.Body.Close()
	}
	base, _, _ := strings.Cut(link, "/login?")
	wantMisdirected(t, base)
	resp, err = http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %s, want 401", resp.Status)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("ui exited %d: %s", code, stderr.String())
	}
}

// TestCLIUIOnAllAddresses: `ui --listen 0.0.0.0:0` warns on stderr, as
// serve does, that the dashboard is exposed, and prints a link a browser
// can open (127.0.0.1, not 0.0.0.0), which serves the overview.
func TestCLIUIOnAllAddresses(t *testing.T) {
	db := syntheticMirror(t, 50)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr cliBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"ui", "--listen", "0.0.0.0:0"}, map[string]string{"BANKMIRROR_DB": db}, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no line from ui: %v (stderr: %s)", err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	link, ok := strings.CutPrefix(strings.TrimSpace(line), "dashboard: ")
	if !ok || !strings.HasPrefix(link, "http://127.0.0.1:") || !strings.Contains(link, "/login?code=") {
		t.Errorf("ui on 0.0.0.0 printed %q, want a link to http://127.0.0.1:PORT/login?code=", line)
	}
	if !strings.Contains(stderr.String(), "warning: dashboard on ") || !strings.Contains(stderr.String(), "beyond loopback over plain HTTP") {
		t.Errorf("ui on 0.0.0.0 did not warn on stderr: %q", stderr.String())
	}
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar}).Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the printed link: %s, want 200", resp.Status)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("ui exited %d: %s", code, stderr.String())
	}
}

// TestConfigUIToken: a configured dashboard token is checked as the
// feed's is, naming the variable and never the token; the link printed
// then holds no token.
func TestConfigUIToken(t *testing.T) {
	weak := filepath.Join(t.TempDir(), "weak")
	must(t, os.WriteFile(weak, []byte("abcabcabcabcabcabc\n"), 0o600))
	for name, val := range map[string]string{"BANKMIRROR_UI_TOKEN": "abcabcabcabcabcabc", "BANKMIRROR_UI_TOKEN_FILE": weak} {
		r := runCLI(t, map[string]string{name: val, "BANKMIRROR_DB": filepath.Join(t.TempDir(), "none.db")}, "ui")
		wantCode(t, r, 2)
		noLeak(t, r, "abcabcabcabcabcabc")
		if !strings.Contains(r.stderr, "invalid "+name+": the token is too weak") {
			t.Errorf("weak token in %s: %s", name, r)
		}
	}
	c, err := config.Load(map[string]string{"BANKMIRROR_UI_TOKEN_FILE": writeTemp(t, " 9f8e7d6c5b4a39281706f5e4d3c2b1a0\n"), "BANKMIRROR_UI_LISTEN": "127.0.0.1:9999"})
	if err != nil || c.UIToken != "9f8e7d6c5b4a39281706f5e4d3c2b1a0" || c.UIListen != "127.0.0.1:9999" {
		t.Errorf("token %q listen %q: %v", c.UIToken, c.UIListen, err)
	}
	r := runCLI(t, map[string]string{"BANKMIRROR_UI_LISTEN": "nowhere"}, "config")
	wantCode(t, r, 2)
	if !strings.Contains(r.stderr, "BANKMIRROR_UI_LISTEN") {
		t.Errorf("bad UI_LISTEN: %s", r)
	}
	if _, err := config.Load(map[string]string{"BANKMIRROR_TRUSTED_PROXIES": "127.0.0.1,proxy.example"}); err == nil ||
		!strings.Contains(err.Error(), "BANKMIRROR_TRUSTED_PROXIES") || !strings.Contains(err.Error(), "proxy.example") {
		t.Errorf("a name in BANKMIRROR_TRUSTED_PROXIES: %v, want an error naming the variable and the value", err)
	}
	if c, err := config.Load(map[string]string{"BANKMIRROR_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8"}); err != nil || c.TrustedProxies != "127.0.0.1, 10.0.0.0/8" {
		t.Errorf("trusted proxies: %q, %v", c.TrustedProxies, err)
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	must(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// TestServeDashboard: with BANKMIRROR_UI_LISTEN set, serve serves the
// dashboard of its own mirror there, for BANKMIRROR_UI_TOKEN only; without
// a token it refuses to start, naming the variable.
func TestServeDashboard(t *testing.T) {
	const token = "7c1e9a3f5b2d4086e1c7a9f3b5d20486"
	b := newBank(t, 150)
	cfg := testConfig(t, b)
	cfg.UIListen, cfg.UIToken = "127.0.0.1:0", token
	m, _ := startMain(t, cfg)
	base := m.DashboardURL()
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("dashboard at %q", base)
	}
	wantMisdirected(t, base)
	resp, err := http.Get(base + "/")
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %s, want 401", resp.Status)
	}
	form := url.Values{"token": {"wrong-token-0123456789"}}
	resp, err = http.PostForm(base+"/login", form)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: %s, want 401", resp.Status)
	}
	if n := value(scrape(t, m), "bankmirror_dashboard_requests_refused_total", "reason", "wrong_token"); n != 1 {
		t.Errorf("/metrics counts %v wrong dashboard tokens, want 1", n)
	}
	jar, _ := cookiejar.New(nil)
	resp, err = (&http.Client{Jar: jar}).PostForm(base+"/login", url.Values{"token": {token}})
	must(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("with the token: %s", resp.Status)
	}
	match := regexp.MustCompile(`(?s)id="this-month".*?data-cents="(-?\d+)"`).FindSubmatch(body)
	if match == nil {
		t.Fatal("no this-month total on the overview")
	}
	loc := cfg.Location
	want := mirrortest.Int(t, m.Store.Reader(), "SELECT coalesce(sum(total_spent_base_units), 0) FROM v_monthly_spending WHERE month = ?",
		time.Now().In(loc).Format("2006-01"))
	if got, _ := strconv.Atoi(string(match[1])); got != want {
		t.Errorf("serve's overview says %d cents this month, v_monthly_spending %d", got, want)
	}

	cfg2 := testConfig(t, b)
	cfg2.UIListen = "127.0.0.1:0"
	m2 := daemon.New(cfg2, zerolog.Nop())
	err = m2.Open(t.Context())
	_ = m2.Close()
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Var != "BANKMIRROR_UI_LISTEN" || !strings.Contains(err.Error(), "BANKMIRROR_UI_TOKEN") {
		t.Errorf("serve with a dashboard and no token: %v, want a configuration error naming both variables", err)
	}
}

// wantMisdirected asks the dashboard at base (bound to loopback) with the
// token link under another Host, as a page whose name was rebound to
// 127.0.0.1 would: 421, and no cookie.
func wantMisdirected(t *testing.T, base string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/", nil)
	must(t, err)
	req.Host = "evil.example" + base[strings.LastIndexByte(base, ':'):]
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest || len(resp.Cookies()) != 0 {
		t.Errorf("the dashboard under Host %s: %s, want 421", req.Host, resp.Status)
	}
}
