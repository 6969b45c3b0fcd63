package admin

import (
	"context"
	"net/http"
	"time"

	"github.com/bankmirror/bankmirror/internal/httpserver"
)

// ShutdownGrace is how long Close waits for requests in flight.
const ShutdownGrace = 2 * time.Second

// Listen binds addr and serves h on it as the admin listener; stop it with
// Shutdown(ShutdownGrace).
func Listen(ctx context.Context, addr string, h http.Handler) (*httpserver.Server, error) {
	return httpserver.Start(ctx, "admin listener", addr, &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		// A /readyz waits for the write probe (10 s at most).
		WriteTimeout:   30 * time.Second,
		IdleTimeout:    60 * time.Second,
		MaxHeaderBytes: 16 << 10,
	})
}
