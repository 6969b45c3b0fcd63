package bank

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Unreachable names a refused connection, an unreachable network or host,
// a name that does not resolve and a failed TLS handshake, wrapped as the
// HTTP client wraps them, and nothing else.
func TestUnreachableClassifies(t *testing.T) {
	wrap := func(err error) error {
		return fmt.Errorf("GET /accounts: %w", &url.Error{Op: "Get", URL: "https://api.example/x", Err: err})
	}
	dial := func(errno error) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)}
	}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{wrap(dial(syscall.ECONNREFUSED)), true},
		{wrap(dial(syscall.ENETUNREACH)), true},
		{wrap(dial(syscall.EHOSTUNREACH)), true},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.example", IsNotFound: true}}), true},
		{wrap(&net.DNSError{Err: "server misbehaving", Name: "api.example", IsTemporary: true}), true},
		{wrap(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), true},
		{wrap(x509.HostnameError{Host: "api.example", Certificate: &x509.Certificate{}}), true},
		{wrap(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), true},
		{wrap(tls.AlertError(40)), true},
		{wrap(http.ErrSchemeMismatch), true},
		{nil, false},
		{wrap(context.DeadlineExceeded), false},
		{wrap(io.ErrUnexpectedEOF), false},
		{wrap(dial(syscall.ECONNRESET)), false},
		{&APIError{StatusCode: http.StatusServiceUnavailable}, false},
		{context.Canceled, false},
	} {
		if got := Unreachable(c.err); got != c.want {
			t.Errorf("Unreachable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// With WithUnreachableWithin, a request that finds the bank unreachable
// gives up once its next attempt would start past the bound (here at once:
// the backoff is an hour), with one line naming the cause; its error is
// still an outage. Failures of other kinds keep their attempts, and
// without the bound a refused connection is retried as before.
func TestUnreachableWithinGivesUp(t *testing.T) {
	// Guards a hang (an hour's backoff) should the bound not apply.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bounded := []Option{WithHourlyBudget(0), WithBackoff(time.Hour, time.Hour), WithUnreachableWithin(time.Nanosecond)}

	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsSrv.Close)
	for _, c := range []struct {
		name, url, cause string
	}{
		{"connection refused", "http://" + closedAddr(t) + "/api/v1", "connection refused"},
		{"certificate not trusted", tlsSrv.URL + "/api/v1", "certificate"},
		{"not TLS", strings.Replace(plain.URL, "http:", "https:", 1) + "/api/v1", "HTTP response to HTTPS client"},
	} {
		cl := New(c.url, testToken, bounded...)
		_, err := cl.Ping(ctx)
		var ue *UnreachableError
		if !errors.As(err, &ue) || ue.Attempts != 1 || cl.Requests() != 1 {
			t.Errorf("%s: %d requests, error %v; want an UnreachableError after 1", c.name, cl.Requests(), err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "GET /util/ping: the bank is unreachable (1 attempt in ") || !strings.Contains(msg, c.cause) ||
			strings.Contains(msg, "\n") || !Outage(err) {
			t.Errorf("%s: %q (outage %v), want one line naming %q", c.name, msg, Outage(err), c.cause)
		}
	}

	// A 5xx is not unreachable: its attempts are not cut short.
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(busy.Close)
	cl := New(busy.URL+"/api/v1", testToken, WithHourlyBudget(0), WithBackoff(time.Microsecond, time.Microsecond),
		WithMaxAttempts(3), WithUnreachableWithin(time.Nanosecond))
	if _, err := cl.Ping(ctx); cl.Requests() != 3 || errors.As(err, new(*UnreachableError)) {
		t.Errorf("503s with the bound: %d requests, %v; want 3 and the bank's answer", cl.Requests(), err)
	}
	// Without the bound, a refused connection gets every attempt.
	cl = New("http://"+closedAddr(t)+"/api/v1", testToken, WithHourlyBudget(0), WithBackoff(time.Microsecond, time.Microsecond), WithMaxAttempts(3))
	if _, err := cl.Ping(ctx); cl.Requests() != 3 || errors.As(err, new(*UnreachableError)) {
		t.Errorf("refused without the bound: %d requests, %v; want 3", cl.Requests(), err)
	}
}
