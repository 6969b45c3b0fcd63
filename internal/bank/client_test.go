package bank

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

func TestDefaults(t *testing.T) {
	c := New("", testToken)
	if c.baseURL != DefaultBaseURL || c.pageSize != 100 || c.maxAttempts != 8 {
		t.Errorf("defaults: %+v", c)
	}
	b := c.budget
	if b.cap != 0 || b.reserve != DefaultReserve || b.bucket != time.Hour || b.probeBase != time.Second || b.probeMax != 5*time.Minute {
		t.Errorf("budget defaults: cap %d reserve %d bucket %v probe %v..%v", b.cap, b.reserve, b.bucket, b.probeBase, b.probeMax)
	}
	if c.backoffBase != 500*time.Millisecond || c.backoffMax != 30*time.Second {
		t.Errorf("backoff defaults: %v %v", c.backoffBase, c.backoffMax)
	}
	if c.hc.Timeout != 20*time.Second {
		t.Errorf("client timeout %v", c.hc.Timeout)
	}
	tr := c.hc.Transport.(*http.Transport)
	if tr.IdleConnTimeout != 10*time.Second || tr.MaxIdleConnsPerHost < 4 || tr.DisableKeepAlives {
		t.Errorf("transport: idle %v, per host %d", tr.IdleConnTimeout, tr.MaxIdleConnsPerHost)
	}
}

// Each attempt, retries included, counts against BANKMIRROR_REQUESTS_PER_HOUR.
func TestHourlyCapCountsRetries(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		if s.hits.Load() <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		serveFixture(t, w, 200, "ping.json", s.base())
	})
	c := newTestClient(s, WithHourlyBudget(50))
	if _, err := c.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := c.Requests(); got != 3 {
		t.Errorf("Requests() = %d, want 3", got)
	}
	if got := c.budget.capCount; got != 3 {
		t.Errorf("counted against the cap: %d, want 3", got)
	}
}

func TestUnauthorized(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		serveFixture(t, w, 401, "error_401.json", s.base())
	})
	c := newTestClient(s)
	_, err := c.Ping(t.Context())
	if !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "token rejected") || !strings.Contains(msg, "generate a new personal access token") {
		t.Errorf("message %q", msg)
	}
	if strings.Contains(msg, testToken) {
		t.Error("token in error")
	}
	if got := s.hits.Load(); got != 1 {
		t.Errorf("hits = %d, want 1 (no retry)", got)
	}
}

func TestClientErrorsMapToSentinels(t *testing.T) {
	tests := []struct {
		status  int
		fixture string
		want    error
		title   string
	}{
		{404, "error_404.json", ErrNotFound, "Not Found"},
		{422, "error_422.json", ErrUnprocessable, "Invalid Request Body"},
		{400, "error_400.json", ErrBadRequest, "Invalid Parameter"},
		{404, "", ErrNotFound, ""}, // non-JSON body
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status)+tt.fixture, func(t *testing.T) {
			s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
				if tt.fixture == "" {
					w.WriteHeader(tt.status)
					_, _ = w.Write([]byte("<html>gone</html>"))
					return
				}
				serveFixture(t, w, tt.status, tt.fixture, s.base())
			})
			c := newTestClient(s)
			_, err := c.Transaction(t.Context(), "abc")
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.status {
				t.Fatalf("errors.As: %#v", apiErr)
			}
			if tt.title != "" && (len(apiErr.Errors) == 0 || apiErr.Errors[0].Title != tt.title) {
				t.Errorf("errors = %+v", apiErr.Errors)
			}
			if tt.title != "" && !strings.Contains(err.Error(), strings.ToLower(tt.title)) {
				t.Errorf("message %q lacks the title", err)
			}
			if s.hits.Load() != 1 {
				t.Errorf("hits = %d, want 1", s.hits.Load())
			}
		})
	}
}

