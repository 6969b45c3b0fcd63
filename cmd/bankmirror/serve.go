package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/admin"
	"github.com/bankmirror/bankmirror/internal/alerts"
	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/cli"
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

func (a *app) serveCommand(env []cli.Var) *cli.Command {
	fs := newFlags("serve")
	noFeeds := fs.Bool("no-feeds", false, "feed no budgeting app (bankmirror-feeds.service runs `bankmirror feeds serve` beside it)")
	return &cli.Command{Name: "serve", Env: env, Synopsis: "[--no-feeds]", Flags: fs,
		Summary: "run the daemon: webhook receiver, event worker, sync schedule, feeds and admin listener",
		Detail:  "SIGTERM or SIGINT stops it cleanly (a second signal forces); SIGHUP reads the tokens, the rules file and the feeds file again.",
		Run: a.configured(func(ctx context.Context, args []string) error {
			return a.serve(ctx, !*noFeeds)
		})}
}

func (a *app) serve(ctx context.Context, withFeeds bool) error {
	people, err := a.members()
	if err != nil {
		return err
	}
	cfg := a.daemonConfig()
	if !withFeeds {
		cfg.FeedsFile, cfg.FeedsFileSet = "", false
	}
	m := NewDaemon(cfg, a.log)
	m.Environ = a.environ
	m.People = householdPeople(people)
	// SIGHUP (kill -HUP; systemctl reload, ExecReload=) reads the tokens again.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	m.Reloads = hup
	return m.Run(ctx)
}

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
	People []household.Person
	// Reloads, if set before Run, delivers SIGHUP: each reloads the token.
	Reloads <-chan os.Signal

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

// NewDaemon returns a daemon for cfg; Open starts it.
func NewDaemon(cfg config.Config, log zerolog.Logger) *Daemon {
	return &Daemon{Config: cfg, Log: log, InitialSyncDone: make(chan struct{})}
}

// URL is the base URL the HTTP server listens on.
func (m *Daemon) URL() string { return m.http.URL() }

// AdminURL is the base URL of the admin listener, "" when it is off.
func (m *Daemon) AdminURL() string {
	if m.admin == nil {
		return ""
	}
	return m.admin.URL()
}

// Run opens the daemon, tells systemd it is ready, and serves until ctx is
// cancelled; then it shuts down in order.
func (m *Daemon) Run(ctx context.Context) error {
	if err := m.Open(ctx); err != nil {
		_ = m.Close()
		return err
	}
	if err := systemd.Notify("READY=1"); err != nil {
		m.Log.Warn().Err(err).Msg("notify systemd")
	}
	m.Log.Info().Str(logfield.Listen, strings.TrimPrefix(m.URL(), "http://")).Str(logfield.WebhookPath, m.Config.WebhookPath).
		Str(logfield.AdminListen, strings.TrimPrefix(m.AdminURL(), "http://")).Msg("bankmirror serving")
	for serving := true; serving; {
		select {
		case <-ctx.Done():
			serving = false
		case <-m.http.Stopped():
			m.Log.Error().Err(m.http.Err()).Msg("http server stopped")
			serving = false
		case <-m.Reloads:
			_ = m.Reload() // logged; a bad token file changes nothing
		}
	}
	_ = systemd.Notify("STOPPING=1")
	m.Log.Info().Msg("shutting down")
	return m.Close()
}

