package refusals

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/logfield"
)

// lines is a log destination that keeps its lines and signals each write.
type lines struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case l.wrote <- struct{}{}:
	default:
	}
	return l.buf.Write(p)
}

func (l *lines) parsed(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, s := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		if s == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("log line %q: %v", s, err)
		}
		out = append(out, m)
	}
	return out
}

// The first refusal of each reason is the caller's to log; the others are
// counted and summarised at the configured level, the known reasons first.
func TestNoteAndFlush(t *testing.T) {
	out := &lines{wrote: make(chan struct{}, 1)}
	l := New(Options{Log: zerolog.New(out), Level: zerolog.InfoLevel, Every: time.Hour,
		Reasons: []string{"b", "a"}, Message: "refused since the last report"})
	var firsts []string
	for _, r := range []string{"a", "a", "b", "zz", "b", "b", "y", "y", "zz"} {
		if l.Note(r) {
			firsts = append(firsts, r)
		}
	}
	if strings.Join(firsts, ",") != "a,b,zz,y" {
		t.Errorf("logged in full: %v, want the first of each reason", firsts)
	}
	if l.Quiet() {
		t.Error("quiet with refusals pending")
	}
	if got := out.parsed(t); len(got) != 0 {
		t.Fatalf("logged before the interval: %v", got)
	}
	l.Flush()
	got := out.parsed(t)
	if len(got) != 1 {
		t.Fatalf("%d lines after Flush, want one summary: %v", len(got), got)
	}
	s := got[0]
	if s["level"] != "info" || s["message"] != "refused since the last report" || s[logfield.Total] != float64(5) || s[logfield.Interval] != "1h0m0s" {
		t.Errorf("summary = %v", s)
	}
	out.mu.Lock()
	raw := out.buf.String()
	out.mu.Unlock()
	if !strings.Contains(raw, `"refused":{"b":2,"a":1,"y":1,"zz":1}`) {
		t.Errorf("counts not in order (listed reasons, then the others sorted): %s", raw)
	}
	if !l.Quiet() || !l.Note("a") {
		t.Error("after Flush, the next refusal is not logged in full")
	}
	l.Flush()
	if n := len(out.parsed(t)); n != 1 {
		t.Errorf("Flush with nothing counted wrote %d lines in all, want still 1", n)
	}
}

// While refusals keep coming a summary is written each interval without a
// Flush; an interval without any makes the log quiet.
func TestSummaryEachInterval(t *testing.T) {
	out := &lines{wrote: make(chan struct{}, 1)}
	l := New(Options{Log: zerolog.New(out), Level: zerolog.WarnLevel, Every: 5 * time.Millisecond, Message: "m"})
	t.Cleanup(l.Flush)
	for range 4 {
		l.Note("x")
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for !cond() {
			select {
			case <-out.wrote:
			case <-tick.C:
			case <-deadline:
				t.Fatalf("waiting for %s: %v", what, out.parsed(t))
			}
		}
	}
	wait("a summary of 3", func() bool {
		got := out.parsed(t)
		return len(got) == 1 && got[0][logfield.Total] == float64(3) && got[0]["level"] == "warn"
	})
	wait("the log to go quiet", l.Quiet)
	if !l.Note("x") {
		t.Error("after a quiet interval, a refusal is not logged in full")
	}
}
