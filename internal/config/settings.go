package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/export"
)

// Setting is one BANKMIRROR_* variable: everything about it, once.
type Setting struct {
	// Name is the variable without the prefix, as in Config's env tag.
	Name string
	// Doc says what the variable is, in plain text: --help, the manual and
	// the example environment file.
	Doc string
	// Manual says it in Markdown for docs/configuration.md; Doc when empty.
	Manual string
	// Default is the value taken when the variable is unset or empty.
	Default string
	// DefaultDoc describes a default computed at load (BANKMIRROR_DB's).
	DefaultDoc string
	// ManualDefault is the default column of docs/configuration.md, in
	// Markdown; Default in backticks, or DefaultDoc, when empty.
	ManualDefault string
	// Secret values are never shown: config says only where they came from.
	Secret bool
	// File: the variable has a _FILE variant naming a file that holds the
	// value, which wins; FileDoc documents it ("a file holding ..." when
	// empty).
	File    bool
	FileDoc string
	// Credential is the systemd credential ($CREDENTIALS_DIRECTORY/NAME)
	// read when no variable sets the value; a trailing * stands for any end.
	Credential string
	// Unset is what the variable being unset means, for config
	// ("the spreadsheet feed is off").
	Unset string
	// Example is an example value for the example environment file, when
	// there is no default.
	Example string
	// ReadBy are the commands among status, ping, config and version that
	// read the variable: a bad value stops them. Those commands run
	// without a bad variable they do not read (see LoadFor); every other
	// command reads every variable.
	ReadBy []string

	// load normalises the parsed value and fills in what is derived from
	// the environment (a secret with a _FILE variant and no load of its own
	// is settled by settleSecret); check refuses a bad value (the error names no
	// variable: the caller adds it); show is the value config prints, when
	// not the field as it is (ok false).
	load  func(c *Config, environ map[string]string) error
	check func(c *Config) error
	show  func(c *Config, terminal bool) (string, bool)
}

// Var is the setting's variable, prefix included.
func (s *Setting) Var() string { return Prefix + s.Name }

// secretSource is where the setting's secret came from: the field of
// Config.SecretFrom named as the secret's own field; "" when unset or not
// recorded.
func (s *Setting) secretSource(c *Config) string {
	if from := s.sourceField(c); from.IsValid() {
		return from.String()
	}
	return ""
}

// sourceField is the field of c.SecretFrom that records where the
// setting's secret came from, invalid when there is none.
func (s *Setting) sourceField(c *Config) reflect.Value {
	f, ok := fieldOf(s.Name)
	if !ok {
		return reflect.Value{}
	}
	return reflect.ValueOf(&c.SecretFrom).Elem().FieldByName(f.Name)
}

// Lookup is the setting of name (without the prefix), nil if none.
func Lookup(name string) *Setting {
	for i := range Settings {
		if Settings[i].Name == name {
			return &Settings[i]
		}
	}
	return nil
}

