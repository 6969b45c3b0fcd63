// Package daemon owns what `bankmirror serve` runs: it opens the store,
// the people's bank clients, the receiver, the worker, the schedule, the
// polls, the rules and alerts, the feeds, the dashboard and the admin
// listener, starts each, reloads the people, the rules and the feeds on
// SIGHUP, and stops them in stages within the unit's stop timeout. The
// command, the demo and the benchmarks run the same Daemon; its
// constructors (build.go) are also how the one-shot commands build a bank
// client, a household, the receipts downloader, the healer and the
// write-back people.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/admin"
	"github.com/bankmirror/bankmirror/internal/alerts"
	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/export"
	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/household"
	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/malloc"
	"github.com/bankmirror/bankmirror/internal/receipts"
	"github.com/bankmirror/bankmirror/internal/receiver"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/systemd"
	"github.com/bankmirror/bankmirror/internal/ui"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

// Daemon is what `serve` runs: the webhook receiver, the event worker and the sync
// schedule around one store. Tests run it on ":0" with Open and Close.
type Daemon struct {
	Config config.Config
	Log    zerolog.Logger
	// OnEventApplied, if set before Open, is called after the worker
	// applies each webhook event (tests and the demo watch it).
	OnEventApplied func(e store.InboxEvent, c store.Change)
	// OnEventsStored, if set before Open, is called with the ids of new
	// events right after their durable commit, when their deliveries are
	// acknowledged.
	OnEventsStored func(ids []string)
	// OnReceipts, if set before Open, is called after each pass of the
	// receipts downloader.
	OnReceipts func(receipts.Result, error)
	// OnRulesRound, if set before Open, is called after each round of the
	// rules engine.
	OnRulesRound func(error)
	// OnFeedRound, if set before Open, is called after each round of a
	// feed.
	OnFeedRound func(feed string, err error)
	// SyncProgress, if set before Open, receives the progress of syncs.
	SyncProgress func(replica.Progress)
	// InitialSyncDone is closed when the start-up sync (if any) is over.
	InitialSyncDone chan struct{}
	// Environ is the environment the tokens are read from again on a
	// reload (config.People); nil reads nothing new.
	Environ map[string]string
	// People, if set before Open, is the household; nil is a household
	// of one, the person config.DefaultPerson with Config.Token.
	People []config.Person
	// Reloads, if set before Run, delivers SIGHUP: each reloads the token.
	Reloads <-chan os.Signal
	// UnreachableWithin, if set before Open, is how long a request of the
	// daemon retries a bank it cannot reach before its sync fails
	// (bank.CommandUnreachableWithin when 0); OutageRetryBase is how soon
	// it syncs again after such a failure (replica.DefaultOutageRetryBase
	// when 0). Tests shorten them.
	UnreachableWithin time.Duration
	OutageRetryBase   time.Duration

	Store *store.Store
	// Household is the people and their clients; Bank is the first
	// person's client, for what needs one.
	Household *household.Household
	Bank      *bank.Client
	Receiver  *receiver.Receiver
	keys      *webhooks.SecretCache
	Worker    *replica.Worker
	Syncer    *replica.Syncer
	Healer    *replica.Healer
	Schedule  *replica.Schedule
	Receipts  *receipts.Fetcher // nil unless BANKMIRROR_ATTACHMENTS_DIR is set
	Health    *health.Monitor
	Metrics   *admin.Metrics
	// Rules applies the rules file as transactions arrive; Alerts delivers
	// what it and watcher (the built-in alerts) ask to be told.
	Rules  *rules.Engine
	Alerts *alerts.Dispatcher
	// Feeds feeds the budgeting apps of the feeds file.
	Feeds   *feeds.Engine
	watcher *alerts.Watcher

	http   *httpserver.Server
	admin  *httpserver.Server
	feed   *export.Feed // nil without BANKMIRROR_EXPORT_TOKEN
	closed bool         // Close has run
	// adminExposed is the admin listener's address when it is bound beyond
	// loopback, set before the reporter starts.
	adminExposed string

	// dashboard serves dash on BANKMIRROR_UI_LISTEN; both nil without it.
	dashboard *httpserver.Server
	dash      *ui.Handler

	bgCtx  context.Context    // lives until Close: the worker, syncs, loops
	cancel context.CancelFunc // ends bgCtx
	bg     sync.WaitGroup
	// progress is the last progress of a sync, for the daemon's report.
	progress atomic.Pointer[replica.Progress]
	// gcBurst raises GOGC from a delivery until the worker has caught up.
	gcBurst malloc.Burst
}

