package actual

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/feeds"
)

// SetupConfig is what Setup runs with.
type SetupConfig struct {
	Node string // BANKMIRROR_NODE; "" for node on PATH
	NPM  string // BANKMIRROR_NPM; "" for npm on PATH
	// HTTPClient reads the server's version; nil for one with a 20 s timeout.
	HTTPClient *http.Client
}

// Setup installs into target.Dir the @actual-app/api of the version the
// server at target.URL runs, built for the node that will run it, and
// says what it did. With that version installed and loading in that node
// already, it installs nothing and says so.
func Setup(ctx context.Context, target feeds.Target, cfg SetupConfig) (string, error) {
	node, err := findNode(ctx, cfg.Node)
	if err != nil {
		return "", err
	}
	version, err := serverVersion(ctx, cfg.HTTPClient, target.URL)
	if err != nil {
		return "", err
	}
	if have := installedAPI(target.Dir); have == version {
		if err := loads(ctx, node, target.Dir); err == nil {
			return fmt.Sprintf("@actual-app/api %s (the server's version) is already installed in %s for node v%s: nothing to do", version, target.Dir, node.Version), nil
		}
	}
	npm := cfg.NPM
	if npm == "" {
		npm = "npm"
	}
	npmPath, err := exec.LookPath(npm)
	if err != nil {
		return "", fmt.Errorf("find npm (BANKMIRROR_NPM): %w", err)
	}
	if err := os.MkdirAll(target.Dir, 0o700); err != nil {
		return "", fmt.Errorf("make feed directory: %w", err)
	}
	if err := writePackageJSON(target.Dir); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, npmPath, "install", //nolint:gosec // the npm the operator named (BANKMIRROR_NPM), the version the server reports
		"--no-audit", "--no-fund", "--save-exact", "--omit=dev", "@actual-app/api@"+version)
	cmd.Dir = target.Dir
	cmd.Env = npmEnv(node)
	out, err := cmd.CombinedOutput()
	target.Log.Debug().Msg("npm install: " + lastLines(string(out), 20))
	if err != nil {
		return "", fmt.Errorf("npm install @actual-app/api@%s: %w: %s", version, err, lastLines(string(out), 10))
	}
	if have := installedAPI(target.Dir); have != version {
		return "", fmt.Errorf("npm installed @actual-app/api %q, not %s", have, version)
	}
	if err := loads(ctx, node, target.Dir); err != nil {
		return "", fmt.Errorf("check the install: %w", err)
	}
	built := "its native module built with npm's default headers"
	if node.Prefix != "" {
		built = "its native module built against the headers in " + filepath.Join(node.Prefix, "include", "node")
	}
	return fmt.Sprintf("installed @actual-app/api %s (the server's version) into %s for node v%s (%s), %s", version, target.Dir, node.Version, node.Path, built), nil
}

// npmEnv runs npm (and the node-gyp it starts) with the feed's node first
// on PATH, and with npm_config_nodedir at the node's own folder when that
// holds its headers, so that better-sqlite3 compiles for that node with
// no download.
func npmEnv(node nodeInfo) []string {
	env := make([]string, 0, len(os.Environ())+2)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == "PATH" || strings.EqualFold(k, "npm_config_nodedir") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "PATH="+filepath.Dir(node.Path)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if node.Prefix != "" {
		env = append(env, "npm_config_nodedir="+node.Prefix)
	}
	return env
}

// writePackageJSON gives the feed's directory a package.json of its own,
// so that npm installs there and not in a folder above.
func writePackageJSON(dir string) error {
	path := filepath.Join(dir, "package.json")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	b := []byte(`{"name": "bankmirror-feed", "private": true, "description": "Installed by bankmirror feeds setup: the Actual client a feed runs."}` + "\n")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("write package.json: %w", err)
	}
	return nil
}

// installedAPI is the version of @actual-app/api in dir, "" for none.
func installedAPI(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@actual-app", "api", "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return ""
	}
	return pkg.Version
}

// loads checks that the node loads the installed API's native module
// (built for another node, it throws NODE_MODULE_VERSION).
func loads(ctx context.Context, node nodeInfo, dir string) error {
	cmd := exec.CommandContext(ctx, node.Path, "-e", "require('better-sqlite3')") //nolint:gosec // the node the operator named (BANKMIRROR_NODE)
	cmd.Dir = dir
	cmd.Env = childEnv(dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("node v%s cannot load better-sqlite3: %w: %s", node.Version, err, lastLines(string(out), 5))
	}
	return nil
}

// serverVersion reads the sync-server's version from GET /info.
func serverVersion(ctx context.Context, client *http.Client, url string) (string, error) {
	if client == nil {
		client = &http.Client{Timeout: 20 * time.Second}
	}
	url = strings.TrimRight(url, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/info", nil)
	if err != nil {
		return "", fmt.Errorf("read the actual server's version: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", &feeds.Unavailable{Err: fmt.Errorf("read the actual server's version: %w", err)}
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", &feeds.Unavailable{Err: fmt.Errorf("read the actual server's version: %w", err)}
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("read the actual server's version: GET %s/info: %s", url, resp.Status)
	}
	var info struct {
		Build struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"build"`
	}
	if err := json.Unmarshal(b, &info); err != nil || info.Build.Version == "" {
		return "", fmt.Errorf("read the actual server's version: %s/info is not an Actual server's: %w", url, errors.Join(err, errNoVersion))
	}
	return info.Build.Version, nil
}

var errNoVersion = errors.New("no build.version")

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
