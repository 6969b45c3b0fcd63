package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// simRun is a running `bankmirror simulator` command.
type simRun struct {
	vars   map[string]string // the KEY=VALUE lines it printed
	cancel context.CancelFunc
	done   chan int
}

// startSimulator runs the simulator command and reads its start lines.
func startSimulator(t *testing.T, args ...string) *simRun {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	var stderr cliBuffer
	s := &simRun{vars: map[string]string{}, cancel: cancel, done: make(chan int, 1)}
	go func() {
		code := run(ctx, append([]string{"simulator", "--listen", "127.0.0.1:0"}, args...), nil, pw, &stderr)
		pw.Close()
		s.done <- code
	}()
	sc := bufio.NewScanner(pr)
	for !s.started() && sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			s.vars[k] = v
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	t.Cleanup(func() {
		cancel()
		if code := <-s.done; code != 0 {
			t.Errorf("simulator exit %d: %s", code, stderr.String())
		}
	})
	if !s.started() {
		cancel()
		t.Fatalf("simulator printed %v; stderr %q", s.vars, stderr.String())
	}
	return s
}

// started reports whether the start lines were all read: the token, or
// the token of each of BANKMIRROR_PEOPLE.
func (s *simRun) started() bool {
	if s.vars["BANKMIRROR_TOKEN"] != "" {
		return true
	}
	people := s.vars["BANKMIRROR_PEOPLE"]
	if people == "" {
		return false
	}
	for _, name := range strings.Split(people, ",") {
		if s.vars["BANKMIRROR_TOKEN_"+name] == "" {
			return false
		}
	}
	return true
}

