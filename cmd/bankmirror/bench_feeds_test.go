package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/feeds/actual/actualtest"
)

// TestBenchFeeds runs `bankmirror bench feeds` small against the YNAB
// fake and, when the real Actual is installed, against Actual: the shape
// of the printed figures, and that the rows arrived (feeds check finds
// the app exact, the purchases included), never the timings.
func TestBenchFeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the simulator, the daemon and the apps in child processes")
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

	// YNAB's feed slows to two minutes between rounds once a quarter of
	// the hour's requests are used: one purchase keeps the test short.
	apps := map[string]string{"ynab": "1"}
	if actualtest.CheckDir(os.Getenv(actualtest.DirVar)) == nil {
		apps["actual"] = "2"
	} else {
		t.Logf("Actual is measured only with the real Actual (%s)", actualtest.DirVar)
	}
	for app, purchases := range apps {
		t.Run(app, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			env := map[string]string{"BANKMIRROR_LOG_LEVEL": "warn", "BANKMIRROR_LOG_FORMAT": "json",
				actualtest.DirVar: os.Getenv(actualtest.DirVar)}
			args := []string{"bench", "feeds", "--app", app, "--transactions", "200", "--purchases", purchases, "--dir", t.TempDir()}
			if code := run(context.Background(), args, env, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			}
			out := stdout.String()
			t.Log(out)
			want := []string{
				"repeat: bankmirror bench feeds --app " + app + " --transactions 200 --purchases " + purchases,
				app + " first push: pushed: ",
				app + " first push: ", " transactions in ", "baseline sync --no-feeds of the same history",
				app + " round 1: ", app + " round 2: ", "; serve --no-feeds RSS ", "; serve with the feed RSS ",
				app + " purchase by webhook to visible in the app (", purchases + " purchases, p50 ", "; of which by webhook to the mirror: p50 ",
				"; in the copy serve --no-feeds ran on, the feed's cursor was ", "; serve with the feed had the other daemon's purchases in the app ",
				app + " daemon RSS (bankmirror serve, GOMEMLIMIT=24MiB",
			}
			if app == "ynab" {
				want = append(want, "ynab first push: CPU bankmirror ", " requests to YNAB (")
			} else {
				want = append(want, "actual first push: CPU bankmirror ", ", Node ", " HTTP requests to the sync-server (",
					"actual Node processes of serve (")
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in the output", w)
				}
			}
			// The rows arrived: exact after the first push, and after the
			// purchases with each purchase one row more.
			checks := regexp.MustCompile(app+` check (after the first push|after the purchases): (\d+) bank transactions fed, (\d+) rows in the app: (.*)`).
				FindAllStringSubmatch(out, -1)
			if len(checks) != 2 {
				t.Fatalf("%d check lines, want 2", len(checks))
			}
			var fed [2]int
			for i, c := range checks {
				fed[i], _ = strconv.Atoi(c[2])
				if c[2] != c[3] || c[4] != "exact" || fed[i] == 0 {
					t.Errorf("check %s: %s fed, %s rows: %s", c[1], c[2], c[3], c[4])
				}
			}
			// Each purchase is made once with the feed and once to serve
			// --no-feeds.
			if n, _ := strconv.Atoi(purchases); fed[1] != fed[0]+2*n {
				t.Errorf("%d fed after %d purchases twice, %d before", fed[1], n, fed[0])
			}
			if m := regexp.MustCompile(`first push: pushed: (\d+) created`).FindStringSubmatch(out); m == nil || m[1] == "0" {
				t.Errorf("the first push created no row: %v", m)
			}
		})
	}
}
