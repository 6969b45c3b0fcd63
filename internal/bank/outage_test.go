package bank

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// closedAddr is a loopback address nothing listens on: a bank that is down.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// Outage names the bank's and the network's failures and nothing else;
// Cause says the failure in a few words.
func TestOutageAndCause(t *testing.T) {
	ctx := context.Background()
	fast := []Option{WithHourlyBudget(0), WithBackoff(time.Microsecond, 50*time.Microsecond), WithMaxAttempts(2)}

	down := New("http://"+closedAddr(t)+"/api/v1", testToken, fast...)
	_, err := down.Ping(ctx)
	if !Outage(err) || !strings.Contains(Cause(err), "connection refused") || strings.Contains(Cause(err), "GET") {
		t.Errorf("closed port: Outage %v, Cause %q (%v)", Outage(err), Cause(err), err)
	}

	status := http.StatusServiceUnavailable
	s := newServer(t, func(_ *testServer, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"errors":[{"status":"%d","title":"Oops","detail":"try later"}]}`, status)
	})
	_, err = newTestClient(s, WithMaxAttempts(2)).Ping(ctx)
	if !Outage(err) || !strings.HasPrefix(Cause(err), "bank api: status 503") {
		t.Errorf("503: Outage %v, Cause %q", Outage(err), Cause(err))
	}
	status = http.StatusNotFound
	_, err = newTestClient(s).Ping(ctx)
	if err == nil || Outage(err) {
		t.Errorf("404 is the request's own failure: %v", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = down.Ping(cancelled)
	if err == nil || Outage(err) {
		t.Errorf("a cancelled request is no outage: %v", err)
	}
	for _, err := range []error{nil, errors.New("write mirror: disk I/O error"), fmt.Errorf("page: %w", ErrDecode)} {
		if Outage(err) {
			t.Errorf("%v counts as an outage", err)
		}
	}
	if got := Cause(errors.New("plain")); got != "plain" {
		t.Errorf("Cause(plain) = %q", got)
	}
}
