package actual

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/feeds/actual/actualserver"
	"github.com/bankmirror/bankmirror/internal/feeds/actual/actualtest"
)

// bankID is a bank transaction id of 36 characters, as the bank's are.
func bankID(n int) string {
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// byImport indexes rows by import id, failing on a duplicate: one row per
// bank transaction is the invariant every app's test checks.
func byImport(t *testing.T, rows []feeds.AppRow) map[string]feeds.AppRow {
	t.Helper()
	m := map[string]feeds.AppRow{}
	for _, r := range rows {
		if r.ImportID == "" {
			continue
		}
		if _, dup := m[r.ImportID]; dup {
			t.Fatalf("two rows with import id %s", r.ImportID)
		}
		m[r.ImportID] = r
	}
	return m
}

func mustClose(t *testing.T, s *session) {
	t.Helper()
	if err := s.Close(testCtx(t)); err != nil {
		t.Fatalf("close: %v", err)
	}
}

// readBack reads the rows from a fresh client with a directory of its
// own, which downloads the budget from the server: what it sees is what
// reached the server.
func readBack(t *testing.T, srv *actualtest.Server, budget string, accounts ...string) map[string]feeds.AppRow {
	t.Helper()
	s := openSession(t, srv, srv.FeedDir(t, t.TempDir()), budget)
	rows, err := s.Rows(testCtx(t), accounts, "")
	if err != nil {
		t.Fatalf("rows: %v", err)
	}
	mustClose(t, s)
	return byImport(t, rows)
}

func TestSessionCreatesSettlesAndDeletesRows(t *testing.T) {
	srv := actualtest.Start(t)
	b := srv.Budget(t, t.Name(), "Up Spending", "Joint")
	spending := b.Accounts["Up Spending"]
	ctx := testCtx(t)

	s := openSession(t, srv, srv.FeedDir(t, t.TempDir()), b.SyncID)
	accts, err := s.Accounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(accts) != 2 || !slices.ContainsFunc(accts, func(a feeds.Account) bool { return a.ID == spending && a.Name == "Up Spending" }) {
		t.Fatalf("accounts: %+v", accts)
	}
	ids, err := s.Create(ctx, []feeds.NewRow{
		{ImportID: bankID(1), Account: spending, Date: "2026-11-03", Amount: -1250, Cleared: false, Payee: "Bakery", Notes: "hold"},
		{ImportID: bankID(2), Account: spending, Date: "2026-11-04", Amount: 250000, Cleared: true, Payee: "Salary"},
		{ImportID: bankID(3), Account: spending, Date: "2026-11-05", Amount: -999, Cleared: true, Payee: "Newsagent"},
	})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if len(ids) != 3 || ids[bankID(1)] == "" || ids[bankID(2)] == "" || ids[bankID(3)] == "" {
		t.Fatalf("create ids: %v", ids)
	}
	// The hold settles a day later at another amount; the third is dropped.
	if err := s.Update(ctx, []feeds.Facts{{ID: ids[bankID(1)], Date: "2026-11-04", Amount: -1475, Cleared: true}}); err != nil {
		t.Fatalf("update: %v", err)
	}
	if err := s.Delete(ctx, []string{ids[bankID(3)]}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	rows, err := s.Rows(ctx, []string{spending}, "")
	if err != nil {
		t.Fatal(err)
	}
	mine := byImport(t, rows)
	mustClose(t, s)

	back := readBack(t, srv, b.SyncID, spending)
	for name, got := range map[string]map[string]feeds.AppRow{"session": mine, "server": back} {
		if len(got) != 2 {
			t.Fatalf("%s: want 2 rows, got %+v", name, got)
		}
		hold := got[bankID(1)]
		if hold.ID != ids[bankID(1)] || hold.Amount != -1475 || hold.Date != "2026-11-04" || !hold.Cleared || hold.Payee != "Bakery" || hold.Notes != "hold" || hold.Account != spending {
			t.Errorf("%s: settled hold: %+v", name, hold)
		}
		if sal := got[bankID(2)]; sal.Amount != 250000 || sal.Date != "2026-11-04" || !sal.Cleared || sal.Payee != "Salary" {
			t.Errorf("%s: salary: %+v", name, sal)
		}
		if _, ok := got[bankID(3)]; ok {
			t.Errorf("%s: the dropped row is still there", name)
		}
	}

	// Rows since a date leaves out what is older.
	s = openSession(t, srv, srv.FeedDir(t, t.TempDir()), t.Name()) // by name this time
	since, err := s.Rows(ctx, []string{spending}, "2026-11-05")
	if err != nil {
		t.Fatal(err)
	}
	if len(since) != 0 {
		t.Errorf("rows since 2026-11-05: %+v", since)
	}
	mustClose(t, s)
}

func TestSessionTransferIsOnePairOfLinkedRows(t *testing.T) {
	srv := actualtest.Start(t)
	b := srv.Budget(t, t.Name(), "Up Spending", "Saver")
	spending, saver := b.Accounts["Up Spending"], b.Accounts["Saver"]
	ctx := testCtx(t)

	s := openSession(t, srv, srv.FeedDir(t, t.TempDir()), b.SyncID)
	out, in := bankID(10), bankID(11)
	ids, err := s.Create(ctx, []feeds.NewRow{{
		ImportID: out, Account: spending, Date: "2026-11-06", Amount: -5000, Cleared: true, Payee: "Transfer to Saver",
		TransferAccount: saver, TransferImportID: in, TransferCleared: true,
	}, {
		// The same transfer seen from the other leg in the same batch: not a second transfer.
		ImportID: in, Account: saver, Date: "2026-11-06", Amount: 5000, Cleared: true, Payee: "Transfer from Spending",
		TransferAccount: spending, TransferImportID: out, TransferCleared: true,
	}})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if ids[out] == "" || ids[in] == "" || ids[out] == ids[in] {
		t.Fatalf("create ids: %v", ids)
	}
	mustClose(t, s)

	back := readBack(t, srv, b.SyncID, spending, saver)
	if len(back) != 2 {
		t.Fatalf("want the two legs, got %+v", back)
	}
	o, i := back[out], back[in]
	if o.ID != ids[out] || o.Account != spending || o.Amount != -5000 || !o.Cleared || o.TransferID != i.ID {
		t.Errorf("out leg: %+v", o)
	}
	if i.ID != ids[in] || i.Account != saver || i.Amount != 5000 || !i.Cleared || i.TransferID != o.ID {
		t.Errorf("in leg: %+v (its cleared and import id are the bank's, not the app's default)", i)
	}

	// Deleting one leg removes both.
	s = openSession(t, srv, srv.FeedDir(t, t.TempDir()), b.SyncID)
	if err := s.Delete(ctx, []string{ids[in]}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	mustClose(t, s)
	if back := readBack(t, srv, b.SyncID, spending, saver); len(back) != 0 {
		t.Errorf("after deleting a leg: %+v", back)
	}
}

func TestSessionCreateAfterCrashReturnsTheRowsItHas(t *testing.T) {
	srv := actualtest.Start(t)
	b := srv.Budget(t, t.Name(), "Up Spending", "Saver")
	spending, saver := b.Accounts["Up Spending"], b.Accounts["Saver"]
	ctx := testCtx(t)
	dir := srv.FeedDir(t, t.TempDir())
	rows := []feeds.NewRow{
		{ImportID: bankID(20), Account: spending, Date: "2026-11-07", Amount: -300, Cleared: true, Payee: "Tram"},
		{ImportID: bankID(21), Account: spending, Date: "2026-11-07", Amount: -700, Cleared: false, Payee: "Cafe",
			TransferAccount: saver, TransferImportID: bankID(22), TransferCleared: true},
	}

	s := openSession(t, srv, dir, b.SyncID)
	first, err := s.Create(ctx, rows)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if err := s.c.kill(); err != nil { // the daemon dies before Close: nothing synced
		t.Fatal(err)
	}

	s = openSession(t, srv, dir, b.SyncID)
	again, err := s.Create(ctx, rows)
	if err != nil {
		t.Fatalf("create again: %v", err)
	}
	if len(again) != 3 || len(first) != 3 {
		t.Fatalf("create: %v, again: %v", first, again)
	}
	// Usually the local copy kept the rows the killed session made and
	// the same ids come back; when that copy would not sync at open, it
	// was dropped and downloaded afresh (client.js), and the rows made
	// again. Either way each bank transaction is one row on the server,
	// the one Create returned.
	mustClose(t, s)
	back := readBack(t, srv, b.SyncID, spending, saver)
	if len(back) != 3 {
		t.Errorf("want 3 rows once each on the server, got %+v", back)
	}
	for k, v := range again {
		if back[k].ID != v {
			t.Errorf("import id %s: Create returned %s, the server has %+v", k, v, back[k])
		}
	}
	kept := 0
	for k, v := range first {
		if again[k] == v {
			kept++
		}
	}
	if kept != 0 && kept != 3 {
		t.Errorf("%d of the 3 rows kept their ids, want all (the local copy kept) or none (dropped): first %v, again %v", kept, first, again)
	}
}

func TestSessionLeavesWhatThePersonDid(t *testing.T) {
	srv := actualtest.Start(t)
	b := srv.Budget(t, t.Name(), "Up Spending")
	spending := b.Accounts["Up Spending"]
	ctx := testCtx(t)
	rows := []feeds.NewRow{
		{ImportID: bankID(30), Account: spending, Date: "2026-11-08", Amount: -4200, Cleared: true, Payee: "Grocer"},
		{ImportID: bankID(31), Account: spending, Date: "2026-11-08", Amount: -1800, Cleared: false, Payee: "Chemist"},
	}
	s := openSession(t, srv, srv.FeedDir(t, t.TempDir()), b.SyncID)
	ids, err := s.Create(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)

	var got struct{ ID string }
	srv.Person(t, &got, "delete", b.SyncID, bankID(30))
	srv.Person(t, &got, "reconcile", b.SyncID, bankID(31))

	dir := srv.FeedDir(t, t.TempDir())
	s = openSession(t, srv, dir, b.SyncID)
	now, err := s.Rows(ctx, []string{spending}, "")
	if err != nil {
		t.Fatal(err)
	}
	m := byImport(t, now)
	if _, ok := m[bankID(30)]; ok || len(m) != 1 {
		t.Fatalf("rows after the person deleted one: %+v", m)
	}
	if !m[bankID(31)].Reconciled {
		t.Fatalf("reconciled row: %+v", m[bankID(31)])
	}
	// The engine creates only what it has not mapped: a Create of a row
	// the person deleted is the person's own --restore, and puts it back
	// as a new row.
	again, err := s.Create(ctx, rows[:1])
	if err != nil {
		t.Fatal(err)
	}
	if again[bankID(30)] == "" || again[bankID(30)] == ids[bankID(30)] {
		t.Errorf("restore of a row the person deleted: %v (it was %s)", again, ids[bankID(30)])
	}
	// A reconciled row keeps its facts.
	if err := s.Update(ctx, []feeds.Facts{{ID: ids[bankID(31)], Date: "2026-11-09", Amount: -1900, Cleared: true}}); err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)
	back := readBack(t, srv, b.SyncID, spending)
	if len(back) != 2 || back[bankID(30)].ID != again[bankID(30)] {
		t.Fatalf("after the restore: %+v", back)
	}
	if r := back[bankID(31)]; r.Amount != -1800 || r.Date != "2026-11-08" || r.Cleared {
		t.Errorf("reconciled row changed: %+v", r)
	}
}

func TestSessionRefusesAMissingAccount(t *testing.T) {
	srv := actualtest.Start(t)
	b := srv.Budget(t, t.Name(), "Up Spending")
	spending := b.Accounts["Up Spending"]
	ctx := testCtx(t)
	s := openSession(t, srv, srv.FeedDir(t, t.TempDir()), b.SyncID)
	missing := "6f1e0c84-0000-4000-8000-000000000000"
	_, err := s.Create(ctx, []feeds.NewRow{
		{ImportID: bankID(40), Account: spending, Date: "2026-11-09", Amount: -100, Cleared: true, Payee: "Kiosk"},
		{ImportID: bankID(41), Account: missing, Date: "2026-11-09", Amount: -200, Cleared: true, Payee: "Kiosk"},
	})
	if !errors.Is(err, ErrMissingAccount) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("create on a missing account: %v", err)
	}
	rows, err := s.Rows(ctx, []string{spending, missing}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 0 {
		t.Errorf("a batch with a missing account wrote %+v", rows)
	}
	mustClose(t, s)
}

func TestOpenNamesTheBudgetsThereAre(t *testing.T) {
	srv := actualtest.Start(t)
	b := srv.Budget(t, t.Name(), "Up Spending")
	_, err := New(Config{Node: actualtest.Node(srv.Dir)}).Open(testCtx(t), srv.Target(t, srv.FeedDir(t, t.TempDir()), "Holiday"))
	if !errors.Is(err, ErrBudgetNotFound) || !strings.Contains(err.Error(), `"`+t.Name()+`" (`+b.SyncID+`)`) {
		t.Fatalf("open an unknown budget: %v", err)
	}
}

func TestOpenWithoutTheClientSaysRunSetup(t *testing.T) {
	dir := actualtest.Dir(t)
	target := feeds.Target{Feed: "mine", URL: "http://127.0.0.1:1", Secret: "x", Budget: "b", Dir: t.TempDir(), Log: zerolog.Nop()}
	_, err := New(Config{Node: actualtest.Node(dir)}).Open(testCtx(t), target)
	var u *feeds.Unavailable
	if !errors.As(err, &u) || u.Mend != "bankmirror feeds setup mine" {
		t.Fatalf("open without @actual-app/api: %v", err)
	}
}

func TestOpenWithTheServerDownIsUnavailable(t *testing.T) {
	srv := &actualtest.Server{Server: &actualserver.Server{Dir: actualtest.Dir(t)}}
	srv.URL = fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	_, err := New(Config{Node: actualtest.Node(srv.Dir)}).Open(testCtx(t), srv.Target(t, srv.FeedDir(t, t.TempDir()), "b"))
	if !errors.Is(err, feeds.ErrUnavailable) || !strings.Contains(err.Error(), "unreachable: open: "+srv.URL+": ") {
		t.Fatalf("open with the server down: %v", err)
	}
}

// A wrong password says so and names the setting that holds it.
func TestOpenWithAWrongPasswordSaysSo(t *testing.T) {
	srv := actualtest.Start(t)
	target := srv.Target(t, srv.FeedDir(t, t.TempDir()), "b")
	target.Secret = "not the password"
	_, err := New(Config{Node: actualtest.Node(srv.Dir)}).Open(testCtx(t), target)
	var u *feeds.Unavailable
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "the actual server at "+srv.URL+" refused the password") ||
		!strings.Contains(u.Mend, "password_file") {
		t.Fatalf("open with a wrong password: %v", err)
	}
}

// A url that is not Actual's (here a web server's page, as Actual's own
// address with a path after it answers) is one line naming the url, not
// the page.
func TestOpenAtAnAddressThatIsNotActualSaysSo(t *testing.T) {
	dir := actualtest.Dir(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, "<!DOCTYPE html>\n<html><body><pre>Cannot POST /budget/account/login</pre></body></html>\n")
	}))
	t.Cleanup(page.Close)
	srv := &actualtest.Server{Server: &actualserver.Server{Dir: dir, URL: page.URL + "/budget"}}
	_, err := New(Config{Node: actualtest.Node(dir)}).Open(testCtx(t), srv.Target(t, srv.FeedDir(t, t.TempDir()), "b"))
	var u *feeds.Unavailable
	if !errors.As(err, &u) || !strings.Contains(err.Error(), page.URL+"/budget does not answer as an actual server") ||
		strings.Contains(err.Error(), "<") || !strings.Contains(u.Mend, "url") {
		t.Fatalf("open at a web page: %v", err)
	}
}

