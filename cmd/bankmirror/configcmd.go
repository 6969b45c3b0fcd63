package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

func (a *app) configCommand(env []cli.Var) *cli.Command {
	return &cli.Command{Name: "config", Summary: "print the effective configuration (secrets redacted)", Env: env,
		Run: a.configured(a.config)}
}

// config prints the effective configuration, secrets redacted: each
// variable, then each person with where their token came from.
func (a *app) config(context.Context, []string) error {
	invalid := map[string]bool{}
	for _, ce := range a.setAside {
		invalid[config.Prefix+config.SettingOf(ce.Var)] = true
	}
	// Tokens set aside as invalid have no people to show.
	people, _ := config.People(a.environ)
	if invalid[config.Prefix+"TOKEN"] || invalid[config.Prefix+"TOKENS_DIR"] || invalid[config.Prefix+"PERSON"] {
		people = nil
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	for _, row := range config.Dump(config.Config(a.cfg), isTerminal(a.stderr), people) {
		if invalid[row.Name] {
			row.Value = "(INVALID: see below)"
		}
		fmt.Fprintf(tw, "%s\t%s\n", row.Name, row.Value)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	a.configFeeds()
	if len(a.setAside) == 0 {
		return nil
	}
	for _, ce := range a.setAside {
		fmt.Fprintln(a.stderr, "bankmirror:", ce)
	}
	return &exitCode{2}
}

// configFeeds prints each feed of the feeds file, without its secret:
// where the secret comes from and whether it can be read.
func (a *app) configFeeds() {
	f, err := a.readFeeds(false)
	if err != nil {
		fmt.Fprintf(a.stdout, "\nfeeds: %v\n", err)
		return
	}
	if len(f.Feeds) == 0 {
		return
	}
	fmt.Fprintf(a.stdout, "\nfeeds (%s):\n", f.Path)
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	for i := range f.Feeds {
		fd := f.Feeds[i]
		secret := "read from " + fd.SecretFile
		one := &feeds.File{Path: f.Path, Feeds: []feeds.Feed{fd}}
		if err := one.ReadSecrets(a.environ["CREDENTIALS_DIRECTORY"]); err != nil {
			secret = "UNREADABLE: " + err.Error()
		} else if fd.SecretFile == "" {
			secret = "from " + one.Feeds[0].SecretFrom
		}
		fmt.Fprintf(tw, "  %s\t%s %s, budget %s, since %s\t(secret %s)\n", fd.Name, fd.Kind, orDash(fd.URL),
			textsafe.Line(fd.Budget), orDash(fd.Since), secret)
		for _, k := range fd.Accounts {
			fmt.Fprintf(tw, "  \t%s → %s\t\n", textsafe.Line(k.Key), textsafe.Line(k.App))
		}
	}
	_ = tw.Flush()
}
