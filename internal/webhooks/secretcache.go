package webhooks

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/store"
)

// SecretStore is what a SecretCache reads: the secrets of the registered
// webhooks (and of a deleted one, for store.SecretGrace), whether a
// registration is storing a new one, and where the database is (to watch).
type SecretStore interface {
	WebhookKeys(ctx context.Context) ([]store.WebhookKey, error)
	WebhookRegistering(ctx context.Context) bool
	Path() string
}

var _ SecretStore = (*store.Store)(nil)

// keys is what deliveries are authenticated with: the valid secrets, and
// whether a registration is storing a new one.
type keys struct {
	secrets     [][]byte
	registering bool
	// byWebhook holds each registered webhook's secret by webhook id;
	// anyWebhook the secret of a webhook made elsewhere
	// (BANKMIRROR_WEBHOOK_SECRET), which a delivery naming a webhook not in
	// byWebhook may be signed with.
	byWebhook  map[string][]byte
	anyWebhook [][]byte
	// what they were made of, to filter again
	all   []store.WebhookKey
	extra []byte
}

// newKeys indexes the keys of the people in people (every person when
// people is nil), and extra.
func newKeys(all []store.WebhookKey, extra []byte, people map[string]bool, registering bool) *keys {
	k := &keys{registering: registering, byWebhook: make(map[string][]byte, len(all)), all: all, extra: extra}
	for _, w := range all {
		if w.Person != "" && people != nil && !people[w.Person] {
			continue // a person removed from the configuration
		}
		k.secrets = append(k.secrets, w.Secret)
		k.byWebhook[w.WebhookID] = w.Secret
	}
	if len(extra) > 0 {
		k.secrets = append(k.secrets, extra)
		k.anyWebhook = append(k.anyWebhook, extra)
	}
	return k
}

// MissReloadGap is the shortest time between two loads that SecretCache.Miss
// starts, whatever changes: a hard cap of 100 small reads a second.
const MissReloadGap = 10 * time.Millisecond

// missLoadTimeout bounds a reload started by Miss, which no request's
// cancellation cuts short.
const missLoadTimeout = 5 * time.Second

// SecretCache keeps the webhook secrets in memory for the receiver (it is
// the daemon's receiver.Keys), so that requests cost no database read. It
// reloads them every interval, and when a signature matches none of them
// (a webhook may just have been registered or rotated by another process)
// it reloads at once, if:
//
//   - what it watches (the database's WAL, which every commit writes, and
//     the secrets file) changed since the last load. A stranger's bad
//     signature then costs a stat, not a read: while nothing is written,
//     strangers cause no read at all, and at most one per commit otherwise
//     (commits they cannot cause: refused requests write nothing);
//   - and no miss reloaded less than MissReloadGap ago.
type SecretCache struct {
	load   func(ctx context.Context, people map[string]bool) (*keys, error)
	every  time.Duration
	minGap time.Duration
	now    func() time.Time
	log    zerolog.Logger
	// mark returns a cheap value that changes whenever the keys may have;
	// nil: they may always have.
	mark func() string

	keys       atomic.Pointer[keys]
	mu         sync.Mutex      // serialises loads
	people     map[string]bool // the people configured; nil: any
	loadedMark string          // mark taken before the last successful load
	missLoaded time.Time       // when Miss last reloaded
	lastErr    string
}

// NewSecretCache returns a cache of st's webhook secrets, and of extra
// when it is not empty (the secret of a webhook made elsewhere:
// BANKMIRROR_WEBHOOK_SECRET), reloaded every interval. A miss reloads only
// after a commit to st's database or a change to its secrets file, from
// any process. Call Load once before serving, then Run.
func NewSecretCache(st SecretStore, extra []byte, every time.Duration, log zerolog.Logger) *SecretCache {
	c := newSecretCache(func(ctx context.Context, people map[string]bool) (*keys, error) {
		all, err := st.WebhookKeys(ctx)
		if err != nil {
			return nil, err
		}
		return newKeys(all, extra, people, st.WebhookRegistering(ctx)), nil
	}, every, log)
	c.watch(store.WALPath(st.Path()), store.SecretsPath(st.Path()))
	return c
}

// newSecretCache returns a cache that reloads with load every interval,
// watching nothing (every miss may reload).
func newSecretCache(load func(ctx context.Context, people map[string]bool) (*keys, error), every time.Duration, log zerolog.Logger) *SecretCache {
	c := &SecretCache{load: load, every: every, minGap: MissReloadGap, now: time.Now,
		log: log.With().Str(logfield.Component, "receiver").Logger()}
	c.keys.Store(&keys{byWebhook: map[string][]byte{}})
	return c
}

