package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/bankmirror/bankmirror/internal/procinfo"
)

// childSync is a full sync as users run it, `bankmirror sync --full` in a
// process of its own, run from the installed copy: what it logged when it
// finished, and what the process used.
type childSync struct {
	listed, requests int
	duration         time.Duration // the sync's own, as it logs it
	cpu              time.Duration // the process's user and system time, its start included
	peak             float64       // its peak RSS, MiB
	peakAnon         float64       // the largest anonymous RSS sampled, MiB
	end              string        // its last RSS sampled, split (rssSplit)
}

// rssEvery is how often a sync child's memory is sampled.
const rssEvery = 20 * time.Millisecond

// runSyncChild runs `bankmirror sync --full` with vars (the mirror, the
// bank, GOMEMLIMIT), sampling its memory; it is killed when its CPU time
// does not move for stall (waiting for a request budget).
func (env Env) runSyncChild(ctx context.Context, vars []string, stall time.Duration) (childSync, error) {
	var res childSync
	cmd, err := env.Command(ctx, "sync", "--full")
	if err != nil {
		return res, err
	}
	cmd.Env = append(cmd.Env, vars...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &out
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("start sync: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	pid := cmd.Process.Pid
	t := time.NewTicker(rssEvery)
	defer t.Stop()
	lastCPU, moved := time.Duration(-1), time.Now()
	var waitErr error
sampling:
	for {
		select {
		case waitErr = <-exited:
			break sampling
		case <-t.C:
			if anon := pidMiB(pid, "RssAnon"); anon > 0 {
				res.peakAnon = max(res.peakAnon, anon)
				res.end = fmt.Sprintf("%.0f MiB (%.0f anonymous + %.0f file)", pidMiB(pid, "VmRSS"), anon, pidMiB(pid, "RssFile"))
			}
			if c := procinfo.CPU(pid); c != lastCPU {
				lastCPU, moved = c, time.Now()
			} else if time.Since(moved) > stall {
				_ = cmd.Process.Kill()
				killed := <-exited
				return res, fmt.Errorf("sync: no progress for %s (%v): the client is probably waiting for its request budget (see its log):\n%s",
					stall, killed, out.String())
			}
		}
	}
	if waitErr != nil {
		return res, fmt.Errorf("sync: %w:\n%s", waitErr, out.String())
	}
	res.cpu, res.peak = childUsage(cmd.ProcessState)
	if err := res.readLog(out.Bytes()); err != nil {
		return res, fmt.Errorf("%w:\n%s", err, out.String())
	}
	return res, nil
}

// readLog takes the figures of the sync's "sync finished" line from its
// JSON log.
func (res *childSync) readLog(log []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Message    string  `json:"message"`
			Kind       string  `json:"kind"`
			Requests   int     `json:"requests"`
			Listed     int     `json:"listed"`
			DurationMS float64 `json:"duration_ms"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Message != "sync finished" || line.Kind != "full" {
			continue
		}
		res.listed, res.requests = line.Listed, line.Requests
		res.duration = time.Duration(line.DurationMS * float64(time.Millisecond))
		return nil
	}
	return errors.New("sync: no \"sync finished\" line in its log")
}
