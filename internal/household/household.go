// Package household keeps one mirror of a household: several people, each
// with their own token and so their own client and request budget, whose
// accounts are stored once each (a 2Up joint account both see included).
// It knows which token lists which account, chooses for each account a
// token that sees it and has budget left, runs the syncs of every person
// through internal/replica, and polls the accounts the bank sends no
// webhook events for (joint accounts).
package household

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Person is a person of the household: their name (people.name) and
// their token.
type Person struct {
	Name  string
	Token string
}

// Store is what the household needs of the store.
type Store interface {
	UpsertPerson(ctx context.Context, p store.PersonUpdate) error
	PersonSynced(ctx context.Context, name string) error
	People(ctx context.Context) ([]store.Person, error)
	ClaimSingleTokenMirror(ctx context.Context, person string) (bool, error)
	RecordPersonAccounts(ctx context.Context, person string, accountIDs []string) error
	AccountsWithPeople(ctx context.Context) ([]store.AccountPeople, error)
	LearnDisplayNames(ctx context.Context) ([]string, error)
	OtherPeopleSeen(ctx context.Context, person string) (bool, error)
	AccountEdgesOf(ctx context.Context, account string) (store.AccountEdges, error)
	BalanceOlder(ctx context.Context, account string) (bool, error)
	HeldTransactionAccounts(ctx context.Context) (map[string]string, error)
	WebhookPeople(ctx context.Context) (map[string]string, error)
	TransactionAccounts(ctx context.Context, ids []string) (map[string]store.TxAccount, error)
	UpsertAccounts(ctx context.Context, accounts []bank.Account) (int, error)
	GetState(ctx context.Context, key string, v any) (time.Time, bool, error)
	PutState(ctx context.Context, key string, v any) error
}

var _ Store = (*store.Store)(nil)

// Options tune a Household.
type Options struct {
	// NewClient makes the bank client of a person's token (required):
	// each person's requests count against their own budget.
	NewClient func(p Person) *bank.Client
	// Sync is the options of the household's syncs; Requests and
	// OnAccounts are the household's own.
	Sync replica.Options
	// PollInterval is how often joint accounts are polled (0: never).
	PollInterval time.Duration
	// PollOverlap is how far before the newest known transaction of a
	// joint account a poll lists (default: Sync.Overlap, as an incremental
	// sync).
	PollOverlap time.Duration
	// OnChange, if set, is called after SetPeople changed a person or a
	// token (the daemon wakes its event worker).
	OnChange func()
	// OnPoll, if set, is told of every poll of an account.
	OnPoll func(account, person string, r replica.Result, err error)
}

// defaultOverlap is replica's default Options.Overlap.
const defaultOverlap = 3 * time.Hour

// member is a person with their client.
type member struct {
	name   string
	token  string
	client *bank.Client
}

// Household is the people of one mirror and their syncs. Its methods may
// be called concurrently; syncs must not overlap (the schedule sees to
// it, and the store's sync lock across processes).
type Household struct {
	store  Store
	mirror *store.Store   // the store as the syncer sees it
	base   zerolog.Logger // the syncers' (which name their component)
	log    zerolog.Logger
	opts   Options

	mu      sync.Mutex
	members []*member         // by name
	changed chan struct{}     // closed and replaced by SetPeople
	hooks   map[string]string // webhook id -> person
	states  map[string]string // person -> token state last recorded
}

// New returns a household of no one yet: SetPeople gives it its people.
func New(st *store.Store, log zerolog.Logger, opts Options) *Household {
	if opts.PollOverlap <= 0 {
		// As far back as an incremental sync lists, which leaves the
		// polled joint account to the polls: a transaction the bank dates
		// late is caught all the same.
		opts.PollOverlap = opts.Sync.Overlap
	}
	if opts.PollOverlap <= 0 {
		opts.PollOverlap = defaultOverlap
	}
	return &Household{store: st, mirror: st, base: log, log: log.With().Str(logfield.Component, "household").Logger(), opts: opts,
		changed: make(chan struct{})}
}

