package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/bankmirror/bankmirror/internal/buildinfo"
	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/config"
)

// program is bankmirror's command table: what runs, and what the usage,
// every --help, the shell completions and the manual page are made from.
func (a *app) program() *cli.Program {
	env := envVars()
	return &cli.Program{
		Name:    "bankmirror",
		Summary: "keep an exact, queryable SQLite mirror of your bank data",
		Description: `bankmirror keeps a complete, exact copy of the data of a bank customer or a household (accounts, transactions, categories, tags, attachments; each person's own accounts and the ones they share) in a local SQLite file, for plain SQL and budgeting spreadsheets. The daemon (bankmirror serve) applies the bank's signed webhooks within milliseconds and reconciles on a schedule; the other commands inspect and change the mirror and the bank.

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
			a.rulesCommand(),
			a.feedsCommand(),
			a.alertsCommand(),
			a.exportCommand(),
			a.uiCommand(),
			a.pingCommand(),
			a.peopleCommand(),
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
			{Title: "SEE ALSO", Text: `sqlite3(1), systemctl(1), systemd.exec(5); the README and the manual's pages in /usr/share/doc/bankmirror (README.md.gz, docs/, changelog.gz) from the Debian package, or README.md, docs/ and CHANGELOG.md beside the binary in the release tarball.`},
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
		Summary: "print the version, commit and its time, Go and SQLite versions",
		Run: func(context.Context, []string) error {
			b := buildinfo.Get()
			if *asJSON {
				return writeJSON(a.stdout, b)
			}
			fmt.Fprintf(a.stdout, "bankmirror %s\ncommit:    %s\ncommitted: %s\ngo:        %s %s\nsqlite:    %s\n",
				b.Version, b.Short(), b.Date, b.GoVersion, b.Platform, b.SQLite)
			return nil
		}}
}

func (a *app) completionCommand() *cli.Command {
	return &cli.Command{Name: "completion", Synopsis: strings.Join(cli.Shells, "|"), TakesArgs: true, ArgChoices: cli.Shells,
		Summary: "print the shell completion script of bash, zsh or fish",
		Detail: `Install it where the shell looks, e.g.:
  bankmirror completion bash > /usr/share/bash-completion/completions/bankmirror
  bankmirror completion zsh > /usr/local/share/zsh/site-functions/_bankmirror
  bankmirror completion fish > ~/.config/fish/completions/bankmirror.fish`,
		Run: func(_ context.Context, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("%w: completion takes one shell: %s", cli.ErrUsage, strings.Join(cli.Shells, ", "))
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

// envVars lists every BANKMIRROR_* variable with its default, for serve
// --help, config --help and the manual (internal/config's table).
func envVars() []cli.Var {
	var out []cli.Var
	for _, d := range config.Docs() {
		out = append(out, cli.Var{Name: d.Name, Default: d.Default, Doc: d.Doc})
	}
	return out
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