// Open opens the store, binds the listeners and starts every part, in
// steps: the parts are made first, then started, so that a listener that
// cannot bind stops the daemon before it syncs.
func (m *Daemon) Open(ctx context.Context) error {
	var err error
	if m.Store, err = store.Open(ctx, m.Config.DB, storeOptions(m.Config, m.Log)...); err != nil {
		return openMirrorError(m.Config.DB, err)
	}
	// Commits that overwrite the WAL rather than lengthen it are durable
	// sooner: the webhook's acknowledgements wait for them.
	if _, err := m.Store.PrepareWAL(ctx); err != nil {
		m.Log.Warn().Err(err).Msg("prepare the mirror's WAL")
	}
	m.openHealth()
	if err := m.openHousehold(ctx); err != nil {
		return err
	}
	m.openBank()
	m.openSync()
	if err := m.openRules(ctx); err != nil {
		return err
	}
	if err := m.openFeeds(ctx); err != nil {
		return err
	}
	if err := m.openReceiver(ctx); err != nil {
		return err
	}
	m.bgCtx, m.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if err := m.startEvents(m.bgCtx); err != nil {
		return err
	}
	// The public listener faces the internet: its connections are capped,
	// in all and per source, so that one peer cannot crowd out the bank.
	// Loopback peers are exempt: a reverse proxy on this host brings every
	// client from 127.0.0.1 or ::1, and its own per-client limits apply.
	// Its only route is the receiver's POST on the webhook path.
	perSource := httpserver.PerSourceLimit(httpserver.DefaultMaxConnsPerSource, httpserver.PerSourceOptions{
		OnRefused: func() { m.Metrics.Refused(receiver.ReasonSourceConnections) }})
	limit := httpserver.LimitListener(httpserver.DefaultMaxConns)
	if m.http, err = startServer(ctx, m.Config.Listen, m.Receiver.Handler(), perSource, limit); err != nil {
		return err
	}
	if err := m.Schedule.Start(m.bgCtx); err != nil {
		return err
	}
	m.startPolls()
	m.startRules()
	m.startFeeds()
	m.bg.Go(func() { m.Health.Run(m.bgCtx) })
	if err := m.openAdmin(ctx); err != nil {
		return err
	}
	if m.Config.UIListen != "" {
		if err := m.openDashboard(ctx); err != nil {
			return err
		}
	}
	// The report says where the admin listener is bound: it starts after.
	m.bg.Go(func() { health.RunReporter(m.bgCtx, m.Store, 2*time.Second, m.report, m.Log) })
	return nil
}

// openHousehold makes the household of the configured people, each with
// a bank client of their own (their own budget), which reports its
// answers and its token's state to the metrics and the health monitor,
// and records them in the mirror.
func (m *Daemon) openHousehold(ctx context.Context) error {
	people := m.People
	if len(people) == 0 {
		people = []household.Person{{Name: config.DefaultPerson, Token: m.Config.Token}}
	}
	several := len(people) > 1
	m.Household = household.New(m.Store, m.Log, household.Options{
		NewClient: func(p household.Person) *bank.Client {
			observe := m.Health.TokenChanged
			if several {
				observe = m.Health.PersonTokenChanged(p.Name, tokenAdvice(m.Environ, p.Name))
			}
			return bank.New(m.Config.APIURL, p.Token, bank.WithHourlyBudget(m.Config.RequestsPerHour),
				bank.WithReserve(m.Config.BudgetReserve), bank.WithLogger(m.Log.With().Str(logfield.Person, p.Name).Logger()),
				bank.WithResponseObserver(m.Metrics.BankResponse), bank.WithTokenObserver(observe),
				// A bank it cannot reach fails the sync within seconds; the
				// schedule syncs again soon (replica.ScheduleConfig.RetryBase).
				bank.WithUnreachableWithin(unreachableWithin))
		},
		Sync: replica.Options{Overlap: m.Config.SyncOverlap, StopGrace: workGrace,
			OnProgress: m.syncProgressed, AfterRun: m.syncEnded},
		PollInterval: m.Config.PollInterval,
		OnChange:     m.wakeWorker,
	})
	if err := m.Household.SetPeople(ctx, people); err != nil {
		return fmt.Errorf("record the household's people: %w", err)
	}
	m.Bank = m.Household.Primary()
	return nil
}

// wakeWorker wakes the worker after a person or a token changed: the
// events that waited for a rejected token are tried again.
func (m *Daemon) wakeWorker() {
	if m.Worker != nil {
		m.Worker.Notify()
	}
}

// startPolls polls the joint accounts, which get no webhook events, every
// BANKMIRROR_POLL_INTERVAL (not at all when it is 0).
func (m *Daemon) startPolls() {
	m.bg.Go(func() { m.Household.RunPoller(m.bgCtx) })
}

// openBank makes the receipts downloader when BANKMIRROR_ATTACHMENTS_DIR
// is set.
func (m *Daemon) openBank() {
	if m.Config.AttachmentsDir != "" {
		// Each person's receipts through their own token.
		m.Receipts = receipts.New(m.Household, m.Store, m.Log, receipts.Options{Dir: m.Config.AttachmentsDir,
			MaxBytes: m.Config.AttachmentsMaxBytes, APIURL: m.Config.APIURL, OnPass: m.OnReceipts})
	}
}

