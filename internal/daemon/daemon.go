// Package daemon owns what `bankmirror serve` runs: it opens the store,
// the people's bank clients, the receiver, the worker, the schedule, the
// polls, the rules and alerts, the feeds, the dashboard and the admin
// listener, starts each, reloads the people, the rules and the feeds on
// SIGHUP, and stops them in stages within the unit's stop timeout. The
// command, the demo and the benchmarks run the same Daemon; its
// constructors (build.go) are also how the one-shot commands build a bank
// client, a household, the receipts downloader, the healer and the
// write-back people.
//
// A file per part: daemon.go (the Daemon, Open, Run, Reload, its report),
// people.go (the household and what the daemon knows per person), sync.go
// (the syncer, the healer, the worker, the schedule, receipts), receiver.go
// (the webhook receiver and its keys), admin.go (health, metrics, the admin
// listener and the spreadsheet feed), rules.go (rules and alerts), feeds.go
// (the feeds, and `feeds serve`), dashboard.go, stop.go (the staged stop
// within StopBudget), build.go (the constructors), ping.go.
package daemon

import (
	"context"
	"errors"
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
	// NoFeeds, if set before Open, leaves the feeds to another process
	// (`serve --no-feeds` beside `bankmirror feeds serve`): the daemon
	// neither reads the feeds file nor touches the feeds' state in the
	// mirror.
	NoFeeds bool
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
	// Opening migrates an older mirror, which takes minutes at a million
	// transactions (schema version 20 rewrites every row): systemd's start
	// timeout waits for it.
	stopExtending := systemd.ExtendStart(20*time.Second, "opening the mirror (a schema migration may take minutes; see the log)")
	d.Store, err = OpenStore(ctx, d.Config, d.Config.DB, d.Log)
	stopExtending()
	if err != nil {
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

// Progress is the last progress of the sync in progress or, between the
// end of a sync and the start of the next, nothing (ok false).
func (d *Daemon) Progress() (p replica.Progress, ok bool) {
	if last := d.progress.Load(); last != nil {
		return *last, true
	}
	return replica.Progress{}, false
}
