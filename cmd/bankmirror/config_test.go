package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
)

// Secrets set alongside every malformed value: no error may contain them.
const (
	cfgTestToken  = "SECRET-TOKEN-123"
	cfgTestSecret = "WEBHOOK-SECRET-456"
)

func TestConfigDefaults(t *testing.T) {
	want := config.Config{
		APIURL:            bank.DefaultBaseURL,
		DB:                "bankmirror.db",
		LogLevel:          "info",
		BudgetReserve:     50,
		SyncOverlap:       3 * time.Hour,
		Listen:            "127.0.0.1:8080",
		WebhookPath:       "/webhook",
		SyncSchedule:      "@every 30m",
		ReconcileSchedule: "@daily",
		WorkerConcurrency: 4,
		EventMaxAttempts:  12,
		InboxRetention:    90 * 24 * time.Hour,

		AttachmentsMaxBytes: 20 << 20,
		Timezone:            "Australia/Melbourne",
		MigrationBackup:     "on",
		AdminListen:         "127.0.0.1:8082",
		StaleAfter:          2 * time.Hour,
		Person:              "me",
		PollInterval:        5 * time.Minute,
		RulesFile:           "/etc/bankmirror/rules.toml",
		FeedsFile:           "/etc/bankmirror/feeds.toml",
		Node:                "node",
		NPM:                 "npm",
	}
	for _, tc := range []struct {
		name    string
		environ map[string]string
		db      string
	}{
		{"nil environment", nil, "bankmirror.db"},
		{"empty environment", map[string]string{}, "bankmirror.db"},
		{"unrelated variables", map[string]string{"HOME": "/root", "TOKEN": "x", "DB": "/x.db"}, "bankmirror.db"},
		{"empty values take the defaults", map[string]string{
			"BANKMIRROR_LISTEN": "", "BANKMIRROR_WEBHOOK_PATH": "", "BANKMIRROR_SYNC_SCHEDULE": "", "BANKMIRROR_LOG_LEVEL": "",
			"BANKMIRROR_REQUESTS_PER_HOUR": "", "BANKMIRROR_API_URL": "", "BANKMIRROR_DB": "", "BANKMIRROR_TIMEZONE": "",
		}, "bankmirror.db"},
		{"systemd state directory", map[string]string{"STATE_DIRECTORY": "/var/lib/bankmirror"}, "/var/lib/bankmirror/bankmirror.db"},
		{"first of several state directories", map[string]string{"STATE_DIRECTORY": "/var/lib/a:/var/lib/b"}, "/var/lib/a/bankmirror.db"},
		{"BANKMIRROR_DB wins over the state directory", map[string]string{"STATE_DIRECTORY": "/var/lib/a", "BANKMIRROR_DB": "/srv/m.db"}, "/srv/m.db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := config.Load(tc.environ)
			if err != nil {
				t.Fatal(err)
			}
			w := want
			w.DB = tc.db
			if got.Location == nil || got.Location.String() != w.Timezone {
				t.Errorf("zone loaded %v, want %s", got.Location, w.Timezone)
			}
			w.Location = got.Location
			if !reflect.DeepEqual(got, w) {
				t.Errorf("config =\n%+v\nwant\n%+v", got, w)
			}
		})
	}
}

