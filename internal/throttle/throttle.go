// Package throttle slows down the clients that fail too often (wrong
// tokens): each key, a client's address, may fail Burst times in a row,
// then once per Every; meanwhile Wait says how long it must wait before it
// is heard again. Successes cost nothing and are not recorded.
//
// The table is capped at Max keys, the least recently seen forgotten first,
// so that strangers cannot grow it without bound: at most a few hundred
// bytes a key. A forgotten key starts again with a full Burst, which takes
// Max other keys failing in between.
package throttle

import (
	"net/netip"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"
)

// Defaults of Options.
const (
	DefaultBurst = 10
	DefaultEvery = 6 * time.Second
	DefaultMax   = 4096
)

// Options tune a Table; zero values take the defaults.
type Options struct {
	// Burst is how many failures in a row a key may have before it waits.
	Burst int
	// Every is how often a key earns one more failure back.
	Every time.Duration
	// Max is how many keys the table remembers.
	Max int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Table holds each key's failures. It is safe for concurrent use.
type Table struct {
	o    Options
	keys *lru.Cache[string, *rate.Limiter]
}

// New returns an empty Table.
func New(o Options) *Table {
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.Every <= 0 {
		o.Every = DefaultEvery
	}
	if o.Max <= 0 {
		o.Max = DefaultMax
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	keys, err := lru.New[string, *rate.Limiter](o.Max)
	if err != nil {
		panic(err) // only for a size <= 0, excluded above
	}
	return &Table{o: o, keys: keys}
}

// Wait is how long key must wait before an attempt of it is heard: 0 when
// it may go ahead.
func (t *Table) Wait(key string) time.Duration {
	lim, ok := t.keys.Get(key)
	if !ok {
		return 0
	}
	tokens := lim.TokensAt(t.o.Now())
	if tokens >= 1 {
		return 0
	}
	return time.Duration((1 - tokens) * float64(t.o.Every))
}

// Fail records a failed attempt of key.
func (t *Table) Fail(key string) {
	lim, ok := t.keys.Get(key)
	if !ok {
		lim = rate.NewLimiter(rate.Every(t.o.Every), t.o.Burst)
		if prev, found, _ := t.keys.PeekOrAdd(key, lim); found {
			lim = prev
		}
	}
	lim.AllowN(t.o.Now(), 1)
}

// Len is how many keys the table remembers (at most Max).
func (t *Table) Len() int { return t.keys.Len() }

// Key is the key of a client's address: the address for IPv4, its /64 for
// IPv6 (one host commonly holds a whole /64), and one key, "loopback", for
// every loopback address (127.0.0.0/8 and ::1 are all this machine: a
// client rotating through 127.x.y.z is one source). An invalid address is
// one key, "invalid".
func Key(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsLoopback():
		return "loopback"
	case a.Is6():
		p, err := a.Prefix(64)
		if err != nil {
			return a.String()
		}
		return p.String()
	default:
		return a.String()
	}
}
