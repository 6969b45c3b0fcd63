package admin

import (
	"context"
	"net/http"
	"time"

	"github.com/bankmirror/bankmirror/internal/httpserver"
)

// Listen binds addr and serves h on it as the admin listener; the daemon
// stops it with Shutdown, within its stop budget. Bound to loopback, it
// answers only requests naming a loopback host (httpserver.LoopbackHosts:
// no DNS rebinding).
func Listen(ctx context.Context, addr string, h http.Handler) (*httpserver.Server, error) {
	return httpserver.Start(ctx, "admin listener", addr, &http.Server{
		Handler:           httpserver.LoopbackHosts(h, addr),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		// A /readyz waits for the write probe (10 s at most).
		WriteTimeout:   30 * time.Second,
		IdleTimeout:    60 * time.Second,
		MaxHeaderBytes: 16 << 10,
	})
}

// Exposed reports whether a listener bound at addr (host:port, as the
// listener reports it) can be reached from other machines: any address but
// a loopback one ("0.0.0.0", "[::]", the machine's own address).
func Exposed(addr string) bool { return !httpserver.Loopback(addr) }
