package main

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	ynabfake "github.com/bankmirror/bankmirror/internal/simulator/ynab"
	"github.com/bankmirror/bankmirror/internal/simulator/ynab/ynabspec"
)

// feeds push fills the fake YNAB with the mirror's Spending account, one
// row per bank transaction carrying its id, and feeds check finds it
// exact.
func TestFeedsPushYNAB(t *testing.T) {
	b := newBank(t, 60)
	var mu sync.Mutex
	var invalid []string
	f, err := ynabfake.New(ynabfake.Options{Token: "ytok", Spec: ynabspec.MustLoad(), OnInvalid: func(err error) {
		mu.Lock()
		invalid = append(invalid, err.Error())
		mu.Unlock()
	}})
	must(t, err)
	pl := f.AddPlan("Household", []string{"Spending", "2Up Spending"}, nil)
	srv := httptest.NewServer(f.Handler())
	t.Cleanup(func() {
		srv.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, s := range invalid {
			t.Errorf("fake ynab: %s", s)
		}
	})
	dir := t.TempDir()
	file := writeYNABFeed(t, dir, srv.URL)
	env := cliEnv(b, filepath.Join(dir, "mirror.db"))
	env["BANKMIRROR_FEEDS_FILE"] = file
	env["BANKMIRROR_ADMIN_LISTEN"] = "off"
	wantCode(t, runCLI(t, env, "sync", "--no-feeds"), 0)
	r := runCLI(t, env, "feeds", "push", "ynab")
	wantCode(t, r, 0)
	noLeak(t, r, "ytok")

	// The mirror's Spending transactions, by id.
	st := openMirror(t, env["BANKMIRROR_DB"])
	var want []string
	rows, err := st.Reader().QueryContext(t.Context(), `SELECT t.id FROM transactions t JOIN accounts a ON a.id = t.account_id WHERE a.display_name = 'Spending'`)
	must(t, err)
	for rows.Next() {
		var id string
		must(t, rows.Scan(&id))
		want = append(want, id)
	}
	must(t, rows.Err())
	rows.Close()
	got := map[string]int{}
	for _, x := range f.Transactions(pl.ID) {
		if !x.Deleted && x.Account == pl.Accounts["Spending"] {
			got[x.ImportID]++
		}
	}
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("%d rows in ynab's Spending, %d transactions in the mirror's", len(got), len(want))
	}
	for _, id := range want {
		if got[id] != 1 {
			t.Fatalf("bank transaction %s: %d rows in ynab", id, got[id])
		}
	}
	r = runCLI(t, env, "feeds", "check", "ynab")
	if r.code != 0 {
		t.Fatalf("check after a push: %s", r)
	}
	// status: the rows, nothing pending, the push and the check in the
	// terminal's one time layout.
	r = runCLI(t, env, "feeds", "status")
	wantCode(t, r, 0)
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^ynab +%d +0 +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d +-$`, len(want))).MatchString(r.stdout) {
		t.Errorf("feeds status:\n%s", r.stdout)
	}
}

// A feed that cannot push says what is wrong and nothing else: setup of
// a YNAB feed does not speak of an install, and a push that failed prints
// no "pushed" line.
func TestFeedsSetupAndPushThatFailSayWhy(t *testing.T) {
	b := newBank(t, 30)
	f, err := ynabfake.New(ynabfake.Options{Token: "ytok"})
	must(t, err)
	f.AddPlan("Household", []string{"2Up Spending"}, nil)
	srv := httptest.NewServer(f.Handler())
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "ynab-token")
	file := writeYNABFeed(t, dir, srv.URL)
	env := cliEnv(b, filepath.Join(dir, "mirror.db"))
	env["BANKMIRROR_FEEDS_FILE"] = file
	env["BANKMIRROR_ADMIN_LISTEN"] = "off"
	wantCode(t, runCLI(t, env, "sync", "--no-feeds"), 0)

	r := runCLI(t, env, "feeds", "setup", "ynab")
	wantCode(t, r, 1)
	if !strings.Contains(r.stderr, `feed ynab is not ready: feed "ynab": the app has no account "Spending"`) || strings.Contains(r.stderr, "installed") {
		t.Errorf("setup with an account missing in the app:\n%s", r)
	}
	r = runCLI(t, env, "feeds", "push", "ynab")
	wantCode(t, r, 1)
	if r.stdout != "" || !strings.Contains(r.stderr, `the app has no account "Spending"`) {
		t.Errorf("push with an account missing in the app:\n%s", r)
	}
	must(t, os.WriteFile(tokenFile, []byte("not-the-token\n"), 0o600))
	r = runCLI(t, env, "feeds", "push", "ynab")
	wantCode(t, r, 1)
	if r.stdout != "" || !strings.Contains(r.stderr, "ynab refused the personal access token (put a valid personal access token in the feed's token_file)") {
		t.Errorf("push with a wrong token:\n%s", r)
	}
}

// sync against a simulated bank does not push to the system's feeds
// file (the household's real budget), as serve does not; a feeds file
// named by BANKMIRROR_FEEDS_FILE is pushed to.
func TestSyncAgainstASimulatedBankLeavesTheSystemsFeeds(t *testing.T) {
	b := newBank(t, 30)
	f, err := ynabfake.New(ynabfake.Options{Token: "ytok"})
	must(t, err)
	f.AddPlan("Household", []string{"Spending"}, nil)
	srv := httptest.NewServer(f.Handler())
	t.Cleanup(srv.Close)
	conf := t.TempDir()
	writeYNABFeed(t, conf, srv.URL)
	env := cliEnv(b, filepath.Join(t.TempDir(), "mirror.db"))
	env["CONFIGURATION_DIRECTORY"] = conf // the system's feeds file, as under systemd
	env["BANKMIRROR_ADMIN_LISTEN"] = "off"
	r := runCLI(t, env, "sync")
	wantCode(t, r, 0)
	if n := len(f.Requests()); n != 0 || strings.Contains(r.stdout, "feed ynab") || !strings.Contains(r.stderr, "the bank is a simulated one") {
		t.Fatalf("sync against the simulator fed the system's feeds file (%d requests):\n%s", n, r)
	}
	env["BANKMIRROR_FEEDS_FILE"] = filepath.Join(conf, "feeds.toml")
	r = runCLI(t, env, "sync")
	wantCode(t, r, 0)
	if !regexp.MustCompile(`(?m)^feed ynab: [1-9]\d* created`).MatchString(r.stdout) {
		t.Fatalf("sync did not push to the feeds file named:\n%s", r)
	}
}

// feeds status shows a failing feed's error whole, to the mend at its
// end.
func TestFeedsStatusShowsTheErrorToItsMend(t *testing.T) {
	b := newBank(t, 10)
	dir := t.TempDir()
	file := filepath.Join(dir, "feeds.toml")
	must(t, os.WriteFile(filepath.Join(dir, "ynab-token"), []byte("ytok\n"), 0o600))
	must(t, os.WriteFile(file, []byte("[[feed]]\nname = \"ynab\"\nkind = \"ynab\"\ntoken_file = \"ynab-token\"\nbudget = \"Household\"\n[feed.accounts]\n\"Spending\" = \"Spending\"\n"), 0o600))
	env := cliEnv(b, filepath.Join(dir, "mirror.db"))
	env["BANKMIRROR_FEEDS_FILE"] = file
	env["BANKMIRROR_ADMIN_LISTEN"] = "off"
	wantCode(t, runCLI(t, env, "sync", "--no-feeds"), 0)
	st := openMirror(t, env["BANKMIRROR_DB"])
	failure := `feed "ynab": open ynab: list ynab plans: ynab refused the personal access token (put a valid personal access token in the feed's token_file)`
	must(t, st.RecordFeedFailure(t.Context(), "ynab", errors.New(failure), time.Now().Add(time.Minute)))
	r := runCLI(t, env, "feeds", "status")
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, failure+" (failing since ") {
		t.Errorf("feeds status cut the error:\n%s", r)
	}
}

