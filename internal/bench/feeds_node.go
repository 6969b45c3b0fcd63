package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// bench feeds runs Actual's client through a stand-in for
// BANKMIRROR_NODE: a script that runs this binary as `bench feeds
// --node-wrap`, which runs the real node and appends the node process's
// own CPU and peak RSS (its rusage, exact) to a file. The daemon's Node
// children are then measured apart from the daemon.

// nodeUse is one node process's resource use, a line of the usage file.
type nodeUse struct {
	Script   string  `json:"script"` // the script node ran (its base name)
	Wall     float64 `json:"wall_s"`
	CPU      float64 `json:"cpu_s"` // user + system of node
	MaxRSS   float64 `json:"maxrss_mib"`
	StandIn  float64 `json:"stand_in_cpu_s"` // user + system of the stand-in itself
	ExitCode int     `json:"exit_code"`
}

// NodeWrapOptions are what the stand-in runs.
type NodeWrapOptions struct {
	Node  string   // the real node
	Usage string   // the file each run's nodeUse is appended to
	Drop  []string // environment variables the script added for this binary, not passed to node
	Args  []string // node's arguments
}

// NodeWrap runs the real node with o.Args, its standard streams and fds
// 3 and 4 (the client's requests and answers) this process's, forwards
// SIGINT and SIGTERM to it, appends its use to o.Usage and returns its
// exit code.
func NodeWrap(o NodeWrapOptions) (int, error) {
	cmd := exec.Command(o.Node, o.Args...) //nolint:gosec,noctx // the node bench feeds named; it lives as long as this process
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(o.Drop, k)
	})
	for fd := uintptr(3); fd <= 4; fd++ {
		f := os.NewFile(fd, fmt.Sprintf("fd%d", fd))
		if f == nil {
			break
		}
		if _, err := f.Stat(); err != nil {
			break
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	}
	dieWithParent(cmd)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 1, fmt.Errorf("node stand-in: %w", err)
	}
	stop := make(chan struct{})
	forwarded := make(chan struct{})
	go func() {
		defer close(forwarded)
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-stop:
				return
			}
		}
	}()
	werr := cmd.Wait()
	close(stop)
	<-forwarded
	code := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = max(ee.ExitCode(), 1)
	} else if werr != nil {
		return 1, fmt.Errorf("node stand-in: %w", werr)
	}
	ps := cmd.ProcessState
	script := ""
	if len(o.Args) > 0 {
		script = filepath.Base(o.Args[0])
	}
	use := nodeUse{Script: script, Wall: time.Since(start).Seconds(), CPU: (ps.UserTime() + ps.SystemTime()).Seconds(),
		MaxRSS: maxRSSMiB(ps), StandIn: cpuTime().Seconds(), ExitCode: code}
	line, err := json.Marshal(use)
	if err != nil {
		return code, fmt.Errorf("node stand-in: %w", err)
	}
	f, err := os.OpenFile(o.Usage, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return code, fmt.Errorf("node stand-in: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return code, fmt.Errorf("node stand-in: %w", err)
	}
	return code, nil
}

// nodeStandIn writes the script that stands in for node: it runs
// `bankmirror bench feeds --node-wrap` (the command env.Command gives,
// with the environment it adds) on the real node.
func (env Env) nodeStandIn(ctx context.Context, path, node, usage string) error {
	cmd, err := env.Command(ctx, "bench", "feeds", "--node-wrap", usage, "--node", node)
	if err != nil {
		return err
	}
	// The variables the command adds to this process's (a test's marker):
	// the script sets them for the stand-in, which drops them for node.
	own := map[string]bool{}
	for _, kv := range os.Environ() {
		own[kv] = true
	}
	var set, drop []string
	for _, kv := range cmd.Env {
		if !own[kv] {
			k, _, _ := strings.Cut(kv, "=")
			set, drop = append(set, shellQuote(kv)), append(drop, k)
		}
	}
	args := make([]string, len(cmd.Args)-1)
	for i, a := range cmd.Args[1:] {
		args[i] = shellQuote(a)
	}
	var b strings.Builder
	b.WriteString("#!/bin/sh\nexec ")
	if len(set) > 0 {
		b.WriteString("env " + strings.Join(set, " ") + " ")
	}
	b.WriteString(shellQuote(cmd.Path) + " " + strings.Join(args, " "))
	if len(drop) > 0 {
		b.WriteString(" --drop " + shellQuote(strings.Join(drop, ",")))
	}
	b.WriteString(" -- \"$@\"\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o700); err != nil { //nolint:gosec // a script to run: executable
		return fmt.Errorf("node stand-in: %w", err)
	}
	return nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// readNodeUse reads the usage file's lines from the skip-th on; a missing
// file is none.
func readNodeUse(path string, skip int) ([]nodeUse, error) {
	f, err := os.Open(path) //nolint:gosec // the bench's own file
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("node usage: %w", err)
	}
	defer f.Close()
	var out []nodeUse
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan(); i++ {
		if i < skip {
			continue
		}
		var u nodeUse
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			return nil, fmt.Errorf("node usage line %d: %w", i+1, err)
		}
		out = append(out, u)
	}
	return out, sc.Err()
}
