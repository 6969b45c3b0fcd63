// Package ynabspec checks HTTP traffic against YNAB's own API
// description (OpenAPI, embedded): the fake YNAB's requests and responses
// in tests, and in `bankmirror simulator --ynab` when the binary is built
// with -tags ynabspec. It lives apart from the fake so that the daemon's
// binary does not link the OpenAPI and JSON Schema libraries (their
// package initialisation allocates in every process, `serve` included).
package ynabspec

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// specYAML is an unmodified copy of YNAB's API description, version
// 1.85.0 (shared/reference/ynab-openapi.yaml).
//
//go:embed ynab-openapi.yaml
var specYAML []byte

// specServer is the server URL of the description; requests are routed as
// if sent to it.
const specServer = "https://api.ynab.com/v1"

// Spec is the loaded description and its router.
type Spec struct {
	doc    *openapi3.T
	router routers.Router
}

var (
	specOnce sync.Once
	specVal  *Spec
	specErr  error
)

// Load parses and checks the embedded description, once per process.
func Load() (*Spec, error) {
	specOnce.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(specYAML)
		if err != nil {
			specErr = fmt.Errorf("load ynab openapi: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			specErr = fmt.Errorf("validate ynab openapi: %w", err)
			return
		}
		r, err := legacy.NewRouter(doc)
		if err != nil {
			specErr = fmt.Errorf("ynab openapi router: %w", err)
			return
		}
		specVal = &Spec{doc: doc, router: r}
	})
	return specVal, specErr
}

var schemaOpts = []openapi3.SchemaValidationOption{openapi3.EnableFormatValidation()}

// Operation is the operationId of method and rel (a path relative to
// /v1, with its query).
func (s *Spec) Operation(method, rel string) (string, error) {
	r, err := http.NewRequest(method, specServer+rel, nil) //nolint:noctx // never sent: routed only
	if err != nil {
		return "", fmt.Errorf("operation request: %w", err)
	}
	route, _, _, err := s.route(r, rel)
	if err != nil {
		return "", err
	}
	return route.Operation.OperationID, nil
}

// ValidateRequest checks r (whose path relative to /v1 is rel; body is
// its body, already read) against its operation: parameters and body.
func (s *Spec) ValidateRequest(r *http.Request, rel string, body []byte) error {
	route, params, rr, err := s.route(r, rel)
	if err != nil {
		return err
	}
	return s.validateRequest(r.Context(), rr, route, params, body)
}

// ValidateResponse checks a response written to r: a status the
// operation documents against its description, an error status of a path
// the description does not know against ErrorResponse.
func (s *Spec) ValidateResponse(r *http.Request, rel string, reqBody []byte, status int, header http.Header, body []byte) error {
	route, params, rr, err := s.route(r, rel)
	if err != nil {
		route, params, rr = nil, nil, r
	}
	return s.validateResponse(r.Context(), rr, route, params, reqBody, status, header, body)
}

// route finds the operation of r (whose path is relative to /v1).
func (s *Spec) route(r *http.Request, rel string) (*routers.Route, map[string]string, *http.Request, error) {
	u, err := url.Parse(specServer + rel)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("parse path: %w", err)
	}
	u.RawQuery = r.URL.RawQuery
	rr := r.Clone(r.Context())
	rr.URL = u
	rr.Host = u.Host
	route, params, err := s.router.FindRoute(rr)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("find route: %w", err)
	}
	return route, params, rr, nil
}

// validateRequest checks the request's parameters and body (body is the
// request body already read) against the operation.
func (s *Spec) validateRequest(ctx context.Context, rr *http.Request, route *routers.Route, params map[string]string, body []byte) error {
	rr.Body = io.NopCloser(bytes.NewReader(body))
	in := &openapi3filter.RequestValidationInput{Request: rr, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			SchemaValidationOptions: schemaOpts}}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		return fmt.Errorf("validate request: %w", err)
	}
	return nil
}

// validateResponse checks a response the fake wrote: a status the
// operation documents through openapi3filter, any other error status
// against ErrorResponse; an undocumented success status is an error.
func (s *Spec) validateResponse(ctx context.Context, rr *http.Request, route *routers.Route, params map[string]string,
	reqBody []byte, status int, header http.Header, body []byte) error {
	if route == nil || route.Operation.Responses.Status(status) == nil {
		if status < 400 {
			return fmt.Errorf("undocumented status %d", status)
		}
		return s.validateError(body)
	}
	if ct := header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		return fmt.Errorf("content type %q", ct)
	}
	rr = rr.Clone(ctx)
	rr.Body = io.NopCloser(bytes.NewReader(reqBody))
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: rr, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}},
		Status: status, Header: header, Body: io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true,
			SchemaValidationOptions: append([]openapi3.SchemaValidationOption{openapi3.VisitAsResponse()}, schemaOpts...)},
	}
	if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
		return fmt.Errorf("validate response: %w", err)
	}
	return nil
}

// validateError checks body against ErrorResponse.
func (s *Spec) validateError(body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("error body: %w", err)
	}
	ref := s.doc.Components.Schemas["ErrorResponse"]
	if ref == nil || ref.Value == nil {
		return errors.New("no ErrorResponse schema")
	}
	if err := ref.Value.VisitJSON(v, schemaOpts...); err != nil {
		return fmt.Errorf("error body: %w", err)
	}
	return nil
}

// MustLoad is Load for tests and wiring that cannot go on without the
// description: it panics if the embedded description does not load.
func MustLoad() *Spec {
	s, err := Load()
	if err != nil {
		panic(err)
	}
	return s
}
