package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// sync against a bank it cannot reach gives up with one line saying so and
// naming the cause, rather than retrying for most of a minute.
func TestCLISyncUnreachableBank(t *testing.T) {
	old := unreachableWithin
	unreachableWithin = 1 // nanosecond: give up after the first attempt
	t.Cleanup(func() { unreachableWithin = old })
	url := stoppedBank(t)
	env := map[string]string{"BANKMIRROR_API_URL": url, "BANKMIRROR_TOKEN": cliToken,
		"BANKMIRROR_DB": filepath.Join(t.TempDir(), "m.db"), "BANKMIRROR_LOG_LEVEL": "error"}
	r := runCLI(t, env, "sync")
	wantCode(t, r, 1)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "bankmirror: ") || !strings.Contains(last, "the bank is unreachable (1 attempt in ") ||
		!strings.HasSuffix(last, "connection refused") {
		t.Errorf("want a last line saying the bank is unreachable, connection refused:\n%s", r)
	}
	noLeak(t, r, cliToken)
}