// New returns a daemon for cfg; Open starts it.
func New(cfg config.Config, log zerolog.Logger) *Daemon {
	return &Daemon{Config: cfg, Log: log, InitialSyncDone: make(chan struct{})}
}

// URL is the base URL the HTTP server listens on.
func (d *Daemon) URL() string { return d.http.URL() }

// AdminURL is the base URL of the admin listener, "" when it is off.
func (d *Daemon) AdminURL() string {
	if d.admin == nil {
		return ""
	}
	return d.admin.URL()
}

// Run opens the daemon, tells systemd it is ready, and serves until ctx is
// cancelled; then it shuts down in order.
func (d *Daemon) Run(ctx context.Context) error {
	if err := d.Open(ctx); err != nil {
		_ = d.Close()
		return err
	}
	if err := systemd.Notify("READY=1"); err != nil {
		d.Log.Warn().Err(err).Msg("notify systemd")
	}
	d.Log.Info().Str(logfield.Listen, strings.TrimPrefix(d.URL(), "http://")).Str(logfield.WebhookPath, d.Config.WebhookPath).
		Str(logfield.AdminListen, strings.TrimPrefix(d.AdminURL(), "http://")).Msg("bankmirror serving")
	for serving := true; serving; {
		select {
		case <-ctx.Done():
			serving = false
		case <-d.http.Stopped():
			d.Log.Error().Err(d.http.Err()).Msg("http server stopped")
			serving = false
		case <-d.Reloads:
			_ = d.Reload() // logged; a bad token file changes nothing
		}
	}
	_ = systemd.Notify("STOPPING=1")
	d.Log.Info().Msg("shutting down")
	return d.Close()
}

// Open opens the store, binds the listeners and starts every part, in
// steps: the parts are made first, then started, so that a listener that
// cannot bind stops the daemon before it syncs.
func (d *Daemon) Open(ctx context.Context) error {
	var err error
	if d.Store, err = OpenStore(ctx, d.Config, d.Config.DB, d.Log); err != nil {
		return err
	}
	// Commits that overwrite the WAL rather than lengthen it are durable
	// sooner: the webhook's acknowledgements wait for them.
	if _, err := d.Store.PrepareWAL(ctx); err != nil {
		d.Log.Warn().Err(err).Msg("prepare the mirror's WAL")
	}
	d.openHealth()
	if err := d.openHousehold(ctx); err != nil {
		return err
	}
	d.openBank()
	d.openSync()
	if err := d.openRules(ctx); err != nil {
		return err
	}
	if err := d.openFeeds(ctx); err != nil {
		return err
	}
	if err := d.openReceiver(ctx); err != nil {
		return err
	}
	d.bgCtx, d.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if err := d.startEvents(d.bgCtx); err != nil {
		return err
	}
	// The public listener faces the internet: its connections are capped,
	// in all and per source, so that one peer cannot crowd out the bank.
	// Loopback peers are exempt: a reverse proxy on this host brings every
	// client from 127.0.0.1 or ::1, and its own per-client limits apply.
	// Its only route is the receiver's POST on the webhook path.
	perSource := httpserver.PerSourceLimit(httpserver.DefaultMaxConnsPerSource, httpserver.PerSourceOptions{
		OnRefused: func() { d.Metrics.Refused(receiver.ReasonSourceConnections) }})
	limit := httpserver.LimitListener(httpserver.DefaultMaxConns)
	if d.http, err = httpserver.Start(ctx, "http server", d.Config.Listen, httpserver.New(d.Receiver.Handler()), perSource, limit); err != nil {
		return err
	}
	if err := d.Schedule.Start(d.bgCtx); err != nil {
		return err
	}
	d.startPolls()
	d.startRules()
	d.startFeeds()
	d.bg.Go(func() { d.Health.Run(d.bgCtx) })
	if err := d.openAdmin(ctx); err != nil {
		return err
	}
	if d.Config.UIListen != "" {
		if err := d.openDashboard(ctx); err != nil {
			return err
		}
	}
	// The report says where the admin listener is bound: it starts after.
	d.bg.Go(func() { health.RunReporter(d.bgCtx, d.Store, 2*time.Second, d.Report, d.Log) })
	return nil
}

