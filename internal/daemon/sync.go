package daemon

import (
	"time"

	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// openBank makes the receipts downloader when BANKMIRROR_ATTACHMENTS_DIR
// is set.
func (d *Daemon) openBank() {
	if d.Config.AttachmentsDir != "" {
		// Each person's receipts through their own token.
		d.Receipts = NewReceipts(d.Config, d.Household, d.Store, d.Log, d.OnReceipts)
	}
}

// openSync makes the syncer, the healer, the event worker and the
// schedule that runs them, each stopping within its share of the stop
// budget.
func (d *Daemon) openSync() {
	d.Syncer = replica.New(d.Bank, d.Store, d.Log, replica.Options{Overlap: d.Config.SyncOverlap, StopGrace: workGrace,
		OnProgress: d.syncProgressed, AfterRun: d.syncEnded})
	d.Healer = NewHealer(d.Bank, d.Store, d.Log, d.healBank, workGrace)
	d.Worker = replica.NewWorker(d.Bank, d.Store, d.Log, replica.WorkerOptions{
		Concurrency: d.Config.WorkerConcurrency, MaxAttempts: d.Config.EventMaxAttempts, StopGrace: workGrace,
		OnApplied: d.eventApplied, OnIdle: d.gcBurst.End,
		// Each event's transaction is fetched through the token of a
		// person who sees its account, and only such a token's 404
		// deletes it.
		BankFor: d.Household.BankForEvent, MayDelete: d.Household.MayDelete, Gate: d.Household,
		RefreshBalances: d.Household.RefreshBalances,
	})
	d.Schedule = replica.NewSchedule(d.Household, d.Healer, d.Worker, d.Store, replica.ScheduleConfig{
		Sync: d.Config.SyncSchedule, Reconcile: d.Config.ReconcileSchedule, InboxRetention: d.Config.InboxRetention,
		OnRun: d.Metrics.SyncRun, StartupDone: d.InitialSyncDone, RetryBase: d.outageRetryBase(),
	}, d.Log)
}

// outageRetryBase is how soon the daemon syncs again after a sync the
// bank or the network failed.
func (d *Daemon) outageRetryBase() time.Duration {
	if d.OutageRetryBase == 0 {
		return replica.DefaultOutageRetryBase
	}
	return d.OutageRetryBase
}

// syncProgressed keeps a sync's progress for the daemon's report and
// passes it on to SyncProgress.
func (d *Daemon) syncProgressed(p replica.Progress) {
	d.progress.Store(&p)
	if d.SyncProgress != nil {
		d.SyncProgress(p)
	}
}

// syncEnded forgets the progress of the run that ended, so that it does
// not show as the next one's, and wakes the receipts downloader.
func (d *Daemon) syncEnded(replica.Result, error) {
	d.progress.Store(nil)
	d.wakeReceipts()
	if d.Rules != nil {
		d.Rules.Wake()
	}
	d.wakeFeeds()
}

// eventApplied counts an event the worker applied, wakes the receipts
// downloader and passes the event on to OnEventApplied.
func (d *Daemon) eventApplied(e store.InboxEvent, c store.Change) {
	d.wakeReceipts()
	if d.Rules != nil {
		d.Rules.Wake()
	}
	d.wakeFeeds()
	d.Metrics.Applied()
	if d.OnEventApplied != nil {
		d.OnEventApplied(e, c)
	}
}

// wakeReceipts wakes the receipts downloader, if any: a sync or an event
// may have brought new attachments, whose links expire in minutes.
func (d *Daemon) wakeReceipts() {
	if d.Receipts != nil {
		d.Receipts.Notify()
	}
}
