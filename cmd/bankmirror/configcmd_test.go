package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigCommandRedactsSecrets(t *testing.T) {
	var out, errOut bytes.Buffer
	env := map[string]string{
		"BANKMIRROR_TOKEN":          "tok-SHOULD-NOT-APPEAR",
		"BANKMIRROR_WEBHOOK_SECRET": "whsec-SHOULD-NOT-APPEAR",
		"BANKMIRROR_LISTEN":         "127.0.0.1:9999",
	}
	if code := run(context.Background(), []string{"config"}, env, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	s := out.String()
	if strings.Contains(s, "SHOULD-NOT-APPEAR") {
		t.Fatalf("a secret was printed:\n%s", s)
	}
	for _, want := range []string{"BANKMIRROR_TOKEN", "(set, redacted)", "BANKMIRROR_LISTEN", "127.0.0.1:9999", "BANKMIRROR_SYNC_SCHEDULE", "@every 30m"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "TOKEN_FILE") {
		t.Errorf("TOKEN_FILE listed separately:\n%s", s)
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