func TestConfigExplicitValues(t *testing.T) {
	got, err := config.Load(map[string]string{
		"BANKMIRROR_API_URL":               "http://127.0.0.1:9/api/v1",
		"BANKMIRROR_TOKEN":                 "  " + cfgTestToken + "\n",
		"BANKMIRROR_DB":                    "/tmp/x.db",
		"BANKMIRROR_LOG_LEVEL":             "debug",
		"BANKMIRROR_LOG_FORMAT":            "console",
		"BANKMIRROR_SYNC_OVERLAP":          "90m",
		"BANKMIRROR_LISTEN":                "[::1]:0",
		"BANKMIRROR_WEBHOOK_PATH":          "/hooks/up",
		"BANKMIRROR_WEBHOOK_SECRET":        cfgTestSecret,
		"BANKMIRROR_SYNC_SCHEDULE":         "*/5 * * * *",
		"BANKMIRROR_RECONCILE_SCHEDULE":    "@every 6h",
		"BANKMIRROR_WORKER_CONCURRENCY":    "1",
		"BANKMIRROR_EVENT_MAX_ATTEMPTS":    "3",
		"BANKMIRROR_INBOX_RETENTION":       "0",
		"BANKMIRROR_BUDGET_RESERVE":        "7",
		"BANKMIRROR_REQUESTS_PER_HOUR":     "300",
		"BANKMIRROR_ATTACHMENTS_DIR":       "/srv/receipts",
		"BANKMIRROR_ATTACHMENTS_MAX_BYTES": "1000",
		"BANKMIRROR_TIMEZONE":              "Australia/Perth",
		"BANKMIRROR_ADMIN_LISTEN":          "127.0.0.1:9100",
		"BANKMIRROR_MIGRATION_BACKUP":      "Off",
		"BANKMIRROR_STALE_AFTER":           "30m",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := config.Config{
		APIURL: "http://127.0.0.1:9/api/v1", Token: cfgTestToken, DB: "/tmp/x.db", LogLevel: "debug", LogFormat: "console",
		RequestsPerHour: 300, BudgetReserve: 7, SyncOverlap: 90 * time.Minute, Listen: "[::1]:0", WebhookPath: "/hooks/up",
		WebhookSecret: cfgTestSecret, SyncSchedule: "*/5 * * * *", ReconcileSchedule: "@every 6h",
		WorkerConcurrency: 1, EventMaxAttempts: 3, AttachmentsDir: "/srv/receipts", AttachmentsMaxBytes: 1000,
		Timezone: "Australia/Perth", MigrationBackup: "off",
		AdminListen: "127.0.0.1:9100", StaleAfter: 30 * time.Minute,
		Person: "me", PollInterval: 5 * time.Minute, RulesFile: "/etc/bankmirror/rules.toml",
		FeedsFile: "/etc/bankmirror/feeds.toml", Node: "node", NPM: "npm",
		SecretFrom: config.SecretSources{Token: "BANKMIRROR_TOKEN", WebhookSecret: "BANKMIRROR_WEBHOOK_SECRET"},
	}
	if got.Location == nil || got.Location.String() != want.Timezone {
		t.Errorf("zone loaded %v, want %s", got.Location, want.Timezone)
	}
	want.Location = got.Location
	if !reflect.DeepEqual(got, want) {
		t.Errorf("config =\n%+v\nwant\n%+v", got, want)
	}
}

func TestConfigSecretFiles(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	secretFile := filepath.Join(dir, "secret")
	must(t, os.WriteFile(tokenFile, []byte("  "+cfgTestToken+"\r\n\n"), 0o600))
	must(t, os.WriteFile(secretFile, []byte("\t"+cfgTestSecret+"\n"), 0o600))

	for _, tc := range []struct {
		name              string
		environ           map[string]string
		token, hookSecret string
	}{
		{"files only", map[string]string{
			"BANKMIRROR_TOKEN_FILE": tokenFile, "BANKMIRROR_WEBHOOK_SECRET_FILE": secretFile,
		}, cfgTestToken, cfgTestSecret},
		{"file wins over the plain variable", map[string]string{
			"BANKMIRROR_TOKEN": "plain-token", "BANKMIRROR_TOKEN_FILE": tokenFile,
			"BANKMIRROR_WEBHOOK_SECRET": "plain-secret", "BANKMIRROR_WEBHOOK_SECRET_FILE": secretFile,
		}, cfgTestToken, cfgTestSecret},
		{"plain variables, trimmed", map[string]string{
			"BANKMIRROR_TOKEN": " plain-token\n", "BANKMIRROR_WEBHOOK_SECRET": "plain-secret ",
		}, "plain-token", "plain-secret"},
		{"empty file variable is ignored", map[string]string{
			"BANKMIRROR_TOKEN": "plain-token", "BANKMIRROR_TOKEN_FILE": "",
		}, "plain-token", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.Load(tc.environ)
			if err != nil {
				t.Fatal(err)
			}
			if c.Token != tc.token || c.WebhookSecret != tc.hookSecret {
				t.Errorf("token %q, webhook secret %q; want %q, %q", c.Token, c.WebhookSecret, tc.token, tc.hookSecret)
			}
			if c.TokenFile != "" || c.WebhookSecretFile != "" {
				t.Errorf("file fields not cleared: %q, %q", c.TokenFile, c.WebhookSecretFile)
			}
		})
	}
}

func TestConfigMissingSecretFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-file")
	for _, name := range []string{"BANKMIRROR_TOKEN_FILE", "BANKMIRROR_WEBHOOK_SECRET_FILE"} {
		t.Run(name, func(t *testing.T) {
			_, err := config.Load(map[string]string{name: missing, "BANKMIRROR_TOKEN": cfgTestToken})
			if err == nil {
				t.Fatal("no error for a missing file")
			}
			var ce *config.Error
			if !errors.As(err, &ce) || ce.Var != name {
				t.Fatalf("error %q (%T) is not a config.Error for %s", err, err, name)
			}
			msg := err.Error()
			if !strings.Contains(msg, name) || !strings.Contains(msg, missing) || !errors.Is(err, os.ErrNotExist) {
				t.Errorf("error %q should name %s and the file, and wrap ErrNotExist", msg, name)
			}
			if strings.Contains(msg, cfgTestToken) {
				t.Errorf("error %q contains the token", msg)
			}
		})
	}
}

