package bank

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"
)

// Unreachable reports whether err, from a request, says the bank cannot be
// reached at all, rather than that it answered badly or slowly: the
// connection was refused, the network or host is unreachable, the name
// does not resolve, or the TLS handshake failed (a certificate that does
// not verify, a server that does not speak TLS, or answers plain HTTP). Retrying soon rarely
// helps: a command says so at once (WithUnreachableWithin) and the daemon's
// schedule tries again later.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidErr x509.CertificateInvalidError
	var recordErr tls.RecordHeaderError
	var alertErr tls.AlertError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return true
	case errors.As(err, &dnsErr):
		return true
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &invalidErr):
		return true
	case errors.As(err, &recordErr), errors.As(err, &alertErr), errors.Is(err, http.ErrSchemeMismatch):
		return true
	}
	return false
}

// CommandUnreachableWithin is the bound of WithUnreachableWithin for a
// command: with the attempt itself, the command says the bank is
// unreachable within 10 s.
const CommandUnreachableWithin = 8 * time.Second

// WithUnreachableWithin bounds the retries of a request that finds the
// bank unreachable (Unreachable): it gives up rather than start an attempt
// more than d after its first, and returns the last error. For commands a
// person waits on (`sync`): they say the bank is unreachable within
// seconds instead of retrying for most of a minute. Other failures (5xx,
// timeouts) keep their attempts (WithMaxAttempts). Default 0: no bound.
func WithUnreachableWithin(d time.Duration) Option {
	return func(c *Client) { c.unreachableWithin = d }
}

// UnreachableError is a request that gave up because the bank could not be
// reached (Unreachable), with a client bounded by WithUnreachableWithin:
// one line that names the cause.
type UnreachableError struct {
	Request  string // "GET /accounts"
	Attempts int
	Took     time.Duration
	Err      error // the last attempt's
}

func (e *UnreachableError) Error() string {
	attempts := "1 attempt"
	if e.Attempts != 1 {
		attempts = fmt.Sprintf("%d attempts", e.Attempts)
	}
	return fmt.Sprintf("%s: the bank is unreachable (%s in %s): %s", e.Request, attempts, e.Took.Round(100*time.Millisecond), Cause(e.Err))
}

func (e *UnreachableError) Unwrap() error { return e.Err }
