package bench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

// countingProxy stands between a feed and its app, on loopback: it
// counts the requests the feed sends and tells who waits when one that
// writes has been answered with success.
type countingProxy struct {
	url string
	srv *http.Server

	mu       sync.Mutex
	requests int64
	writes   int64
	wrote    chan struct{} // closed at the next successful write
}

// startCountingProxy serves a reverse proxy to target (its path prefixes
// every request's) on a free loopback port.
func startCountingProxy(target string) (*countingProxy, error) {
	to, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	p := &countingProxy{url: "http://" + ln.Addr().String(), wrote: make(chan struct{})}
	rp := &httputil.ReverseProxy{
		// Node's servers close a connection idle for 5 s: one the proxy
		// reused at that moment would fail a request the feed sent once.
		Transport: &http.Transport{Proxy: nil, IdleConnTimeout: time.Second, MaxIdleConnsPerHost: 16},
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(to)
			r.Out.Host = to.Host
		},
		ModifyResponse: func(resp *http.Response) error {
			if resp.Request.Method != http.MethodGet && resp.StatusCode < 300 {
				p.mu.Lock()
				p.writes++
				close(p.wrote)
				p.wrote = make(chan struct{})
				p.mu.Unlock()
			}
			return nil
		},
	}
	p.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p.mu.Lock()
			p.requests++
			p.mu.Unlock()
			rp.ServeHTTP(w, r)
		}),
		// A budget's whole file goes through it (Actual's download).
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Minute,
		WriteTimeout: 10 * time.Minute, IdleTimeout: time.Minute,
	}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// count is the requests so far and the successful writes among them.
func (p *countingProxy) count() (requests, writes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests, p.writes
}

// waitWrite waits until more than after writes have succeeded, and
// returns how many have.
func (p *countingProxy) waitWrite(ctx context.Context, after int64) (int64, error) {
	for {
		p.mu.Lock()
		n, ch := p.writes, p.wrote
		p.mu.Unlock()
		if n > after {
			return n, nil
		}
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case <-ch:
		}
	}
}

func (p *countingProxy) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.srv.Shutdown(ctx)
}
