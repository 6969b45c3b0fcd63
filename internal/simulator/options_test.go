package simulator

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestEmptyBank(t *testing.T) {
	e := newEnv(t, Options{Seed: 1, Empty: true})
	if got := e.walk("/transactions"); len(got) != 0 {
		t.Errorf("empty bank lists %d transactions", len(got))
	}
	if got := e.walk("/accounts"); len(got) != 5 {
		t.Errorf("empty bank has %d accounts", len(got))
	}
	checkBalances(t, e.bank.Snapshot())
	id := e.bank.AddTransaction(NewTransaction{AmountBaseUnits: -100})
	if got := ids(e.walk("/transactions")); len(got) != 1 || got[0] != id {
		t.Errorf("after one AddTransaction: %v", got)
	}
	if n := len(New(Options{Seed: 1, Now: fixedClock}).Snapshot().Transactions); n != 2000 {
		t.Errorf("default bank has %d transactions, want 2000", n)
	}
}

// With PublicURL every link carries it; a client that rewrites the host
// of each request walks the whole listing.
func TestPublicURL(t *testing.T) {
	const public = "https://api.up.com.au/api/v1"
	e := newEnv(t, Options{Seed: 1, Transactions: 90, PublicURL: public + "/"})
	srv, _ := url.Parse(e.srv.URL)
	client := &http.Client{Transport: rewriteHost{srv.Host}}
	next := public + "/transactions?page[size]=7"
	n := 0
	for next != "" {
		req, _ := http.NewRequest(http.MethodGet, next, nil)
		req.Header.Set("Authorization", "Bearer "+e.bank.Token())
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r := response{status: resp.StatusCode, header: resp.Header}
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		r.body = buf.Bytes()
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d", next, r.status)
		}
		page := r.json(t)
		for _, it := range page["data"].([]any) {
			self := attr(it.(map[string]any), "links", "self").(string)
			if !strings.HasPrefix(self, public+"/transactions/") {
				t.Fatalf("self link %q", self)
			}
			n++
		}
		next, _ = attr(page, "links", "next").(string)
		if next != "" && !strings.HasPrefix(next, public+"/transactions?") {
			t.Fatalf("next link %q", next)
		}
	}
	if n != 90 {
		t.Errorf("walked %d transactions, want 90", n)
	}
}

// rewriteHost sends every request to host over plain HTTP.
type rewriteHost struct{ host string }

func (rh rewriteHost) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = "http", rh.host
	return http.DefaultTransport.RoundTrip(r)
}

// Two banks of the same seed on the same fixed clock answer the same bytes,
// attachments' signed links included.
func TestFixedClockGivesIdenticalBytes(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	bodies := make([][]byte, 2)
	for i := range bodies {
		e := newEnv(t, Options{Seed: 21, Transactions: 120, Now: func() time.Time { return at }})
		for _, p := range []string{"/transactions?page[size]=30", "/accounts", "/attachments", "/tags?page[size]=3"} {
			for _, page := range e.walkRaw(p) {
				page = bytes.ReplaceAll(page, []byte(strings.TrimSuffix(e.srv.URL, "/")), []byte("SERVER"))
				bodies[i] = append(bodies[i], page...)
			}
		}
	}
	if len(bodies[0]) == 0 || !bytes.Equal(bodies[0], bodies[1]) {
		t.Error("two runs of the same seed and clock differ")
	}
}

func TestSetClock(t *testing.T) {
	e := newEnv(t, Options{Seed: 1, Transactions: 60, Now: time.Now})
	at := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	e.bank.SetClock(at, true)
	if !e.bank.Now().Equal(at) {
		t.Errorf("frozen clock reads %v", e.bank.Now())
	}
	id := e.bank.AddTransaction(NewTransaction{AmountBaseUnits: -100})
	tx := e.mustGet("/transactions/" + id)
	if got := attr(tx, "data", "attributes", "createdAt"); got != "2030-05-06T17:08:09+10:00" {
		t.Errorf("createdAt %v, want the frozen clock's time", got)
	}
	e.bank.SetClock(at, false)
	if now := e.bank.Now(); now.Before(at) || now.After(at.Add(time.Hour)) {
		t.Errorf("running clock reads %v, want just after %v", now, at)
	}
}
