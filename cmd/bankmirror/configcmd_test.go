package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/config"
)

func TestConfigCommandRedactsSecrets(t *testing.T) {
	var out, errOut bytes.Buffer
	env := map[string]string{
		"BANKMIRROR_TOKEN":          "tok-SHOULD-NOT-APPEAR",
		"BANKMIRROR_WEBHOOK_SECRET": "whsec-SHOULD-NOT-APPEAR",
		"BANKMIRROR_LISTEN":         "127.0.0.1:9999",
		"BANKMIRROR_ADMIN_LISTEN":   "off",
	}
	if code := run(context.Background(), []string{"config"}, env, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	s := out.String()
	if strings.Contains(s, "SHOULD-NOT-APPEAR") {
		t.Fatalf("a secret was printed:\n%s", s)
	}
	absDB, err := filepath.Abs("bankmirror.db")
	must(t, err)
	wantConfigLines(t, s, map[string]string{
		"BANKMIRROR_TOKEN":          "(set, redacted)",
		"BANKMIRROR_WEBHOOK_SECRET": "(set, redacted)",
		"BANKMIRROR_EXPORT_TOKEN":   "(not set: the spreadsheet feed is off)",
		"BANKMIRROR_UI_TOKEN":       "(not set: ui makes a random one at each start)",
		"BANKMIRROR_LISTEN":         "127.0.0.1:9999",
		"BANKMIRROR_SYNC_SCHEDULE":  "@every 30m",
		// Standard error is a buffer here, not a terminal.
		"BANKMIRROR_LOG_FORMAT":        "json (auto: standard error is not a terminal)",
		"BANKMIRROR_UI_LISTEN":         "(off: serve has no dashboard; ui defaults to " + defaultUIListen + ")",
		"BANKMIRROR_ADMIN_LISTEN":      "(off)",
		"BANKMIRROR_DB":                "bankmirror.db (" + absDB + ")",
		"BANKMIRROR_ATTACHMENTS_DIR":   "(off: receipts keep only their links)",
		"BANKMIRROR_REQUESTS_PER_HOUR": "0 (no cap of our own: the bank's budget)",
	})
	if strings.Contains(s, "TOKEN_FILE") {
		t.Errorf("TOKEN_FILE listed separately:\n%s", s)
	}
}

// config says which file or credential each secret came from, naming the
// file and never showing the secret; values set explicitly are shown as set.
func TestConfigCommandSecretSources(t *testing.T) {
	dir := t.TempDir()
	secrets := map[string]string{
		"TOKEN":          "tok-file-SHOULD-NOT-APPEAR",
		"WEBHOOK_SECRET": "whsec-file-SHOULD-NOT-APPEAR",
		"EXPORT_TOKEN":   "exp-Q7vK2mX9pL4rT8wZ-SHOULD-NOT-APPEAR",
		"UI_TOKEN":       "ui-H3nB8cV1xR6yD5qJ-SHOULD-NOT-APPEAR",
	}
	env := map[string]string{
		"BANKMIRROR_LOG_FORMAT":      "console",
		"BANKMIRROR_UI_LISTEN":       "127.0.0.1:9998",
		"BANKMIRROR_INBOX_RETENTION": "0",
		"STATE_DIRECTORY":            dir + ":/elsewhere",
	}
	want := map[string]string{
		"BANKMIRROR_LOG_FORMAT":      "console",
		"BANKMIRROR_UI_LISTEN":       "127.0.0.1:9998",
		"BANKMIRROR_INBOX_RETENTION": "0s (kept forever)",
		"BANKMIRROR_DB":              filepath.Join(dir, "bankmirror.db"),
	}
	for name, secret := range secrets {
		path := filepath.Join(dir, strings.ToLower(name))
		must(t, os.WriteFile(path, []byte(secret+"\n"), 0o600))
		env["BANKMIRROR_"+name+"_FILE"] = path
		// The file wins over the variable, which is not shown either.
		env["BANKMIRROR_"+name] = "var-" + secret
		want["BANKMIRROR_"+name] = "(from BANKMIRROR_" + name + "_FILE=" + path + ", redacted)"
	}
	r := runCLI(t, env, "config")
	wantCode(t, r, 0)
	noLeak(t, r, "SHOULD-NOT-APPEAR")
	wantConfigLines(t, r.stdout, want)

	// Without the variables, the token is the systemd credential.
	creds := filepath.Join(dir, "creds")
	must(t, os.Mkdir(creds, 0o700))
	must(t, os.WriteFile(filepath.Join(creds, "token"), []byte(secrets["TOKEN"]), 0o600))
	r = runCLI(t, map[string]string{"CREDENTIALS_DIRECTORY": creds}, "config")
	wantCode(t, r, 0)
	noLeak(t, r, "SHOULD-NOT-APPEAR")
	wantConfigLines(t, r.stdout, map[string]string{
		"BANKMIRROR_TOKEN":          "(from the systemd credential " + filepath.Join(creds, "token") + ", redacted)",
		"BANKMIRROR_WEBHOOK_SECRET": "(not set)",
	})
}

// config shows each person of a household with where their token came
// from, never a token.
func TestConfigCommandShowsPeople(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	must(t, os.Mkdir(tokens, 0o700))
	for _, name := range []string{"alex", "sam"} {
		must(t, os.WriteFile(filepath.Join(tokens, name), []byte("tok-"+name+"-SHOULD-NOT-APPEAR\n"), 0o600))
	}
	env := map[string]string{"BANKMIRROR_TOKENS_DIR": tokens, "BANKMIRROR_DB": filepath.Join(dir, "m.db")}
	r := runCLI(t, env, "config")
	wantCode(t, r, 0)
	noLeak(t, r, "SHOULD-NOT-APPEAR")
	wantConfigLines(t, r.stdout, map[string]string{
		"BANKMIRROR_TOKENS_DIR":    tokens,
		"BANKMIRROR_TOKEN":         "(not set: the household's tokens, each person's below)",
		"BANKMIRROR_POLL_INTERVAL": "5m0s",
	})
	for _, name := range []string{"alex", "sam"} {
		if want := "person " + name + " "; !strings.Contains(r.stdout, want) ||
			!strings.Contains(r.stdout, "(token from the file "+filepath.Join(tokens, name)+", redacted)\n") {
			t.Errorf("config does not show %s's token's source:\n%s", name, r)
		}
	}

	// A bad file: config names it and exits 2, showing no person.
	must(t, os.WriteFile(filepath.Join(tokens, "kim"), []byte("tok-kim-SHOULD-NOT-APPEAR"), 0o644))
	r = runCLI(t, env, "config")
	wantCode(t, r, 2)
	noLeak(t, r, "SHOULD-NOT-APPEAR")
	if !strings.Contains(r.stderr, "bankmirror: invalid BANKMIRROR_TOKENS_DIR: "+filepath.Join(tokens, "kim")+" is open to group or others") ||
		strings.Contains(r.stdout, "person ") {
		t.Errorf("config with a group-readable token file:\n%s", r)
	}

	// A single token is a household of one.
	r = runCLI(t, map[string]string{"BANKMIRROR_TOKEN": "tok-SHOULD-NOT-APPEAR", "BANKMIRROR_PERSON": "alex"}, "config")
	wantCode(t, r, 0)
	noLeak(t, r, "SHOULD-NOT-APPEAR")
	wantConfigLines(t, r.stdout, map[string]string{"BANKMIRROR_PERSON": "alex"})
	if !strings.Contains(r.stdout, "person alex") || !strings.Contains(r.stdout, "(token from BANKMIRROR_TOKEN, redacted)\n") {
		t.Errorf("config with one token:\n%s", r)
	}
	if defaultUIListen != config.DefaultUIListen {
		t.Errorf("ui's default address %s is not the one the configuration documents, %s", defaultUIListen, config.DefaultUIListen)
	}
}

// wantConfigLines fails the test unless config's output s has, for each
// variable of want, the line of that variable with that value.
func wantConfigLines(t *testing.T, s string, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for line := range strings.Lines(s) {
		name, val, _ := strings.Cut(strings.TrimRight(line, "\n"), " ")
		got[name] = strings.TrimSpace(val)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("config shows %s as %q, want %q:\n%s", name, got[name], w, s)
		}
	}
}