// malformedConfigs are one malformed variable each, with whether the error
// may repeat the value (only for variables that are not secrets and whose
// value helps the user).
var malformedConfigs = []struct {
	name, value string
	mayEcho     bool
}{
	{"BANKMIRROR_REQUESTS_PER_HOUR", "abc", false},
	{"BANKMIRROR_REQUESTS_PER_HOUR", "-1", false},
	{"BANKMIRROR_BUDGET_RESERVE", "-5", false},
	{"BANKMIRROR_SYNC_OVERLAP", "soon", false},
	{"BANKMIRROR_SYNC_OVERLAP", "-1h", false},
	{"BANKMIRROR_LOG_LEVEL", "loud", true},
	{"BANKMIRROR_LOG_FORMAT", "xml", true},
	{"BANKMIRROR_API_URL", "ftp://x", true},
	{"BANKMIRROR_API_URL", "https://", true},
	{"BANKMIRROR_LISTEN", "nonsense", true},
	{"BANKMIRROR_WEBHOOK_PATH", "webhook", true},
	{"BANKMIRROR_WEBHOOK_PATH", "/healthz", true},
	{"BANKMIRROR_SYNC_SCHEDULE", "often", true},
	{"BANKMIRROR_RECONCILE_SCHEDULE", "sometimes", true},
	{"BANKMIRROR_WORKER_CONCURRENCY", "0", false},
	{"BANKMIRROR_WORKER_CONCURRENCY", "four", false},
	{"BANKMIRROR_EVENT_MAX_ATTEMPTS", "0", false},
	{"BANKMIRROR_TIMEZONE", "Mars/Olympus_Mons", true},
	{"BANKMIRROR_TIMEZONE", "Local", true},
	{"BANKMIRROR_TIMEZONE", "+10:00", true},
	{"BANKMIRROR_TOKEN", "SECRET\nTOKEN", false},
	{"BANKMIRROR_TOKEN", "SECRET\x1b[2JTOKEN", false},
	{"BANKMIRROR_ADMIN_LISTEN", "nonsense", true},
	{"BANKMIRROR_MIGRATION_BACKUP", "maybe", true},
	{"BANKMIRROR_STALE_AFTER", "0", false},
	{"BANKMIRROR_STALE_AFTER", "soon", false},
	{"BANKMIRROR_POLL_INTERVAL", "-1m", false},
	{"BANKMIRROR_POLL_INTERVAL", "5s", false},
	{"BANKMIRROR_PERSON", "Alex", true},
}

func malformedEnv(name, value string) map[string]string {
	return map[string]string{
		"BANKMIRROR_TOKEN":          cfgTestToken,
		"BANKMIRROR_WEBHOOK_SECRET": cfgTestSecret,
		name:                        value,
	}
}

func TestConfigRejectsMalformedValues(t *testing.T) {
	for _, tc := range malformedConfigs {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			_, err := config.Load(malformedEnv(tc.name, tc.value))
			if err == nil {
				t.Fatalf("%s=%q accepted", tc.name, tc.value)
			}
			var ce *config.Error
			if !errors.As(err, &ce) || ce.Var != tc.name {
				t.Fatalf("error %q (%T) is not a config.Error for %s", err, err, tc.name)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.name) {
				t.Errorf("error %q does not name %s", msg, tc.name)
			}
			if n := strings.Count(msg, config.Prefix); n != 1 {
				t.Errorf("error %q names %d variables, want exactly %s", msg, n, tc.name)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error %q is not one line", msg)
			}
			if !tc.mayEcho && strings.Contains(msg, tc.value) {
				t.Errorf("error %q repeats the value %q", msg, tc.value)
			}
			for _, secret := range []string{cfgTestToken, cfgTestSecret} {
				if strings.Contains(msg, secret) {
					t.Errorf("error %q contains a secret", msg)
				}
			}
		})
	}
}

