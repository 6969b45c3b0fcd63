// Package config owns bankmirror's configuration: the BANKMIRROR_*
// environment variables, each described once in Settings (settings.go) with
// its documentation, default, secret flag, _FILE variant, systemd credential,
// check and the commands that read it. Loading, the config command's
// listing, the --help and manual entries, docs/configuration.md's table and
// the example environment file are all made from that table.
package config

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// Prefix prefixes every configuration variable.
const Prefix = "BANKMIRROR_"

// AdminOff is Config.AdminListen when the admin listener is disabled.
const AdminOff = "off"

// DefaultUIListen is where `bankmirror ui` listens without --listen or
// BANKMIRROR_UI_LISTEN.
const DefaultUIListen = "127.0.0.1:8083"

// Config is bankmirror's whole configuration, read from BANKMIRROR_*
// variables by Load. Each field's variable is its env tag; what it means,
// its default and its check are its entry in Settings. Secrets can come from
// files (systemd credentials) through the _FILE variants.
type Config struct {
	APIURL    string `env:"API_URL"`
	Token     string `env:"TOKEN"`
	TokenFile string `env:"TOKEN_FILE,file"`
	// TokensDir is the household's directory of tokens, one file per
	// person (People reads it).
	TokensDir string `env:"TOKENS_DIR"`
	// Person names the person of a single token (a household of one).
	Person    string `env:"PERSON"`
	DB        string `env:"DB"`
	LogLevel  string `env:"LOG_LEVEL"`
	LogFormat string `env:"LOG_FORMAT"`
	// RequestsPerHour is an optional cap of our own below the bank's
	// budget; 0 (the default) follows what the bank reports.
	RequestsPerHour int `env:"REQUESTS_PER_HOUR"`
	// BudgetReserve is how many of the bank's requests syncs leave for
	// webhook refetches.
	BudgetReserve int           `env:"BUDGET_RESERVE"`
	SyncOverlap   time.Duration `env:"SYNC_OVERLAP"`
	// AttachmentsDir, if set, is where receipts' files are kept; empty
	// keeps only their (expiring) links.
	AttachmentsDir string `env:"ATTACHMENTS_DIR"`
	// AttachmentsMaxBytes is the size limit of one receipt's file.
	AttachmentsMaxBytes int64 `env:"ATTACHMENTS_MAX_BYTES"`
	// Timezone is the customer's zone (an IANA name): the mirror's local
	// dates and months (the *_local, *_date and *_month columns) are in it.
	// Location is that zone, loaded once by Load.
	Timezone string         `env:"TIMEZONE"`
	Location *time.Location `env:"-"`
	// MigrationBackup is on (a copy of the mirror, <db>.pre-vN, is kept
	// before its schema is migrated) or off.
	MigrationBackup string `env:"MIGRATION_BACKUP"`

	// serve
	Listen            string `env:"LISTEN"`
	WebhookPath       string `env:"WEBHOOK_PATH"`
	WebhookSecret     string `env:"WEBHOOK_SECRET"`
	WebhookSecretFile string `env:"WEBHOOK_SECRET_FILE,file"`
	SyncSchedule      string `env:"SYNC_SCHEDULE"`
	ReconcileSchedule string `env:"RECONCILE_SCHEDULE"`
	// RulesFile is the rules file (rules and alerts, TOML); RulesFileSet
	// says the variable named it (a default that is missing is no rules).
	RulesFile    string `env:"RULES_FILE"`
	RulesFileSet bool   `env:"-"`
	// FeedsFile is the feeds file (the budgeting apps fed, TOML);
	// FeedsFileSet says the variable named it (a default that is missing
	// is no feeds).
	FeedsFile    string `env:"FEEDS_FILE"`
	FeedsFileSet bool   `env:"-"`
	// Node and NPM are the programs that run and install Actual's client.
	Node string `env:"NODE"`
	NPM  string `env:"NPM"`
	// PollInterval is how often accounts the bank sends no webhooks for
	// (joint accounts) are polled; 0 turns polling off.
	PollInterval      time.Duration `env:"POLL_INTERVAL"`
	WorkerConcurrency int           `env:"WORKER_CONCURRENCY"`
	EventMaxAttempts  int           `env:"EVENT_MAX_ATTEMPTS"`
	// InboxRetention is how long processed webhook events and delivery log
	// entries are kept (pruned after each full reconciliation); 0 keeps them.
	InboxRetention time.Duration `env:"INBOX_RETENTION"`
	// AdminListen is the address of /healthz, /readyz and /metrics; "off"
	// (or the variable set empty) disables the admin listener.
	AdminListen string `env:"ADMIN_LISTEN"`
	// StaleAfter is the age of the last successful sync past which the
	// mirror counts as stale (/readyz fails, status says DEGRADED; FAILING
	// past twice that).
	StaleAfter time.Duration `env:"STALE_AFTER"`

	// export feed: off unless a token is set
	ExportToken     string `env:"EXPORT_TOKEN"`
	ExportTokenFile string `env:"EXPORT_TOKEN_FILE,file"`
	// TrustedProxies are the reverse proxies (IPs or CIDRs, comma-separated)
	// whose X-Forwarded-For names the feed's client; none by default.
	// Proxies are those, parsed once by Load.
	TrustedProxies string         `env:"TRUSTED_PROXIES"`
	Proxies        []netip.Prefix `env:"-"`

	// dashboard (bankmirror ui; serve when UI_LISTEN is set)
	UIToken     string `env:"UI_TOKEN"`
	UITokenFile string `env:"UI_TOKEN_FILE,file"`
	UIListen    string `env:"UI_LISTEN"`

	// SecretFrom names, for each secret set, where its value came from;
	// the config command prints it.
	SecretFrom SecretSources `env:"-"`
}

