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
// their slot: one of them is closed to make room for it. First the
// connection quiet the longest: one with no request in progress, kept
// alive between requests (a browser keeps several per site, for minutes),
// or accepted and sending no complete headers so far (which
// ReadHeaderTimeout would close only seconds later). Failing that, the
// connection slowest to send its body: of those whose request has a body
// still arriving, the one that has been reading it the longest (a
// delivery's or a form's body comes right behind its headers, so a body
// still arriving is a client trickling it; New's BodyTimeout would close
// it only later). A connection whose request is being served, its body
// read, is never closed; when every slot holds one, the new connection
// waits, accepted but unserved, until a slot frees. So neither idle
// connections nor trickled bodies can delay a page or a delivery: the
// next one is served at once.
//
// Which connections are quiet is known from the server's ConnState, and
// which are reading a body from the handler of a server made by New, both
// hooked by Start when this is the outermost wrap (pass it last). Without
// that hook (the listener used outside Start) nothing is known quiet, and
// a connection over the cap waits for one to close; with a server not made
// by New, no connection with a request in progress is closed.
func LimitListener(n int) func(net.Listener) net.Listener {
	if n <= 0 {
		n = DefaultMaxConns
	}
	return func(ln net.Listener) net.Listener {
		return &limitListener{Listener: ln, max: n, quiet: map[*limitConn]time.Time{},
			readers: map[*limitConn]time.Time{}, freed: make(chan struct{}, 1), done: make(chan struct{})}
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
	readers   map[*limitConn]time.Time // open connections reading a request's body, since when
	reaped    int                      // quiet connections closed to make room (for tests)
	cut       int                      // connections reading a body closed to make room (for tests)
	freed     chan struct{}            // signalled when a slot frees or a connection turns quiet
	done      chan struct{}            // closed by Close
	closeOnce sync.Once
}

// Accept returns the next connection once it holds a slot: a free one, or
// the slot of the connection quiet the longest, or else of the one
// reading its body the longest, closed for it.
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
// connection to close: the one quiet the longest, or else the one reading
// its body the longest (nil if none is either).
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
	if victim = oldest(l.quiet); victim != nil {
		delete(l.quiet, victim) // closed once, by this Accept
		l.reaped++
		return victim, false
	}
	if victim = oldest(l.readers); victim != nil {
		delete(l.readers, victim)
		l.cut++
	}
	return victim, false
}

// oldest is the connection in m there the longest (nil if m is empty).
func oldest(m map[*limitConn]time.Time) *limitConn {
	var c *limitConn
	var since time.Time
	for k, t := range m {
		if c == nil || t.Before(since) {
			c, since = k, t
		}
	}
	return c
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
		delete(l.readers, lc)
		l.quiet[lc] = time.Now()
		l.signal()
	case http.StateActive:
		delete(l.quiet, lc)
	case http.StateHijacked, http.StateClosed:
		delete(l.quiet, lc)
		delete(l.readers, lc)
	}
}

// reading marks lc as reading its request's body, from now.
func (l *limitListener) reading(lc *limitConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !lc.slot || lc.released || !l.hooked {
		return
	}
	l.readers[lc] = time.Now()
	l.signal()
}

// doneReading marks lc's body read.
func (l *limitListener) doneReading(lc *limitConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.readers, lc)
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
	delete(l.readers, lc)
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

// bodyCounts are the connections reading a body, and those closed while
// reading one to make room so far (for tests).
func (l *limitListener) bodyCounts() (readers, cut int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.readers), l.cut
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