// setup with nothing to push still opens the app: a token that no longer
// works is found, and a good one is checked.
func TestFeedsSetupWithNothingToPushChecksTheApp(t *testing.T) {
	b := newBank(t, 20)
	f, err := ynabfake.New(ynabfake.Options{Token: "ytok"})
	must(t, err)
	f.AddPlan("Household", []string{"Spending"}, nil)
	srv := httptest.NewServer(f.Handler())
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "ynab-token")
	file := writeYNABFeed(t, dir, srv.URL)
	env := cliEnv(b, filepath.Join(dir, "mirror.db"))
	env["BANKMIRROR_FEEDS_FILE"] = file
	env["BANKMIRROR_ADMIN_LISTEN"] = "off"
	wantCode(t, runCLI(t, env, "sync"), 0)
	r := runCLI(t, env, "feeds", "setup", "ynab")
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "ynab is ready: the app's budget and accounts are found; nothing to push (check: exact)") {
		t.Errorf("setup after the first push:\n%s", r)
	}
	must(t, os.WriteFile(tokenFile, []byte("not-the-token\n"), 0o600))
	r = runCLI(t, env, "feeds", "setup", "ynab")
	wantCode(t, r, 1)
	if strings.Contains(r.stdout, "ready") || !strings.Contains(r.stderr, "ynab refused the personal access token") {
		t.Errorf("setup with a wrong token and nothing to push:\n%s", r)
	}
}

// writeYNABFeed writes into dir the token file "ynab-token" (ytok) and the
// feeds file of one YNAB feed, "ynab", of the budget Household at the fake
// YNAB url, feeding the bank's Spending to the app's; it returns the
// feeds file.
func writeYNABFeed(t *testing.T, dir, url string) string {
	t.Helper()
	must(t, os.WriteFile(filepath.Join(dir, "ynab-token"), []byte("ytok\n"), 0o600))
	file := filepath.Join(dir, "feeds.toml")
	must(t, os.WriteFile(file, []byte(`[[feed]]
name = "ynab"
kind = "ynab"
url = "`+url+`/v1"
token_file = "ynab-token"
budget = "Household"
[feed.accounts]
"Spending" = "Spending"
`), 0o600))
	return file
}
