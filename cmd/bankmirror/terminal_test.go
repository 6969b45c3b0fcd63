package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/replica"
)

// On a terminal, a log line written while a sync's progress shows clears
// the progress line first and draws it again after: the two never run
// together (…10253 tx/s05:08:18 INF sync finished).
func TestLogLinesDoNotRunIntoTheProgressLine(t *testing.T) {
	var out bytes.Buffer
	line := &statusLine{w: &out}
	log := newLogger(config.Config{LogLevel: "info", LogFormat: "json"}, line)
	pl := &progressLine{line: line}

	pl.show(replica.Progress{Kind: "full", Pages: 3, Transactions: 300, Covered: -1})
	log.Info().Msg("sync progress")
	pl.pr = replica.Progress{Kind: "full", Pages: 1, Transactions: 1, Covered: -1}
	pl.draw("") // show draws at most every 100 ms
	pl.done()
	log.Info().Msg("sync finished")

	got := out.String()
	progress := "full sync: 3 pages, 300 transactions"
	// The progress, erased, the log line at the start of a line, the
	// progress again, erased at the end; then a log line on its own.
	want := []string{clearLine + progress, clearLine, `{"level":"info"`, `"message":"sync progress"}` + "\n", progress,
		clearLine + "full sync: 1 page, 1 transaction, ", clearLine,
		`{"level":"info"`, `"message":"sync finished"}` + "\n"}
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("output lacks %q in order:\n%q", w, got)
		}
		rest = rest[i+len(w):]
	}
	if rest != "" {
		t.Errorf("output after the last log line: %q", rest)
	}
	// Every log line starts where the line was erased (or at the start).
	for _, l := range strings.SplitAfter(got, "\n") {
		if i := strings.Index(l, `{"level"`); i >= 0 {
			prefix := l[:i]
			if k := strings.LastIndex(prefix, clearLine); k >= 0 {
				prefix = prefix[k+len(clearLine):]
			}
			if strings.Contains(prefix, "tx/s") || strings.Contains(prefix, "transactions") {
				t.Errorf("a log line runs on from the progress: %q", l)
			}
		}
	}
}

// Without a progress line, log lines pass through unchanged.
func TestStatusLineWithoutStatusPassesLinesThrough(t *testing.T) {
	var out bytes.Buffer
	line := &statusLine{w: &out}
	if _, err := line.Write([]byte("one\n")); err != nil {
		t.Fatal(err)
	}
	line.clear()
	if got := out.String(); got != "one\n" {
		t.Errorf("output = %q, want %q", got, "one\n")
	}
}
