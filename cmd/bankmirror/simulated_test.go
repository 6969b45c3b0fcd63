package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/config"
)

// brokenSystemRules puts a rules file that no daemon can start with where
// the system's is looked for ($CONFIGURATION_DIRECTORY/rules.toml), and
// returns its path.
func brokenSystemRules(t *testing.T, env map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	env["CONFIGURATION_DIRECTORY"] = dir
	path := filepath.Join(dir, "rules.toml")
	must(t, os.WriteFile(path, []byte("[[rule]]\nname = \"a\"\nwhen = 'descripton contains \"x\"'\nnotify = [\"mail\"]\n"), 0o600))
	return path
}

// The demo reads no rules file of the system's (its channels would send
// the simulated bank's alerts to real people): with a system rules file no
// daemon could start with, it runs; given the same file explicitly, it
// refuses it.
func TestCLIDemoReadsNoSystemRules(t *testing.T) {
	env := map[string]string{"BANKMIRROR_LOG_FORMAT": "json"}
	path := brokenSystemRules(t, env)
	r := runCLI(t, env, "demo", "--db", filepath.Join(t.TempDir(), "demo.db"), "--transactions", "0", "--live=false")
	wantCode(t, r, 0)
	if strings.Contains(r.stdout+r.stderr, path) {
		t.Errorf("the demo read the system's rules file:\n%s", r)
	}
	env["BANKMIRROR_RULES_FILE"] = path
	r = runCLI(t, env, "demo", "--db", filepath.Join(t.TempDir(), "demo.db"), "--transactions", "0", "--live=false")
	if r.code == 0 || !strings.Contains(r.stderr, path) {
		t.Errorf("the demo with BANKMIRROR_RULES_FILE given did not read it:\n%s", r)
	}
}

// serve against a simulated bank (on loopback, or with the simulator's
// control URL set) leaves the system's rules file out unless it is given;
// against the real bank it reads it.
func TestServeAgainstTheSimulatorReadsNoSystemRules(t *testing.T) {
	for _, c := range []struct {
		name      string
		env       map[string]string
		explicit  bool
		wantRules bool
	}{
		{"loopback", map[string]string{"BANKMIRROR_API_URL": "http://127.0.0.1:8081/api/v1"}, false, false},
		{"localhost", map[string]string{"BANKMIRROR_API_URL": "http://localhost:8081/api/v1"}, false, false},
		{"control url", map[string]string{"BANKMIRROR_API_URL": "http://sim.example:8081/api/v1", "BANKMIRROR_SIM_CONTROL_URL": "http://sim.example:8081/_sim"}, false, false},
		{"given", map[string]string{"BANKMIRROR_API_URL": "http://127.0.0.1:8081/api/v1"}, true, true},
		{"real bank", map[string]string{}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := c.env
			env["BANKMIRROR_TOKEN"] = "tok"
			path := brokenSystemRules(t, env)
			if c.explicit {
				env["BANKMIRROR_RULES_FILE"] = path
			}
			cfg, err := config.Load(env)
			must(t, err)
			a := &app{cfg: cfg, environ: env}
			got := a.daemonConfig().RulesFile
			if (got == path) != c.wantRules || (!c.wantRules && got != "") {
				t.Errorf("rules file %q; want the system's read: %t", got, c.wantRules)
			}
			// The system's feeds file likewise (it is the household's real
			// budget), unless given.
			feedsPath := filepath.Join(env["CONFIGURATION_DIRECTORY"], "feeds.toml")
			if c.explicit {
				env["BANKMIRROR_FEEDS_FILE"] = feedsPath
				cfg, err = config.Load(env)
				must(t, err)
				a = &app{cfg: cfg, environ: env}
			}
			if f := a.daemonConfig().FeedsFile; (f == feedsPath) != c.wantRules || (!c.wantRules && f != "") {
				t.Errorf("feeds file %q; want the system's read: %t", f, c.wantRules)
			}
		})
	}
}
