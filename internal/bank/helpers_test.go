package bank

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

const testToken = "up:yeah:T0pS3cretT0ken"

// testServer is an httptest server mounted under /api/v1 that counts hits.
type testServer struct {
	*httptest.Server
	hits atomic.Int64
}

// base is the API base URL of the server.
func (s *testServer) base() string { return s.URL + "/api/v1" }

func newServer(t *testing.T, h func(s *testServer, w http.ResponseWriter, r *http.Request)) *testServer {
	t.Helper()
	s := &testServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
			t.Errorf("Authorization = %q", got)
		}
		if got := r.Header.Get("Accept"); got != "application/json" {
			t.Errorf("Accept = %q", got)
		}
		if got := r.Header.Get("User-Agent"); got != "bankmirror" {
			t.Errorf("User-Agent = %q", got)
		}
		h(s, w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// newTestClient is a client of s with tiny backoffs and no budget.
func newTestClient(s *testServer, opts ...Option) *Client {
	base := []Option{
		WithHourlyBudget(0),
		WithBackoff(time.Microsecond, 50*time.Microsecond),
		WithRateLimitBackoff(time.Microsecond, 50*time.Microsecond),
	}
	return New(s.base(), testToken, append(base, opts...)...)
}

// fixture reads testdata/name with {{BASE}} replaced by base.
func fixture(t testing.TB, name, base string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(b, []byte("{{BASE}}"), []byte(base))
}

// serveFixture answers with status and the fixture.
func serveFixture(t testing.TB, w http.ResponseWriter, status int, name, base string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(fixture(t, name, base))
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := http.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