func TestServerErrorRetriedThenSucceeds(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		if s.hits.Load() <= 2 {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("bad gateway"))
			return
		}
		serveFixture(t, w, 200, "account_get.json", s.base())
	})
	c := newTestClient(s)
	a, err := c.Account(t.Context(), "e647dd54-4d10-41d0-8071-21eb0a3f6214")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != "e647dd54-4d10-41d0-8071-21eb0a3f6214" {
		t.Errorf("account %+v", a)
	}
	if got := c.Requests(); got != 3 {
		t.Errorf("Requests() = %d, want 3", got)
	}
}

func TestServerErrorExhausted(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"errors":[{"status":"500","title":"Internal Server Error","detail":"boom"}]}`))
	})
	c := newTestClient(s, WithMaxAttempts(4))
	_, err := c.Accounts(t.Context())
	if !errors.Is(err, ErrServer) {
		t.Fatalf("err = %v, want ErrServer", err)
	}
	if got := s.hits.Load(); got != 4 {
		t.Errorf("hits = %d, want 4", got)
	}
	if got := c.Requests(); got != 4 {
		t.Errorf("Requests() = %d, want 4", got)
	}
}

func TestPostNotRetriedOnServerError(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	c := newTestClient(s)
	if _, err := c.CreateWebhook(t.Context(), "https://example.com/hook", nil); !errors.Is(err, ErrServer) {
		t.Fatalf("err = %v", err)
	}
	if got := s.hits.Load(); got != 1 {
		t.Errorf("hits = %d, want 1", got)
	}
}

// Adding tags is idempotent by the spec (duplicates are ignored), so that
// POST is retried on a server error like the DELETE.
func TestAddTagsRetriedOnServerError(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v1/transactions/tx1/relationships/tags" {
			t.Errorf("%s %s", r.Method, r.URL.Path)
		}
		if s.hits.Load() == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	c := newTestClient(s)
	if err := c.AddTags(t.Context(), "tx1", []string{"Holiday"}); err != nil {
		t.Fatal(err)
	}
	if got := s.hits.Load(); got != 2 {
		t.Errorf("hits = %d, want 2", got)
	}
}

// A refused connection sent nothing, so even a POST is retried.
func TestPostRetriedOnConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var logs bytes.Buffer
	c := New("http://"+addr+"/api/v1", testToken, WithHourlyBudget(0), WithMaxAttempts(3),
		WithBackoff(time.Microsecond, time.Microsecond), WithLogger(zerolog.New(&logs)))
	_, err = c.CreateWebhook(t.Context(), "https://example.com/hook", nil)
	if err == nil {
		t.Fatal("no error")
	}
	if got := c.Requests(); got != 3 {
		t.Errorf("Requests() = %d, want 3", got)
	}
	if strings.Contains(err.Error(), testToken) || strings.Contains(logs.String(), testToken) {
		t.Error("token leaked")
	}
}

func TestRateLimitedResumes(t *testing.T) {
	for _, retryAfter := range []string{"0", ""} {
		t.Run("Retry-After="+retryAfter, func(t *testing.T) {
			s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
				// Five 429s: more than MaxAttempts, which 429 does not use.
				if s.hits.Load() <= 5 {
					if retryAfter != "" {
						w.Header().Set("Retry-After", retryAfter)
					}
					w.Header().Set("X-RateLimit-Remaining", "0")
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				serveFixture(t, w, 200, "ping.json", s.base())
			})
			var logs bytes.Buffer
			c := newTestClient(s, WithMaxAttempts(2), WithLogger(zerolog.New(&logs)))
			p, err := c.Ping(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if p.ID != "f8178615-7fd7-47a6-9a6e-cf62b3313848" || p.StatusEmoji != "\u26a1\ufe0f" {
				t.Errorf("ping %+v", p)
			}
			if got := c.Requests(); got != 6 {
				t.Errorf("Requests() = %d, want 6", got)
			}
			out := logs.String()
			for _, f := range []string{`"level":"warn"`, `"status":429`, `"attempt":5`, `"remaining":"0"`} {
				if !strings.Contains(out, f) {
					t.Errorf("logs lack %s: %s", f, out)
				}
			}
		})
	}
}

func TestRateLimitWaitCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	// The warning is logged just before the client waits an hour: cancel then.
	logger := zerolog.New(nil).Hook(zerolog.HookFunc(func(e *zerolog.Event, level zerolog.Level, msg string) {
		if level == zerolog.WarnLevel {
			cancel()
		}
	}))
	c := newTestClient(s, WithLogger(logger))
	_, err := c.Ping(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !errors.Is(err, ErrRateLimited) {
		t.Errorf("err = %v, want it to wrap ErrRateLimited too", err)
	}
	if got := s.hits.Load(); got != 1 {
		t.Errorf("hits = %d, want 1", got)
	}
}

func TestTokenNeverInErrorsOrLogs(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		switch s.hits.Load() {
		case 1:
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			serveFixture(t, w, 401, "error_401.json", s.base())
		}
	})
	var logs bytes.Buffer
	c := newTestClient(s, WithLogger(zerolog.New(&logs)))
	_, err := c.Tags(t.Context())
	if !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), testToken) || strings.Contains(logs.String(), testToken) {
		t.Errorf("token leaked: %v / %s", err, logs.String())
	}
	if strings.Contains(logs.String(), "Bearer") {
		t.Error("authorization header logged")
	}
}

func TestForeignRedirectRefused(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://evil.example.com/api/v1/util/ping", http.StatusFound)
	})
	c := New(s.base(), testToken, WithHourlyBudget(0), WithBackoff(time.Microsecond, time.Microsecond))
	if _, err := c.Ping(t.Context()); !errors.Is(err, errForeignURL) {
		t.Fatalf("err = %v", err)
	}
	if c.Requests() != 1 {
		t.Errorf("Requests() = %d, want 1 (not retried)", c.Requests())
	}
}

func TestTimeoutRetried(t *testing.T) {
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		if s.hits.Load() == 1 {
			<-r.Context().Done() // hang until the client gives up
			return
		}
		serveFixture(t, w, 200, "ping.json", s.base())
	})
	c := newTestClient(s, WithHTTPClient(&http.Client{Timeout: 100 * time.Millisecond}))
	if _, err := c.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	if c.Requests() != 2 {
		t.Errorf("Requests() = %d, want 2", c.Requests())
	}
}

// An answer larger than the cap is refused, not retried, and costs the
// client little memory: one with a Content-Length over the cap is not read
// at all; one of unknown length is read up to the cap only (its buffer
// doubles up to twice the cap; the race detector doubles what the growth
// allocates). The server offers 64 MiB.
func TestOversizedAnswerRefusedWithoutBufferingIt(t *testing.T) {
	const offered = 64 << 20
	for _, tc := range []struct {
		name     string
		length   bool  // send Content-Length
		maxAlloc int64 // bytes the client may allocate for the refused answer
	}{
		{"content length", true, 1 << 20},
		{"chunked", false, 10 * maxBodySize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
				if tc.length {
					w.Header().Set("Content-Length", strconv.Itoa(offered))
				}
				chunk := bytes.Repeat([]byte(" "), 64<<10)
				for sent := 0; sent < offered; sent += len(chunk) {
					if _, err := w.Write(chunk); err != nil {
						return // the client hung up
					}
				}
			})
			c := newTestClient(s)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := c.Ping(t.Context())
			runtime.ReadMemStats(&after)
			if !errors.Is(err, errBodyTooLarge) || !strings.Contains(err.Error(), "over 4 MiB") {
				t.Fatalf("err = %v, want the answer refused as over 4 MiB", err)
			}
			if s.hits.Load() != 1 {
				t.Errorf("%d requests, want 1 (a refused answer is not retried)", s.hits.Load())
			}
			if got := int64(after.TotalAlloc - before.TotalAlloc); got > tc.maxAlloc {
				t.Errorf("refusing a %d MiB answer allocated %d bytes, want at most %d", offered>>20, got, tc.maxAlloc)
			}
		})
	}
}
