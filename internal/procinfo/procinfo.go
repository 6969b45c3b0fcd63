// Package procinfo reads what Linux's /proc says of a process: a memory
// figure of its status file and the CPU time it has used. The daemon's
// Actual client reports its child's, the benchmarks their processes'.
package procinfo

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// StatusPath is process pid's status file.
func StatusPath(pid int) string { return "/proc/" + strconv.Itoa(pid) + "/status" }

// StatusMiB reads a kB field (VmRSS, VmHWM, RssAnon) of a /proc/PID/status
// file, in MiB.
func StatusMiB(path, field string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				return 0, fmt.Errorf("%s %s: %w", path, field, err)
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("%s: no %s", path, field)
}

// CPU is the CPU time (user and system) process pid has used so far, 0
// when it cannot be read (the process ended, or no /proc).
func CPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// After the command's closing parenthesis: utime and stime are the
	// 12th and 13th fields, in clock ticks (100 a second).
	_, rest, ok := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * (time.Second / 100)
}
