package httpserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"
)

// hidden hides a LimitListener from Start, which then does not hook it:
// the listener behaves as before it closed quiet connections (a connection
// over the cap waits for one to close).
type hidden struct{ net.Listener }

// BenchmarkRequestUnderConnectionFlood measures how long one request (a
// dashboard page, a delivery) waits on a listener with the daemon's limits
// (PerSourceLimit, LimitListener at DefaultMaxConns) while a flood holds
// connections: 17 sources (127.0.1.1-17 here, standing in for IPv6 /64s;
// no loopback exemption) open 70 connections each, 1,190 in all, each
// source under its cap of 64 once 6 are refused, and 1,088 together, over
// the listener's cap. "idle" connections made one request each and are
// kept alive; "silent" ones never send a byte. "closing" is the listener
// as it is; "waiting" is it without closing quiet connections (as before),
// where the request waits for a connection to time out (IdleTimeout,
// 120 s, or ReadHeaderTimeout, 5 s): the client gives up after 10 s, so
// 10,000 ms there means "10 s or more". Run it once per case:
//
//	go test ./internal/httpserver -run '^$' -bench RequestUnderConnectionFlood -benchtime 1x
func BenchmarkRequestUnderConnectionFlood(b *testing.B) {
	for _, flood := range []string{"idle", "silent"} {
		for _, mode := range []string{"closing", "waiting"} {
			b.Run(flood+"/"+mode, func(b *testing.B) { benchFlood(b, flood == "idle", mode == "closing") })
		}
	}
}

func benchFlood(b *testing.B, idle, closing bool) {
	ctx := context.Background()
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	limit := LimitListener(DefaultMaxConns)
	if !closing {
		limit = func(ln net.Listener) net.Listener { return hidden{LimitListener(DefaultMaxConns)(ln)} }
	}
	never := func(netip.Addr) bool { return false }
	srv, err := Start(ctx, "bench", "127.0.0.1:0", New(h), PerSourceLimit(DefaultMaxConnsPerSource, PerSourceOptions{Exempt: never}), limit)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = srv.Shutdown(time.Second) }()
	addr := srv.URL()[len("http://"):]

	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	held := 0
	for s := 1; s <= 17; s++ {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(s))}, Timeout: 10 * time.Second}
		for range 70 {
			c, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			conns = append(conns, c)
			if !idle {
				continue
			}
			// One request, kept alive; a connection refused by its source's
			// cap, or waiting over the listener's, gets no answer.
			_ = c.SetDeadline(time.Now().Add(200 * time.Millisecond))
			if _, err := io.WriteString(c, "GET /static HTTP/1.1\r\nHost: x\r\n\r\n"); err == nil {
				if n, _ := c.Read(make([]byte, 512)); n > 0 {
					held++
				}
			}
			_ = c.SetDeadline(time.Time{})
		}
	}
	if idle {
		b.Logf("%d flood connections made their request and are held idle", held)
	}

	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		resp, err := client.Get(srv.URL() + "/page")
		took := time.Since(start)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		} else {
			took = client.Timeout
		}
		total += took
	}
	b.ReportMetric(float64(total)/float64(time.Millisecond)/float64(b.N), "ms/request")
	b.ReportMetric(0, "ns/op")
}
