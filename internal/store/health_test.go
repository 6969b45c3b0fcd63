package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// The read-only store opens an existing mirror without creating or
// changing anything, and refuses writes.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "absent.db")
	if _, err := OpenReadOnly(ctx, missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing mirror: %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Error("OpenReadOnly created the file")
	}
	s, _ := mustOpen(t)
	if _, err := s.UpsertTransactions(ctx, []bank.Transaction{tx("t1", "HELD", -450)}); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(ctx, s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if h, err := ro.OldestHeld(ctx); err != nil || h == nil || h.ID != "t1" || h.Description != "Coffee t1" {
		t.Errorf("oldest held = %+v, %v", h, err)
	}
	if err := ro.PutState(ctx, "x", 1); err == nil {
		t.Error("a write through the read-only store succeeded")
	}
	if err := ro.ProbeWrite(ctx); err == nil {
		t.Error("the write probe passed on a read-only store")
	}
	if err := s.ProbeWrite(ctx); err != nil {
		t.Errorf("write probe: %v", err)
	}
	if err := s.ReleaseMemory(ctx); err != nil {
		t.Errorf("release memory: %v", err)
	}
	if n, err := s.CountTransactions(ctx); err != nil || n != 1 {
		t.Errorf("after releasing memory: %d, %v", n, err)
	}
}

func TestHealthQueries(t *testing.T) {
	ctx := context.Background()
	s, c := mustOpen(t)
	for _, kind := range []string{"full", "incremental", "incremental"} {
		id, err := s.StartRun(ctx, kind)
		if err != nil {
			t.Fatal(err)
		}
		c.advance()
		if err := s.FinishRun(ctx, id, 1, 0, 0, nil); err != nil {
			t.Fatal(err)
		}
	}
	id, _ := s.StartRun(ctx, "incremental")
	c.advance()
	_ = s.FinishRun(ctx, id, 1, 0, 0, errors.New("boom"))
	runs, err := s.LastSuccessfulRuns(ctx, "incremental", "full")
	if err != nil || len(runs) != 2 || !runs["full"].Equal(time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)) ||
		!runs["incremental"].Equal(time.Date(2026, 1, 2, 3, 4, 8, 0, time.UTC)) {
		t.Errorf("last successful runs = %v, %v", runs, err)
	}

	_, err = s.InsertEvents(ctx, []InboxEvent{
		{ID: "e1", EventType: "TRANSACTION_CREATED", WebhookID: "w", TransactionID: "t1", CreatedAt: "2026-01-01T10:00:00+11:00", Body: "{}"},
		{ID: "e2", EventType: "TRANSACTION_CREATED", WebhookID: "w", TransactionID: "t2", CreatedAt: "2026-01-01T10:00:00+11:00", Body: "{}"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := s.FailEvents(ctx, []string{"e2"}, errors.New("bad"), c.now()); err != nil {
			t.Fatal(err)
		}
	}
	ih, err := s.InboxHealth(ctx, 3)
	if err != nil || ih.Pending != 1 || ih.Stuck != 1 || ih.OldestPending.IsZero() {
		t.Errorf("inbox health = %+v, %v", ih, err)
	}

	code := 502
	_, err = s.SaveDeliveryLogs(ctx, []DeliveryLog{
		{ID: "l1", WebhookID: "w", EventID: "e1", DeliveryStatus: "BAD_RESPONSE_CODE", StatusCode: &code, CreatedAt: "2026-01-02T14:00:00+11:00", RequestBody: "{}"},
		{ID: "l2", WebhookID: "w", EventID: "e1", DeliveryStatus: "DELIVERED", CreatedAt: "2026-01-02T14:01:00+11:00", RequestBody: "{}"},
		{ID: "l3", WebhookID: "w", EventID: "e3", DeliveryStatus: "UNDELIVERABLE", CreatedAt: "2026-01-02T14:02:00+11:00", RequestBody: "{}"},
		{ID: "l4", WebhookID: "w", EventID: "e4", DeliveryStatus: "BAD_RESPONSE_CODE", StatusCode: &code, CreatedAt: "2026-01-02T14:03:00+11:00", RequestBody: "{}"},
		{ID: "l5", WebhookID: "w", EventID: "e5", DeliveryStatus: "UNDELIVERABLE", CreatedAt: "2025-12-01T14:03:00+11:00", RequestBody: "{}"},
	})
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.UndeliveredSince(ctx, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil || u.Events != 2 || u.LastStatus != "BAD_RESPONSE_CODE" || u.LastCode == nil || *u.LastCode != 502 ||
		!u.Last.Equal(time.Date(2026, 1, 2, 3, 3, 0, 0, time.UTC)) {
		t.Errorf("undelivered = %+v, %v", u, err)
	}
	if n, err := s.CountTransactions(ctx); err != nil || n != 0 {
		t.Errorf("count = %d, %v", n, err)
	}
	if h, err := s.HealState(ctx); err != nil || h.Webhooks != 0 {
		t.Errorf("heal state = %+v, %v", h, err)
	}
}