// A password in BANKMIRROR_API_URL's userinfo is never printed: not by
// config, not by ping (success or failure), not in the error naming a bad
// URL.
func TestAPIURLPasswordRedacted(t *testing.T) {
	const secret = "hunter2-SHOULD-NOT-APPEAR"
	r := runCLI(t, map[string]string{"BANKMIRROR_API_URL": "https://alice:" + secret + "@bank.example/api/v1"}, "config")
	wantCode(t, r, 0)
	noLeak(t, r, secret)
	if !strings.Contains(r.stdout, "https://alice:xxxxx@bank.example/api/v1") {
		t.Errorf("config does not show the redacted URL:\n%s", r)
	}

	b := newTokenBank(t, 10, cliToken)
	env := cliEnv(b, filepath.Join(t.TempDir(), "mirror.db"))
	env["BANKMIRROR_API_URL"] = strings.Replace(b.apiURL, "http://", "http://alice:"+secret+"@", 1)
	r = runCLI(t, env, "ping")
	wantCode(t, r, 0)
	noLeak(t, r, secret)
	if want := "token accepted by " + strings.Replace(b.apiURL, "http://", "http://alice:xxxxx@", 1); !strings.HasPrefix(r.stdout, want) {
		t.Errorf("stdout does not start with %q:\n%s", want, r)
	}
	// A token as the user name, and a bank that refuses it.
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"errors":[{"status":"401","title":"Not Authorized"}]}`, http.StatusUnauthorized)
	}))
	t.Cleanup(refusing.Close)
	env["BANKMIRROR_API_URL"] = strings.Replace(refusing.URL, "http://", "http://"+secret+"@", 1) + "/api/v1"
	env["BANKMIRROR_LOG_LEVEL"] = "trace"
	r = runCLI(t, env, "ping")
	wantCode(t, r, 1)
	noLeak(t, r, secret)
	if want := "ping " + strings.Replace(refusing.URL, "http://", "http://xxxxx@", 1) + "/api/v1: "; !strings.Contains(r.stderr, want) {
		t.Errorf("the failure does not name the redacted URL %q:\n%s", want, r)
	}

	for _, bad := range []string{"ftp://alice:" + secret + "@bank.example/", "http://alice:" + secret + "@bank.example:port/"} {
		r = runCLI(t, map[string]string{"BANKMIRROR_API_URL": bad}, "config")
		wantCode(t, r, 2)
		noLeak(t, r, secret)
		if !strings.Contains(r.stderr, "invalid BANKMIRROR_API_URL") {
			t.Errorf("%s: the error does not name the variable:\n%s", bad, r)
		}
	}
}
