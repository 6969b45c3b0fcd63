package httpserver

import (
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"
)

// perSourceRig serves a PerSourceLimit listener on loopback: every
// connection it lets through is answered one byte and held until the test
// closes it; every one it closes at Accept is reported on refused.
type perSourceRig struct {
	ln       net.Listener
	limited  *perSourceListener
	accepted chan net.Conn
	refused  chan struct{}
}

func newPerSourceRig(t *testing.T, n int, exempt func(netip.Addr) bool) *perSourceRig {
	t.Helper()
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &perSourceRig{accepted: make(chan net.Conn, 256), refused: make(chan struct{}, 256)}
	r.ln = PerSourceLimit(n, PerSourceOptions{Exempt: exempt, OnRefused: func() { r.refused <- struct{}{} }})(ln)
	r.limited = r.ln.(*perSourceListener)
	t.Cleanup(func() { _ = r.ln.Close() })
	go func() {
		for {
			c, err := r.ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte{'k'})
			r.accepted <- c
		}
	}()
	return r
}

// dial connects from the loopback address from and reports whether the
// listener let the connection through (it reads the server's byte) or
// closed it at once (end of stream or reset).
func (r *perSourceRig) dial(t *testing.T, from string) (net.Conn, bool) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.DialContext(t.Context(), "tcp", r.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetReadDeadline(time.Now().Add(within))
	var b [1]byte
	_, err = c.Read(b[:])
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("from %s: neither served nor closed within %s", from, within)
	}
	return c, err == nil
}

// A source at the cap gets its next connection closed at Accept, counted,
// while another source still connects; closing a connection frees its
// slot, and a source holding none has no entry left.
func TestPerSourceLimitClosesTheConnectionOverTheCap(t *testing.T) {
	const n = DefaultMaxConnsPerSource
	r := newPerSourceRig(t, n, func(netip.Addr) bool { return false })
	var held []net.Conn
	for i := range n {
		if _, ok := r.dial(t, "127.0.0.1"); !ok {
			t.Fatalf("connection %d from 127.0.0.1 closed under the cap", i+1)
		}
		held = append(held, <-r.accepted)
	}
	if _, ok := r.dial(t, "127.0.0.1"); ok {
		t.Fatalf("connection %d from 127.0.0.1 served over the cap", n+1)
	}
	select {
	case <-r.refused:
	case <-time.After(within):
		t.Fatal("the refused connection was not counted")
	}
	if _, ok := r.dial(t, "127.0.0.2"); !ok {
		t.Fatal("another source was refused while the first is at its cap")
	}
	other := <-r.accepted
	if got := r.limited.sources(); got != 2 {
		t.Errorf("%d sources held, want 2", got)
	}

	// The server closing one of them frees a slot for its source.
	_ = held[0].Close()
	_ = held[0].Close() // a second Close gives nothing back twice
	if _, ok := r.dial(t, "127.0.0.1"); !ok {
		t.Fatal("no slot freed after a connection closed")
	}
	held[0] = <-r.accepted
	if _, ok := r.dial(t, "127.0.0.1"); ok {
		t.Fatal("served over the cap after a double Close")
	}
	<-r.refused

	for _, c := range append(held, other) {
		_ = c.Close()
	}
	if got := r.limited.sources(); got != 0 {
		t.Errorf("%d sources still held with no connection open, want 0", got)
	}
	if len(r.refused) != 0 {
		t.Errorf("%d more refusals counted than connections closed", len(r.refused))
	}
}

// By default loopback peers, a reverse proxy on the same host, are never
// capped.
func TestPerSourceLimitExemptsLoopbackByDefault(t *testing.T) {
	r := newPerSourceRig(t, 2, nil)
	for i := range 5 {
		if _, ok := r.dial(t, "127.0.0.1"); !ok {
			t.Fatalf("loopback connection %d closed", i+1)
		}
		defer (<-r.accepted).Close()
	}
	if len(r.refused) != 0 || r.limited.sources() != 0 {
		t.Errorf("loopback counted: %d refusals, %d sources", len(r.refused), r.limited.sources())
	}
}

// A source is an IPv4 address or an IPv6 /64; IPv4-mapped addresses are
// their IPv4 source.
func TestPerSourceLimitSource(t *testing.T) {
	l := PerSourceLimit(0, PerSourceOptions{})(nil).(*perSourceListener)
	if l.max != DefaultMaxConnsPerSource {
		t.Errorf("max %d, want %d", l.max, DefaultMaxConnsPerSource)
	}
	for addr, want := range map[string]string{
		"203.0.113.7:1":              "203.0.113.7/32",
		"[::ffff:203.0.113.7]:1":     "203.0.113.7/32",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443": "2001:db8:1:2::/64",
		"[fe80::1%eth0]:443":         "fe80::/64",
		"127.0.0.1:1":                "",
		"[::1]:1":                    "",
		"[::ffff:127.0.0.1]:1":       "",
	} {
		ap := netip.MustParseAddrPort(addr)
		src, ok := l.source(net.TCPAddrFromAddrPort(ap))
		got := ""
		if ok {
			got = src.String()
		}
		if got != want {
			t.Errorf("source(%s) = %q, want %q", addr, got, want)
		}
	}
	if _, ok := l.source(&net.UnixAddr{Name: "sock", Net: "unix"}); ok {
		t.Error("a non-IP peer has a source")
	}
}
