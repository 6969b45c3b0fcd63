package replica_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// syncBuffer is a log destination safe for the worker's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// An inbox row with an overlong id (written before the parser refused such
// ids) that fails is logged with its ids shortened: no line carries more
// than about a hundred bytes of either.
func TestWorkerLogsNoOverlongID(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	longID := strings.Repeat("e", 60000)
	nulTx := "t\x00" + strings.Repeat("x", 200)
	fb := &fakeBank{TransactionFn: func(_ context.Context, id string) (bank.Transaction, error) {
		return bank.Transaction{}, fmt.Errorf("get: %w: missing id", bank.ErrDecode)
	}}
	failed := make(chan struct{}, 1)
	var logs syncBuffer
	w := replica.NewWorker(fb, st, zerolog.New(&logs), replica.WorkerOptions{MaxAttempts: 1,
		OnFailed: func(store.InboxEvent, error) {
			select {
			case failed <- struct{}{}:
			default:
			}
		}})
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(wctx); err != nil {
			t.Error(err)
		}
	}()
	if _, err := st.InsertEvents(ctx, []store.InboxEvent{inboxEvent(longID, bank.EventTransactionCreated, nulTx)}); err != nil {
		t.Fatal(err)
	}
	w.Notify()
	select {
	case <-failed:
	case <-time.After(30 * time.Second):
		t.Fatal("the event never failed")
	}
	cancel()
	<-done
	out := logs.String()
	if !strings.Contains(out, `"event_id":"`+strings.Repeat("e", 64)+`...(60000 bytes)"`) ||
		!strings.Contains(out, `"transaction_id":"t?`+strings.Repeat("x", 62)+`...(202 bytes)"`) {
		t.Errorf("the failure is not logged with its ids shortened:\n%.2000s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if len(line) > 1000 || strings.Contains(line, strings.Repeat("e", 101)) || strings.Contains(line, `\u0000`) {
			t.Errorf("log line of %d bytes carries an overlong or unprintable id: %.300s", len(line), line)
		}
	}
}
