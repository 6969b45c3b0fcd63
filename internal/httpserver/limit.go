package httpserver

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// LimitListener returns a wrap for Start that caps the connections the
// listener holds at once at n (DefaultMaxConns when n <= 0): each costs a
// goroutine and buffers, and strangers can open many.
//
// At the cap, a new connection is not left to wait while others only hold
// their slot: the connection quiet the longest is closed to make room for
// it. A quiet connection is one with no request in progress: kept alive
// between requests (a browser keeps several per site, for minutes), or
// accepted and silent so far (which ReadHeaderTimeout would close only
// seconds later). A connection whose request is being served is never
// closed; when every slot holds one, the new connection waits, accepted
// but unserved, until a slot frees. So idle connections cannot delay a
// page or a delivery: the next one is served at once.
//
// Which connections are quiet is known from the server's ConnState, which
// Start hooks when this is the outermost wrap (pass it last). Without that
// hook (the listener used outside Start) nothing is known quiet, and a
// connection over the cap waits for one to close.
func LimitListener(n int) func(net.Listener) net.Listener {
	if n <= 0 {
		n = DefaultMaxConns
	}
	return func(ln net.Listener) net.Listener {
		return &limitListener{Listener: ln, max: n, quiet: map[*limitConn]time.Time{},
			freed: make(chan struct{}, 1), done: make(chan struct{})}
	}
}

// Limits returns the wraps for Start of a listener strangers can reach,
// in their order: PerSourceLimit(DefaultMaxConnsPerSource, o), then
// LimitListener(DefaultMaxConns). One source cannot take more than its
// share of the connections, and idle connections never delay a new one.
// The daemon's dashboard listeners use it.
func Limits(o PerSourceOptions) []func(net.Listener) net.Listener {
	return []func(net.Listener) net.Listener{PerSourceLimit(DefaultMaxConnsPerSource, o), LimitListener(DefaultMaxConns)}
}

type limitListener struct {
	net.Listener
	max int

	mu        sync.Mutex
	open      int                      // connections holding a slot
	hooked    bool                     // ConnState reports states (Start)
	quiet     map[*limitConn]time.Time // open connections with no request in progress, since when
	reaped    int                      // quiet connections closed to make room (for tests)
	freed     chan struct{}            // signalled when a slot frees or a connection turns quiet
	done      chan struct{}            // closed by Close
	closeOnce sync.Once
}

// Accept returns the next connection once it holds a slot: a free one, or
// the slot of the connection quiet the longest, closed for it.
func (l *limitListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitConn{Conn: c, l: l}
	for {
		victim, ok := l.acquire(lc)
		if ok {
			return lc, nil
		}
		if victim != nil {
			_ = victim.Close() // gives its slot back
			continue
		}
		select {
		case <-l.freed:
		case <-l.done:
			_ = c.Close()
			return nil, net.ErrClosed
		}
	}
}

// acquire gives lc a slot if one is free (ok); else it names the
// connection quiet the longest, to close (nil if none is quiet).
func (l *limitListener) acquire(lc *limitConn) (victim *limitConn, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open < l.max {
		l.open++
		lc.slot = true
		if l.hooked {
			l.quiet[lc] = time.Now() // quiet until its request arrives
		}
		return nil, true
	}
	var since time.Time
	for c, t := range l.quiet {
		if victim == nil || t.Before(since) {
			victim, since = c, t
		}
	}
	if victim != nil {
		delete(l.quiet, victim) // closed once, by this Accept
		l.reaped++
	}
	return victim, false
}

// connState follows c's state: quiet between requests, busy during one.
func (l *limitListener) connState(c net.Conn, s http.ConnState) {
	lc, ok := c.(*limitConn)
	if !ok || lc.l != l {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !lc.slot || lc.released {
		return
	}
	switch s {
	case http.StateIdle:
		l.quiet[lc] = time.Now()
		l.signal()
	case http.StateActive, http.StateHijacked, http.StateClosed:
		delete(l.quiet, lc)
	}
}

// signal wakes an Accept waiting for a slot. Called with mu held.
func (l *limitListener) signal() {
	select {
	case l.freed <- struct{}{}:
	default:
	}
}

func (l *limitListener) release(lc *limitConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !lc.slot || lc.released {
		return
	}
	lc.released = true
	delete(l.quiet, lc)
	l.open--
	l.signal()
}

// hook makes l track its connections' states; Start calls it.
func (l *limitListener) hook() {
	l.mu.Lock()
	l.hooked = true
	l.mu.Unlock()
}

// Close stops Accept, including one waiting for a slot.
func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

// counts are the connections holding a slot, those quiet, and those
// closed to make room so far (for tests).
func (l *limitListener) counts() (open, quiet, reaped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open, len(l.quiet), l.reaped
}

// limitConn gives its slot back on its first Close.
type limitConn struct {
	net.Conn
	l        *limitListener
	slot     bool // guarded by l.mu
	released bool // guarded by l.mu
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.l.release(c)
	return err
}
