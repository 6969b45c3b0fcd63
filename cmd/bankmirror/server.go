package main

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/bankmirror/bankmirror/internal/httpserver"
)

// shutdownGrace is how long a stopping server waits for requests in
// flight before it cuts the connections still open (a sender retries what
// it got no answer for).
const shutdownGrace = 5 * time.Second

// startServer serves h on addr with the limits of a server strangers can
// reach (httpserver.New). The daemon's public listener, the demo's and the
// simulator's banks run on one; stop it with Shutdown(shutdownGrace).
func startServer(ctx context.Context, addr string, h http.Handler, wrap ...func(net.Listener) net.Listener) (*httpserver.Server, error) {
	return httpserver.Start(ctx, "http server", addr, httpserver.New(h), wrap...)
}