// Settings is every BANKMIRROR_* variable, in the order config, --help and
// the manual list them, which is also the order they are checked in.
var Settings = []Setting{
	{
		Name:    "API_URL",
		Default: bank.DefaultBaseURL,
		Doc:     "the bank's API base URL",
		Manual:  "the bank's base URL. Credentials in it (`https://user:password@host/...`) are never printed or logged: `config`, `ping` and errors show the password, or a user name alone, as `xxxxx`",
		ReadBy:  []string{"ping"},
		check: func(c *Config) error {
			u, err := url.Parse(c.APIURL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("%q is not an http(s) URL", RedactURL(c.APIURL))
			}
			return nil
		},
		show: func(c *Config, _ bool) (string, bool) { return RedactURL(c.APIURL), true },
	},
	{
		Name:          "TOKEN",
		Secret:        true,
		File:          true,
		Credential:    tokenCredential,
		Doc:           "personal access token, needed by the commands that talk to the bank; without it and BANKMIRROR_TOKEN_FILE, the systemd credential $CREDENTIALS_DIRECTORY/token is read. serve reads it again on SIGHUP",
		FileDoc:       "a file holding the personal access token (wins over BANKMIRROR_TOKEN)",
		Manual:        "personal access token, or a file holding it (the file wins); without either, the systemd credential `$CREDENTIALS_DIRECTORY/token`. Surrounding blanks and the trailing newline are trimmed; a token with control characters left (two lines, a tab) is refused at start with one line naming the variable. `serve` reads it again on SIGHUP. One token is a household of one, its person named by `BANKMIRROR_PERSON`; for several people, see `BANKMIRROR_TOKENS_DIR`",
		ManualDefault: "(required for sync, ping, serve, webhook)",
		Example:       "/etc/bankmirror/token",
		ReadBy:        []string{"ping"},
		load:          loadPeople,
		show: func(c *Config, _ bool) (string, bool) {
			return "(not set: the household's tokens, each person's below)", c.Household()
		},
	},
	{
		Name:          "TOKENS_DIR",
		Credential:    personCredentialPrefix + "*",
		Doc:           "a household's tokens: a directory holding one file per person, the file's name (1 to 32 of a-z, 0-9, _ and -) the person's name, its content the person's token, readable by its owner only (no links, no other files). Under systemd, the credentials token.NAME do the same. Not with BANKMIRROR_TOKEN or BANKMIRROR_TOKEN_FILE. serve reads it again on SIGHUP",
		Manual:        "a household's tokens: a directory holding one file per person, the file's name the person's name (1 to 32 of `a-z`, `0-9`, `_` and `-`), its content the person's token (trimmed and checked as `BANKMIRROR_TOKEN_FILE`'s). A file open to group or others (`chmod 600` it), a symbolic link or any other name in the directory is refused at start with one line naming the file. Under systemd, credentials named `token.NAME` do the same (`LoadCredential=token.alex:/etc/bankmirror/tokens/alex`). Setting it (or such credentials) together with `BANKMIRROR_TOKEN` or `BANKMIRROR_TOKEN_FILE` is refused, naming both. `serve` reads the tokens again on SIGHUP; `config` shows where each person's token came from",
		ManualDefault: "(one token: `BANKMIRROR_TOKEN`)",
		Example:       "/etc/bankmirror/tokens",
		Unset:         "one token, BANKMIRROR_TOKEN's",
		ReadBy:        []string{"ping"},
	},
	{
		Name:    "PERSON",
		Default: DefaultPerson,
		Doc:     "the name of the person whose token BANKMIRROR_TOKEN (or its file, or the credential token) is: a household of one",
		Manual:  "the name of the person whose token `BANKMIRROR_TOKEN` (or its file, or the credential `token`) is: a household of one. 1 to 32 of `a-z`, `0-9`, `_` and `-`. Not used with `BANKMIRROR_TOKENS_DIR`, whose files name the people",
		ReadBy:  []string{"ping"},
		check: func(c *Config) error {
			return CheckPersonName(c.Person)
		},
		show: func(c *Config, _ bool) (string, bool) {
			return "(not used: each person's token is named by the person)", c.TokensDir != "" || c.Household()
		},
	},
	{
		Name:          "DB",
		DefaultDoc:    "$STATE_DIRECTORY/bankmirror.db if STATE_DIRECTORY is set, else ./bankmirror.db",
		Doc:           "the mirror, a SQLite file; it and its companion files are mode 0600",
		Manual:        "the mirror (any file name; it and every file beside it are mode 0600 and must belong to the user running the command)",
		ManualDefault: "`$STATE_DIRECTORY/bankmirror.db` if set, else `./bankmirror.db`",
		Example:       "/var/lib/bankmirror/bankmirror.db",
		ReadBy:        []string{"status"},
		load: func(c *Config, environ map[string]string) error {
			if c.DB == "" {
				c.DB = defaultDB(environ)
			}
			return nil
		},
		show: func(c *Config, _ bool) (string, bool) {
			if abs, err := filepath.Abs(c.DB); err == nil && abs != c.DB {
				return c.DB + " (" + abs + ")", true
			}
			return "", false
		},
	},
	{
		Name:    "LOG_LEVEL",
		Default: "info",
		Doc:     "trace, debug, info, warn or error",
		Manual:  "`trace`, `debug`, `info`, `warn`, `error`",
		check: func(c *Config) error {
			if _, err := zerolog.ParseLevel(c.LogLevel); err != nil || c.LogLevel == "" {
				return fmt.Errorf("%q is not one of trace, debug, info, warn, error", c.LogLevel)
			}
			return nil
		},
	},
	{
		Name:          "LOG_FORMAT",
		Doc:           "json (for journald) or console; unset: console on a terminal, else json",
		Manual:        "`json` (for journald) or `console`. A logged duration carries its unit in its key, in milliseconds with a fraction: `duration_ms` (how long a sync or a feed request took), `wait_ms`, `retry_in_ms`, `eta_ms`",
		ManualDefault: "`console` on a terminal, else `json`",
		Example:       "json",
		check: func(c *Config) error {
			switch c.LogFormat {
			case "", "json", "console":
				return nil
			}
			return fmt.Errorf("%q is not json or console", c.LogFormat)
		},
		show: func(c *Config, terminal bool) (string, bool) {
			if c.LogFormat != "" {
				return "", false
			}
			if terminal {
				return "console (auto: standard error is a terminal)", true
			}
			return "json (auto: standard error is not a terminal)", true
		},
	},
	{
		Name:          "REQUESTS_PER_HOUR",
		Default:       "0",
		Doc:           "a cap of our own on requests an hour, below the bank's budget; 0 follows what the bank reports",
		Manual:        "an optional cap of our own below the bank's budget. By default the client follows what the bank reports in `X-RateLimit-Remaining`, and paces itself to 900 an hour only while the bank sends no such header",
		ManualDefault: "`0` (none)",
		ReadBy:        []string{"ping"},
		check: func(c *Config) error {
			if c.RequestsPerHour < 0 {
				return errors.New("must be 0 (no cap of our own) or more")
			}
			return nil
		},
		show: func(c *Config, _ bool) (string, bool) {
			return "0 (no cap of our own: the bank's budget)", c.RequestsPerHour == 0
		},
	},
	{
		Name:    "BUDGET_RESERVE",
		Default: "50",
		Doc:     "requests of the bank's hourly budget that syncs leave for webhook refetches",
		Manual:  "requests of the bank's hourly budget that syncs leave for webhook refetches ([design](design.md#the-banks-request-budget))",
		ReadBy:  []string{"ping"},
		check: func(c *Config) error {
			if c.BudgetReserve < 0 {
				return errors.New("must not be negative")
			}
			return nil
		},
	},
	{
		Name:    "SYNC_OVERLAP",
		Default: "3h",
		Doc:     "an incremental sync lists from the newest known createdAt minus this",
		Manual:  "an incremental sync lists from the newest known `createdAt` minus this",
		check: func(c *Config) error {
			if c.SyncOverlap < 0 {
				return errors.New("must not be negative")
			}
			return nil
		},
	},
	{
		Name:          "ATTACHMENTS_DIR",
		Doc:           "keep receipts: each attachment's file is downloaded into this directory (unset: only their expiring links are kept)",
		Manual:        "keep receipts: each attachment's file is downloaded here right after it is seen ([README: Receipts](../README.md#receipts))",
		ManualDefault: "(off)",
		Example:       "/var/lib/bankmirror/receipts",
		load: func(c *Config, _ map[string]string) error {
			if c.AttachmentsDir == "" {
				return nil
			}
			dir, err := filepath.Abs(c.AttachmentsDir)
			c.AttachmentsDir = dir
			return err
		},
		show: func(c *Config, _ bool) (string, bool) {
			return "(off: receipts keep only their links)", c.AttachmentsDir == ""
		},
	},
	{
		Name:          "ATTACHMENTS_MAX_BYTES",
		Default:       "20971520",
		Doc:           "a receipt's file larger than this many bytes is refused",
		Manual:        "a receipt's file larger than this is refused",
		ManualDefault: "`20971520` (20 MiB)",
		check: func(c *Config) error {
			if c.AttachmentsMaxBytes <= 0 {
				return errors.New("must be a size in bytes above 0")
			}
			return nil
		},
	},
	{
		Name:    "TIMEZONE",
		Default: "Australia/Melbourne",
		Doc:     "the customer's zone (an IANA name) of the mirror's local times, dates and months",
		Manual:  "the customer's zone (an IANA name) of the mirror's local times, dates and months (`created_date`, `created_month`, ...; the binary carries the zone database). Changing it recomputes every row at the next start, in one transaction. Also the days of `export --since/--until`, the zone XLSX shows `*_at` timestamps in, and the zone `status` prints its times in",
		check: func(c *Config) error {
			loc, err := LoadZone(c.Timezone)
			c.Location = loc
			return err
		},
	},
	{
		Name:    "MIGRATION_BACKUP",
		Default: "on",
		Doc:     "on: before migrating the mirror's schema (an upgrade), keep a copy of it as <db>.pre-vN, only the newest; off: no copy",
		Manual:  "`on`: before migrating the mirror's schema (the first start after an upgrade), keep a copy of it as `bankmirror.db.pre-vN`; `off`: no copy ([README: Upgrading](../README.md#upgrading))",
		load: func(c *Config, _ map[string]string) error {
			c.MigrationBackup = strings.ToLower(strings.TrimSpace(c.MigrationBackup))
			return nil
		},
		check: func(c *Config) error {
			if c.MigrationBackup != "on" && c.MigrationBackup != "off" {
				return fmt.Errorf("%q is not on or off", c.MigrationBackup)
			}
			return nil
		},
	},
	{
		Name:    "LISTEN",
		Default: "127.0.0.1:8080",
		Doc:     "address of the webhook endpoint (the public listener)",
		check:   func(c *Config) error { return checkHostPort(c.Listen, "") },
	},
	{
		Name:    "WEBHOOK_PATH",
		Default: "/webhook",
		Doc:     "path of the webhook endpoint",
		check: func(c *Config) error {
			if !strings.HasPrefix(c.WebhookPath, "/") || c.WebhookPath == "/readyz" || c.WebhookPath == "/healthz" {
				return fmt.Errorf("%q must start with / and not be /healthz or /readyz", c.WebhookPath)
			}
			return nil
		},
	},
	{
		Name:    "WEBHOOK_SECRET",
		Secret:  true,
		File:    true,
		Doc:     "secret of a webhook created elsewhere (registered webhooks need none)",
		Manual:  "secret of a webhook created elsewhere (webhooks registered with `bankmirror webhook register` need none)",
		Example: "/etc/bankmirror/webhook-secret",
	},
	{
		Name:    "SYNC_SCHEDULE",
		Default: "@every 30m",
		Doc:     "cron schedule of incremental syncs (robfig/cron syntax)",
		Manual:  "cron schedule of incremental syncs (robfig/cron syntax, e.g. `@every 15m`, `*/10 * * * *`). An idle incremental sync and its heal cost about 4 requests, so the default spends 8 an hour; webhooks carry changes in between",
		check:   func(c *Config) error { return checkSchedule(c.SyncSchedule) },
	},
	{
		Name:    "RECONCILE_SCHEDULE",
		Default: "@daily",
		Doc:     "cron schedule of full reconciliations",
		check:   func(c *Config) error { return checkSchedule(c.ReconcileSchedule) },
	},
	{
		Name:          "RULES_FILE",
		DefaultDoc:    "$CONFIGURATION_DIRECTORY/rules.toml if CONFIGURATION_DIRECTORY is set, else /etc/bankmirror/rules.toml",
		Doc:           "the rules file (TOML): rules that set categories and tags as transactions arrive and write them back to the bank, and the alerts and their channels; a missing default file is no rules. serve reads it again on SIGHUP, keeping the rules in use when the file is bad",
		Manual:        "the rules file (TOML, see [docs/rules.md](rules.md)): rules that set categories and tags as transactions arrive and write them back to the bank, and the alerts and their channels. A missing file at the default path means no rules; a file this variable names must exist. `serve` reads it again on SIGHUP; a bad file keeps the rules in use and says why in one line (`file:line: what`). Against a simulated bank (`BANKMIRROR_API_URL` on loopback, or `BANKMIRROR_SIM_CONTROL_URL` set), `serve` and `demo` read only a file this variable names: the default one's channels would send the simulated bank's alerts to real people",
		ManualDefault: "`$CONFIGURATION_DIRECTORY/rules.toml` if set, else `/etc/bankmirror/rules.toml`",
		Example:       "/etc/bankmirror/rules.toml",
		load: func(c *Config, environ map[string]string) error {
			c.RulesFileSet = c.RulesFile != ""
			if c.RulesFile == "" {
				c.RulesFile = defaultRulesFile(environ)
			}
			return nil
		},
	},
	{
		Name:          "FEEDS_FILE",
		DefaultDoc:    "$CONFIGURATION_DIRECTORY/feeds.toml if CONFIGURATION_DIRECTORY is set, else /etc/bankmirror/feeds.toml",
		Doc:           "the feeds file (TOML): the budgeting apps (Actual Budget, YNAB) the mirror's transactions are fed to; a missing default file is no feeds. serve reads it again on SIGHUP, keeping the feeds in use when the file is bad",
		Manual:        "the feeds file (TOML, see [docs/feeds.md](feeds.md)): the budgeting apps (Actual Budget, YNAB) the mirror's transactions are fed to, and which bank account goes to which account of the app. A missing file at the default path means no feeds; a file this variable names must exist. `serve` reads it again on SIGHUP; a bad file keeps the feeds in use and says why in one line (`file:line: what`). Against a simulated bank (`BANKMIRROR_API_URL` on loopback, or `BANKMIRROR_SIM_CONTROL_URL` set), `serve` and `sync` read only a file this variable names: the default one feeds the household's real budget",
		ManualDefault: "`$CONFIGURATION_DIRECTORY/feeds.toml` if set, else `/etc/bankmirror/feeds.toml`",
		Example:       "/etc/bankmirror/feeds.toml",
		load: func(c *Config, environ map[string]string) error {
			c.FeedsFileSet = c.FeedsFile != ""
			if c.FeedsFile == "" {
				c.FeedsFile = defaultFeedsFile(environ)
			}
			return nil
		},
	},
	{
		Name:    "NODE",
		Default: "node",
		Doc:     "the Node.js (22 or later) that runs Actual Budget's client for an actual feed: a path, or a name looked up on PATH",
	},
	{
		Name:    "NPM",
		Default: "npm",
		Doc:     "the npm that `bankmirror feeds setup` installs Actual Budget's client with: a path, or a name looked up on PATH",
	},
	{
		Name:    "POLL_INTERVAL",
		Default: "5m",
		Doc:     "how often the accounts the bank sends no webhook events for (2Up joint accounts) are polled for new transactions; 0 turns polling off",
		Manual:  "how often the accounts the bank sends no webhook events for (2Up joint accounts) are polled for new transactions: each poll lists the transactions since the newest one known, one request when nothing changed. `0` turns polling off; otherwise at least `10s`",
		check: func(c *Config) error {
			if c.PollInterval != 0 && c.PollInterval < minPollInterval {
				return fmt.Errorf("must be 0 (off) or at least %s", minPollInterval)
			}
			return nil
		},
		show: func(c *Config, _ bool) (string, bool) {
			return "0s (off: joint accounts are not polled)", c.PollInterval == 0
		},
	},
	{
		Name:    "WORKER_CONCURRENCY",
		Default: "4",
		Doc:     "transactions the event worker fetches at once",
		Manual:  "transactions the event worker fetches at once when it GETs them one by one",
		check: func(c *Config) error {
			if c.WorkerConcurrency < 1 {
				return errors.New("must be at least 1")
			}
			return nil
		},
	},
	{
		Name:    "EVENT_MAX_ATTEMPTS",
		Default: "12",
		Doc:     "attempts before a webhook event is left in the inbox as stuck",
		Manual:  "attempts before an event is left in the inbox with its `last_error` (shown by `status`; `bankmirror events retry` requeues it)",
		ReadBy:  []string{"status"},
		check: func(c *Config) error {
			if c.EventMaxAttempts < 1 {
				return errors.New("must be at least 1")
			}
			return nil
		},
	},
	{
		Name:          "INBOX_RETENTION",
		Default:       "2160h",
		Doc:           "processed webhook events and delivery log entries older than this are pruned after each full reconciliation; 0 keeps them",
		Manual:        "processed webhook events and delivery log entries older than this are pruned after each full reconciliation; `0` keeps them",
		ManualDefault: "`2160h` (90 days)",
		check: func(c *Config) error {
			if c.InboxRetention < 0 {
				return errors.New("must not be negative (0 keeps everything)")
			}
			return nil
		},
		show: func(c *Config, _ bool) (string, bool) {
			return c.InboxRetention.String() + " (kept forever)", c.InboxRetention == 0
		},
	},
	{
		Name:    "ADMIN_LISTEN",
		Default: "127.0.0.1:8082",
		Doc:     "address of the admin listener (/healthz, /readyz, /metrics); off, or set empty, disables it. Keep it on loopback",
		Manual:  "address of the admin listener: `/healthz`, `/readyz`, `/metrics` and the spreadsheet feed; `off` (or set empty) disables it. Keep it on loopback: `/metrics` and `/readyz` need no credentials. Bound beyond loopback (`0.0.0.0:8082`, the machine's address), the daemon logs a warning at start naming the address, and `status` says so while it runs",
		load: func(c *Config, environ map[string]string) error {
			if v, set := environ[Prefix+"ADMIN_LISTEN"]; (set && strings.TrimSpace(v) == "") || strings.EqualFold(c.AdminListen, AdminOff) {
				c.AdminListen = AdminOff
			}
			return nil
		},
		check: func(c *Config) error {
			if c.AdminListen == AdminOff {
				return nil
			}
			return checkHostPort(c.AdminListen, " or off")
		},
		show: func(c *Config, _ bool) (string, bool) { return "(off)", c.AdminListen == AdminOff },
	},
	{
		Name:    "STALE_AFTER",
		Default: "2h",
		Doc:     "a last successful sync older than this fails /readyz and makes status DEGRADED; twice as old, FAILING",
		Manual:  "a last successful sync older than this fails `/readyz` and makes `status` DEGRADED; twice as old, FAILING",
		ReadBy:  []string{"status"},
		check: func(c *Config) error {
			if c.StaleAfter <= 0 {
				return errors.New("must be positive")
			}
			return nil
		},
	},
	{
		Name:          "EXPORT_TOKEN",
		Secret:        true,
		File:          true,
		Doc:           "token of the spreadsheet feed /export/VIEW.csv on the admin listener: at least 16 characters, not an obviously weak one (openssl rand -hex 32 makes a good one); unset: no feed",
		Manual:        "token of the spreadsheet feed `/export/VIEW.csv` on the admin listener (`openssl rand -hex 32`); required on every request. An obviously weak token is refused at start with one line naming the variable: shorter than 16 characters (bytes), fewer than 6 different characters (`aaaaaaaaaaaaaaaa`, `abab...`), or a shorter piece repeated (`abcdefabcdefabcd`). See [spreadsheets.md](spreadsheets.md)",
		ManualDefault: "(feed off)",
		Unset:         "the spreadsheet feed is off",
		Example:       "/etc/bankmirror/export-token",
		check:         func(c *Config) error { return checkStrongToken(c.ExportToken) },
	},
	{
		Name:          "TRUSTED_PROXIES",
		Doc:           "reverse proxies (IPs or CIDRs, comma-separated) whose X-Forwarded-For names the spreadsheet feed's client for its throttle; unset: the header is ignored",
		Manual:        "reverse proxies (IP addresses or CIDR prefixes, comma-separated, e.g. `127.0.0.1,10.0.0.0/8`) in front of the admin listener whose `X-Forwarded-For` names the spreadsheet feed's client, for its throttle; the client is the nearest address in the header that is not one of them. Unset, the header is ignored and the client is the connection's peer (so no local process can name itself another address). See [spreadsheets.md](spreadsheets.md)",
		ManualDefault: "(none)",
		Unset:         "X-Forwarded-For is ignored",
		Example:       "127.0.0.1",
		check: func(c *Config) error {
			proxies, err := export.ParseTrustedProxies(c.TrustedProxies)
			c.Proxies = proxies
			return err
		},
	},
	{
		Name:          "UI_TOKEN",
		Secret:        true,
		File:          true,
		Doc:           "token of the dashboard (bankmirror ui; serve with BANKMIRROR_UI_LISTEN, which then requires it): at least 16 characters, not an obviously weak one; unset: ui makes a random one at each start",
		Manual:        "token of the dashboard ([dashboard.md](dashboard.md)); checked as `BANKMIRROR_EXPORT_TOKEN` is (an obviously weak one is refused at start); required by `serve` when `BANKMIRROR_UI_LISTEN` is set",
		ManualDefault: "(random at each start of `ui`)",
		Unset:         "ui makes a random one at each start",
		Example:       "/etc/bankmirror/ui-token",
		check:         func(c *Config) error { return checkStrongToken(c.UIToken) },
	},
	{
		Name:          "UI_LISTEN",
		Doc:           "address of the dashboard: the default of ui --listen (else " + DefaultUIListen + "); set, serve serves the dashboard there too (unset: serve does not)",
		Manual:        "address of the dashboard: the default of `ui --listen` (else `" + DefaultUIListen + "`); when set, `serve` serves the dashboard there too, reading its own mirror, and refuses to start without `BANKMIRROR_UI_TOKEN`",
		ManualDefault: "(off for `serve`)",
		Example:       DefaultUIListen,
		check: func(c *Config) error {
			if c.UIListen == "" {
				return nil
			}
			return checkHostPort(c.UIListen, "")
		},
		show: func(c *Config, _ bool) (string, bool) {
			return "(off: serve has no dashboard; ui defaults to " + DefaultUIListen + ")", c.UIListen == ""
		},
	},
}

