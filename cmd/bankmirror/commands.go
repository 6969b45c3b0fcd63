package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/buildinfo"
	"github.com/bankmirror/bankmirror/internal/cli"
)

// program is bankmirror's command table: what runs, and what the usage,
// every --help, the shell completions and the manual page are made from.
func (a *app) program() *cli.Program {
	env := envVars()
	return &cli.Program{
		Name:    "bankmirror",
		Summary: "keep an exact, queryable SQLite mirror of your bank data",
		Description: `bankmirror keeps a complete, exact copy of one bank customer's data (accounts, transactions, categories, tags, attachments) in a local SQLite file, for plain SQL and budgeting spreadsheets. The daemon (bankmirror serve) applies the bank's signed webhooks within milliseconds and reconciles on a schedule; the other commands inspect and change the mirror and the bank.

Every setting is a BANKMIRROR_* environment variable (see ENVIRONMENT); a missing or malformed one stops the command with one line naming it, and secrets are never printed.`,
		Commands: []*cli.Command{
			a.demoCommand(),
			a.serveCommand(env),
			a.webhookCommand(),
			a.syncCommand(),
			a.statusCommand(),
			a.backupCommand(),
			a.eventsCommand(),
			a.categorizeCommand(),
			a.categoriesCommand(),
			a.tagCommand(),
			a.exportCommand(),
			a.uiCommand(),
			a.pingCommand(),
			a.configCommand(env),
			a.simulatorCommand(),
			a.benchCommand(),
			a.versionCommand(),
			a.completionCommand(),
			a.manCommand(),
		},
		Footer: "Configuration is read from BANKMIRROR_* environment variables: \"bankmirror serve --help\" lists them.\n",
		Env:    env,
		Sections: []cli.Section{
			{Title: "EXIT STATUS", Text: `0 on success, 1 when a command fails, 2 for a usage or configuration error. bankmirror status exits 0 when OK, 1 when DEGRADED and 2 when FAILING.`},
			{Title: "FILES", Text: `The mirror (BANKMIRROR_DB) has companion files beside it, all mode 0600: its -wal and -shm files, the webhook secrets (.secrets) and lock files. The systemd unit keeps the mirror in /var/lib/bankmirror/bankmirror.db and reads the token as the credential "token".`},
			{Title: "SEE ALSO", Text: `sqlite3(1), systemctl(1), systemd.exec(5); README.md and docs/ in the source.`},
		},
	}
}

// newFlags is a command's flag set; the command table's runner reports
// its errors.
func newFlags(name string) *flag.FlagSet {
	return flag.NewFlagSet(name, flag.ContinueOnError)
}

func (a *app) versionCommand() *cli.Command {
	fs := newFlags("version")
	asJSON := fs.Bool("json", false, "print the build as one JSON object")
	return &cli.Command{Name: "version", Aliases: []string{"--version", "-v"}, Synopsis: "[--json]", Flags: fs,
		Summary: "print the version, commit, build date, Go and SQLite versions",
		Run: func(context.Context, []string) error {
			b := buildinfo.Get()
			if *asJSON {
				return writeJSON(a.stdout, b)
			}
			fmt.Fprintf(a.stdout, "bankmirror %s\ncommit:  %s\nbuilt:   %s\ngo:      %s %s\nsqlite:  %s\n",
				b.Version, b.Short(), b.Date, b.GoVersion, b.Platform, b.SQLite)
			return nil
		}}
}

func (a *app) completionCommand() *cli.Command {
	return &cli.Command{Name: "completion", Synopsis: strings.Join(cli.Shells, "|"), Args: true, Words: cli.Shells,
		Summary: "print the shell completion script of bash, zsh or fish",
		Detail: `Install it where the shell looks, e.g.:
  bankmirror completion bash > /usr/share/bash-completion/completions/bankmirror
  bankmirror completion zsh > /usr/local/share/zsh/site-functions/_bankmirror
  bankmirror completion fish > ~/.config/fish/completions/bankmirror.fish`,
		Run: func(_ context.Context, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("%w: completion takes one shell: %s", errUsage, strings.Join(cli.Shells, ", "))
			}
			return a.program().Completion(a.stdout, args[0])
		}}
}

func (a *app) manCommand() *cli.Command {
	return &cli.Command{Name: "man", Summary: "print the manual page (roff, section 1)",
		Detail: `Read it with "bankmirror man | man -l -", or install it:
  bankmirror man | gzip -9 > /usr/local/share/man/man1/bankmirror.1.gz`,
		Run: func(context.Context, []string) error {
			b := buildinfo.Get()
			date := ""
			if len(b.Date) >= len("2006-01-02") && b.Date != buildinfo.Unknown {
				date = b.Date[:len("2006-01-02")]
			}
			a.program().Man(a.stdout, cli.ManPage{Version: b.Version, Date: date})
			return nil
		}}
}

