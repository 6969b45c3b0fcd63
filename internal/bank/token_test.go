package bank

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// After a 401 the client sends the token no more: every request fails at
// once, until SetToken gives a new one; the observer hears both changes.
func TestRejectedTokenIsNotSentAgain(t *testing.T) {
	var mu sync.Mutex
	revoked := true
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ok := !revoked
		mu.Unlock()
		if !ok {
			serveFixture(t, w, 401, "error_401.json", s.base())
			return
		}
		serveFixture(t, w, 200, "ping.json", s.base())
	})
	var seen []TokenState
	c := New(s.base(), testToken, WithHourlyBudget(0), WithTokenObserver(func(st TokenState) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, st)
	}))
	if _, err := c.Ping(t.Context()); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("first ping: %v", err)
	}
	rejected, replaced := c.TokenRejected()
	if !rejected || !c.Token().Rejected || c.Token().RejectedAt.IsZero() {
		t.Fatalf("token state %+v after a 401", c.Token())
	}
	for range 3 {
		_, err := c.Ping(t.Context())
		if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "not sent") || strings.Contains(err.Error(), testToken) {
			t.Fatalf("ping with a rejected token: %v", err)
		}
	}
	if n := s.hits.Load(); n != 1 {
		t.Fatalf("%d requests reached the bank, want 1", n)
	}
	select {
	case <-replaced:
		t.Fatal("replaced closed before SetToken")
	default:
	}

	// The same token given again (the bank re-enabled it) is tried again.
	mu.Lock()
	revoked = false
	mu.Unlock()
	c.SetToken(testToken)
	<-replaced
	if _, err := c.Ping(t.Context()); err != nil {
		t.Fatalf("ping with the new token: %v", err)
	}
	if st := c.Token(); st.Rejected || st.Replaced != 1 {
		t.Errorf("token state %+v after SetToken", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || !seen[0].Rejected || seen[1].Rejected || seen[1].Replaced != 1 {
		t.Errorf("observer saw %+v, want rejected then replaced", seen)
	}
}

// A 401 to a request sent with a token since replaced does not reject the
// new one.
func TestLate401DoesNotRejectTheNewToken(t *testing.T) {
	tok := newToken("old")
	tok.set("new")
	tok.reject("old", mustTime(t, "Mon, 02 Jan 2006 15:04:05 GMT"))
	if _, rejected := tok.get(); rejected {
		t.Error("a late 401 for the old token rejected the new one")
	}
	tok.reject("new", mustTime(t, "Mon, 02 Jan 2006 15:04:05 GMT"))
	if _, rejected := tok.get(); !rejected {
		t.Error("a 401 for the current token was ignored")
	}
}

// The response observer sees every attempt's status.
func TestResponseObserver(t *testing.T) {
	var mu sync.Mutex
	var statuses []int
	n := 0
	s := newServer(t, func(s *testServer, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		serveFixture(t, w, 200, "ping.json", s.base())
	})
	c := New(s.base(), testToken, WithHourlyBudget(0), WithBackoff(0, 0), WithResponseObserver(func(status int) {
		mu.Lock()
		defer mu.Unlock()
		statuses = append(statuses, status)
	}))
	if _, err := c.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(statuses) != 2 || statuses[0] != 503 || statuses[1] != 200 {
		t.Errorf("observed %v, want [503 200]", statuses)
	}
}
