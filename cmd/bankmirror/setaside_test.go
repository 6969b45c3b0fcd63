package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/config"
)

// A bad setting that a health check does not read does not stop it:
// status runs and reports the setting as DEGRADED, ping runs and warns,
// config shows every other value and exits 2. A setting they do read, or a
// command that reads everything, still stops at once.
func TestBadUnrelatedSettingDoesNotStopStatus(t *testing.T) {
	const weak = "aaaaaaaaaaaaaaaa"
	b := newTokenBank(t, 20, cliToken)
	cfg := testConfig(t, b)
	cfg.Token = cliToken
	startMain(t, cfg)
	env := map[string]string{"BANKMIRROR_DB": cfg.DB}
	poll(t, nil, 30*time.Second, "status OK beside the daemon", func() bool { return runCLI(t, env, "status").code == 0 })

	env["BANKMIRROR_EXPORT_TOKEN"] = weak
	env["BANKMIRROR_SYNC_SCHEDULE"] = "every now and then"
	r := runCLI(t, env, "status")
	wantCode(t, r, exitDegraded)
	noLeak(t, r, weak)
	first, _, _ := strings.Cut(r.stdout, "\n")
	for _, want := range []string{
		"DEGRADED: config: invalid BANKMIRROR_SYNC_SCHEDULE: ",
		"; config: invalid BANKMIRROR_EXPORT_TOKEN: the token is too weak",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("the verdict lacks %q:\n%s", want, r)
		}
	}
	if n := strings.Count(r.stdout, "\nsetting: invalid BANKMIRROR_"); n != 2 || !strings.Contains(r.stdout, "daemon: running") {
		t.Errorf("want two setting lines and the daemon running:\n%s", r)
	}
	if r.stderr != "" {
		t.Errorf("status wrote to stderr:\n%s", r)
	}
	r = runCLI(t, env, "status", "--json")
	wantCode(t, r, exitDegraded)
	var s struct {
		Level  string
		Checks []struct{ Name, Level, Detail string }
	}
	must(t, json.Unmarshal([]byte(r.stdout), &s))
	configs := 0
	for _, c := range s.Checks {
		if c.Name == "config" && c.Level == "DEGRADED" && strings.HasPrefix(c.Detail, "invalid BANKMIRROR_") {
			configs++
		}
	}
	if s.Level != "DEGRADED" || configs != 2 {
		t.Errorf("status --json: level %s, %d config checks, want DEGRADED and 2:\n%s", s.Level, configs, r.stdout)
	}

	// A setting status reads stops it, as before.
	bad := map[string]string{"BANKMIRROR_DB": cfg.DB, "BANKMIRROR_EXPORT_TOKEN": weak, "BANKMIRROR_STALE_AFTER": "soon"}
	r = runCLI(t, bad, "status")
	wantCode(t, r, 2)
	if r.stdout != "" || !strings.Contains(r.stderr, "invalid BANKMIRROR_STALE_AFTER") {
		t.Errorf("status with a bad BANKMIRROR_STALE_AFTER:\n%s", r)
	}

	// ping runs, with a warning; sync, which reads everything, does not.
	penv := cliEnv(b, filepath.Join(t.TempDir(), "mirror.db"))
	penv["BANKMIRROR_TOKEN"] = cliToken
	penv["BANKMIRROR_EXPORT_TOKEN"] = weak
	r = runCLI(t, penv, "ping")
	wantCode(t, r, 0)
	noLeak(t, r, weak, cliToken)
	if !strings.HasPrefix(r.stdout, "token accepted by ") ||
		!strings.HasPrefix(r.stderr, "bankmirror: warning: invalid BANKMIRROR_EXPORT_TOKEN: the token is too weak") {
		t.Errorf("ping with a weak export token:\n%s", r)
	}
	r = runCLI(t, penv, "sync")
	wantCode(t, r, 2)
	if r.stdout != "" || !strings.Contains(r.stderr, "invalid BANKMIRROR_EXPORT_TOKEN") {
		t.Errorf("sync with a weak export token:\n%s", r)
	}

	// config shows the rest, marks the bad ones and exits 2.
	r = runCLI(t, env, "config")
	wantCode(t, r, 2)
	noLeak(t, r, weak)
	for _, want := range []string{"BANKMIRROR_DB", cfg.DB, "BANKMIRROR_LISTEN", "127.0.0.1:8080"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("config lacks %q:\n%s", want, r)
		}
	}
	for _, name := range []string{"BANKMIRROR_EXPORT_TOKEN", "BANKMIRROR_SYNC_SCHEDULE"} {
		if !strings.Contains(r.stdout, name+"  ") || !strings.Contains(r.stderr, "bankmirror: invalid "+name+": ") {
			t.Errorf("config does not report %s:\n%s", name, r)
		}
	}
	if n := strings.Count(r.stdout, "(INVALID: see below)"); n != 2 {
		t.Errorf("%d rows marked invalid, want 2:\n%s", n, r)
	}
}

// loadConfigFor sets aside, for the commands that tolerate it, each bad
// variable they do not read, a file variant or the credential directory
// included, and nothing for the others.
func TestLoadConfigForSetsAsideWhatTheCommandDoesNotRead(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent")
	env := map[string]string{
		"BANKMIRROR_TOKEN_FILE":        missing,
		"BANKMIRROR_EXPORT_TOKEN_FILE": missing,
		"BANKMIRROR_LOG_LEVEL":         "loud",
		"BANKMIRROR_STALE_AFTER":       "3h",
	}
	c, setAside, err := config.LoadFor("status", env)
	var vars []string
	for _, ce := range setAside {
		vars = append(vars, ce.Var)
	}
	if err != nil || strings.Join(vars, " ") != "BANKMIRROR_TOKEN_FILE BANKMIRROR_EXPORT_TOKEN_FILE BANKMIRROR_LOG_LEVEL" {
		t.Fatalf("status: set aside %v, error %v", vars, err)
	}
	if c.StaleAfter != 3*time.Hour || c.LogLevel != "info" || c.Token != "" || c.ExportToken != "" {
		t.Errorf("status's configuration: %+v", c)
	}
	if len(env) != 4 {
		t.Errorf("the caller's environment was changed: %v", env)
	}
	if _, _, err := config.LoadFor("ping", env); err == nil || !strings.Contains(err.Error(), "BANKMIRROR_TOKEN_FILE") {
		t.Errorf("ping with an unreadable token file: %v", err)
	}
	if _, setAside, err := config.LoadFor("sync", env); err == nil || len(setAside) != 0 {
		t.Errorf("sync: set aside %v, error %v", setAside, err)
	}
	cred := t.TempDir()
	must(t, os.WriteFile(filepath.Join(cred, "token"), []byte("two\nlines"), 0o600))
	if _, setAside, err := config.LoadFor("status", map[string]string{"CREDENTIALS_DIRECTORY": cred}); err != nil || len(setAside) != 1 {
		t.Errorf("status with a bad credential: set aside %v, error %v", setAside, err)
	}
}
