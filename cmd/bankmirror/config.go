package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/caarlos0/env/v11"
	"github.com/robfig/cron/v3"
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/export"
	"github.com/bankmirror/bankmirror/internal/store"
)

// envPrefix prefixes every configuration variable.
const envPrefix = "BANKMIRROR_"

// Config is bankmirror's whole configuration, read from BANKMIRROR_*
// variables. Secrets can come from files (systemd credentials) through the
// _FILE variants.
type Config struct {
	APIURL    string `env:"API_URL"`
	Token     string `env:"TOKEN" secret:"true"`
	TokenFile string `env:"TOKEN_FILE,file" secret:"true"`
	DB        string `env:"DB"`
	LogLevel  string `env:"LOG_LEVEL" envDefault:"info"`
	LogFormat string `env:"LOG_FORMAT"`
	// RequestsPerHour is an optional cap of our own below the bank's
	// budget; 0 (the default) follows what the bank reports.
	RequestsPerHour int `env:"REQUESTS_PER_HOUR" envDefault:"0"`
	// BudgetReserve is how many of the bank's requests syncs leave for
	// webhook refetches.
	BudgetReserve int           `env:"BUDGET_RESERVE" envDefault:"50"`
	SyncOverlap   time.Duration `env:"SYNC_OVERLAP" envDefault:"3h"`
	// AttachmentsDir, if set, is where receipts' files are kept; empty
	// keeps only their (expiring) links.
	AttachmentsDir string `env:"ATTACHMENTS_DIR"`
	// AttachmentsMaxBytes is the size limit of one receipt's file.
	AttachmentsMaxBytes int64 `env:"ATTACHMENTS_MAX_BYTES" envDefault:"20971520"`
	// Timezone is the customer's zone (an IANA name): the mirror's local
	// dates and months (the *_local, *_date and *_month columns) are in it.
	Timezone string `env:"TIMEZONE" envDefault:"Australia/Melbourne"`
	// MigrationBackup is on (a copy of the mirror, <db>.pre-vN, is kept
	// before its schema is migrated) or off.
	MigrationBackup string `env:"MIGRATION_BACKUP" envDefault:"on"`

	// serve
	Listen            string `env:"LISTEN" envDefault:"127.0.0.1:8080"`
	WebhookPath       string `env:"WEBHOOK_PATH" envDefault:"/webhook"`
	WebhookSecret     string `env:"WEBHOOK_SECRET" secret:"true"`
	WebhookSecretFile string `env:"WEBHOOK_SECRET_FILE,file" secret:"true"`
	SyncSchedule      string `env:"SYNC_SCHEDULE" envDefault:"@every 30m"`
	ReconcileSchedule string `env:"RECONCILE_SCHEDULE" envDefault:"@daily"`
	WorkerConcurrency int    `env:"WORKER_CONCURRENCY" envDefault:"4"`
	EventMaxAttempts  int    `env:"EVENT_MAX_ATTEMPTS" envDefault:"12"`
	// InboxRetention is how long processed webhook events and delivery log
	// entries are kept (pruned after each full reconciliation); 0 keeps them.
	InboxRetention time.Duration `env:"INBOX_RETENTION" envDefault:"2160h"`
	// AdminListen is the address of /healthz, /readyz and /metrics; "off"
	// (or the variable set empty) disables the admin listener.
	AdminListen string `env:"ADMIN_LISTEN" envDefault:"127.0.0.1:8082"`
	// StaleAfter is the age of the last successful sync past which the
	// mirror counts as stale (/readyz fails, status says DEGRADED; FAILING
	// past twice that).
	StaleAfter time.Duration `env:"STALE_AFTER" envDefault:"2h"`

	// export feed: off unless a token is set
	ExportToken     string `env:"EXPORT_TOKEN" secret:"true"`
	ExportTokenFile string `env:"EXPORT_TOKEN_FILE,file" secret:"true"`
	// TrustedProxies are the reverse proxies (IPs or CIDRs, comma-separated)
	// whose X-Forwarded-For names the feed's client; none by default.
	TrustedProxies string `env:"TRUSTED_PROXIES"`

	// dashboard (bankmirror ui; serve when UI_LISTEN is set)
	UIToken     string `env:"UI_TOKEN" secret:"true"`
	UITokenFile string `env:"UI_TOKEN_FILE,file" secret:"true"`
	UIListen    string `env:"UI_LISTEN"`

	// secretFrom names, for each secret set (by its variable without the
	// _FILE), where its value came from; config prints it.
	secretFrom secretSources
}

