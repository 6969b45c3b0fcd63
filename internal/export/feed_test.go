package export_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bench/synthetic"
	"github.com/bankmirror/bankmirror/internal/export"
	"github.com/bankmirror/bankmirror/internal/store"
)

const feedToken = "feed-token-0123456789abcdef"

// feedServer serves the feed on loopback behind a middleware that records
// the URL of every request after the handler ran, as an access log would.
type feedServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
	logs bytes.Buffer
}

func newFeedServer(t *testing.T, feed func(log zerolog.Logger) *export.Feed) *feedServer {
	t.Helper()
	s := &feedServer{}
	mux := http.NewServeMux()
	feed(zerolog.New(&lockedBuffer{b: &s.logs, mu: &s.mu}).Level(zerolog.DebugLevel)).Register(mux)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r)
		s.mu.Lock()
		s.seen = append(s.seen, r.URL.String(), r.RequestURI)
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

type lockedBuffer struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (s *feedServer) get(t *testing.T, path, bearer string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	switch bearer {
	case "":
	case "basic":
		req.SetBasicAuth("user", "proxy-password")
	default:
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

// assertTokenNeverRecorded: neither the URLs seen after the handler nor
// the feed's log hold the token.
func (s *feedServer) assertTokenNeverRecorded(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 {
		t.Fatal("no request recorded")
	}
	for _, u := range s.seen {
		if strings.Contains(u, feedToken) || strings.Contains(u, "token=") {
			t.Errorf("the request's URL still holds the token after the handler: %s", u)
		}
	}
	if strings.Contains(s.logs.String(), feedToken) {
		t.Errorf("the log holds the token:\n%s", s.logs.String())
	}
}

// TestFeedRefusesWithoutTheToken: no token, a wrong one (in the query or
// the header, of any length) gets 401 and runs no query: the feed reads a
// closed database, which any query would fail on (500), as the last case
// shows.
func TestFeedRefusesWithoutTheToken(t *testing.T) {
	closed := openMirror(t)
	closed.Close()
	s := newFeedServer(t, func(log zerolog.Logger) *export.Feed {
		f, err := export.NewFeed(closed, feedToken, export.FeedOptions{Log: log})
		if err != nil {
			t.Fatal(err)
		}
		return f
	})
	for _, c := range []struct{ name, path, bearer string }{
		{"no token", "/export/v_transactions.csv", ""},
		{"wrong token in query", "/export/v_transactions.csv?token=" + feedToken[:len(feedToken)-1] + "X", ""},
		{"short token in query", "/export/v_transactions.csv?token=x", ""},
		{"empty token", "/export/v_transactions.csv?token=", ""},
		{"wrong bearer", "/export/v_transactions.json", "nope"},
		{"wrong bearer, right query", "/export/v_transactions.csv?token=" + feedToken, "nope"},
		{"token twice", "/export/v_transactions.csv?token=" + feedToken + "&token=" + feedToken, ""},
		{"unknown view", "/export/v_nope.csv", ""},
		{"not a view", "/export/transactions.csv?token=wrong", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, h, body := s.get(t, c.path, c.bearer)
			if code != http.StatusUnauthorized || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("status %d (%s), want 401 with WWW-Authenticate", code, body)
			}
		})
	}
	// With the token, the query runs, and fails on the closed database.
	if code, _, body := s.get(t, "/export/v_transactions.csv", feedToken); code != http.StatusInternalServerError {
		t.Errorf("authorised request on a closed database: %d %s, want 500 (so the 401s above ran no query)", code, body)
	}
	s.assertTokenNeverRecorded(t)
}