// get sends a GET with a bearer token and returns the response and body.
func simGet(t *testing.T, url, token string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestCLISimulatorFlags(t *testing.T) {
	const public = "https://api.up.com.au/api/v1"
	s := startSimulator(t, "--transactions", "0", "--now", "2025-01-02T03:04:05Z", "--public-url", public,
		"--control-token", "C", "--token", "T", "--rate-limit", "5", "--rate-bucket", "1h")
	if s.vars["BANKMIRROR_SIM_CONTROL_TOKEN"] != "C" || !strings.HasSuffix(s.vars["BANKMIRROR_SIM_CONTROL_URL"], "/_sim") {
		t.Errorf("printed %v", s.vars)
	}
	api := s.vars["BANKMIRROR_API_URL"]
	resp, body := simGet(t, api+"/transactions", "T")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-RateLimit-Remaining") != "4" || !bytes.HasPrefix(body, []byte(`{"data":[]`)) {
		t.Errorf("empty bank: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	req, _ := http.NewRequest(http.MethodPost, s.vars["BANKMIRROR_SIM_CONTROL_URL"]+"/transactions", strings.NewReader(`{"description":"First","amountBaseUnits":-500}`))
	req.Header.Set("Authorization", "Bearer C")
	cr, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cr.Body.Close()
	if cr.StatusCode != http.StatusCreated {
		t.Fatalf("control create: %d", cr.StatusCode)
	}
	_, body = simGet(t, api+"/transactions", "T")
	var page struct {
		Data []struct {
			Attributes struct{ CreatedAt string }
			Links      struct{ Self string }
		}
	}
	if err := json.Unmarshal(body, &page); err != nil || len(page.Data) != 1 {
		t.Fatalf("listing %s: %v", body, err)
	}
	if got := page.Data[0]; got.Attributes.CreatedAt != "2025-01-02T14:04:05+11:00" || !strings.HasPrefix(got.Links.Self, public+"/transactions/") {
		t.Errorf("created transaction %+v: want --now's time and --public-url's links", got)
	}
}

// Two runs with the same --seed and --now answer byte-identical listings.
func TestCLISimulatorReproducible(t *testing.T) {
	var listings [2][]byte
	for i := range listings {
		s := startSimulator(t, "--transactions", "300", "--seed", "9", "--now", "2025-06-01T00:00:00Z",
			"--public-url", "https://api.up.com.au/api/v1", "--token", "T")
		for _, path := range []string{"/accounts", "/transactions?page[size]=100", "/attachments", "/tags"} {
			_, body := simGet(t, s.vars["BANKMIRROR_API_URL"]+path, "T")
			listings[i] = append(listings[i], body...)
		}
	}
	if len(listings[0]) < 10000 || !bytes.Equal(listings[0], listings[1]) {
		t.Errorf("two runs differ (%d and %d bytes)", len(listings[0]), len(listings[1]))
	}
}

// simControl sends a control request and decodes the JSON answer.
func simControl(t *testing.T, s *simRun, method, path, body string, out any) {
	t.Helper()
	req, _ := http.NewRequest(method, s.vars["BANKMIRROR_SIM_CONTROL_URL"]+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.vars["BANKMIRROR_SIM_CONTROL_TOKEN"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

// After a --live run, every account's balance is its opening balance plus
// its transactions.
func TestCLISimulatorLiveBalancesReconcile(t *testing.T) {
	const want = 40
	arrived := make(chan struct{})
	var mu sync.Mutex
	n := 0
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		defer mu.Unlock()
		if n++; n == want {
			close(arrived)
		}
	}))
	defer hook.Close()
	s := startSimulator(t, "--transactions", "100", "--live", "1000/s", "--token", "T", "--webhook-retry", "1ms,1ms,1")
	api := s.vars["BANKMIRROR_API_URL"]
	req, _ := http.NewRequest(http.MethodPost, api+"/webhooks", strings.NewReader(`{"data":{"attributes":{"url":"`+hook.URL+`"}}}`))
	req.Header.Set("Authorization", "Bearer T")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case <-arrived:
	case <-time.After(60 * time.Second):
		t.Fatal("no live events arrived")
	}
	simControl(t, s, http.MethodPut, "/live", `{"every":"0s"}`, nil)

	var accounts struct {
		Data []struct {
			ID                      string
			Balance, OpeningBalance struct{ ValueInBaseUnits int64 }
		}
	}
	var txs struct {
		Data []struct {
			Attributes struct {
				Amount struct{ ValueInBaseUnits int64 }
			}
			Relationships struct {
				Account struct{ Data struct{ ID string } }
			}
		}
	}
	simControl(t, s, http.MethodGet, "/accounts", "", &accounts)
	simControl(t, s, http.MethodGet, "/transactions", "", &txs)
	if len(txs.Data) == 100 {
		t.Error("--live changed nothing")
	}
	sums := map[string]int64{}
	for _, tx := range txs.Data {
		sums[tx.Relationships.Account.Data.ID] += tx.Attributes.Amount.ValueInBaseUnits
	}
	for _, a := range accounts.Data {
		if a.OpeningBalance.ValueInBaseUnits+sums[a.ID] != a.Balance.ValueInBaseUnits {
			t.Errorf("account %s: opening %d + transactions %d != balance %d", a.ID, a.OpeningBalance.ValueInBaseUnits, sums[a.ID], a.Balance.ValueInBaseUnits)
		}
	}
}

// --people serves a household: a token per person, each person's own
// accounts, one joint account both see with the same transaction ids.
func TestCLISimulatorPeople(t *testing.T) {
	s := startSimulator(t, "--people", "alex,sam", "--transactions", "60", "--joint-transactions", "30", "--token", "alex=A",
		"--now", "2025-01-02T03:04:05Z")
	if s.vars["BANKMIRROR_TOKEN_alex"] != "A" || s.vars["BANKMIRROR_TOKEN_sam"] == "" || s.vars["BANKMIRROR_TOKEN"] != "" {
		t.Fatalf("printed %v", s.vars)
	}
	api := s.vars["BANKMIRROR_API_URL"]
	type account struct {
		ID         string
		Attributes struct{ OwnershipType string }
	}
	accounts := map[string][]account{}
	joint := map[string]string{}
	for _, name := range []string{"alex", "sam"} {
		_, body := simGet(t, api+"/accounts", s.vars["BANKMIRROR_TOKEN_"+name])
		var page struct{ Data []account }
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		accounts[name] = page.Data
		for _, a := range page.Data {
			if a.Attributes.OwnershipType == "JOINT" {
				joint[name] = a.ID
			}
		}
	}
	if joint["alex"] == "" || joint["alex"] != joint["sam"] {
		t.Fatalf("joint accounts %v", joint)
	}
	for _, a := range accounts["alex"] {
		for _, b := range accounts["sam"] {
			if a.ID == b.ID && a.ID != joint["alex"] {
				t.Errorf("account %s listed to both", a.ID)
			}
		}
	}
	var listings [2][]byte
	for i, name := range []string{"alex", "sam"} {
		resp, body := simGet(t, api+"/accounts/"+joint["alex"]+"/transactions?page[size]=100", s.vars["BANKMIRROR_TOKEN_"+name])
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", name, resp.StatusCode)
		}
		listings[i] = body
	}
	if !bytes.Equal(listings[0], listings[1]) || bytes.Count(listings[0], []byte(`"performingCustomer":{"displayName":`)) < 30 {
		t.Errorf("joint listings differ or lack performingCustomer:\n%s\n%s", listings[0], listings[1])
	}
}

// --ynab serves the fake YNAB beside the bank, with its plan, and prints
// its URL and token.
func TestCLISimulatorYNAB(t *testing.T) {
	s := startSimulator(t, "--transactions", "0", "--token", "T", "--ynab")
	u, tok := s.vars["BANKMIRROR_YNAB_URL"], s.vars["BANKMIRROR_YNAB_TOKEN"]
	if !strings.HasSuffix(u, "/ynab/v1") || tok == "" {
		t.Fatalf("printed %v", s.vars)
	}
	resp, body := simGet(t, u+"/plans", tok)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"name":"Household"`) {
		t.Fatalf("plans: %d %s", resp.StatusCode, body)
	}
	if resp, _ := simGet(t, u+"/plans", "T"); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the bank's token: %d", resp.StatusCode)
	}
	if resp, _ := simGet(t, s.vars["BANKMIRROR_API_URL"]+"/accounts", "T"); resp.StatusCode != http.StatusOK {
		t.Fatalf("the bank beside: %d", resp.StatusCode)
	}
	// Validated against YNAB's description, as in a build with -tags
	// ynabspec (ynabspec_test.go wires it for the tests).
	resp, body = simGet(t, u+"/plans/last-used/transactions?since_date=yesterday", tok)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "since_date") {
		t.Fatalf("a since_date that is no date: %d %s", resp.StatusCode, body)
	}
}
