package daemon

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/apps"
	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/household"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/receipts"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/webhooks"
	"github.com/bankmirror/bankmirror/internal/writeback"
)

// One way to build each thing: the daemon and the one-shot commands (sync,
// webhook, write-back, rules apply, feeds, ping) build the store, a
// person's bank client, the household, the receipts downloader, the healer,
// the write-back people and the feeds' engine here, from the configuration.

// OpenStore opens the mirror at path with the store options the
// configuration sets (its zone, the copy kept before a migration); the
// store logs to log.
func OpenStore(ctx context.Context, cfg config.Config, path string, log zerolog.Logger) (*store.Store, error) {
	s, err := store.Open(ctx, path, storeOptions(cfg, log)...)
	if err != nil {
		return nil, openMirrorError(path, err)
	}
	return s, nil
}

// storeOptions are the store options the configuration sets.
func storeOptions(c config.Config, log zerolog.Logger) []store.Option {
	opts := []store.Option{store.WithMigrationBackup(c.MigrationBackup != "off"), store.WithLogger(log)}
	if c.Location != nil {
		opts = append(opts, store.WithTimeZone(c.Location))
	} // else not loaded: the store's default zone
	return opts
}

// openMirrorError is the error of opening the mirror at path; when the copy
// kept before a migration failed, it says what to do.
func openMirrorError(path string, err error) error {
	if errors.Is(err, store.ErrMigrationBackup) {
		return fmt.Errorf("open mirror %s: %w (the mirror is unchanged and not migrated: fix this, e.g. free space beside it, or set %sMIGRATION_BACKUP=off to migrate without a copy)",
			path, err, config.Prefix)
	}
	return fmt.Errorf("open mirror %s: %w", path, err)
}

// ClientOptions are what differs between the bank clients of the daemon
// and of the commands, on purpose.
type ClientOptions struct {
	// UnreachableWithin bounds the retries of a request that finds the
	// bank unreachable (bank.WithUnreachableWithin): a command says so
	// within seconds, and so does the daemon's sync, which its schedule
	// retries soon. 0 is no bound (ping caps its attempts instead).
	UnreachableWithin time.Duration
	// MaxAttempts, if not 0, caps a request's attempts: a person waits
	// for ping's answer.
	MaxAttempts int
	// OnResponse and OnToken observe the bank's answers and the token's
	// state: the daemon's metrics and health monitor.
	OnResponse func(status int)
	OnToken    func(bank.TokenState)
}

// BankClient is person's bank client with token: the configured bank, the
// person's own request budget (BANKMIRROR_REQUESTS_PER_HOUR, _BUDGET_RESERVE)
// and a logger naming the person (none for "").
func BankClient(cfg config.Config, person, token string, log zerolog.Logger, o ClientOptions) *bank.Client {
	if person != "" {
		log = log.With().Str(logfield.Person, person).Logger()
	}
	opts := []bank.Option{bank.WithHourlyBudget(cfg.RequestsPerHour), bank.WithReserve(cfg.BudgetReserve), bank.WithLogger(log)}
	if o.UnreachableWithin != 0 {
		opts = append(opts, bank.WithUnreachableWithin(o.UnreachableWithin))
	}
	if o.MaxAttempts != 0 {
		opts = append(opts, bank.WithMaxAttempts(o.MaxAttempts))
	}
	if o.OnResponse != nil {
		opts = append(opts, bank.WithResponseObserver(o.OnResponse))
	}
	if o.OnToken != nil {
		opts = append(opts, bank.WithTokenObserver(o.OnToken))
	}
	return bank.New(cfg.APIURL, token, opts...)
}

// PersonClient is a person's bank client.
type PersonClient struct {
	Name   string
	Client *bank.Client
}

// PersonClients are a client of each of people, built by BankClient.
func PersonClients(cfg config.Config, people []config.Person, log zerolog.Logger, o ClientOptions) []PersonClient {
	out := make([]PersonClient, len(people))
	for i, p := range people {
		out[i] = PersonClient{Name: p.Name, Client: BankClient(cfg, p.Name, p.Token, log, o)}
	}
	return out
}

// HouseholdOptions are what differs between the daemon's household and a
// command's.
type HouseholdOptions struct {
	// Sync are the options of each person's syncs.
	Sync replica.Options
	// PollInterval polls the joint accounts (0: never; a command does not
	// poll).
	PollInterval time.Duration
	// Client are the options of person's client.
	Client func(person string) ClientOptions
	// OnChange is called after a person or a token changed.
	OnChange func()
}