// SecretSources is where each secret of a Config came from: "" when it is
// not set, else a description naming the variable, file or credential
// (never the value).
type SecretSources struct {
	Token, WebhookSecret, ExportToken, UIToken string
}

// Error is a configuration problem, reported as one line naming the
// variable.
type Error struct {
	Var string
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("invalid %s: %v", e.Var, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Load reads the configuration from environ (the process's environment as
// a map; nil is empty), fills in the defaults of Settings and derived ones,
// and checks every setting in the table's order. The first problem is
// returned as an *Error naming its variable; values are never echoed when
// they may be secrets.
func Load(environ map[string]string) (Config, error) {
	var c Config
	withDefaults := maps.Clone(environ)
	if withDefaults == nil {
		withDefaults = map[string]string{}
	}
	for _, s := range Settings {
		if s.Default != "" && withDefaults[s.Var()] == "" {
			withDefaults[s.Var()] = s.Default
		}
	}
	opts := env.Options{Environment: withDefaults, Prefix: Prefix}
	if err := env.ParseWithOptions(&c, opts); err != nil {
		return c, friendlyEnvError(err)
	}
	e := environ
	if e == nil {
		e = map[string]string{}
	}
	for _, s := range Settings {
		switch {
		case s.load != nil:
			if err := s.load(&c, e); err != nil {
				return c, s.wrap(err)
			}
		case s.Secret && s.File:
			s.settleSecret(&c, e)
		}
	}
	for _, s := range Settings {
		if s.check == nil {
			continue
		}
		if err := s.check(&c); err != nil {
			return c, s.wrapFrom(&c, err)
		}
	}
	return c, nil
}

// wrap makes err an *Error of the setting's variable, unless it names its
// own.
func (s *Setting) wrap(err error) error {
	var ce *Error
	if errors.As(err, &ce) {
		return err
	}
	return &Error{s.Var(), err}
}

// wrapFrom is wrap naming the variable a secret's value came from: its
// _FILE variant when the file gave it.
func (s *Setting) wrapFrom(c *Config, err error) error {
	var ce *Error
	if errors.As(err, &ce) {
		return err
	}
	name := s.Var()
	if s.File && strings.HasPrefix(s.secretSource(c), name+"_FILE=") {
		name += "_FILE"
	}
	return &Error{name, err}
}

// tolerantCommands must run whatever an unrelated setting says (a health
// check, the configuration's own dump); each reads only the settings whose
// ReadBy names it.
var tolerantCommands = []string{"status", "ping", "config", "version"}

// LoadFor is Load for command cmd: for the tolerant commands (status,
// ping, config, version), each bad variable the command does not read (its
// setting's ReadBy does not name cmd) is set aside (the configuration is
// read again without it and its default taken) and returned in setAside.
// Any other bad variable is err, as for Load.
func LoadFor(cmd string, environ map[string]string) (c Config, setAside []*Error, err error) {
	tolerant := slices.Contains(tolerantCommands, cmd)
	for {
		c, err = Load(environ)
		var ce *Error
		if err == nil || !tolerant || !errors.As(err, &ce) {
			return c, setAside, err
		}
		s := Lookup(SettingOf(ce.Var))
		if s == nil || slices.Contains(s.ReadBy, cmd) {
			return c, setAside, err
		}
		without := maps.Clone(environ)
		for _, k := range s.sources() {
			delete(without, k)
		}
		if len(without) == len(environ) { // nothing to set aside
			return c, setAside, err
		}
		environ = without
		setAside = append(setAside, ce)
	}
}

// credentialVar is how an error names systemd credential name.
func credentialVar(name string) string { return "$CREDENTIALS_DIRECTORY/" + name }

// SettingOf is the setting (its name without the prefix) an Error's
// variable belongs to: "EXPORT_TOKEN" for BANKMIRROR_EXPORT_TOKEN and its
// _FILE, "TOKEN" for the systemd credential token, "TOKENS_DIR" for the
// credentials token.NAME.
func SettingOf(v string) string {
	if cred, ok := strings.CutPrefix(v, credentialVar("")); ok {
		for _, s := range Settings {
			if s.Credential != "" && (cred == s.Credential || strings.HasSuffix(s.Credential, "*") && strings.HasPrefix(cred, strings.TrimSuffix(s.Credential, "*"))) {
				return s.Name
			}
		}
	}
	// Every variable named ..._FILE is the file variant of another.
	return strings.TrimSuffix(strings.TrimPrefix(v, Prefix), "_FILE")
}

// sources is every environment variable the setting can come from.
func (s *Setting) sources() []string {
	out := []string{s.Var(), s.Var() + "_FILE"}
	if s.Credential != "" {
		out = append(out, "CREDENTIALS_DIRECTORY")
	}
	return out
}

// fieldOf is the Config field that setting name fills (its env tag).
func fieldOf(name string) (reflect.StructField, bool) {
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("env"), ",")
		if key == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// fieldValue is the field of c that setting name fills, or an invalid
// Value.
func fieldValue(c *Config, name string) reflect.Value {
	f, ok := fieldOf(name)
	if !ok {
		return reflect.Value{}
	}
	return reflect.ValueOf(c).Elem().FieldByIndex(f.Index)
}

// settleSecret settles a secret that has a _FILE variant (the env library
// has read the file into the variant's field): the file wins, the value is
// trimmed, and the variant's field is cleared. Where a set secret came
// from (VarSource) is recorded in Config.SecretFrom.
func (s *Setting) settleSecret(c *Config, environ map[string]string) {
	value, file := fieldValue(c, s.Name), fieldValue(c, s.Name+"_FILE")
	source := s.Var()
	if file.String() != "" {
		value.SetString(file.String())
		source += "_FILE"
	}
	value.SetString(strings.TrimSpace(value.String()))
	file.SetString("")
	if from := s.sourceField(c); from.IsValid() {
		from.SetString("")
		if value.String() != "" {
			from.SetString(VarSource(environ, source))
		}
	}
}

// VarSource describes variable name as a secret's source: a _FILE
// variable with the file it names, any other by its name alone, since its
// value is the secret.
func VarSource(environ map[string]string, name string) string {
	if strings.HasSuffix(name, "_FILE") {
		return name + "=" + environ[name]
	}
	return name
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
		return &Error{varOfField(pe.Name), fmt.Errorf("not a valid %s", pe.Type)}
	case errors.As(first, &fe):
		return &Error{fe.Key, fmt.Errorf("cannot read file %q: %w", fe.Filename, errors.Unwrap(fe.Err))}
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
	return Prefix + key
}

// defaultDB is the mirror's path when BANKMIRROR_DB is not set: in
// systemd's state directory if there is one.
func defaultDB(environ map[string]string) string {
	return inSystemdDir(environ, "STATE_DIRECTORY", "bankmirror.db", "bankmirror.db")
}

// defaultRulesFile is rules.toml in the configuration directory:
// $CONFIGURATION_DIRECTORY under systemd, else /etc/bankmirror.
func defaultRulesFile(environ map[string]string) string {
	return inSystemdDir(environ, "CONFIGURATION_DIRECTORY", "rules.toml", "/etc/bankmirror/rules.toml")
}

// defaultFeedsFile is feeds.toml where rules.toml is looked for.
func defaultFeedsFile(environ map[string]string) string {
	return inSystemdDir(environ, "CONFIGURATION_DIRECTORY", "feeds.toml", "/etc/bankmirror/feeds.toml")
}

// inSystemdDir is file in the directory systemd names in dirVar (the
// first, since systemd may pass several separated by colons), or
// fallback without one.
func inSystemdDir(environ map[string]string, dirVar, file, fallback string) string {
	if dir := environ[dirVar]; dir != "" {
		return filepath.Join(strings.Split(dir, ":")[0], file)
	}
	return fallback
}

// readFile reads a file a variable names, as an error naming the
// variable and the file.
func readFile(name, path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{name, fmt.Errorf("cannot read file %q: %w", path, errors.Unwrap(err))}
	}
	return b, nil
}