// minPollInterval is the shortest poll interval but 0 (off): a poll costs a
// request of the token's hourly budget.
const minPollInterval = 10 * time.Second

// loadPeople reads the tokens (People): a household of one sets
// Config.Token, as a single token always did; a household of several
// leaves it empty, recording where the people came from.
func loadPeople(c *Config, environ map[string]string) error {
	c.Token, c.TokenFile, c.SecretFrom.Token = "", "", ""
	people, err := People(environ)
	if err != nil {
		return err
	}
	switch len(people) {
	case 0:
	case 1:
		c.Token, c.SecretFrom.Token = people[0].Token, people[0].Source
	default:
		c.SecretFrom.Token = fmt.Sprintf("the tokens of %d people", len(people))
	}
	return nil
}

// Household says whether the configuration names several people's tokens
// (People lists them), leaving Token empty.
func (c *Config) Household() bool { return c.Token == "" && c.SecretFrom.Token != "" }

func checkHostPort(addr, orElse string) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("%q is not host:port%s", addr, orElse)
	}
	return nil
}

func checkSchedule(spec string) error {
	if _, err := cron.ParseStandard(spec); err != nil {
		return fmt.Errorf("%q is not a cron schedule: %w", spec, err)
	}
	return nil
}

func checkStrongToken(token string) error {
	if token == "" {
		return nil
	}
	return export.CheckToken(token)
}

// RedactURL is raw with the credentials of its userinfo hidden, for
// printing and logging: a password becomes xxxxx (url.URL.Redacted), and so
// does a user name standing alone (a token passed as the user). A value that
// does not parse but holds an @ is not shown at all.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if strings.Contains(raw, "@") {
			return "(not shown: it may hold a password)"
		}
		return raw
	}
	if u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		return u.Redacted()
	}
	u.User = url.User("xxxxx")
	return u.String()
}

// LoadZone loads an IANA zone by name. "" and "Local" (the host's zone,
// which the mirror cannot record) are refused.
func LoadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("%q is not an IANA time zone name such as Australia/Melbourne", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%q is not an IANA time zone name such as Australia/Melbourne", name)
	}
	return loc, nil
}
