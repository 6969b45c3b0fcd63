package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/rs/zerolog"
)

// An admin listener bound beyond loopback is reported: one warning at
// start naming the address, and a line (and a JSON field) in `status`
// while the daemon runs. On loopback, neither.
func TestAdminListenerBeyondLoopbackIsReported(t *testing.T) {
	b := newBank(t, 20)
	for _, tc := range []struct {
		listen  string
		exposed bool
	}{{"127.0.0.1:0", false}, {"0.0.0.0:0", true}} {
		t.Run(tc.listen, func(t *testing.T) {
			cfg := testConfig(t, b)
			cfg.AdminListen = tc.listen
			logs := &cliBuffer{}
			m := daemon.New(cfg, zerolog.New(logs))
			if err := m.Open(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = m.Close() })
			<-m.InitialSyncDone
			addr := strings.TrimPrefix(m.AdminURL(), "http://")

			warned := 0
			for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				var rec map[string]any
				if json.Unmarshal([]byte(l), &rec) == nil && rec["admin_listen"] == addr && rec["level"] == "warn" &&
					strings.Contains(rec["message"].(string), "beyond loopback") {
					warned++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tc.exposed]; warned != want {
				t.Errorf("%d warnings naming %s, want %d:\n%s", warned, addr, want, logs.String())
			}

			// The reporter writes the daemon's first report as it starts.
			env := map[string]string{"BANKMIRROR_DB": cfg.DB}
			var r cliResult
			poll(t, nil, 30*time.Second, "the daemon's first report", func() bool {
				r = runCLI(t, env, "status")
				return strings.Contains(r.stdout, "daemon: running")
			})
			line := "admin listener: on " + addr + ", beyond loopback"
			if strings.Contains(r.stdout, line) != tc.exposed {
				t.Errorf("status (exposed=%v) and the line %q:\n%s", tc.exposed, line, r)
			}
			r = runCLI(t, env, "status", "--json")
			var s struct {
				Daemon struct {
					Running      bool   `json:"running"`
					AdminExposed string `json:"admin_exposed"`
				} `json:"daemon"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
				t.Fatalf("status --json: %v\n%s", err, r)
			}
			if want := map[bool]string{true: addr, false: ""}[tc.exposed]; !s.Daemon.Running || s.Daemon.AdminExposed != want {
				t.Errorf("status --json daemon = %+v, want running with admin_exposed %q", s.Daemon, want)
			}
		})
	}
}