// openHousehold makes the household of the configured people, each with
// a bank client of their own (their own budget), which reports its
// answers and its token's state to the metrics and the health monitor,
// and records them in the mirror.
func (d *Daemon) openHousehold(ctx context.Context) error {
	people := d.People
	if len(people) == 0 {
		people = []config.Person{{Name: config.DefaultPerson, Token: d.Config.Token}}
	}
	several := len(people) > 1
	within := d.UnreachableWithin
	if within == 0 {
		within = bank.CommandUnreachableWithin
	}
	d.Household = NewHousehold(d.Config, d.Store, d.Log, HouseholdOptions{
		Client: func(person string) ClientOptions {
			observe := d.Health.TokenChanged
			if several {
				observe = d.Health.PersonTokenChanged(person, config.TokenAdvice(d.Environ, person))
			}
			// A bank it cannot reach fails the sync within seconds; the
			// schedule syncs again soon (replica.ScheduleConfig.RetryBase).
			return ClientOptions{UnreachableWithin: within, OnResponse: d.Metrics.BankResponse, OnToken: observe}
		},
		Sync: replica.Options{Overlap: d.Config.SyncOverlap, StopGrace: workGrace,
			OnProgress: d.syncProgressed, AfterRun: d.syncEnded},
		PollInterval: d.Config.PollInterval,
		OnChange:     d.wakeWorker,
	})
	if err := d.Household.SetPeople(ctx, HouseholdPeople(people)); err != nil {
		return fmt.Errorf("record the household's people: %w", err)
	}
	d.Bank = d.Household.Primary()
	return nil
}

// wakeWorker wakes the worker after a person or a token changed: the
// events that waited for a rejected token are tried again.
func (d *Daemon) wakeWorker() {
	if d.Worker != nil {
		d.Worker.Notify()
	}
}

// startPolls polls the joint accounts, which get no webhook events, every
// BANKMIRROR_POLL_INTERVAL (not at all when it is 0).
func (d *Daemon) startPolls() {
	d.bg.Go(func() { d.Household.RunPoller(d.bgCtx) })
}

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

// openAdmin binds the admin listener (unless BANKMIRROR_ADMIN_LISTEN is
// off) with its routes (admin.Handler) and the spreadsheet feed when
// BANKMIRROR_EXPORT_TOKEN is set, and warns when it is bound beyond
// loopback.
func (d *Daemon) openAdmin(ctx context.Context) error {
	var extra []admin.Routes
	if d.Config.ExportToken != "" {
		feed, err := export.NewFeed(d.Store.Reader(), d.Config.ExportToken, export.FeedOptions{Location: d.Config.Location, Log: d.Log,
			TrustedProxies: d.Config.Proxies, OnRefused: d.Metrics.ExportRefused(export.RefusalReasons()...)})
		if err != nil {
			return err
		}
		d.feed = feed
		extra = append(extra, feed)
		if d.Config.AdminListen == config.AdminOff {
			d.Log.Warn().Msg("BANKMIRROR_EXPORT_TOKEN is set but the admin listener is off: no spreadsheet feed")
		}
	}
	if d.Config.AdminListen == config.AdminOff {
		return nil
	}
	var err error
	if d.admin, err = admin.Listen(ctx, d.Config.AdminListen, admin.Handler(d.Health, d.Metrics, extra...)); err != nil {
		return err
	}
	if addr := strings.TrimPrefix(d.admin.URL(), "http://"); admin.Exposed(addr) {
		d.adminExposed = addr
		d.Log.Warn().Str(logfield.AdminListen, addr).Msg("the admin listener is bound beyond loopback: /metrics, /readyz and the " +
			"spreadsheet feed are reachable from other machines; set BANKMIRROR_ADMIN_LISTEN to 127.0.0.1:PORT unless that is meant")
	}
	return nil
}