// openSync makes the syncer, the healer, the event worker and the
// schedule that runs them, each stopping within its share of the stop
// budget.
func (m *Daemon) openSync() {
	m.Syncer = replica.New(m.Bank, m.Store, m.Log, replica.Options{Overlap: m.Config.SyncOverlap, StopGrace: workGrace,
		OnProgress: m.syncProgressed, AfterRun: m.syncEnded})
	m.Healer = replica.NewHealer(m.Bank, m.Store, m.Log, replica.HealerOptions{StopGrace: workGrace, BankFor: m.healBank})
	m.Worker = replica.NewWorker(m.Bank, m.Store, m.Log, replica.WorkerOptions{
		Concurrency: m.Config.WorkerConcurrency, MaxAttempts: m.Config.EventMaxAttempts, StopGrace: workGrace,
		OnApplied: m.eventApplied, OnIdle: m.gcBurst.End,
		// Each event's transaction is fetched through the token of a
		// person who sees its account, and only such a token's 404
		// deletes it.
		BankFor: m.Household.BankForEvent, MayDelete: m.Household.MayDelete, Gate: m.Household,
		RefreshBalances: m.Household.RefreshBalances,
	})
	m.Schedule = replica.NewSchedule(m.Household, m.Healer, m.Worker, m.Store, replica.ScheduleConfig{
		Sync: m.Config.SyncSchedule, Reconcile: m.Config.ReconcileSchedule, InboxRetention: m.Config.InboxRetention,
		OnRun: m.Metrics.SyncRun, StartupDone: m.InitialSyncDone, RetryBase: outageRetryBase,
	}, m.Log)
}

// outageRetryBase is how soon the daemon syncs again after a sync the
// bank or the network failed (tests shorten it).
var outageRetryBase = replica.DefaultOutageRetryBase

// syncProgressed keeps a sync's progress for the daemon's report and
// passes it on to SyncProgress.
func (m *Daemon) syncProgressed(p replica.Progress) {
	m.progress.Store(&p)
	if m.SyncProgress != nil {
		m.SyncProgress(p)
	}
}

// syncEnded forgets the progress of the run that ended, so that it does
// not show as the next one's, and wakes the receipts downloader.
func (m *Daemon) syncEnded(replica.Result, error) {
	m.progress.Store(nil)
	m.wakeReceipts()
	if m.Rules != nil {
		m.Rules.Wake()
	}
	m.wakeFeeds()
}

// eventApplied counts an event the worker applied, wakes the receipts
// downloader and passes the event on to OnEventApplied.
func (m *Daemon) eventApplied(e store.InboxEvent, c store.Change) {
	m.wakeReceipts()
	if m.Rules != nil {
		m.Rules.Wake()
	}
	m.wakeFeeds()
	m.Metrics.Applied()
	if m.OnEventApplied != nil {
		m.OnEventApplied(e, c)
	}
}

// openReceiver loads the keys that authenticate deliveries and makes the
// receiver. The keys are every registered webhook's secret (and a deleted
// one's for an hour), the secret of a webhook made elsewhere
// (BANKMIRROR_WEBHOOK_SECRET), and whether a registration is storing a new
// secret. The receiver uses them from memory; a signature that matches no
// secret reloads them only after a commit (a registration from another
// process): strangers cost no read.
func (m *Daemon) openReceiver(ctx context.Context) error {
	m.keys = webhooks.NewSecretCache(m.Store, []byte(m.Config.WebhookSecret), 2*time.Second, m.Log)
	if err := m.peopleChanged(ctx); err != nil {
		return fmt.Errorf("load webhook secrets: %w", err)
	}
	m.Receiver = receiver.New(m.Store, receiver.Config{Path: m.Config.WebhookPath, Keys: m.keys, Notify: m.eventsStored,
		OnRefused: m.Metrics.Refused, Log: m.Log})
	return nil
}

// eventsStored counts new events, durable in the inbox, passes their ids
// on to OnEventsStored and wakes the worker.
func (m *Daemon) eventsStored(ids []string) {
	m.gcBurst.Begin()
	m.Metrics.Received(len(ids))
	if m.OnEventsStored != nil {
		m.OnEventsStored(ids)
	}
	m.Worker.Notify()
}

