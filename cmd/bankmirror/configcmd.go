package main

import (
	"context"
	"fmt"
	"reflect"
	"text/tabwriter"

	"github.com/bankmirror/bankmirror/internal/cli"
)

func (a *app) configCommand(env []cli.Var) *cli.Command {
	return &cli.Command{Name: "config", Summary: "print the effective configuration (secrets redacted)", Env: env,
		Run: a.configured(a.config)}
}

// config prints the effective configuration, secrets redacted.
func (a *app) config(context.Context, []string) error {
	invalid := map[string]bool{}
	for _, ce := range a.setAside {
		invalid[envPrefix+settingOf(ce.Var)] = true
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	for _, kv := range configDump(a.cfg) {
		if invalid[kv[0]] {
			kv[1] = "(INVALID: see below)"
		}
		fmt.Fprintf(tw, "%s\t%s\n", kv[0], kv[1])
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

// configDump lists each variable with its effective value; fields tagged
// secret:"true" show only whether they are set.
func configDump(c Config) [][2]string {
	v := reflect.ValueOf(c)
	t := v.Type()
	var out [][2]string
	for i := range t.NumField() {
		f := t.Field(i)
		name := varOfField(f.Name)
		val := fmt.Sprint(v.Field(i).Interface())
		if name == envPrefix+"API_URL" {
			val = redactURL(val)
		}
		if f.Tag.Get("secret") == "true" {
			if name == envPrefix+"TOKEN_FILE" || name == envPrefix+"WEBHOOK_SECRET_FILE" || name == envPrefix+"EXPORT_TOKEN_FILE" || name == envPrefix+"UI_TOKEN_FILE" {
				continue // folded into TOKEN, WEBHOOK_SECRET and EXPORT_TOKEN by loadConfig
			}
			val = "(not set)"
			if !v.Field(i).IsZero() {
				val = "(set, redacted)"
			}
		}
		out = append(out, [2]string{name, val})
	}
	return out
}