// Through run: a malformed value exits 2 with exactly one line on stderr,
// whatever the command, before the command does anything.
func TestConfigErrorExitsTwoWithOneLine(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-token")
	cases := append([]struct {
		name, value string
		mayEcho     bool
	}{{"BANKMIRROR_TOKEN_FILE", missing, true}}, malformedConfigs...)
	for _, tc := range cases {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "mirror.db")
			env := malformedEnv(tc.name, tc.value)
			env["BANKMIRROR_DB"] = db
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"sync", "--full"}, env, &stdout, &stderr)
			if code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
			out := stderr.String()
			if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
				t.Errorf("stderr is not exactly one line: %q", out)
			}
			if !strings.Contains(out, tc.name) {
				t.Errorf("stderr %q does not name %s", out, tc.name)
			}
			if !strings.HasPrefix(out, "bankmirror: ") {
				t.Errorf("stderr %q lacks the program name", out)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
			if strings.Contains(out, cfgTestToken) || strings.Contains(out, cfgTestSecret) {
				t.Errorf("stderr %q contains a secret", out)
			}
			if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the mirror was created despite the configuration error: %v", err)
			}
		})
	}
}

// BANKMIRROR_TIMEZONE reaches the mirror through both ways it is opened
// (a command's openStore and the daemon's Daemon.Open): every transaction's
// local time is its instant in that zone.
func TestConfiguredTimezoneReachesTheMirror(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	must(t, err)
	check := func(t *testing.T, db string) {
		t.Helper()
		ro, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
		must(t, err)
		defer ro.Close()
		var zone string
		must(t, ro.QueryRow("SELECT value FROM mirror_settings WHERE key = 'timezone'").Scan(&zone))
		if zone != "Asia/Tokyo" {
			t.Errorf("mirror's zone = %q, want Asia/Tokyo", zone)
		}
		rows, err := ro.Query("SELECT created_at, created_local FROM transactions")
		must(t, err)
		defer rows.Close()
		n := 0
		for rows.Next() {
			var created, local string
			must(t, rows.Scan(&created, &local))
			at, err := time.Parse(time.RFC3339, created)
			must(t, err)
			if want := at.In(tokyo).Format(time.DateTime); local != want {
				t.Errorf("created_at %s: created_local %s, want %s", created, local, want)
			}
			n++
		}
		must(t, rows.Err())
		if n < 50 {
			t.Errorf("only %d transactions checked", n)
		}
	}
	t.Run("command", func(t *testing.T) {
		b := newTokenBank(t, 60, cliToken)
		env := cliEnv(b, filepath.Join(t.TempDir(), "mirror.db"))
		env["BANKMIRROR_TIMEZONE"] = "Asia/Tokyo"
		wantCode(t, runCLI(t, env, "sync", "--full"), 0)
		check(t, env["BANKMIRROR_DB"])
	})
	t.Run("daemon", func(t *testing.T) {
		cfg := testConfig(t, newBank(t, 60))
		cfg.Timezone, cfg.Location = "Asia/Tokyo", tokyo
		startMain(t, cfg)
		check(t, cfg.DB)
	})
}

// A token file holding more than one line, or an invisible character, is
// refused with one line naming the variable and never showing the token;
// one trailing newline (and surrounding blanks) is fine.
func TestConfigTokenWithControlCharacters(t *testing.T) {
	dir := t.TempDir()
	for _, content := range []string{"SECRET-TOKEN-123\nsecond line\n", "SECRET\tTOKEN\n", "SECRET\x00TOKEN"} {
		path := filepath.Join(dir, "token")
		must(t, os.WriteFile(path, []byte(content), 0o600))
		env := map[string]string{"BANKMIRROR_TOKEN_FILE": path, "BANKMIRROR_DB": filepath.Join(dir, "m.db")}
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"serve"}, env, &stdout, &stderr); code != 2 {
			t.Errorf("%q: exit %d, want 2", content, code)
		}
		out := stderr.String()
		if strings.Count(out, "\n") != 1 || !strings.Contains(out, "BANKMIRROR_TOKEN_FILE") || !strings.Contains(out, "control characters") ||
			strings.Contains(out, "SECRET") {
			t.Errorf("%q: stderr %q", content, out)
		}
	}
	// From the systemd credential directory, when no variable names a token.
	must(t, os.WriteFile(filepath.Join(dir, "token"), []byte("cred-token\n"), 0o600))
	c, err := config.Load(map[string]string{"CREDENTIALS_DIRECTORY": dir})
	if err != nil || c.Token != "cred-token" {
		t.Errorf("credential token = %q, %v", c.Token, err)
	}
}

func TestConfigAdminListenOff(t *testing.T) {
	for _, v := range []string{"", " ", "off", "OFF"} {
		c, err := config.Load(map[string]string{"BANKMIRROR_ADMIN_LISTEN": v})
		if err != nil || c.AdminListen != config.AdminOff {
			t.Errorf("ADMIN_LISTEN=%q: %q, %v", v, c.AdminListen, err)
		}
	}
}
