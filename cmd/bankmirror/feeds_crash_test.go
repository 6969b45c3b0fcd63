//go:build unix

package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/feeds/actual/actualtest"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// TestFeedsPushKilledLeavesActualExact runs `bankmirror feeds push` of a
// history of a few thousand transactions (batches of 2,000 in one session
// of the real Actual, synced and recorded batch by batch) as a
// subprocess, SIGKILLs it once the first batch is recorded in the mirror
// and Actual's copy of the budget holds rows the mirror has not recorded
// (Actual took rows of the second batch), pushes again, and checks the
// promise of kill -9: the Node child died with bankmirror, `feeds check`
// exits 0 (no duplicate, nothing missing, transfers linked); the rows
// Actual took are adopted by their import ids.
func TestFeedsPushKilledLeavesActualExact(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills bankmirror subprocesses")
	}
	srv := actualtest.Launch(t)
	b := newBankWith(t, simulator.Options{Seed: 11, Transactions: 4500, Token: "tok"})
	dir := t.TempDir()
	db := filepath.Join(dir, "mirror.db")
	must(t, os.WriteFile(filepath.Join(dir, "actual-password"), []byte(actualtest.Password+"\n"), 0o600))
	file := filepath.Join(dir, "feeds.toml")
	vars := map[string]string{
		"BANKMIRROR_TOKEN":             b.sim.Token(),
		"BANKMIRROR_API_URL":           b.apiURL,
		"BANKMIRROR_DB":                db,
		"BANKMIRROR_REQUESTS_PER_HOUR": "0",
		"BANKMIRROR_ADMIN_LISTEN":      "off",
		"BANKMIRROR_FEEDS_FILE":        file,
		"BANKMIRROR_NODE":              srv.Node(),
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"sync", "--no-feeds"}, vars, &out, &errOut); code != 0 {
		t.Fatalf("sync: exit %d: %s", code, errOut.String())
	}

	// Every account of the mirror fed, to an account of its own.
	st, err := store.Open(context.Background(), db)
	must(t, err)
	t.Cleanup(func() { _ = st.Close() })
	accounts, err := st.FeedAccounts(context.Background())
	must(t, err)
	var names []string
	var mapping strings.Builder
	for i, a := range accounts {
		names = append(names, fmt.Sprintf("Account %d", i))
		fmt.Fprintf(&mapping, "%q = %q\n", a.ID, names[i])
	}
	budget := srv.Budget(t, "Household", names...)
	must(t, os.WriteFile(file, []byte(fmt.Sprintf(`[[feed]]
name = "actual"
kind = "actual"
url = %q
password_file = "actual-password"
budget = %q
[feed.accounts]
%s`, srv.URL, budget.SyncID, mapping.String())), 0o600))
	feedDir := srv.FeedDir(t, filepath.Join(dir, "feeds", "actual"))
	history := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transaction_history")
	if history <= 2000 {
		t.Fatalf("a history of %d rows is one batch: the test tests nothing", history)
	}

	childOut := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bankmirror output:\n%s", childOut.String())
		}
	})
	d := startChild(t, childEnviron(vars), childOut, "feeds", "push", "actual")
	recorded := func() int {
		return mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM feed_rows WHERE feed = 'actual'")
	}
	poll(t, d, 5*time.Minute, "the first batch recorded", func() bool { return recorded() > 0 })
	first := recorded()
	// Actual's local copy of the budget, which the session writes before
	// it syncs with the server: kill once it holds rows the mirror has not
	// recorded.
	poll(t, d, 5*time.Minute, "Actual to take rows of the second batch", func() bool {
		return localRows(feedDir) > first
	})
	must(t, d.cmd.Process.Signal(syscall.SIGKILL))
	if err := d.wait(time.Minute); !killedBy(err, syscall.SIGKILL) {
		t.Fatalf("feeds push did not die of SIGKILL: %v", err)
	}
	// The Node child held the feed directory's lock for its life: it is
	// free once the child died with bankmirror.
	lock, err := os.OpenFile(filepath.Join(feedDir, "client.lock"), os.O_RDWR, 0)
	must(t, err)
	defer lock.Close()
	freed := make(chan error, 1)
	go func() { freed <- syscall.Flock(int(lock.Fd()), syscall.LOCK_EX) }()
	select {
	case err := <-freed:
		must(t, err)
	case <-time.After(time.Minute):
		t.Fatal("the Actual client outlived bankmirror by a minute")
	}
	must(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_UN))
	atKill := recorded()
	t.Logf("killed with %d rows recorded in the mirror (first batch %d) of %d history rows", atKill, first, history)

	out.Reset()
	errOut.Reset()
	if code := run(context.Background(), []string{"feeds", "push", "actual"}, vars, &out, &errOut); code != 0 {
		t.Fatalf("the push after the kill: exit %d: %s%s", code, out.String(), errOut.String())
	}
	m := regexp.MustCompile(`(\d+) found in the app already`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("the push's report: %s", out.String())
	}
	adopted, _ := strconv.Atoi(m[1])
	t.Logf("the push after the kill: %s", strings.TrimSpace(out.String()))
	if adopted == 0 && atKill == first {
		t.Logf("the rows Actual took before the kill had not reached the server: the push made them again")
	}

	out.Reset()
	errOut.Reset()
	if code := run(context.Background(), []string{"feeds", "check", "actual"}, vars, &out, &errOut); code != 0 {
		t.Errorf("feeds check after the kill: exit %d:\n%s%s", code, out.String(), errOut.String())
	}
	// Read back through the person's own client: one row per import id.
	seen := map[string]int{}
	for _, r := range srv.Rows(t, budget.SyncID) {
		if r.ImportID != "" {
			seen[r.ImportID]++
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%d rows with import id %s", n, id)
		}
	}
	if got := recorded(); len(seen) != got {
		t.Errorf("%d rows in Actual, %d recorded in the mirror", len(seen), got)
	}
}

// localRows counts the imported rows of the Actual client's local copy of
// the budget in the feed's directory, 0 while there is none or it cannot
// be read (the client holds it).
func localRows(feedDir string) int {
	files, _ := filepath.Glob(filepath.Join(feedDir, "data", "*", "db.sqlite"))
	n := 0
	for _, f := range files {
		db, err := sql.Open("sqlite3", "file:"+f+"?mode=ro&_busy_timeout=0")
		if err != nil {
			continue
		}
		var c int
		if db.QueryRow("SELECT count(*) FROM transactions WHERE financial_id IS NOT NULL AND tombstone = 0").Scan(&c) == nil {
			n += c
		}
		_ = db.Close()
	}
	return n
}
