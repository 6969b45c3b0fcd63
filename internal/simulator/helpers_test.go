package simulator

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// fixedNow is the clock of most tests: a Sunday in AEDT.
var fixedNow = time.Date(2024, 3, 3, 9, 30, 0, 0, time.UTC)

func fixedClock() time.Time { return fixedNow }

// upServer is the server URL of the reference document; requests are
// rewritten to it to find the OpenAPI route.
const upServer = "https://api.up.com.au/api/v1"

var (
	specOnce   sync.Once
	specDoc    *openapi3.T
	specRouter routers.Router
	specErr    error
)

// loadSpec loads testdata/up-openapi.json (an unmodified copy of the
// reference document) once.
func loadSpec(t testing.TB) (*openapi3.T, routers.Router) {
	t.Helper()
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		specDoc, specErr = loader.LoadFromFile("testdata/up-openapi.json")
		if specErr != nil {
			return
		}
		if specErr = specDoc.Validate(context.Background()); specErr != nil {
			return
		}
		specRouter, specErr = legacy.NewRouter(specDoc)
	})
	if specErr != nil {
		t.Fatalf("load openapi: %v", specErr)
	}
	return specDoc, specRouter
}

// env is a bank behind an httptest server.
type env struct {
	t    testing.TB
	bank *Bank
	srv  *httptest.Server
	base string
}

func newEnv(t testing.TB, opts Options) *env {
	t.Helper()
	if opts.Now == nil {
		opts.Now = fixedClock
	}
	b := New(opts)
	srv := httptest.NewServer(b.Handler())
	t.Cleanup(srv.Close)
	return &env{t: t, bank: b, srv: srv, base: srv.URL + apiPrefix}
}

// response is a received and validated HTTP response.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return m
}

// do sends a request with the bank's token (unless header overrides
// Authorization) and validates the response against the OpenAPI document.
func (e *env) do(method, target string, body any, header ...string) response {
	e.t.Helper()
	if !strings.HasPrefix(target, "http") {
		target = e.base + target
	}
	var rd io.Reader
	var raw []byte
	if body != nil {
		if s, ok := body.(string); ok {
			raw = []byte(s)
		} else {
			var err error
			if raw, err = json.Marshal(body); err != nil {
				e.t.Fatal(err)
			}
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, target, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.bank.Token())
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	r := roundTrip(e.t, req)
	validateResponse(e.t, req, raw, r)
	return r
}

func (e *env) get(target string) response {
	e.t.Helper()
	return e.do(http.MethodGet, target, nil)
}

// mustGet gets target and requires a 200.
func (e *env) mustGet(target string) map[string]any {
	e.t.Helper()
	r := e.get(target)
	if r.status != http.StatusOK {
		e.t.Fatalf("GET %s: status %d: %.500s", target, r.status, r.body)
	}
	return r.json(e.t)
}

// validateResponse checks r against the reference document: documented
// statuses through openapi3filter.ValidateResponse, every 4xx/5xx body
// against ErrorResponse, and general invariants (content type, offsets).
func validateResponse(t testing.TB, req *http.Request, reqBody []byte, r response) {
	t.Helper()
	doc, router := loadSpec(t)
	opts := []openapi3.SchemaValidationOption{openapi3.EnableFormatValidation(), openapi3.VisitAsResponse()}
	if r.status != http.StatusNoContent {
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %s: Content-Type %q", req.Method, req.URL, ct)
		}
	} else if len(r.body) != 0 {
		t.Errorf("%s %s: 204 with body %q", req.Method, req.URL, r.body)
	}
	if r.status >= 400 {
		var v any
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Fatalf("%s %s: error body is not JSON: %v: %s", req.Method, req.URL, err, r.body)
		}
		if err := doc.Components.Schemas["ErrorResponse"].Value.VisitJSON(v, opts...); err != nil {
			t.Errorf("%s %s: error body does not match ErrorResponse: %v\n%s", req.Method, req.URL, err, r.body)
		}
	}
	checkOffsets(t, r.body)
	rel := strings.TrimPrefix(req.URL.Path, apiPrefix)
	u, _ := url.Parse(upServer + rel)
	u.RawQuery = req.URL.RawQuery
	rreq := req.Clone(context.Background())
	rreq.URL = u
	rreq.Host = u.Host
	route, params, err := router.FindRoute(rreq)
	if err != nil {
		if r.status != http.StatusNotFound && r.status != http.StatusMethodNotAllowed && r.status < 401 {
			t.Errorf("%s %s: no OpenAPI route but status %d", req.Method, req.URL, r.status)
		}
		return
	}
	if route.Operation.Responses.Status(r.status) == nil {
		if r.status < 400 {
			t.Errorf("%s %s: undocumented success status %d", req.Method, req.URL, r.status)
		}
		return
	}
	if reqBody != nil {
		rreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: rreq, PathParams: params, Route: route},
		Status:                 r.status,
		Header:                 r.header,
		Body:                   io.NopCloser(bytes.NewReader(r.body)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true, MultiError: true,
			SchemaValidationOptions: opts,
		},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s: response does not match the OpenAPI document: %v\n%.2000s", req.Method, req.URL, err, r.body)
	}
}

// checkOffsets requires every RFC 3339 timestamp in body to carry an
// Australian offset.
func checkOffsets(t testing.TB, body []byte) {
	t.Helper()
	s := string(body)
	for i := strings.Index(s, `At":"`); i >= 0; {
		ts := s[i+5:]
		if end := strings.IndexByte(ts, '"'); end >= 0 {
			ts = ts[:end]
		}
		if !strings.HasSuffix(ts, "+10:00") && !strings.HasSuffix(ts, "+11:00") {
			t.Errorf("timestamp %q has no Australian offset", ts)
		}
		next := strings.Index(s[i+5:], `At":"`)
		if next < 0 {
			break
		}
		i += 5 + next
	}
}

// walk follows links.next from target and returns all data items.
func (e *env) walk(target string) []map[string]any {
	e.t.Helper()
	var all []map[string]any
	for target != "" {
		page := e.mustGet(target)
		for _, it := range page["data"].([]any) {
			all = append(all, it.(map[string]any))
		}
		links := page["links"].(map[string]any)
		next, _ := links["next"].(string)
		target = next
	}
	return all
}

func ids(items []map[string]any) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it["id"].(string)
	}
	return out
}

// attr digs a value out of nested maps: attr(m, "attributes", "status").
func attr(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

// walkFirst returns the data items of the first page of target.
func (e *env) walkFirst(target string) []map[string]any {
	e.t.Helper()
	var out []map[string]any
	for _, it := range e.mustGet(target)["data"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// walkRaw follows links.next from target and returns each page's body.
func (e *env) walkRaw(target string) [][]byte {
	e.t.Helper()
	var pages [][]byte
	for target != "" {
		r := e.get(target)
		if r.status != http.StatusOK {
			e.t.Fatalf("GET %s: status %d", target, r.status)
		}
		pages = append(pages, r.body)
		next, _ := attr(r.json(e.t), "links", "next").(string)
		target = next
	}
	return pages
}

// roundTrip sends req with the default client and reads the response.
func roundTrip(t testing.TB, req *http.Request) response {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: got}
}
