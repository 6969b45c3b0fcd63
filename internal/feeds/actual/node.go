package actual

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bankmirror/bankmirror/internal/feeds"
)

// MinNode is the oldest Node.js major version the client runs on.
const MinNode = 22

// mendNode is what mends a missing or old node.
const mendNode = "install Node.js 22 or later and set BANKMIRROR_NODE to its node"

// nodeInfo is what setup needs of the node that will run the client.
type nodeInfo struct {
	Path    string // the node binary, as found
	Version string // without the v: "22.23.5"
	Major   int
	// Prefix is the node's own folder (<prefix>/bin/node) when it holds
	// the headers native modules compile against (<prefix>/include/node),
	// "" when it does not.
	Prefix string
}

// findNode resolves the node binary (BANKMIRROR_NODE, or node on PATH)
// and reads its version; an old or missing node is a *feeds.Unavailable
// naming the fix.
func findNode(ctx context.Context, node string) (nodeInfo, error) {
	if node == "" {
		node = "node"
	}
	path, err := exec.LookPath(node)
	if err != nil {
		return nodeInfo{}, &feeds.Unavailable{Err: fmt.Errorf("find node: %w", err), Mend: mendNode}
	}
	out, err := exec.CommandContext(ctx, path, "-p", "process.versions.node + ' ' + process.execPath").Output() //nolint:gosec // the node the operator named (BANKMIRROR_NODE)
	if err != nil {
		return nodeInfo{}, &feeds.Unavailable{Err: fmt.Errorf("run %s: %w", path, err), Mend: mendNode}
	}
	version, execPath, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	info := nodeInfo{Path: path, Version: version, Major: nodeMajor(version)}
	if err := checkNodeVersion(path, version); err != nil {
		return info, err
	}
	if execPath == "" {
		execPath = path
	}
	if real, err := filepath.EvalSymlinks(execPath); err == nil {
		execPath = real
	}
	prefix := filepath.Dir(filepath.Dir(execPath))
	if _, err := os.Stat(filepath.Join(prefix, "include", "node", "node.h")); err == nil {
		info.Prefix = prefix
	}
	return info, nil
}

// checkNodeVersion refuses a node older than MinNode.
func checkNodeVersion(path, version string) error {
	if nodeMajor(version) < MinNode {
		return &feeds.Unavailable{
			Err:  fmt.Errorf("node %s is v%s, older than v%d: %w", path, version, MinNode, errOldNode),
			Mend: mendNode,
		}
	}
	return nil
}

var errOldNode = errors.New("node too old")

func nodeMajor(version string) int {
	major, _, _ := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		return 0
	}
	return n
}
