package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/config"
)

// The completion scripts and the manual page are made from the command
// table: every command and subcommand is in each, and each passes its
// shell's syntax check (bash -n, zsh -n, fish --no-execute) or renders
// without a warning (groff), where that program is installed.
func TestCLICompletionAndManual(t *testing.T) {
	p := (&app{}).program()
	dir := t.TempDir()
	out := map[string]string{}
	for _, what := range []string{"bash", "zsh", "fish", "man"} {
		args := []string{"completion", what}
		if what == "man" {
			args = []string{"man"}
		}
		// No configuration is needed.
		r := runCLI(t, map[string]string{"BANKMIRROR_LOG_LEVEL": "loud"}, args...)
		wantCode(t, r, 0)
		if r.stderr != "" {
			t.Errorf("%s: stderr %q", what, r.stderr)
		}
		out[what] = r.stdout
	}
	p.Walk(func(path []*cli.Command) {
		var names []string
		for _, c := range path {
			names = append(names, c.Name)
		}
		name := strings.Join(names, " ")
		parent := strings.Join(names[:len(names)-1], " ")
		for what, want := range map[string]string{
			"bash": fmt.Sprintf("    '%s')\n", name),
			"zsh":  fmt.Sprintf("    '%s')\n", name),
			"fish": fmt.Sprintf("-n '%s' -f -a '%s' -d ", strings.TrimSpace("__bankmirror_at "+parent), path[len(path)-1].Name),
			"man":  fmt.Sprintf(".SS \"%s\"\n", name),
		} {
			if !strings.Contains(out[what], want) {
				t.Errorf("%s lacks %q (%s)", what, want, name)
			}
		}
	})
	for _, v := range envVars() {
		if !strings.Contains(out["man"], ".B "+v.Name+"\n") {
			t.Errorf("the manual lacks %s", v.Name)
		}
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			bin, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed", shell)
			}
			path := filepath.Join(dir, "bankmirror."+shell)
			must(t, os.WriteFile(path, []byte(out[shell]), 0o600))
			check := "-n"
			if shell == "fish" {
				check = "--no-execute"
			}
			if b, err := exec.Command(bin, check, path).CombinedOutput(); err != nil || len(b) > 0 {
				t.Errorf("%s %s: %v\n%s", shell, check, err, b)
			}
		})
	}
	t.Run("man", func(t *testing.T) {
		groff, err := exec.LookPath("groff")
		if err != nil {
			t.Skip("groff is not installed")
		}
		cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
		cmd.Stdin = strings.NewReader(out["man"])
		if b, err := cmd.CombinedOutput(); err != nil || len(b) > 0 {
			t.Errorf("groff: %v\n%s", err, b)
		}
	})
	if r := runCLI(t, nil, "completion", "tcsh"); r.code != 2 || !strings.Contains(r.stderr, `no completion for shell "tcsh"`) {
		t.Errorf("completion tcsh:\n%s", r)
	}
}

// Every BANKMIRROR_* variable is documented for serve --help, config --help
// and the manual, and nothing else is.
func TestEveryVariableDocumented(t *testing.T) {
	vars := envVars()
	seen := map[string]bool{}
	for _, v := range vars {
		key := strings.TrimPrefix(v.Name, config.Prefix)
		if seen[key] {
			t.Errorf("%s is listed twice", v.Name)
		}
		seen[key] = true
		if v.Doc == "" {
			t.Errorf("%s has no documentation in internal/config's Settings", v.Name)
		}
	}
	read := map[string]bool{}
	cfg := reflect.TypeFor[config.Config]()
	for i := range cfg.NumField() {
		if key, _, _ := strings.Cut(cfg.Field(i).Tag.Get("env"), ","); key != "-" {
			read[key] = true
			if !seen[key] {
				t.Errorf("Config reads %s%s, which is not documented", config.Prefix, key)
			}
		}
	}
	for key := range seen {
		if !read[key] {
			t.Errorf("%s%s is documented, but config.Config does not read it", config.Prefix, key)
		}
	}
	r := runCLI(t, nil, "serve", "--help")
	wantCode(t, r, 0)
	for _, want := range []string{"  BANKMIRROR_TIMEZONE (default Australia/Melbourne)\n", "  BANKMIRROR_API_URL (default https://", "  BANKMIRROR_TOKEN_FILE\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, r.stdout)
		}
	}
}