// TestFeedServesTheExport: with the token (header or query), the feed's
// CSV and JSON are byte for byte what `bankmirror export` writes, filters
// included; bad requests get clear 400/404/405 answers.
func TestFeedServesTheExport(t *testing.T) {
	db := openMirror(t)
	s := newFeedServer(t, func(log zerolog.Logger) *export.Feed {
		f, err := export.NewFeed(db, feedToken, export.FeedOptions{Location: melbourne, Log: log})
		if err != nil {
			t.Fatal(err)
		}
		return f
	})
	q := url.Values{"token": {feedToken}}.Encode()
	for _, c := range []struct {
		name, path, bearer string
		req                export.Request
		ctype              string
	}{
		{"csv, bearer", "/export/v_transactions.csv", feedToken, export.Request{Format: export.CSV, Views: []string{"v_transactions"}}, "text/csv"},
		{"csv, query token", "/export/v_transactions.csv?" + q, "", export.Request{Format: export.CSV, Views: []string{"v_transactions"}}, "text/csv"},
		{"csv, query token behind a proxy's Basic auth", "/export/v_transactions.csv?" + q, "basic", export.Request{Format: export.CSV, Views: []string{"v_transactions"}}, "text/csv"},
		{"json with filters", "/export/v_test_generic.json?status=settled&tag=" + url.QueryEscape(commaTag) + "&" + q, "",
			export.Request{Format: export.JSON, Views: []string{"v_test_generic"}, Filter: export.Filter{Status: "settled", Tag: commaTag}}, "application/x-ndjson"},
		{"csv since a month", "/export/v_monthly_spending.csv?since=2026-01&" + q, "",
			export.Request{Format: export.CSV, Views: []string{"v_monthly_spending"}, Filter: export.Filter{Since: "2026-01"}}, "text/csv"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, h, body := s.get(t, c.path, c.bearer)
			want, _ := run(t, db, c.req)
			if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), c.ctype) || h.Get("Cache-Control") != "no-store" {
				t.Fatalf("status %d type %q cache %q: %s", code, h.Get("Content-Type"), h.Get("Cache-Control"), body)
			}
			if !bytes.Equal(body, want) {
				t.Errorf("the feed's %d bytes differ from the export's %d", len(body), len(want))
			}
			lines := len(strings.Split(strings.TrimSpace(string(body)), "\n"))
			if c.req.Format == export.CSV {
				lines-- // the header
			}
			if lines < 1 {
				t.Errorf("too few rows to prove anything: %s", body)
			}
		})
	}
	for _, c := range []struct {
		name, path string
		code       int
		msg        string
	}{
		{"unknown view", "/export/v_nope.csv", http.StatusNotFound, `no view "v_nope"`},
		{"a table", "/export/sync_state.csv", http.StatusNotFound, "no view"},
		{"xlsx", "/export/v_transactions.xlsx", http.StatusNotFound, "VIEW.csv"},
		{"unknown parameter", "/export/v_transactions.csv?limit=5", http.StatusBadRequest, `unknown parameter "limit"`},
		{"bad date", "/export/v_transactions.csv?since=soon", http.StatusBadRequest, `--since "soon"`},
		{"filter the view lacks", "/export/v_monthly_spending.csv?status=HELD", http.StatusBadRequest, "no status column"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, body := s.get(t, c.path, feedToken)
			if code != c.code || !strings.Contains(string(body), c.msg) {
				t.Errorf("%d %q, want %d containing %q", code, body, c.code, c.msg)
			}
		})
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/export/v_transactions.csv", nil)
	req.Header.Set("Authorization", "Bearer "+feedToken)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
	s.assertTokenNeverRecorded(t)
}

// TestFeedNeedsAToken: the feed is off without a token of a sensible
// length, and refuses an obviously weak one.
func TestFeedNeedsAToken(t *testing.T) {
	db := openMirror(t)
	for _, tok := range []string{"", "short", "aaaaaaaaaaaaaaaa"} {
		if _, err := export.NewFeed(db, tok, export.FeedOptions{}); err == nil {
			t.Errorf("token %q accepted", tok)
		}
	}
}

// TestCheckToken: the weak-token rule, and errors that never quote the
// token.
func TestCheckToken(t *testing.T) {
	for tok, weak := range map[string]bool{
		"":                                 true,
		"0123456789abcde":                  true, // 15 characters
		"aaaaaaaaaaaaaaaa":                 true, // one character repeated
		"abababababababababababab":         true, // two
		"abcdeabcdeabcdeabcdeabcde":        true, // five
		"abcdefabcdefabcd":                 true, // a piece of six repeated
		"password1password1":               true,
		"Tr0ub4dor&3Tr0ub4dor&3":           true,
		"0123456789abcdef":                 false, // weak, but the rule is about repetition
		"aaaaaaaaaaaabcdef":                false, // six different characters
		"3f9c2a7e1b04d8c6":                 false, // openssl rand -hex 8
		"feed-token-0123456789abcdef":      false,
		"q7Ln-2vXzR_8kPwT3mYc0sBd9JhAeUfG": false,
		"Grüße aus Köln":                   false, // 14 runes, 16 bytes
	} {
		err := export.CheckToken(tok)
		if (err != nil) != weak {
			t.Errorf("CheckToken(%q) = %v, want weak=%v", tok, err, weak)
		}
		if err != nil && (!errors.Is(err, export.ErrWeakToken) || (tok != "" && strings.Contains(err.Error(), tok))) {
			t.Errorf("CheckToken(%q) = %v: not ErrWeakToken, or quotes the token", tok, err)
		}
	}
}

// TestFeedBusy: past MaxConcurrent exports at once, a request gets 503
// with Retry-After rather than queueing.
func TestFeedBusy(t *testing.T) {
	// A mirror large enough that its CSV (about 15 MB) cannot all sit in
	// loopback socket buffers: an export whose client does not read stays
	// in the handler, holding its slot.
	path := filepath.Join(t.TempDir(), "big.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := synthetic.Fill(context.Background(), st, 60000, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenReadOnlyDB(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := newFeedServer(t, func(log zerolog.Logger) *export.Feed {
		f, err := export.NewFeed(db, feedToken, export.FeedOptions{MaxConcurrent: 1, Log: log})
		if err != nil {
			t.Fatal(err)
		}
		return f
	})
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/export/v_transactions.csv", nil)
	req.Header.Set("Authorization", "Bearer "+feedToken)
	first, err := s.Client().Do(req) // returns with the headers: the handler is writing rows
	if err != nil {
		t.Fatal(err)
	}
	defer first.Body.Close()
	if first.StatusCode != http.StatusOK {
		t.Fatalf("first export: %d", first.StatusCode)
	}
	code, h, body := s.get(t, "/export/v_monthly_spending.csv", feedToken)
	if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
		t.Errorf("second export while the first runs: %d %q (Retry-After %q), want 503 with Retry-After", code, body, h.Get("Retry-After"))
	}
}
