package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/replica"
)

// logLines is a log writer that hands each JSON line to a channel.
type logLines struct{ ch chan map[string]any }

func (l logLines) Write(p []byte) (int, error) {
	var m map[string]any
	if json.Unmarshal(p, &m) == nil {
		select {
		case l.ch <- m:
		default:
		}
	}
	return len(p), nil
}

// awaitLog waits for a log line that ok accepts, failing the test after a
// minute.
func awaitLog(t *testing.T, lines <-chan map[string]any, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case m := <-lines:
			if ok(m) {
				return m
			}
		case <-timeout:
			t.Fatalf("no log line: %s", what)
		}
	}
}

// plainHTTPBank is the URL of a bank that answers plain HTTP, given as
// https: the TLS handshake fails.
func plainHTTPBank(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(nil)
	t.Cleanup(srv.Close)
	return "https://" + strings.TrimPrefix(srv.URL, "http://") + "/api/v1"
}

// serve started against a bank it cannot reach says so in one line naming
// the cause, without waiting out most of a minute of retries, and syncs
// again in the background, backing off, rather than at the schedule's
// next tick (1000 h here); the outage it records says when it tries
// next, for status.
func TestServeStartupSyncUnreachableBank(t *testing.T) {
	cases := map[string]struct{ url, cause string }{
		"refused": {stoppedBank(t), "connection refused"},
		"dns":     {"http://bankmirror-test.invalid/api/v1", "lookup bankmirror-test.invalid"},
		"tls":     {plainHTTPBank(t), "http: server gave HTTP response to HTTPS client"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cfg, err := config.Load(map[string]string{
				"BANKMIRROR_API_URL":            c.url,
				"BANKMIRROR_TOKEN":              cliToken,
				"BANKMIRROR_DB":                 filepath.Join(t.TempDir(), "mirror.db"),
				"BANKMIRROR_LISTEN":             "127.0.0.1:0",
				"BANKMIRROR_ADMIN_LISTEN":       "127.0.0.1:0",
				"BANKMIRROR_SYNC_SCHEDULE":      "@every 1000h",
				"BANKMIRROR_RECONCILE_SCHEDULE": "@every 1000h",
			})
			must(t, err)
			lines := logLines{ch: make(chan map[string]any, 1000)}
			m := daemon.New(cfg, zerolog.New(io.Writer(lines)).Level(zerolog.InfoLevel))
			m.UnreachableWithin, m.OutageRetryBase = 1, 10*time.Millisecond // give up after one attempt; retry at once
			must(t, m.Open(context.Background()))
			t.Cleanup(func() {
				if err := m.Close(); err != nil {
					t.Error(err)
				}
			})
			line := awaitLog(t, lines.ch, "the start-up sync's failure", func(l map[string]any) bool {
				return l["message"] == "sync finished"
			})
			if msg, _ := line["error"].(string); line["level"] != "error" || !strings.Contains(msg, "the bank is unreachable (1 attempt in ") ||
				!strings.Contains(msg, c.cause) || strings.Contains(msg, cliToken) {
				t.Errorf("the start-up sync's line does not name the cause (%s): %v", c.cause, line)
			}
			// Retries, backing off, each announced with the cause.
			var waits []float64
			for len(waits) < 3 {
				l := awaitLog(t, lines.ch, "a retry", func(l map[string]any) bool {
					return l["message"] == "the bank or the network failed the sync; syncing again soon"
				})
				if msg, _ := l["error"].(string); !strings.Contains(msg, c.cause) {
					t.Errorf("retry line without the cause (%s): %v", c.cause, l)
				}
				w, _ := l["retry_in_ms"].(float64)
				waits = append(waits, w)
			}
			if !(waits[0] < waits[1] && waits[1] < waits[2]) {
				t.Errorf("waits between retries %v: want them growing", waits)
			}
			var o replica.Outage
			_, ok, err := m.Store.GetState(t.Context(), replica.OutageKey, &o)
			must(t, err)
			if !ok || o.Syncs < 3 || !strings.Contains(o.LastError, c.cause) {
				t.Errorf("outage recorded for status = %+v, want 3 syncs or more, %s", o, c.cause)
			}
		})
	}
}