// envDocs says what each BANKMIRROR_* variable is, for serve --help,
// config --help and the manual; their defaults come from Config's tags.
// TestEveryVariableDocumented keeps it complete.
var envDocs = map[string]string{ //nolint:gosec // descriptions of the variables, no credential
	"API_URL":               "the bank's API base URL",
	"TOKEN":                 "personal access token, needed by the commands that talk to the bank; without it and BANKMIRROR_TOKEN_FILE, the systemd credential $CREDENTIALS_DIRECTORY/token is read. serve reads it again on SIGHUP",
	"TOKEN_FILE":            "a file holding the personal access token (wins over BANKMIRROR_TOKEN)",
	"DB":                    "the mirror, a SQLite file; it and its companion files are mode 0600",
	"LOG_LEVEL":             "trace, debug, info, warn or error",
	"LOG_FORMAT":            "json (for journald) or console; unset: console on a terminal, else json",
	"REQUESTS_PER_HOUR":     "a cap of our own on requests an hour, below the bank's budget; 0 follows what the bank reports",
	"BUDGET_RESERVE":        "requests of the bank's hourly budget that syncs leave for webhook refetches",
	"SYNC_OVERLAP":          "an incremental sync lists from the newest known createdAt minus this",
	"ATTACHMENTS_DIR":       "keep receipts: each attachment's file is downloaded into this directory (unset: only their expiring links are kept)",
	"ATTACHMENTS_MAX_BYTES": "a receipt's file larger than this many bytes is refused",
	"TIMEZONE":              "the customer's zone (an IANA name) of the mirror's local times, dates and months",
	"MIGRATION_BACKUP":      "on: before migrating the mirror's schema (an upgrade), keep a copy of it as <db>.pre-vN, only the newest; off: no copy",
	"LISTEN":                "address of the webhook endpoint (the public listener)",
	"WEBHOOK_PATH":          "path of the webhook endpoint",
	"WEBHOOK_SECRET":        "secret of a webhook created elsewhere (registered webhooks need none)",
	"WEBHOOK_SECRET_FILE":   "a file holding BANKMIRROR_WEBHOOK_SECRET",
	"SYNC_SCHEDULE":         "cron schedule of incremental syncs (robfig/cron syntax)",
	"RECONCILE_SCHEDULE":    "cron schedule of full reconciliations",
	"WORKER_CONCURRENCY":    "transactions the event worker fetches at once",
	"EVENT_MAX_ATTEMPTS":    "attempts before a webhook event is left in the inbox as stuck",
	"INBOX_RETENTION":       "processed webhook events and delivery log entries older than this are pruned after each full reconciliation; 0 keeps them",
	"ADMIN_LISTEN":          "address of the admin listener (/healthz, /readyz, /metrics); off, or set empty, disables it. Keep it on loopback",
	"STALE_AFTER":           "a last successful sync older than this fails /readyz and makes status DEGRADED; twice as old, FAILING",
	"EXPORT_TOKEN":          "token of the spreadsheet feed /export/VIEW.csv on the admin listener: at least 16 characters, not an obviously weak one (openssl rand -hex 32 makes a good one); unset: no feed",
	"EXPORT_TOKEN_FILE":     "a file holding BANKMIRROR_EXPORT_TOKEN",
	"TRUSTED_PROXIES":       "reverse proxies (IPs or CIDRs, comma-separated) whose X-Forwarded-For names the spreadsheet feed's client for its throttle; unset: the header is ignored",
	"UI_TOKEN":              "token of the dashboard (bankmirror ui; serve with BANKMIRROR_UI_LISTEN, which then requires it): at least 16 characters, not an obviously weak one; unset: ui makes a random one at each start",
	"UI_TOKEN_FILE":         "a file holding BANKMIRROR_UI_TOKEN",
	"UI_LISTEN":             "address of the dashboard: the default of ui --listen (else 127.0.0.1:8083); set, serve serves the dashboard there too (unset: serve does not)",
}

// derivedDefaults are the defaults loadConfig fills in, not in a tag.
var derivedDefaults = map[string]string{
	"API_URL": bank.DefaultBaseURL,
	"DB":      "$STATE_DIRECTORY/bankmirror.db if STATE_DIRECTORY is set, else ./bankmirror.db",
}

// envVars lists Config's variables in its order, with their defaults.
func envVars() []cli.Var {
	var out []cli.Var
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue // not read from the environment
		}
		key, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		def, ok := f.Tag.Lookup("envDefault")
		if !ok {
			def = derivedDefaults[key]
		}
		out = append(out, cli.Var{Name: envPrefix + key, Default: def, Doc: envDocs[key]})
	}
	return out
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