// watch makes a miss reload only when one of paths changed (size or
// modification time) since the last load. For a SQLite database in
// WAL mode, watch its -wal file: every commit, from any process, writes it.
// Call it before Load.
func (c *SecretCache) watch(paths ...string) {
	c.mark = func() string { return fileMark(paths) }
}

// fileMark describes paths by what a write changes.
func fileMark(paths []string) string {
	var b strings.Builder
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			b.WriteString("-;")
			continue
		}
		fmt.Fprintf(&b, "%d %d;", fi.Size(), fi.ModTime().UnixNano())
	}
	return b.String()
}

// Load reloads the keys now.
func (c *SecretCache) Load(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loadLocked(ctx)
}

func (c *SecretCache) loadLocked(ctx context.Context) error {
	// The mark is taken first: a change during the load shows next time.
	var mark string
	if c.mark != nil {
		mark = c.mark()
	}
	k, err := c.load(ctx, c.people)
	if err != nil {
		if err.Error() != c.lastErr && ctx.Err() == nil {
			c.log.Error().Err(err).Msg("reload webhook secrets; keeping the ones loaded")
		}
		c.lastErr = err.Error()
		return err
	}
	c.lastErr = ""
	c.loadedMark = mark
	c.keys.Store(k)
	return nil
}

// SetPeople makes only the webhooks of people (the household as
// configured, after a start or a reload) verify deliveries, from now on: a
// person removed from the configuration has their webhooks' secrets
// refused at once, even within their grace. A webhook from before the
// household (no person) is kept. It reloads the keys.
func (c *SecretCache) SetPeople(ctx context.Context, people []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.people = make(map[string]bool, len(people))
	for _, p := range people {
		c.people[p] = true
	}
	if err := c.loadLocked(ctx); err != nil {
		// Whatever the load, a removed person's secrets go now.
		old := c.keys.Load()
		c.keys.Store(newKeys(old.all, old.extra, c.people, old.registering))
		return err
	}
	return nil
}

// Run reloads the keys every interval until ctx ends.
func (c *SecretCache) Run(ctx context.Context) {
	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = c.Load(ctx)
		}
	}
}

// Secrets returns every cached secret.
func (c *SecretCache) Secrets(context.Context) ([][]byte, error) { return c.keys.Load().secrets, nil }

// SecretsOf returns the secrets a delivery naming webhook id may be
// signed with: that webhook's alone when it is known, so that a person of
// the household cannot sign a delivery for another's webhook; the secret
// of a webhook made elsewhere (BANKMIRROR_WEBHOOK_SECRET), whose id the
// mirror does not know, for any other id; none when there is no such
// secret (the delivery is refused). Whatever the household's size, a
// delivery is checked against one secret.
func (c *SecretCache) SecretsOf(_ context.Context, id string) ([][]byte, error) {
	k := c.keys.Load()
	if s, ok := k.byWebhook[id]; ok {
		return [][]byte{s}, nil
	}
	return k.anyWebhook, nil
}

// Registering returns the cached registration mark.
func (c *SecretCache) Registering(context.Context) bool { return c.keys.Load().registering }

// Miss reloads the keys after a signature matched none of them, if what
// the cache watches changed since the last load and no miss reloaded less
// than MissReloadGap ago; it reports whether it reloaded. A
// delivery it does not reload for is answered 401, or 503 during a
// registration, and the bank retries it; the periodic reload catches up
// within an interval.
//
// A miss's reload serves every waiting delivery: the deliveries queued
// behind it find the keys it loaded, and the gap keeps them from loading
// again. A reload that failed because its sender hung up would hold them,
// a new webhook's first deliveries among them, to 401 for the whole gap.
// So a request whose sender has gone (the bank cancels the deliveries of
// a webhook it deletes, as a rotation does) starts no reload, and one
// that began runs to its end whatever its sender does, within
// missLoadTimeout.
func (c *SecretCache) Miss(ctx context.Context) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	if c.mark != nil && c.mark() == c.loadedMark {
		return false
	}
	now := c.now()
	if !c.missLoaded.IsZero() && now.Sub(c.missLoaded) < c.minGap {
		return false
	}
	c.missLoaded = now
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), missLoadTimeout)
	defer cancel()
	return c.loadLocked(ctx) == nil
}