// secretSources is where each secret of a Config came from: "" when it is
// not set, else a description naming the variable, file or credential
// (never the value).
type secretSources struct {
	Token, WebhookSecret, ExportToken, UIToken string
}

// adminOff is Config.AdminListen when the admin listener is disabled.
const adminOff = "off"

// configError is a configuration problem, reported as one line naming the
// variable.
type configError struct {
	Var string
	Err error
}

func (e *configError) Error() string { return fmt.Sprintf("invalid %s: %v", e.Var, e.Err) }
func (e *configError) Unwrap() error { return e.Err }

// commandNeeds lists, for the commands that must run whatever an unrelated
// setting says (a health check, the configuration's own dump), the
// variables they read, without the BANKMIRROR_ prefix and _FILE. A bad
// variable not listed is set aside: its default is taken, and the command
// reports it. Commands not listed stop at any bad variable.
var commandNeeds = map[string][]string{
	"status":  {"DB", "STALE_AFTER", "EVENT_MAX_ATTEMPTS"},
	"ping":    {"API_URL", "TOKEN", "REQUESTS_PER_HOUR", "BUDGET_RESERVE"},
	"config":  {},
	"version": {},
}

// loadConfigFor is loadConfig for command cmd: for the commands of
// commandNeeds, each bad variable the command does not read is set aside
// (the configuration is read again without it) and returned in setAside.
// Any other bad variable is err, as for loadConfig.
func loadConfigFor(cmd string, environ map[string]string) (c Config, setAside []*configError, err error) {
	needs, tolerant := commandNeeds[cmd]
	for {
		c, err = loadConfig(environ)
		var ce *configError
		if err == nil || !tolerant || !errors.As(err, &ce) || slices.Contains(needs, settingOf(ce.Var)) {
			return c, setAside, err
		}
		without := maps.Clone(environ)
		for _, k := range sourcesOf(settingOf(ce.Var)) {
			delete(without, k)
		}
		if len(without) == len(environ) { // nothing to set aside
			return c, setAside, err
		}
		environ = without
		setAside = append(setAside, ce)
	}
}

// settingOf is the setting a configError's variable belongs to:
// "EXPORT_TOKEN" for BANKMIRROR_EXPORT_TOKEN and its _FILE, "TOKEN" for the
// systemd credential too.
func settingOf(v string) string {
	if v == "$CREDENTIALS_DIRECTORY/"+tokenCredential {
		return "TOKEN"
	}
	// Every variable named ..._FILE is the file variant of another.
	return strings.TrimSuffix(strings.TrimPrefix(v, envPrefix), "_FILE")
}

// sourcesOf is every environment variable a setting can come from.
func sourcesOf(setting string) []string {
	out := []string{envPrefix + setting, envPrefix + setting + "_FILE"}
	if setting == "TOKEN" {
		out = append(out, "CREDENTIALS_DIRECTORY")
	}
	return out
}

// warnSetAside tells on stderr which bad settings cmd runs without; status
// and config report them in their own output.
func warnSetAside(w io.Writer, cmd string, setAside []*configError) {
	if cmd == "status" || cmd == "config" || cmd == "version" {
		return
	}
	for _, ce := range setAside {
		fmt.Fprintf(w, "bankmirror: warning: %v (%s does not use it and runs without it; commands that use it refuse to start)\n", ce, cmd)
	}
}

