package httpserver

import (
	"net"
	"net/netip"
	"sync"
)

// DefaultMaxConnsPerSource is how many connections PerSourceLimit lets one
// source hold at once when given no other number: far more than the bank
// opens for its deliveries, a small share of DefaultMaxConns.
const DefaultMaxConnsPerSource = 64

// PerSourceOptions configure PerSourceLimit.
type PerSourceOptions struct {
	// Exempt reports whether connections from a source are never capped.
	// Nil means loopback peers (127.0.0.0/8, ::1): a reverse proxy or tunnel
	// on the same host brings every client's traffic from loopback, so a
	// cap there would cap all clients together; behind such a proxy, its
	// own per-client limits apply.
	Exempt func(netip.Addr) bool
	// OnRefused, if set, is called once for every connection closed at
	// Accept because its source is at the cap. It runs on the accept
	// loop: it must be cheap (a metrics counter).
	OnRefused func()
}

// PerSourceLimit returns a wrap for Start that caps the connections one
// source holds at once at n (DefaultMaxConnsPerSource when n <= 0), so
// that one peer cannot take all of LimitListener's connections and delay
// the bank's deliveries. A source is an IPv4 address or an IPv6 /64 (one
// host's usual allocation). A connection beyond the cap is closed as soon
// as it is accepted. Wrap it inside LimitListener (pass it first to
// Start), so a connection closed here never holds one of its slots.
//
// Memory is bounded by the connections open: a source has an entry only
// while it holds one.
func PerSourceLimit(n int, o PerSourceOptions) func(net.Listener) net.Listener {
	if n <= 0 {
		n = DefaultMaxConnsPerSource
	}
	if o.Exempt == nil {
		o.Exempt = netip.Addr.IsLoopback
	}
	return func(ln net.Listener) net.Listener {
		return &perSourceListener{Listener: ln, max: n, o: o, open: map[netip.Prefix]int{}}
	}
}

type perSourceListener struct {
	net.Listener
	max int
	o   PerSourceOptions

	mu   sync.Mutex
	open map[netip.Prefix]int // connections open per source; no zero entries
}

// Accept returns the next connection whose source is under the cap,
// closing those over it.
func (l *perSourceListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		src, ok := l.source(c.RemoteAddr())
		if !ok {
			return c, nil
		}
		if l.acquire(src) {
			return &perSourceConn{Conn: c, release: func() { l.release(src) }}, nil
		}
		_ = c.Close()
		if l.o.OnRefused != nil {
			l.o.OnRefused()
		}
	}
}

// source is the capped source of a peer address; ok is false for a peer
// that is exempt or not an IP address.
func (l *perSourceListener) source(addr net.Addr) (src netip.Prefix, ok bool) {
	var ip netip.Addr
	switch a := addr.(type) {
	case *net.TCPAddr:
		ip, ok = netip.AddrFromSlice(a.IP)
	default:
		ap, err := netip.ParseAddrPort(addr.String())
		ip, ok = ap.Addr(), err == nil
	}
	if !ok {
		return netip.Prefix{}, false
	}
	ip = ip.Unmap()
	if l.o.Exempt(ip) {
		return netip.Prefix{}, false
	}
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	src, err := ip.WithZone("").Prefix(bits)
	return src, err == nil
}

func (l *perSourceListener) acquire(src netip.Prefix) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[src] >= l.max {
		return false
	}
	l.open[src]++
	return true
}

func (l *perSourceListener) release(src netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[src]--; l.open[src] <= 0 {
		delete(l.open, src)
	}
}

// sources is how many sources hold a connection (for tests).
func (l *perSourceListener) sources() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.open)
}

// perSourceConn gives its source's slot back on its first Close.
type perSourceConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *perSourceConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
