// Package tokencheck decides whether a request's token opens a listener
// that a token guards (the dashboard, the spreadsheet feed), in one place,
// so that a fix to it lands once:
//
//   - a token a browser sends for another site's page (httpserver.CrossSite)
//     is refused (403) unchecked and uncounted, so that no web page can
//     spend the user's allowance of wrong tokens;
//   - while the global ceiling on wrong tokens (every source together) is
//     reached, every token is refused (429) unchecked: that ceiling bounds
//     how many guesses anyone can have checked, however many addresses
//     they rotate through. Only a source that gave the right token lately
//     and is not throttled is still heard meanwhile, so that a stranger
//     spending the ceiling does not shut out a spreadsheet that refreshes
//     from its usual address;
//   - otherwise the token is compared in constant time (of SHA-256 sums,
//     so that its length leaks nothing either) and the right one opens,
//     even from a source that is throttled: the owner, who shares
//     loopback with every local process, is not locked out by another
//     process's guesses;
//   - a wrong token counts against its source (throttle.Key: one for all of
//     loopback, one per IPv6 /64) and against the global ceiling; from a
//     throttled source it is answered 429 with Retry-After, else 401.
//
// Each refusal goes to Options.OnRefused (a metric) and to a refusals.Log,
// which logs the first of each reason in full and summarises the rest.
package tokencheck

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"net/netip"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/refusals"
	"github.com/bankmirror/bankmirror/internal/throttle"
)

// Reasons a request is refused, passed to Options.OnRefused and counted in
// the log's summaries.
const (
	// NoToken: the request carries no token (401).
	NoToken = "no_token"
	// WrongToken: a token that is not the listener's (401, or 429 from a
	// throttled source).
	WrongToken = "wrong_token"
	// Throttled: the global ceiling on wrong tokens is reached (every token
	// is refused unchecked), or a wrong token came from a throttled source
	// (429 with Retry-After).
	Throttled = "throttled"
	// CrossSite: a browser sent the token for another site's page (403),
	// unchecked and not counted.
	CrossSite = "cross_site"
)

// Reasons is every reason OnRefused is called with, so that a metric can
// start each at zero.
func Reasons() []string { return []string{NoToken, WrongToken, Throttled, CrossSite} }

// Defaults of the global ceiling: 100 wrong tokens, then one a second,
// from every source together.
const (
	DefaultGlobalBurst = 100
	DefaultGlobalEvery = time.Second
)

// Options tune a Checker; zero values take the defaults.
type Options struct {
	// Name is the listener's name in the log ("dashboard", "export feed").
	Name string
	// Throttle tunes each source's allowance of wrong tokens (throttle's
	// defaults: 10 in a row, then one per 6 s).
	Throttle throttle.Options
	// GlobalBurst and GlobalEvery are the ceiling on wrong tokens from
	// every source together: GlobalBurst in a row, then one per
	// GlobalEvery.
	GlobalBurst int
	GlobalEvery time.Duration
	// OnRefused, if set, is called for each refused request with its reason
	// (a metric). It must be cheap and safe for concurrent use.
	OnRefused func(reason string)
	// RefusedLogInterval is how often refusals are summarised in the log
	// (a minute by default).
	RefusedLogInterval time.Duration
	Log                zerolog.Logger
}

// Checker checks tokens against one token. It is safe for concurrent use.
type Checker struct {
	o       Options
	sum     [sha256.Size]byte
	sources *throttle.Table
	global  *throttle.Table
	// known are the sources that gave the right token lately (the last
	// throttle.DefaultMax of them).
	known   *lru.Cache[string, struct{}]
	refused *refusals.Counter
}

// globalKey is the global ceiling's one key.
const globalKey = "all"

// New returns the Checker of token; Close it when done.
func New(token string, o Options) *Checker {
	if o.GlobalBurst <= 0 {
		o.GlobalBurst = DefaultGlobalBurst
	}
	if o.GlobalEvery <= 0 {
		o.GlobalEvery = DefaultGlobalEvery
	}
	known, err := lru.New[string, struct{}](throttle.DefaultMax)
	if err != nil {
		panic(err) // only for a size <= 0
	}
	return &Checker{o: o, sum: sha256.Sum256([]byte(token)), known: known,
		sources: throttle.New(o.Throttle),
		global:  throttle.New(throttle.Options{Burst: o.GlobalBurst, Every: o.GlobalEvery, Max: 1, Now: o.Throttle.Now}),
		refused: refusals.New(refusals.Options{Log: o.Log, Level: zerolog.InfoLevel, Every: o.RefusedLogInterval,
			Reasons: Reasons(), Message: o.Name + " requests refused since the last report"})}
}

// Close writes the refusals not reported yet to the log.
func (c *Checker) Close() { c.refused.Flush() }

// Tracked is how many sources the throttle remembers.
func (c *Checker) Tracked() int { return c.sources.Len() }

// Verdict is the answer to a token.
type Verdict struct {
	// OK: the token is the right one.
	OK bool
	// Reason and Status say why not and how to answer (401, 403, 429).
	Reason string
	Status int
	// RetryAfter, for 429, is how long to wait (the Retry-After header).
	RetryAfter time.Duration
}

// Check checks token (given false: the request has none) of request r
// from client, the address to throttle (the TCP peer, or the client a
// trusted proxy names). A refusal is counted and logged here; the caller
// only answers it.
func (c *Checker) Check(r *http.Request, client netip.Addr, token string, given bool) Verdict {
	if httpserver.CrossSite(r) {
		return c.refuse(client, CrossSite, http.StatusForbidden, 0)
	}
	key := throttle.Key(client)
	wait := c.sources.Wait(key)
	if global := c.global.Wait(globalKey); global > 0 && (wait > 0 || !c.known.Contains(key)) {
		return c.refuse(client, Throttled, http.StatusTooManyRequests, max(global, wait))
	}
	if given && c.Match(token) {
		c.known.Add(key, struct{}{})
		return Verdict{OK: true}
	}
	c.sources.Fail(key)
	if !given {
		if wait > 0 {
			return c.refuse(client, Throttled, http.StatusTooManyRequests, wait)
		}
		return c.refuse(client, NoToken, http.StatusUnauthorized, 0)
	}
	c.global.Fail(globalKey)
	if wait > 0 {
		return c.refuse(client, Throttled, http.StatusTooManyRequests, wait)
	}
	return c.refuse(client, WrongToken, http.StatusUnauthorized, 0)
}

// Match reports whether token is the right one, in constant time.
func (c *Checker) Match(token string) bool {
	sum := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(sum[:], c.sum[:]) == 1
}

func (c *Checker) refuse(client netip.Addr, reason string, status int, wait time.Duration) Verdict {
	if c.o.OnRefused != nil {
		c.o.OnRefused(reason)
	}
	if c.refused.Note(reason) {
		c.o.Log.Info().Str(logfield.Reason, reason).Int(logfield.Status, status).Str(logfield.Client, client.String()).
			Str(logfield.Interval, c.refused.Every().String()).
			Msg(c.o.Name + " request refused; more refusals for this reason are counted and summarised once per interval")
	}
	return Verdict{Reason: reason, Status: status, RetryAfter: wait}
}
