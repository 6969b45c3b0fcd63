package main

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/bankmirror/bankmirror/internal/httpserver"
)

// shutdownGrace is how long the demo's and the simulator's servers wait
// for requests in flight when they stop, before they cut the connections
// still open (a sender retries what it got no answer for). The daemon's
// listeners take httpStopShare of its stop budget.
const shutdownGrace = 5 * time.Second

// startServer serves h on addr with the limits of a server strangers can
// reach (httpserver.New). The daemon's public listener, the demo's and the
// simulator's banks run on one.
func startServer(ctx context.Context, addr string, h http.Handler, wrap ...func(net.Listener) net.Listener) (*httpserver.Server, error) {
	return httpserver.Start(ctx, "http server", addr, httpserver.New(h), wrap...)
}