// startEvents starts, until ctx ends, what takes and applies webhook
// events: the receiver's writer, the secrets' watcher, the worker, and the
// receipts downloader if any.
func (m *Daemon) startEvents(ctx context.Context) error {
	if err := m.Receiver.Start(ctx); err != nil {
		return fmt.Errorf("start receiver: %w", err)
	}
	m.bg.Go(func() { m.keys.Run(ctx) })
	if m.Receipts != nil {
		m.bg.Go(func() { m.Receipts.Run(ctx) })
	}
	m.bg.Go(func() {
		if err := m.Worker.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			m.Log.Error().Err(err).Msg("worker stopped")
		}
	})
	return nil
}

// openAdmin binds the admin listener (unless BANKMIRROR_ADMIN_LISTEN is
// off) with its routes (admin.Handler) and the spreadsheet feed when
// BANKMIRROR_EXPORT_TOKEN is set, and warns when it is bound beyond
// loopback.
func (m *Daemon) openAdmin(ctx context.Context) error {
	var extra []admin.Routes
	if m.Config.ExportToken != "" {
		feed, err := export.NewFeed(m.Store.Reader(), m.Config.ExportToken, export.FeedOptions{Location: m.Config.Location, Log: m.Log,
			TrustedProxies: m.Config.Proxies, OnRefused: m.Metrics.ExportRefused(export.RefusalReasons()...)})
		if err != nil {
			return err
		}
		m.feed = feed
		extra = append(extra, feed)
		if m.Config.AdminListen == config.AdminOff {
			m.Log.Warn().Msg("BANKMIRROR_EXPORT_TOKEN is set but the admin listener is off: no spreadsheet feed")
		}
	}
	if m.Config.AdminListen == config.AdminOff {
		return nil
	}
	var err error
	if m.admin, err = admin.Listen(ctx, m.Config.AdminListen, admin.Handler(m.Health, m.Metrics, extra...)); err != nil {
		return err
	}
	if addr := strings.TrimPrefix(m.admin.URL(), "http://"); admin.Exposed(addr) {
		m.adminExposed = addr
		m.Log.Warn().Str(logfield.AdminListen, addr).Msg("the admin listener is bound beyond loopback: /metrics, /readyz and the " +
			"spreadsheet feed are reachable from other machines; set BANKMIRROR_ADMIN_LISTEN to 127.0.0.1:PORT unless that is meant")
	}
	return nil
}

// openHealth makes the health monitor and the metrics. The monitor's write
// probe feeds systemd's watchdog (checking at least every 30 s, and twice
// per watchdog period), and its one-line state goes to `systemctl status`.
func (m *Daemon) openHealth() {
	every := 30 * time.Second
	wd := systemd.WatchdogInterval()
	if wd > 0 {
		every = min(every, wd)
	}
	m.Health = health.NewMonitor(health.MonitorConfig{
		Store:       m.Store,
		Token:       func() bank.TokenState { return m.Bank.Token() },
		People:      m.personStates,
		Syncing:     m.syncing,
		MaxAttempts: m.Config.EventMaxAttempts,
		Rules:       health.Rules{StaleAfter: m.Config.StaleAfter},
		Interval:    every,
		OnProbe: func(err error) {
			if err == nil && wd > 0 {
				_ = systemd.Notify("WATCHDOG=1")
			}
		},
		OnStatus: func(line string) { _ = systemd.Notify("STATUS=" + line) },
		Log:      m.Log,
	})
	m.Metrics = admin.NewMetrics(admin.StateSource{
		Health: m.Health.Current,
		Budget: func() bank.BudgetState { return m.Bank.Budget() },
		Token:  func() bank.TokenState { return m.Bank.Token() },
		People: m.personStates,
	})
}