// loadConfig reads the configuration from environ (os.Environ() in main, a
// map in tests) and fills in derived defaults.
func loadConfig(environ map[string]string) (Config, error) {
	var c Config
	opts := env.Options{Environment: environ, Prefix: envPrefix}
	if err := env.ParseWithOptions(&c, opts); err != nil {
		return c, friendlyEnvError(err)
	}
	if c.APIURL == "" {
		c.APIURL = bank.DefaultBaseURL
	}
	if c.DB == "" {
		c.DB = "bankmirror.db"
		if dir := environ["STATE_DIRECTORY"]; dir != "" {
			// systemd may pass several directories separated by colons.
			c.DB = filepath.Join(strings.Split(dir, ":")[0], "bankmirror.db")
		}
	}
	// The env library has checked that a token file can be read; the
	// token is read the way a reload (SIGHUP) reads it again.
	var err error
	if c.Token, err = loadToken(environ); err != nil {
		return c, err
	}
	c.TokenFile = ""
	if c.Token != "" {
		c.secretFrom.Token = tokenSource(environ)
	}
	if v, set := environ[envPrefix+"ADMIN_LISTEN"]; (set && strings.TrimSpace(v) == "") || strings.EqualFold(c.AdminListen, adminOff) {
		c.AdminListen = adminOff
	}
	c.MigrationBackup = strings.ToLower(strings.TrimSpace(c.MigrationBackup))
	c.secretFrom.WebhookSecret, _ = fileSecret(environ, "WEBHOOK_SECRET", &c.WebhookSecret, &c.WebhookSecretFile)
	if c.AttachmentsDir != "" {
		dir, err := filepath.Abs(c.AttachmentsDir)
		if err != nil {
			return c, &configError{envPrefix + "ATTACHMENTS_DIR", err}
		}
		c.AttachmentsDir = dir
	}
	var exportVar, uiVar string
	c.secretFrom.ExportToken, exportVar = fileSecret(environ, "EXPORT_TOKEN", &c.ExportToken, &c.ExportTokenFile)
	c.secretFrom.UIToken, uiVar = fileSecret(environ, "UI_TOKEN", &c.UIToken, &c.UITokenFile)
	if err := c.validate(); err != nil {
		return c, err
	}
	for _, t := range []struct{ name, token string }{{exportVar, c.ExportToken}, {uiVar, c.UIToken}} {
		if t.token == "" {
			continue
		}
		if err := export.CheckToken(t.token); err != nil {
			return c, &configError{t.name, err}
		}
	}
	return c, nil
}

