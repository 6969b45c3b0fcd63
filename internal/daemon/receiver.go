package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bankmirror/bankmirror/internal/receiver"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

// openReceiver loads the keys that authenticate deliveries and makes the
// receiver. The keys are every registered webhook's secret (and a deleted
// one's for an hour), the secret of a webhook made elsewhere
// (BANKMIRROR_WEBHOOK_SECRET), and whether a registration is storing a new
// secret. The receiver uses them from memory; a signature that matches no
// secret reloads them only after a commit (a registration from another
// process): strangers cost no read.
func (d *Daemon) openReceiver(ctx context.Context) error {
	d.keys = webhooks.NewSecretCache(d.Store, []byte(d.Config.WebhookSecret), 2*time.Second, d.Log)
	if err := d.peopleChanged(ctx); err != nil {
		return fmt.Errorf("load webhook secrets: %w", err)
	}
	d.Receiver = receiver.New(d.Store, receiver.Config{Path: d.Config.WebhookPath, Keys: d.keys, Notify: d.eventsStored,
		OnRefused: d.Metrics.Refused, Log: d.Log})
	return nil
}

// eventsStored counts new events, durable in the inbox, passes their ids
// on to OnEventsStored and wakes the worker.
func (d *Daemon) eventsStored(ids []string) {
	d.gcBurst.Begin()
	d.Metrics.Received(len(ids))
	if d.OnEventsStored != nil {
		d.OnEventsStored(ids)
	}
	d.Worker.Notify()
}

// startEvents starts, until ctx ends, what takes and applies webhook
// events: the receiver's writer, the secrets' watcher, the worker, and the
// receipts downloader if any.
func (d *Daemon) startEvents(ctx context.Context) error {
	if err := d.Receiver.Start(ctx); err != nil {
		return fmt.Errorf("start receiver: %w", err)
	}
	d.bg.Go(func() { d.keys.Run(ctx) })
	if d.Receipts != nil {
		d.bg.Go(func() { d.Receipts.Run(ctx) })
	}
	d.bg.Go(func() {
		if err := d.Worker.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			d.Log.Error().Err(err).Msg("worker stopped")
		}
	})
	return nil
}
