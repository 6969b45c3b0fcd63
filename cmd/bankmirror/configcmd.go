package main

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
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
	for _, kv := range configDump(a.cfg, isTerminal(a.stderr)) {
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

// configDump lists each variable with its value in effect: a default
// computed at start is shown as computed (the log format from whether
// stderrTerminal), one that turns something off says so. Fields tagged
// secret:"true" show only where they came from, never their value.
func configDump(c Config, stderrTerminal bool) [][2]string {
	v := reflect.ValueOf(c)
	t := v.Type()
	var out [][2]string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := varOfField(f.Name)
		val := fmt.Sprint(v.Field(i).Interface())
		if f.Tag.Get("secret") == "true" {
			if strings.HasSuffix(f.Name, "File") {
				continue // folded into the secret itself by loadConfig
			}
			from := reflect.ValueOf(c.secretFrom).FieldByName(f.Name)
			switch {
			case from.IsValid():
				val = secretLine(name, from.String())
			case v.Field(i).IsZero():
				val = "(not set)"
			default: // a secret whose source is not recorded
				val = "(set, redacted)"
			}
			out = append(out, [2]string{name, val})
			continue
		}
		switch name {
		case envPrefix + "API_URL":
			val = redactURL(val)
		case envPrefix + "DB":
			if abs, err := filepath.Abs(c.DB); err == nil && abs != c.DB {
				val += " (" + abs + ")"
			}
		case envPrefix + "LOG_FORMAT":
			if c.LogFormat == "" {
				val = "json (auto: standard error is not a terminal)"
				if stderrTerminal {
					val = "console (auto: standard error is a terminal)"
				}
			}
		case envPrefix + "REQUESTS_PER_HOUR":
			if c.RequestsPerHour == 0 {
				val += " (no cap of our own: the bank's budget)"
			}
		case envPrefix + "ATTACHMENTS_DIR":
			if c.AttachmentsDir == "" {
				val = "(off: receipts keep only their links)"
			}
		case envPrefix + "INBOX_RETENTION":
			if c.InboxRetention == 0 {
				val += " (kept forever)"
			}
		case envPrefix + "ADMIN_LISTEN":
			if c.AdminListen == adminOff {
				val = "(off)"
			}
		case envPrefix + "UI_LISTEN":
			if c.UIListen == "" {
				val = "(off: serve has no dashboard; ui defaults to " + defaultUIListen + ")"
			}
		}
		out = append(out, [2]string{name, val})
	}
	return out
}

// secretLine is the config line of secret name, from where it came from
// (a secretSources field): never its value.
func secretLine(name, from string) string {
	switch from {
	case "":
		switch name {
		case envPrefix + "EXPORT_TOKEN":
			return "(not set: the spreadsheet feed is off)"
		case envPrefix + "UI_TOKEN":
			return "(not set: ui makes a random one at each start)"
		}
		return "(not set)"
	case name:
		return "(set, redacted)"
	}
	return "(from " + from + ", redacted)"
}