// openHealth makes the health monitor and the metrics. The monitor's write
// probe feeds systemd's watchdog (checking at least every 30 s, and twice
// per watchdog period), and its one-line state goes to `systemctl status`.
func (d *Daemon) openHealth() {
	every := 30 * time.Second
	wd := systemd.WatchdogInterval()
	if wd > 0 {
		every = min(every, wd)
	}
	d.Health = health.NewMonitor(health.MonitorConfig{
		Store:       d.Store,
		Token:       func() bank.TokenState { return d.Bank.Token() },
		People:      d.personStates,
		Syncing:     d.syncing,
		MaxAttempts: d.Config.EventMaxAttempts,
		Rules:       health.Rules{StaleAfter: d.Config.StaleAfter},
		Interval:    every,
		OnProbe: func(err error) {
			if err == nil && wd > 0 {
				_ = systemd.Notify("WATCHDOG=1")
			}
		},
		OnStatus: func(line string) { _ = systemd.Notify("STATUS=" + line) },
		Log:      d.Log,
	})
	d.Metrics = admin.NewMetrics(admin.StateSource{
		Health: d.Health.Current,
		Budget: func() bank.BudgetState { return d.Bank.Budget() },
		Token:  func() bank.TokenState { return d.Bank.Token() },
		People: d.personStates,
	})
}

// syncing describes the sync in progress, "" when none runs.
func (d *Daemon) syncing() string {
	if d.Schedule == nil || !d.Schedule.Running() {
		return ""
	}
	p := d.progress.Load()
	if p == nil {
		return "a sync is running"
	}
	s := fmt.Sprintf("a %s sync is running: %s transactions listed", p.Kind, health.Thousands(int64(p.Transactions)))
	if p.Covered >= 0 {
		s += fmt.Sprintf(", %.0f%% of the date range", 100*p.Covered)
	}
	return s
}

// Reload reads the rules file again (a bad one keeps the rules in use),
// then the tokens (BANKMIRROR_TOKENS_DIR, the credentials
// token.NAME, or the single token: config.People) and gives them to the
// household: a person added gets a client, one removed is dropped, a new
// token replaces the old, and syncs and webhook refetches paused by a
// rejected token resume at once. Tokens that cannot be read, or none at
// all, change nothing. SIGHUP calls it.
func (d *Daemon) Reload() error {
	d.reloadRules(context.Background())
	d.reloadFeeds(context.Background())
	people, err := config.People(d.Environ)
	if err == nil && len(people) == 0 {
		err = &config.Error{Var: config.Prefix + "TOKEN", Err: errors.New("not set: set BANKMIRROR_TOKEN_FILE to a file holding the token, or BANKMIRROR_TOKENS_DIR to a household's tokens")}
	}
	if err != nil {
		d.Log.Error().Err(err).Msg("reload: tokens not replaced")
		return err
	}
	d.Log.Info().Int(logfield.People, len(people)).Msg("reload: tokens read again")
	if err := d.Household.SetPeople(context.Background(), HouseholdPeople(people)); err != nil {
		d.Log.Error().Err(err).Msg("reload: record the household's people")
		return err
	}
	if err := d.peopleChanged(context.Background()); err != nil {
		d.Log.Warn().Err(err).Msg("reload: webhook secrets not read again; the people's ones loaded are kept")
	}
	return nil
}

// wakeReceipts wakes the receipts downloader, if any: a sync or an event
// may have brought new attachments, whose links expire in minutes.
func (d *Daemon) wakeReceipts() {
	if d.Receipts != nil {
		d.Receipts.Notify()
	}
}

// Report is what the daemon says of itself to `bankmirror status`.
func (d *Daemon) Report() health.Report {
	r := health.Report{PID: os.Getpid(), Budget: d.Bank.Budget(), Worker: d.Worker.State(), Token: d.Bank.Token(),
		AdminExposed: d.adminExposed, People: d.personStates()}
	if err := d.Health.Last().Facts.ProbeErr; err != nil {
		r.DatabaseError = err.Error()
	}
	if p := d.progress.Load(); p != nil && d.Schedule.Running() {
		r.Sync = p
	}
	return r
}

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

// Progress is the last progress of the sync in progress or, between the
// end of a sync and the start of the next, nothing (ok false).
func (d *Daemon) Progress() (p replica.Progress, ok bool) {
	if last := d.progress.Load(); last != nil {
		return *last, true
	}
	return replica.Progress{}, false
}