// NewHousehold is the household over st, each person with a client of
// their own (their own budget) built by BankClient.
func NewHousehold(cfg config.Config, st *store.Store, log zerolog.Logger, o HouseholdOptions) *household.Household {
	return household.New(st, log, household.Options{
		NewClient: func(p household.Person) *bank.Client {
			var co ClientOptions
			if o.Client != nil {
				co = o.Client(p.Name)
			}
			return BankClient(cfg, p.Name, p.Token, log, co)
		},
		Sync: o.Sync, PollInterval: o.PollInterval, OnChange: o.OnChange,
	})
}

// HouseholdPeople are the configured people as the household takes them.
func HouseholdPeople(people []config.Person) []household.Person {
	out := make([]household.Person, len(people))
	for i, p := range people {
		out[i] = household.Person{Name: p.Name, Token: p.Token}
	}
	return out
}

// NewReceipts is the downloader of receipts' files into
// BANKMIRROR_ATTACHMENTS_DIR, through client (a household: each person's
// receipts through their own token); onPass, if set, is called after each
// pass.
func NewReceipts(cfg config.Config, client receipts.Bank, st *store.Store, log zerolog.Logger, onPass func(receipts.Result, error)) *receipts.Fetcher {
	return receipts.New(client, st, log, receipts.Options{Dir: cfg.AttachmentsDir, MaxBytes: cfg.AttachmentsMaxBytes,
		APIURL: cfg.APIURL, OnPass: onPass})
}

// NewHealer is the healer of missed deliveries through client, reading
// each person's delivery logs through bankFor. stopGrace is the daemon's
// share of its stop budget; 0 for a command.
func NewHealer(client replica.HealBank, st *store.Store, log zerolog.Logger, bankFor func(person string) replica.HealBank, stopGrace time.Duration) *replica.Healer {
	return replica.NewHealer(client, st, log, replica.HealerOptions{StopGrace: stopGrace, BankFor: bankFor})
}

// Webhooks are the managers of people's webhooks over st, each through
// the person's own client, with a healer of their own that reads each
// person's delivery logs through that person's client.
func Webhooks(st *store.Store, people []PersonClient, log zerolog.Logger) webhooks.Household {
	byName := map[string]*bank.Client{}
	for _, p := range people {
		byName[p.Name] = p.Client
	}
	bankFor := func(person string) replica.HealBank {
		if c, ok := byName[person]; ok {
			return c
		}
		return nil
	}
	var all webhooks.Household
	for _, p := range people {
		all = append(all, webhooks.NewFor(p.Name, p.Client, st, NewHealer(p.Client, st, log, bankFor, 0), log))
	}
	return all
}

// WritebackPeople are people as write-back takes them: each change goes
// through the token of a person who sees its account.
func WritebackPeople(people []PersonClient) []writeback.Person {
	out := make([]writeback.Person, len(people))
	for i, p := range people {
		out[i] = writeback.Person{Name: p.Name, Bank: p.Client}
	}
	return out
}

// FeedsDir is where the feeds keep their files: beside the mirror db.
func FeedsDir(db string) string { return filepath.Join(filepath.Dir(db), "feeds") }

// AppPrograms are the programs the feeds' apps run, as configured.
func AppPrograms(cfg config.Config) apps.Programs { return apps.Programs{Node: cfg.Node, NPM: cfg.NPM} }

// NewFeedEngine is the engine over st feeding the apps of f.
func NewFeedEngine(cfg config.Config, st *store.Store, f *feeds.File, log zerolog.Logger) *feeds.Engine {
	return feeds.NewEngine(st, apps.All(AppPrograms(cfg)), f, FeedsDir(cfg.DB), log)
}

// StatusOptions are the rules status applies with the configuration c,
// which the dashboard's health line applies too.
func StatusOptions(c config.Config) health.StatusOptions {
	return health.StatusOptions{
		MaxAttempts: c.EventMaxAttempts,
		Rules:       healthRules(c),
		PIDAlive:    pidAlive,
	}
}

// healthRules are the health rules of the configuration c: what status,
// the dashboard, the watchdog and the health alerts apply.
func healthRules(c config.Config) health.Rules {
	return health.Rules{StaleAfter: c.StaleAfter, Zone: c.Location}
}
