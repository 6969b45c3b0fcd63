package bank

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	json "github.com/goccy/go-json"
)

// Sentinel errors. An *APIError unwraps to the one that matches its status,
// so callers test with errors.Is(err, bank.ErrNotFound).
var (
	ErrUnauthorized  = errors.New("unauthorized")
	ErrNotFound      = errors.New("not found")
	ErrBadRequest    = errors.New("bad request")
	ErrUnprocessable = errors.New("unprocessable entity")
	ErrRateLimited   = errors.New("rate limited")
	ErrServer        = errors.New("server error")
	// ErrDecode wraps a response the client could not decode.
	ErrDecode = errors.New("invalid response")
)

// Unavailable reports whether err is the bank's or the network's failure
// rather than the request's own: a rejected token, rate limiting, a 5xx,
// a timeout or a connection error. Retrying the same request later may
// succeed; the request itself is not at fault.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		s := apiErr.StatusCode
		return s == 401 || s == 429 || s >= 500
	}
	if errors.Is(err, ErrDecode) || errors.Is(err, errForeignURL) || errors.Is(err, errBodyTooLarge) || errors.Is(err, ErrPageLoop) ||
		errors.Is(err, ErrListingTooLong) {
		return false
	}
	return true
}

// errForeignURL is returned when a URL (usually a pagination link) points
// outside the scheme and host of the base URL: the token is never sent there.
var errForeignURL = errors.New("refusing url outside the api base")

// ErrorObject is one element of a JSON:API error body.
type ErrorObject struct {
	Status string       `json:"status"`
	Title  string       `json:"title"`
	Detail string       `json:"detail"`
	Source *ErrorSource `json:"source"`
}

// ErrorSource says which part of the request an error is about.
type ErrorSource struct {
	Parameter string `json:"parameter"`
	Pointer   string `json:"pointer"`
}

// APIError is a non-2xx answer of the API. Errors is empty when the body was
// not a JSON:API error document.
type APIError struct {
	StatusCode int
	Errors     []ErrorObject
}

// Error is short: the status and the first error's title and detail.
func (e *APIError) Error() string {
	if e.StatusCode == 401 {
		return "bank api: token rejected (401): generate a new personal access token"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "bank api: status %d", e.StatusCode)
	if len(e.Errors) > 0 {
		o := e.Errors[0]
		if o.Title != "" {
			b.WriteString(": ")
			b.WriteString(strings.ToLower(o.Title))
		}
		if o.Detail != "" {
			b.WriteString(": ")
			b.WriteString(o.Detail)
		}
		if o.Source != nil && o.Source.Parameter != "" {
			fmt.Fprintf(&b, " (parameter %s)", o.Source.Parameter)
		} else if o.Source != nil && o.Source.Pointer != "" {
			fmt.Fprintf(&b, " (pointer %s)", o.Source.Pointer)
		}
	}
	return b.String()
}

// Unwrap returns the sentinel for the status, or nil for statuses without one
// (such as 403).
func (e *APIError) Unwrap() error {
	switch {
	case e.StatusCode == 400:
		return ErrBadRequest
	case e.StatusCode == 401:
		return ErrUnauthorized
	case e.StatusCode == 404:
		return ErrNotFound
	case e.StatusCode == 422:
		return ErrUnprocessable
	case e.StatusCode == 429:
		return ErrRateLimited
	case e.StatusCode >= 500:
		return ErrServer
	}
	return nil
}

// newAPIError builds an APIError from a response; a body that is not a
// JSON:API error document is tolerated and gives no ErrorObjects.
func newAPIError(status int, body []byte) *APIError {
	e := &APIError{StatusCode: status}
	var doc struct {
		Errors []ErrorObject `json:"errors"`
	}
	if json.Unmarshal(body, &doc) == nil {
		e.Errors = doc.Errors
	}
	return e
}

// Outage reports whether err is the bank or the network failing to answer:
// no connection, no answer in time, a TLS failure, or a 5xx once the
// retries are spent. Unlike Unavailable it names only failures seen on the
// way to the bank, so that an error of another cause (the mirror's disk, a
// cancelled command) is never taken for one.
func Outage(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode >= 500
	}
	var urlErr *url.Error
	var netErr net.Error
	return errors.As(err, &urlErr) || errors.As(err, &netErr) || errors.Is(err, syscall.ECONNREFUSED)
}

// Cause is the most telling part of a failed request's error, for one
// line: "dial tcp 127.0.0.1:9: connect: connection refused", "lookup
// api.example: no such host", "bank api: status 503: ...", without the
// chain of what was being done.
func Cause(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var apiErr *APIError
	var urlErr *url.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &dnsErr):
		return dnsErr.Error()
	case errors.As(err, &opErr):
		return opErr.Error()
	case errors.As(err, &apiErr):
		return apiErr.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time"
	case errors.As(err, &urlErr):
		return urlErr.Err.Error()
	}
	return err.Error()
}
