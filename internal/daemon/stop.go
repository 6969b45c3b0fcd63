package daemon

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/receiver"
)

// StopBudget is the longest a stop may take, from SIGTERM to exit: below
// the systemd unit's TimeoutStopSec=30, past which systemd kills the
// daemon. Close spends it in three shares, one after the other. Stopping
// never waits for the bank: events are durable and applying them is
// idempotent, and a listing resumes from its checkpoint, so work cut
// short is done again after the restart.
const StopBudget = httpStopShare + workStopShare + storeStopShare

// The shares of StopBudget.
const (
	// httpStopShare: requests in flight (webhook deliveries, admin and
	// feed requests) are answered; then their connections are cut.
	httpStopShare = 5 * time.Second
	// workStopShare: the worker, the schedule's sync and heal, and every
	// loop of the daemon stop and are waited for.
	workStopShare = 10 * time.Second
	// storeStopShare: the daemon's last report is written and the store
	// closed.
	storeStopShare = 5 * time.Second
)

// workGrace is how long work in progress when the stop begins may go on:
// a worker round's commit, the bookkeeping of a stopped sync or heal. It
// is half of workStopShare; the rest is for what the parts do once cut
// off (a failed commit, a log line) and for waiting for them.
const workGrace = workStopShare / 2

// Close shuts down in order within StopBudget: the listeners (answering
// requests in flight) and the receiver's writer; the worker, the schedule
// and the loops; the store last. Closing again does nothing.
func (d *Daemon) Close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	start := time.Now()
	errs := d.stopServing(httpStopShare)
	d.stopWork(start.Add(httpStopShare + workStopShare))
	errs = append(errs, d.closeStore(start.Add(StopBudget)))
	return errors.Join(errs...)
}

// stopServing stops both listeners, waiting up to grace for requests in
// flight, then the receiver's writer.
func (d *Daemon) stopServing(grace time.Duration) []error {
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, srv := range []*httpserver.Server{d.admin, d.http, d.dashboard} {
		if srv == nil {
			continue
		}
		wg.Go(func() {
			err := srv.Shutdown(grace)
			mu.Lock()
			defer mu.Unlock()
			errs = append(errs, err)
		})
	}
	wg.Wait()
	if d.feed != nil {
		d.feed.Close()
	}
	if d.dash != nil {
		d.dash.Close()
	}
	if d.Receiver != nil {
		if err := d.Receiver.Close(); err != nil && !errors.Is(err, receiver.ErrClosed) {
			errs = append(errs, err)
		}
	}
	return errs
}

// stopWork cancels the daemon's background work and waits for it until
// deadline. Past it (a part that ignores its context: a bug) the store is
// closed under what still runs, as a kill would: nothing is lost.
func (d *Daemon) stopWork(deadline time.Time) {
	if d.cancel != nil {
		d.cancel()
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		if d.Schedule != nil {
			d.Schedule.Stop()
		}
		d.bg.Wait()
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-stopped:
	case <-t.C:
		d.Log.Error().Dur(logfield.StopShare, workStopShare).Msg("the worker, syncs or loops did not stop within their share of the stop budget; closing the store anyway")
	}
}

// closeStore writes the daemon's last report, by deadline, and closes the
// store.
func (d *Daemon) closeStore(deadline time.Time) error {
	if d.Store == nil {
		return nil
	}
	if d.Bank != nil && d.Worker != nil && d.Health != nil {
		// The last report says the daemon stopped, so that status does not
		// take it for running until the report ages.
		r := d.Report()
		r.Stopped, r.Sync = true, nil
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		_ = d.Store.PutState(ctx, health.ReportKey, r)
		cancel()
	}
	return d.Store.Close()
}
