package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/config"
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
		invalid[envPrefix+config.SettingOf(ce.Var)] = true
	}
	// Tokens set aside as invalid have no people to show.
	people, _ := config.People(a.environ)
	if invalid[envPrefix+"TOKEN"] || invalid[envPrefix+"TOKENS_DIR"] || invalid[envPrefix+"PERSON"] {
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
	if len(a.setAside) == 0 {
		return nil
	}
	for _, ce := range a.setAside {
		fmt.Fprintln(a.stderr, "bankmirror:", ce)
	}
	return &exitCode{2}
}