func (c *Config) validate() error {
	u, err := url.Parse(c.APIURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &configError{envPrefix + "API_URL", fmt.Errorf("%q is not an http(s) URL", redactURL(c.APIURL))}
	}
	if _, err := zerolog.ParseLevel(c.LogLevel); err != nil || c.LogLevel == "" {
		return &configError{envPrefix + "LOG_LEVEL", fmt.Errorf("%q is not one of trace, debug, info, warn, error", c.LogLevel)}
	}
	switch c.LogFormat {
	case "", "json", "console":
	default:
		return &configError{envPrefix + "LOG_FORMAT", fmt.Errorf("%q is not json or console", c.LogFormat)}
	}
	if c.RequestsPerHour < 0 {
		return &configError{envPrefix + "REQUESTS_PER_HOUR", errors.New("must be 0 (no cap of our own) or more")}
	}
	if c.BudgetReserve < 0 {
		return &configError{envPrefix + "BUDGET_RESERVE", errors.New("must not be negative")}
	}
	if c.SyncOverlap < 0 {
		return &configError{envPrefix + "SYNC_OVERLAP", errors.New("must not be negative")}
	}
	if c.AttachmentsMaxBytes <= 0 {
		return &configError{envPrefix + "ATTACHMENTS_MAX_BYTES", errors.New("must be a size in bytes above 0")}
	}
	if _, err := loadZone(c.Timezone); err != nil {
		return &configError{envPrefix + "TIMEZONE", err}
	}
	if c.MigrationBackup != "on" && c.MigrationBackup != "off" {
		return &configError{envPrefix + "MIGRATION_BACKUP", fmt.Errorf("%q is not on or off", c.MigrationBackup)}
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return &configError{envPrefix + "LISTEN", fmt.Errorf("%q is not host:port", c.Listen)}
	}
	if !strings.HasPrefix(c.WebhookPath, "/") || c.WebhookPath == "/readyz" || c.WebhookPath == "/healthz" {
		return &configError{envPrefix + "WEBHOOK_PATH", fmt.Errorf("%q must start with / and not be /healthz or /readyz", c.WebhookPath)}
	}
	for _, s := range []struct{ name, spec string }{{"SYNC_SCHEDULE", c.SyncSchedule}, {"RECONCILE_SCHEDULE", c.ReconcileSchedule}} {
		if _, err := cron.ParseStandard(s.spec); err != nil {
			return &configError{envPrefix + s.name, fmt.Errorf("%q is not a cron schedule: %w", s.spec, err)}
		}
	}
	if c.WorkerConcurrency < 1 {
		return &configError{envPrefix + "WORKER_CONCURRENCY", errors.New("must be at least 1")}
	}
	if c.InboxRetention < 0 {
		return &configError{envPrefix + "INBOX_RETENTION", errors.New("must not be negative (0 keeps everything)")}
	}
	if c.AdminListen != adminOff {
		if _, _, err := net.SplitHostPort(c.AdminListen); err != nil {
			return &configError{envPrefix + "ADMIN_LISTEN", fmt.Errorf("%q is not host:port or off", c.AdminListen)}
		}
	}
	if _, err := export.ParseTrustedProxies(c.TrustedProxies); err != nil {
		return &configError{envPrefix + "TRUSTED_PROXIES", err}
	}
	if c.UIListen != "" {
		if _, _, err := net.SplitHostPort(c.UIListen); err != nil {
			return &configError{envPrefix + "UI_LISTEN", fmt.Errorf("%q is not host:port", c.UIListen)}
		}
	}
	if c.StaleAfter <= 0 {
		return &configError{envPrefix + "STALE_AFTER", errors.New("must be positive")}
	}
	if c.EventMaxAttempts < 1 {
		return &configError{envPrefix + "EVENT_MAX_ATTEMPTS", errors.New("must be at least 1")}
	}
	return nil
}

// redactURL is raw with the credentials of its userinfo hidden, for
// printing and logging: a password becomes xxxxx (url.URL.Redacted), and so
// does a user name standing alone (a token passed as the user). A value that
// does not parse but holds an @ is not shown at all.
func redactURL(raw string) string {
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

// loadZone loads an IANA zone by name. "" and "Local" (the host's zone,
// which the mirror cannot record) are refused.
func loadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("%q is not an IANA time zone name such as Australia/Melbourne", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%q is not an IANA time zone name such as Australia/Melbourne", name)
	}
	return loc, nil
}

// storeOptions are the store options the configuration sets; the store
// logs to log.
func (c *Config) storeOptions(log zerolog.Logger) []store.Option {
	opts := []store.Option{store.WithMigrationBackup(c.MigrationBackup != "off"), store.WithLogger(log)}
	if loc, err := loadZone(c.Timezone); err == nil {
		opts = append(opts, store.WithTimeZone(loc))
	} // else not validated: the store's default zone
	return opts
}

// openMirrorError is the error of opening the mirror at path; when the copy
// kept before a migration failed, it says what to do.
func openMirrorError(path string, err error) error {
	if errors.Is(err, store.ErrMigrationBackup) {
		return fmt.Errorf("open mirror %s: %w (the mirror is unchanged and not migrated: fix this, e.g. free space beside it, or set %sMIGRATION_BACKUP=off to migrate without a copy)",
			path, err, envPrefix)
	}
	return fmt.Errorf("open mirror %s: %w", path, err)
}

// tokenCredential is the name of the token among systemd's credentials
// (LoadCredential=token:...), read when no variable names a token.
const tokenCredential = "token"