// syncing describes the sync in progress, "" when none runs.
func (m *Daemon) syncing() string {
	if m.Schedule == nil || !m.Schedule.Running() {
		return ""
	}
	p := m.progress.Load()
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
func (m *Daemon) Reload() error {
	m.reloadRules(context.Background())
	m.reloadFeeds(context.Background())
	people, err := config.People(m.Environ)
	if err == nil && len(people) == 0 {
		err = &config.Error{Var: config.Prefix + "TOKEN", Err: errors.New("not set: set BANKMIRROR_TOKEN_FILE to a file holding the token, or BANKMIRROR_TOKENS_DIR to a household's tokens")}
	}
	if err != nil {
		m.Log.Error().Err(err).Msg("reload: tokens not replaced")
		return err
	}
	m.Log.Info().Int(logfield.People, len(people)).Msg("reload: tokens read again")
	if err := m.Household.SetPeople(context.Background(), householdPeople(people)); err != nil {
		m.Log.Error().Err(err).Msg("reload: record the household's people")
		return err
	}
	if err := m.peopleChanged(context.Background()); err != nil {
		m.Log.Warn().Err(err).Msg("reload: webhook secrets not read again; the people's ones loaded are kept")
	}
	return nil
}

// wakeReceipts wakes the receipts downloader, if any: a sync or an event
// may have brought new attachments, whose links expire in minutes.
func (m *Daemon) wakeReceipts() {
	if m.Receipts != nil {
		m.Receipts.Notify()
	}
}

// report is what the daemon says of itself to `bankmirror status`.
func (m *Daemon) report() health.Report {
	r := health.Report{PID: os.Getpid(), Budget: m.Bank.Budget(), Worker: m.Worker.State(), Token: m.Bank.Token(),
		AdminExposed: m.adminExposed, People: m.personStates()}
	if err := m.Health.Last().Facts.ProbeErr; err != nil {
		r.DatabaseError = err.Error()
	}
	if p := m.progress.Load(); p != nil && m.Schedule.Running() {
		r.Sync = p
	}
	return r
}

// stopBudget is the longest a stop may take, from SIGTERM to exit: below
// the systemd unit's TimeoutStopSec=30, past which systemd kills the
// daemon. Close spends it in three shares, one after the other. Stopping
// never waits for the bank: events are durable and applying them is
// idempotent, and a listing resumes from its checkpoint, so work cut
// short is done again after the restart.
const stopBudget = httpStopShare + workStopShare + storeStopShare

// The shares of stopBudget.
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

// Close shuts down in order within stopBudget: the listeners (answering
// requests in flight) and the receiver's writer; the worker, the schedule
// and the loops; the store last. Closing again does nothing.
func (m *Daemon) Close() error {
	if m.closed {
		return nil
	}
	m.closed = true
	start := time.Now()
	errs := m.stopServing(httpStopShare)
	m.stopWork(start.Add(httpStopShare + workStopShare))
	errs = append(errs, m.closeStore(start.Add(stopBudget)))
	return errors.Join(errs...)
}

// stopServing stops both listeners, waiting up to grace for requests in
// flight, then the receiver's writer.
func (m *Daemon) stopServing(grace time.Duration) []error {
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, srv := range []*httpserver.Server{m.admin, m.http, m.dashboard} {
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
	if m.feed != nil {
		m.feed.Close()
	}
	if m.dash != nil {
		m.dash.Close()
	}
	if m.Receiver != nil {
		if err := m.Receiver.Close(); err != nil && !errors.Is(err, receiver.ErrClosed) {
			errs = append(errs, err)
		}
	}
	return errs
}

// stopWork cancels the daemon's background work and waits for it until
// deadline. Past it (a part that ignores its context: a bug) the store is
// closed under what still runs, as a kill would: nothing is lost.
func (m *Daemon) stopWork(deadline time.Time) {
	if m.cancel != nil {
		m.cancel()
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		if m.Schedule != nil {
			m.Schedule.Stop()
		}
		m.bg.Wait()
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-stopped:
	case <-t.C:
		m.Log.Error().Dur(logfield.StopShare, workStopShare).Msg("the worker, syncs or loops did not stop within their share of the stop budget; closing the store anyway")
	}
}

// closeStore writes the daemon's last report, by deadline, and closes the
// store.
func (m *Daemon) closeStore(deadline time.Time) error {
	if m.Store == nil {
		return nil
	}
	if m.Bank != nil && m.Worker != nil && m.Health != nil {
		// The last report says the daemon stopped, so that status does not
		// take it for running until the report ages.
		r := m.report()
		r.Stopped, r.Sync = true, nil
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		_ = m.Store.PutState(ctx, health.ReportKey, r)
		cancel()
	}
	return m.Store.Close()
}
