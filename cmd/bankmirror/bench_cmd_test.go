package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchModes runs each mode of `bankmirror bench` on tiny sizes with
// the default settings, to prove they work: their counts and exactness,
// never their timings.
func TestBenchModes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulator process per mode")
	}
	// The simulator child is this test binary, re-executed as bankmirror.
	old := benchChild
	benchChild = func(ctx context.Context, args ...string) (*exec.Cmd, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, exe, append([]string{childArgsMarker}, args...)...)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		return cmd, nil
	}
	t.Cleanup(func() { benchChild = old })

	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"sync", []string{"bench", "--transactions", "2000", "--rounds", "2"}, []string{
			"settings: the defaults", "repeat: bankmirror bench sync --transactions 2000 --rounds 2 --gomemlimit 24MiB",
			"round 2: baseline", "round 2: reference client", "against the reference client (median)",
			"requests: 25 (floor 25, +0.0%)", "peak RSS of the first sync", "anonymous + ", " file)",
		}},
		{"receiver", []string{"bench", "receiver", "--transactions", "500", "--events", "200", "--rounds", "1", "--concurrency", "1,16"}, []string{
			"repeat: bankmirror bench receiver", "c=1 round 1: bare", "c=16 round 1: bare",
			"every delivery acknowledged; all applied", "| 16 |",
		}},
		{"export", []string{"bench", "export", "--transactions", "3000", "--rounds", "2"}, []string{
			"repeat: bankmirror bench export --transactions 3000 --rounds 2", "mirror: 3000 transactions generated",
			"round 2: baseline", "| csv |", "| xlsx |",
		}},
		{"burst", []string{"bench", "burst", "--events", "200", "--transactions", "500", "--duration", "500ms"}, []string{
			"repeat: bankmirror bench burst --events 200", "174 events (74 held and 24 settled purchases; 50 settlements, 8 by DELETED+CREATED, 10 deleted holds)",
			"| 174 (", "requests by route: ", "GET /transactions 200: ", "account balances: equal to the bank's",
		}},
		{"soak", []string{"bench", "soak", "--transactions", "500", "--duration", "12s", "--warmup", "1s", "--live", "5/s", "--sync-every", "2s", "--feed", "--alerts"}, []string{
			"repeat: bankmirror bench soak --transactions 500 --duration 12s --warmup 1s --live 5/s --sync-every 2s --gomemlimit 24MiB --feed=true --alerts=true",
			"a YNAB feed", "a rule alerting every purchase", "| steady RSS (median) |", "alerts received by the channel: ",
		}},
		// Each alert channel kind really receives the purchase's alert,
		// and serve without a rules file sends none.
		{"idle", []string{"bench", "idle", "--transactions", "300", "--idle", "2s", "--ticks", "1", "--alerts"}, []string{
			"repeat: bankmirror bench idle --transactions 300 --idle 2s --ticks 1 --gomemlimit 24MiB --alerts",
			"| alerts received (ntfy, webhook, email) |", " MiB | 0, 0, 0 |\n", "| with the rules file (1 rule, 3 channels) | ",
			" MiB | 1, 1, 1 |\n", "| difference | ", "requests per tick",
		}},
		// One bucket is enough here: the mode's counts and exactness, not
		// the wait for a second bucket (minutes).
		{"bucket", []string{"bench", "bucket", "--transactions", "500", "--purchase-every", "20ms"}, []string{
			"repeat: bankmirror bench bucket --transactions 500 --limit 200", "the reserve was not reached in the first bucket",
			"| 500 | ",
		}},
		{"household", []string{"bench", "household", "--transactions", "1500", "--joint", "300", "--interval", "200ms", "--purchases", "3", "--baseline=false"}, []string{
			"repeat: bankmirror bench household --transactions 1500 --joint 300", "first sync: ", "once: +0.0%)",
			"idle hour: an incremental sync costs 6 requests (both tokens), a poll of the joint account 1",
			"joint purchase to mirror, 3 purchases",
		}},
		{"rules", []string{"bench", "rules", "--transactions", "1500", "--rules", "40", "--purchases", "2"}, []string{
			"repeat: bankmirror bench rules --transactions 1500 --rules 40 --purchases 2", "matching 40 rules, no writes: 1500 transactions",
			"rules apply --write-back: ", "requests per changed transaction", "applied and written back with 40 rules",
		}},
		{"ui", []string{"bench", "ui", "--transactions", "2000", "--rounds", "1", "--requests", "2"}, []string{
			"repeat: bankmirror bench ui --transactions 2000 --rounds 1 --requests 2", "mirror: 2000 transactions generated",
			"round 1: overview p50", "| overview (/) | 2 |", "| search (/transactions?q=) | 10 |", "ui process RSS: peak",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := map[string]string{"BANKMIRROR_LOG_LEVEL": "warn", "BANKMIRROR_LOG_FORMAT": "json"}
			if code := run(context.Background(), append(c.args, "--dir", t.TempDir()), env, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			}
			out := stdout.String()
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "NOT") {
				t.Errorf("something was not acknowledged, applied or exact:\n%s", out)
			}
			t.Log(out)
		})
	}
}

// TestBenchUIOnAGivenMirror runs `bench ui` on a mirror made beforehand
// with given words and warm-ups: each word's row counts its matches and
// only the measured requests, by the client's time beside the server's.
func TestBenchUIOnAGivenMirror(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a ui process")
	}
	old := benchChild
	benchChild = func(ctx context.Context, args ...string) (*exec.Cmd, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, exe, append([]string{childArgsMarker}, args...)...)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		return cmd, nil
	}
	t.Cleanup(func() { benchChild = old })
	env := map[string]string{"BANKMIRROR_LOG_LEVEL": "warn", "BANKMIRROR_LOG_FORMAT": "json"}
	path := filepath.Join(t.TempDir(), "given.db")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"bench", "export", "--generate", path, "--transactions", "1200"}, env, &stdout, &stderr); code != 0 {
		t.Fatalf("generate: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	args := []string{"bench", "ui", "--mirror", path, "--words", "coles, thanks", "--warmups", "2", "--rounds", "3", "--requests", "1"}
	if code := run(context.Background(), args, env, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, w := range []string{
		"repeat: bankmirror bench ui --mirror " + path + ` --rounds 3 --requests 1 --words "coles,thanks" --warmups 2`,
		"round 3: overview p50", "| overview (/) | 3 |", "| search (/transactions?q=) | 6 |",
		"| overview (/) |  | 3 |", `| search "coles" | 100 | 3 |`, `| search "thanks" | 200 | 3 |`,
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "round 4") || strings.Contains(out, "mirror: ") {
		t.Errorf("warm-ups counted, or a mirror generated:\n%s", out)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the given mirror is gone: %v", err)
	}
}