// loadToken reads the token from where the configuration says: the file
// named by BANKMIRROR_TOKEN_FILE, else BANKMIRROR_TOKEN, else the systemd
// credential $CREDENTIALS_DIRECTORY/token. It is read at start and again on
// SIGHUP. Surrounding whitespace (a trailing newline) is trimmed; a token
// with control characters left is refused with one line naming its source,
// never showing it.
func loadToken(environ map[string]string) (string, error) {
	if path := environ[envPrefix+"TOKEN_FILE"]; path != "" {
		name := envPrefix + "TOKEN_FILE"
		b, err := os.ReadFile(path)
		if err != nil {
			return "", &configError{name, fmt.Errorf("cannot read file %q: %w", path, errors.Unwrap(err))}
		}
		if strings.TrimSpace(string(b)) == "" {
			return "", &configError{name, errors.New("the file holds no token")}
		}
		return checkToken(name, string(b))
	}
	if v := environ[envPrefix+"TOKEN"]; v != "" {
		return checkToken(envPrefix+"TOKEN", v)
	}
	if dir := environ["CREDENTIALS_DIRECTORY"]; dir != "" {
		path := filepath.Join(dir, tokenCredential)
		if b, err := os.ReadFile(path); err == nil {
			return checkToken("$CREDENTIALS_DIRECTORY/"+tokenCredential, string(b))
		}
	}
	return "", nil
}

// tokenSource says where loadToken took a token it found from: the same
// order, the file, the variable, then the systemd credential.
func tokenSource(environ map[string]string) string {
	switch {
	case environ[envPrefix+"TOKEN_FILE"] != "":
		return varSource(environ, envPrefix+"TOKEN_FILE")
	case environ[envPrefix+"TOKEN"] != "":
		return varSource(environ, envPrefix+"TOKEN")
	}
	return "the systemd credential " + filepath.Join(environ["CREDENTIALS_DIRECTORY"], tokenCredential)
}

// varSource describes variable name as a secret's source: a _FILE
// variable with the file it names, any other by its name alone, since its
// value is the secret.
// fileSecret settles a secret that has a _FILE variant (the env library
// has read the file into *file): the file wins, the value is trimmed, and
// *file is cleared. It returns where a set secret came from (varSource;
// "" when unset) and the variable that gave it, for errors.
func fileSecret(environ map[string]string, setting string, value, file *string) (source, name string) {
	name = envPrefix + setting
	if *file != "" {
		*value = *file
		name += "_FILE"
	}
	*value = strings.TrimSpace(*value)
	*file = ""
	if *value != "" {
		source = varSource(environ, name)
	}
	return source, name
}

func varSource(environ map[string]string, name string) string {
	if strings.HasSuffix(name, "_FILE") {
		return name + "=" + environ[name]
	}
	return name
}

// checkToken trims v and refuses control characters (a line break inside,
// a tab, an escape): such a token is never what the bank issued, and would
// be retried against the bank for nothing.
func checkToken(name, v string) (string, error) {
	v = strings.TrimSpace(v)
	if strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return "", &configError{name, errors.New("the token contains control characters (a line break, tab or other invisible character); it must be one line")}
	}
	return v, nil
}

// requireToken is checked by the commands that talk to the bank.
func (c *Config) requireToken() error {
	if c.Token == "" {
		return &configError{envPrefix + "TOKEN", errors.New("not set: set BANKMIRROR_TOKEN or BANKMIRROR_TOKEN_FILE to your personal access token")}
	}
	return nil
}

// friendlyEnvError turns the env library's errors into one line naming the
// variable. Values are never echoed, since some are secrets.
func friendlyEnvError(err error) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) || len(agg.Errors) == 0 {
		return fmt.Errorf("configuration: %w", err)
	}
	first := agg.Errors[0]
	var pe env.ParseError
	var fe env.LoadFileContentError
	switch {
	case errors.As(first, &pe):
		return &configError{varOfField(pe.Name), fmt.Errorf("not a valid %s", pe.Type)}
	case errors.As(first, &fe):
		return &configError{fe.Key, fmt.Errorf("cannot read file %q: %w", fe.Filename, errors.Unwrap(fe.Err))}
	}
	return fmt.Errorf("configuration: %w", first)
}

// varOfField maps a Config field name to its environment variable.
func varOfField(name string) string {
	f, ok := reflect.TypeFor[Config]().FieldByName(name)
	if !ok {
		return name
	}
	key, _, _ := strings.Cut(f.Tag.Get("env"), ",")
	return envPrefix + key
}