// SetPeople makes people the household: a new person gets a client, a
// person already there gives their token, new or not, to their client
// (whose rejection is then forgotten: it is tried again), a person no longer in people is dropped
// (their history stays). It records the people in the mirror; a
// household of one whose mirror knew no person names the webhooks
// registered before households after them.
func (h *Household) SetPeople(ctx context.Context, people []Person) error {
	if len(people) == 0 {
		return errors.New("household: no person")
	}
	h.mu.Lock()
	old := map[string]*member{}
	for _, m := range h.members {
		old[m.name] = m
	}
	var next []*member
	changed := len(people) != len(h.members)
	for _, p := range people {
		m, ok := old[p.Name]
		switch {
		case !ok:
			m = &member{name: p.Name, token: p.Token, client: h.opts.NewClient(p)}
			changed = true
		default:
			// A new token replaces the old; a rejected one read again is
			// tried again, even the same one (a token restored at the
			// bank): the syncs waiting for a token run. An accepted token
			// read again unchanged is left as it is.
			rejected, _ := m.client.TokenRejected()
			if p.Token != m.token || rejected {
				m.client.SetToken(p.Token)
				changed = true
			}
			m = &member{name: m.name, token: p.Token, client: m.client}
		}
		next = append(next, m)
	}
	slices.SortFunc(next, func(a, b *member) int { return strings.Compare(a.name, b.name) })
	h.members = next
	if changed {
		close(h.changed)
		h.changed = make(chan struct{})
	}
	h.mu.Unlock()

	var errs []error
	present := map[string]bool{}
	for _, m := range next {
		present[m.name] = true
		if err := h.store.UpsertPerson(ctx, store.PersonUpdate{Name: m.name}); err != nil {
			errs = append(errs, err)
		}
	}
	if len(next) == 1 {
		// A mirror of one token from before households becomes this
		// person's: their accounts and webhooks, nothing fetched again.
		if claimed, err := h.store.ClaimSingleTokenMirror(ctx, next[0].name); err != nil {
			errs = append(errs, err)
		} else if claimed {
			h.log.Info().Str(logfield.Person, next[0].name).Msg("the mirror of one token is now a household of one")
		}
	}
	recorded, err := h.store.People(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	for _, p := range recorded {
		if !present[p.Name] && p.RemovedAt == "" {
			if err := h.store.UpsertPerson(ctx, store.PersonUpdate{Name: p.Name, Removed: true}); err != nil {
				errs = append(errs, err)
			}
			h.log.Info().Str(logfield.Person, p.Name).Msg("person removed from the household; their history stays")
		}
	}
	if changed && h.opts.OnChange != nil {
		h.opts.OnChange()
	}
	return errors.Join(errs...)
}

// snapshot is the members now.
func (h *Household) snapshot() []*member {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.members)
}

// People returns the names of the people, in order.
func (h *Household) People() []string {
	var out []string
	for _, m := range h.snapshot() {
		out = append(out, m.name)
	}
	return out
}

// Client returns the client of person's token, nil when there is no such
// person.
func (h *Household) Client(person string) *bank.Client {
	for _, m := range h.snapshot() {
		if m.name == person {
			return m.client
		}
	}
	return nil
}

// Primary is the client of the first person (by name): what needs one
// client and no particular person's uses it.
func (h *Household) Primary() *bank.Client {
	ms := h.snapshot()
	if len(ms) == 0 {
		return nil
	}
	return ms[0].client
}

// TokenRejected reports whether the bank rejected every person's token
// (then no sync can run), and a channel closed when SetPeople changes a
// person or a token.
func (h *Household) TokenRejected() (bool, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	all := len(h.members) > 0
	for _, m := range h.members {
		if rejected, _ := m.client.TokenRejected(); !rejected {
			all = false
		}
	}
	return all, h.changed
}

// requests counts the requests of ms's clients.
func requests(ms []*member) func() int64 {
	return func() int64 {
		var n int64
		for _, m := range ms {
			n += m.client.Requests()
		}
		return n
	}
}

// headroom is how many requests a client may still send in its budget's
// bucket, as far as it knows (a budget not reported yet counts as full).
func headroom(c *bank.Client) int {
	st := c.Budget()
	if !st.Known {
		return 1 << 30
	}
	if st.Waiting {
		return -1
	}
	return st.Remaining - st.Reserve
}

// byHeadroom orders ms by their budget's headroom, largest first, names
// breaking ties; members whose token the bank rejected are left out.
func byHeadroom(ms []*member) []*member {
	var out []*member
	for _, m := range ms {
		if rejected, _ := m.client.TokenRejected(); !rejected {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b *member) int { return headroom(b.client) - headroom(a.client) })
	return out
}
