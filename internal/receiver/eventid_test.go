package receiver

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
)

// Signed events whose id is not the bank's shape (60,000 characters, a NUL)
// are refused at parse time with 400, stored nowhere, and the refusal's
// log line stays short.
func TestOverlongOrUnprintableEventIDsAreRefused(t *testing.T) {
	for _, tc := range []struct{ name, id, txID string }{
		{"id of 60,000 characters", strings.Repeat("a", 60000), "tx-1"},
		{"id with NUL", "ev\x00-1", "tx-1"},
		{"transaction id of 30,000 characters", "ev-1", strings.Repeat("t", 30000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := mustOpenStore(t)
			var buf bytes.Buffer
			var mu sync.Mutex
			r := New(st, Config{Keys: newSecretSet(secretA),
				Log: zerolog.New(&lockedWriter{w: &buf, mu: &mu}).Level(zerolog.DebugLevel)})
			if err := r.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			body := eventBody(tc.id, "TRANSACTION_CREATED", tc.txID)
			rec := post(r.Handler(), body, sign(body, secretA))
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if rec.Code != 400 {
				t.Errorf("status %d, want 400", rec.Code)
			}
			if n := countRows(t, st, ""); n != 0 {
				t.Errorf("%d events stored", n)
			}
			mu.Lock()
			out := buf.String()
			mu.Unlock()
			if !strings.Contains(out, "not an identifier of the bank") {
				t.Errorf("the refusal does not say why:\n%.500s", out)
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if len(line) > 600 || strings.Contains(line, `\u0000`) {
					t.Errorf("log line of %d bytes: %.300s", len(line), line)
				}
			}
		})
	}
}
