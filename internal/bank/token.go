package bank

import (
	"fmt"
	"sync"
	"time"
)

// TokenState is what the client knows of its token: whether the bank
// rejected it (401) and when. A rejected token is not sent again: every
// request fails at once, without reaching the bank, until SetToken gives a
// new one.
type TokenState struct {
	Rejected   bool      `json:"rejected"`
	RejectedAt time.Time `json:"rejected_at,omitzero"`
	// Replaced counts the tokens given by SetToken since the client was made.
	Replaced int `json:"replaced"`
	// Same says that the last SetToken gave the token the client had (a
	// rejected token tried again), not a new one.
	Same bool `json:"-"`
}

// token holds the current token and its state.
type token struct {
	mu      sync.Mutex
	value   string
	state   TokenState
	changed chan struct{} // closed (and replaced) by set
	observe func(TokenState)
}

func newToken(v string) *token { return &token{value: v, changed: make(chan struct{})} }

// get returns the token to send and whether it was rejected.
func (t *token) get() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.value, t.state.Rejected
}

// reject marks sent as rejected, unless the token was replaced since it
// was sent. It reports whether the state changed.
func (t *token) reject(sent string, now time.Time) {
	t.mu.Lock()
	if t.value != sent || t.state.Rejected {
		t.mu.Unlock()
		return
	}
	t.state.Rejected, t.state.RejectedAt = true, now
	st, f := t.state, t.observe
	t.mu.Unlock()
	if f != nil {
		f(st)
	}
}

func (t *token) set(v string) {
	t.mu.Lock()
	t.state.Same = v == t.value
	t.value = v
	t.state.Rejected, t.state.RejectedAt = false, time.Time{}
	t.state.Replaced++
	close(t.changed)
	t.changed = make(chan struct{})
	st, f := t.state, t.observe
	t.mu.Unlock()
	if f != nil {
		f(st)
	}
}

// WithTokenObserver calls f (quickly, without blocking) when the bank
// rejects the token and when SetToken replaces it.
func WithTokenObserver(f func(TokenState)) Option { return func(c *Client) { c.token.observe = f } }

// SetToken replaces the token (after the user gave a new one). A rejected
// token's state is cleared, so requests are sent again, even when v is the
// same token.
func (c *Client) SetToken(v string) { c.token.set(v) }

// Token reports the token's state.
func (c *Client) Token() TokenState {
	c.token.mu.Lock()
	defer c.token.mu.Unlock()
	return c.token.state
}

// TokenRejected reports whether the bank rejected the current token, and a
// channel closed when SetToken replaces it: the daemon's syncs and webhook
// refetches wait on it instead of retrying.
func (c *Client) TokenRejected() (bool, <-chan struct{}) {
	c.token.mu.Lock()
	defer c.token.mu.Unlock()
	return c.token.state.Rejected, c.token.changed
}

// errTokenRejected is returned without sending a request while the token
// is rejected; it unwraps to ErrUnauthorized.
var errTokenRejected = fmt.Errorf("not sent: %w", &APIError{StatusCode: 401})