// An old node is refused before anything runs. The node here is a shell
// script that answers the child's hello as Node 20 would.
func TestOpenRefusesAnOldNode(t *testing.T) {
	dir := t.TempDir()
	node := filepath.Join(dir, "node")
	script := "#!/bin/sh\necho '{\"id\":0,\"result\":{\"node\":\"20.19.0\",\"api\":\"26.9.0\",\"apiError\":\"\"}}' >&4\nexec cat <&3 >/dev/null\n"
	if err := os.WriteFile(node, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	target := feeds.Target{Feed: "actual", Dir: t.TempDir(), Log: zerolog.Nop()}
	_, err := New(Config{Node: node}).Open(testCtx(t), target)
	var u *feeds.Unavailable
	if !errors.As(err, &u) || u.Mend != mendNode || !strings.Contains(err.Error(), "v20.19.0") {
		t.Fatalf("open with node 20: %v", err)
	}
}

// The node on PATH that is too old is named by its path.
func TestOpenNamesTheOldNodeOnPath(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho '{\"id\":0,\"result\":{\"node\":\"20.19.0\",\"api\":\"26.9.0\",\"apiError\":\"\"}}' >&4\nexec cat <&3 >/dev/null\n"
	if err := os.WriteFile(filepath.Join(dir, "node"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	target := feeds.Target{Feed: "actual", Dir: t.TempDir(), Log: zerolog.Nop()}
	_, err := New(Config{}).Open(testCtx(t), target)
	if err == nil || !strings.Contains(err.Error(), "node "+filepath.Join(dir, "node")+" is v20.19.0") {
		t.Fatalf("open with node 20 on PATH: %v", err)
	}
}

func TestOpenWithoutNodeSaysInstallIt(t *testing.T) {
	target := feeds.Target{Feed: "actual", Dir: t.TempDir(), Log: zerolog.Nop()}
	_, err := New(Config{Node: filepath.Join(t.TempDir(), "no-node")}).Open(testCtx(t), target)
	var u *feeds.Unavailable
	if !errors.As(err, &u) || u.Mend != mendNode {
		t.Fatalf("open with no node: %v", err)
	}
}

// TestSessionPushesTenThousandRows is a first push of a long history: every
// row reaches the server once. It logs the push's time and the Node
// child's peak RSS (VmHWM), the figures docs/performance.md reports.
func TestSessionPushesTenThousandRows(t *testing.T) {
	if testing.Short() {
		t.Skip("a push of 10,000 rows to the real Actual: not with -short")
	}
	srv := actualtest.Start(t)
	b := srv.Budget(t, t.Name(), "Up Spending")
	spending := b.Accounts["Up Spending"]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	const n = 10000
	rows := make([]feeds.NewRow, n)
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		rows[i] = feeds.NewRow{
			ImportID: bankID(100000 + i), Account: spending,
			Date:   day.AddDate(0, 0, i/20).Format(time.DateOnly),
			Amount: -int64(100 + i%5000), Cleared: i%10 != 0,
			Payee: fmt.Sprintf("Merchant %d", i%300), Notes: fmt.Sprintf("purchase %d", i),
		}
	}
	s := openSession(t, srv, srv.FeedDir(t, t.TempDir()), b.SyncID)
	start := time.Now()
	ids, err := s.Create(ctx, rows)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	took := time.Since(start)
	if len(ids) != n {
		t.Fatalf("create returned %d ids, want %d", len(ids), n)
	}
	t.Logf("pushed %d rows (create and sync) in %s; the node child used %s of CPU in all (its start and the budget's load included), peak RSS %.0f MiB",
		n, took.Round(time.Millisecond), s.cpu, float64(s.peak)/(1<<20))
	if s.peak == 0 || s.cpu == 0 {
		t.Errorf("the child's peak RSS (%d) or CPU time (%s) was not read", s.peak, s.cpu)
	}
	back := readBack(t, srv, b.SyncID, spending)
	if len(back) != n {
		t.Fatalf("the server has %d rows, want %d", len(back), n)
	}
	for _, r := range rows[:50] {
		if got := back[r.ImportID]; got.Amount != r.Amount || got.Date != r.Date || got.Cleared != r.Cleared {
			t.Errorf("row %s: %+v, want %+v", r.ImportID, got, r)
		}
	}
}

// The password goes to the child on its request pipe, never in its
// arguments or environment, and nothing the child or the session logs,
// at any level, holds it.
func TestSessionNeverLogsThePassword(t *testing.T) {
	srv := actualtest.Start(t)
	b := srv.Budget(t, t.Name(), "Up Spending")
	var logged actualtest.LockedBuffer
	target := srv.Target(t, srv.FeedDir(t, t.TempDir()), b.SyncID)
	target.Log = zerolog.New(&logged).Level(zerolog.TraceLevel)
	ctx := testCtx(t)
	sess, err := New(Config{Node: actualtest.Node(srv.Dir)}).Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	s := sess.(*session)
	t.Cleanup(func() { _ = s.c.kill() })
	for _, arg := range append(s.c.cmd.Args, s.c.cmd.Env...) {
		if strings.Contains(arg, actualtest.Password) {
			t.Errorf("the child's arguments or environment hold the password: %q", arg)
		}
	}
	if _, err := s.Create(ctx, []feeds.NewRow{{ImportID: bankID(50), Account: b.Accounts["Up Spending"], Date: "2026-11-10", Amount: -100, Cleared: true, Payee: "Kiosk"}}); err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)
	if logged.String() == "" {
		t.Fatal("the child's output was not logged")
	}
	if strings.Contains(logged.String(), actualtest.Password) {
		t.Errorf("the log holds the password:\n%s", logged.String())
	}
}

// A feed that died between making a transfer and giving its other leg the
// bank's import id and cleared finishes the job when it creates it again.
func TestSessionCreateMendsAHalfMadeTransfer(t *testing.T) {
	srv := actualtest.Start(t)
	b := srv.Budget(t, t.Name(), "Up Spending", "Saver")
	spending, saver := b.Accounts["Up Spending"], b.Accounts["Saver"]
	var half struct{ ID string }
	srv.Person(t, &half, "half-transfer", b.SyncID, spending, saver, bankID(60), "-2500", "2026-11-11")

	s := openSession(t, srv, srv.FeedDir(t, t.TempDir()), b.SyncID)
	ids, err := s.Create(testCtx(t), []feeds.NewRow{{
		ImportID: bankID(60), Account: spending, Date: "2026-11-11", Amount: -2500, Cleared: true, Payee: "To Saver",
		TransferAccount: saver, TransferImportID: bankID(61), TransferCleared: true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if ids[bankID(60)] != half.ID || ids[bankID(61)] == "" {
		t.Fatalf("create: %v, want %s and the other leg", ids, half.ID)
	}
	mustClose(t, s)
	back := readBack(t, srv, b.SyncID, spending, saver)
	if in := back[bankID(61)]; len(back) != 2 || in.ID != ids[bankID(61)] || !in.Cleared || in.TransferID != half.ID || in.Amount != 2500 {
		t.Errorf("after mending: %+v", back)
	}
}
