package bench

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
)

// Targets of `bench ui` (at any size, a million transactions included):
// the overview rendered and a search answered within 50 ms at the 95th
// percentile, the ui process under 48 MiB.
const (
	benchUIOverviewTarget = 50 * time.Millisecond
	benchUISearchTarget   = 50 * time.Millisecond
	benchUIRSSTarget      = 48 // MiB
)

// UIWords are searched, as a person would type them: common and rare
// words, a tag, a message, a prefix.
var UIWords = []string{"coles", "netflix", "uber trip", "thanks", "holiday", "cafe fitzroy", "spot", "raw 4242", "qantas", "weekly"}

// UIOptions are bench ui's settings.
type UIOptions struct {
	Transactions int            // in the generated mirror
	Rounds       int            // of (overviews, searches)
	Requests     int            // overviews a round; every word is searched once a round
	Dir          string         // for the mirror; "" makes a temporary one
	Location     *time.Location // the customer's zone, as the ui process has it
}

// UI measures the dashboard (`bankmirror bench ui`): the overview and
// searches served by a real `bankmirror ui` child process on a generated
// mirror (synthetic.Fill, in another child process running
// GenerateExportMirror), by the server's own time (the Server-Timing
// header of each page), each beside a bare query of the same aggregates in
// the same run, and the RSS of the ui process.
func UI(ctx context.Context, env Env, o UIOptions) error {
	cleanup, err := benchDir(&o.Dir)
	if err != nil {
		return err
	}
	defer cleanup()
	w := env.Stdout
	fmt.Fprintf(w, "bench ui: the dashboard on a generated mirror of %d transactions, %d rounds of %d overviews and %d searches, by the server's time (Server-Timing), beside bare queries of the same aggregates\n",
		o.Transactions, o.Rounds, o.Requests, len(UIWords))
	fmt.Fprintf(w, "repeat: bankmirror bench ui --transactions %d --rounds %d --requests %d\n", o.Transactions, o.Rounds, o.Requests)
	path := filepath.Join(o.Dir, "ui-bench.db")
	defer removeDB(path)
	if err := generateMirror(ctx, env, w, path, o.Transactions); err != nil {
		return err
	}

	token := randomHex(16)
	ui, err := env.Command(ctx, "ui", "--listen", "127.0.0.1:0")
	if err != nil {
		return err
	}
	ui.Env = append(ui.Environ(), "BANKMIRROR_DB="+path, "BANKMIRROR_UI_TOKEN="+token, "BANKMIRROR_LOG_LEVEL=warn")
	ui.Stderr = env.Stderr
	stdout, err := ui.StdoutPipe()
	if err != nil {
		return err
	}
	if err := ui.Start(); err != nil {
		return fmt.Errorf("start bankmirror ui: %w", err)
	}
	defer func() {
		_ = ui.Process.Signal(os.Interrupt)
		_ = ui.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return fmt.Errorf("bankmirror ui printed no address: %w", err)
	}
	link, ok := strings.CutPrefix(strings.TrimSpace(line), "dashboard: ")
	if !ok {
		return fmt.Errorf("bankmirror ui printed %q", line)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	// The printed link's code opens a session, whose pages live under the
	// address it leads to.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the printed link: %s", resp.Status)
	}
	base := strings.TrimSuffix(resp.Request.URL.String(), "/")
	fmt.Fprintf(w, "ui: bankmirror ui at %s (pid %d), RSS %.1f MiB after the first page\n", base, ui.Process.Pid, pidMiB(ui.Process.Pid, "VmRSS"))

	db, err := store.OpenReadOnlyDB(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	now := time.Now().In(o.Location)
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, o.Location)
	from, to := first.AddDate(0, -11, 0).Format("2006-01"), first.Format("2006-01")
	day := now.AddDate(0, 0, -90).Format(time.DateOnly)

	var overview, bareOverview, search, bareSearch []time.Duration
	for round := 1; round <= o.Rounds; round++ {
		for range o.Requests {
			d, err := timedCall(func() error { return bareOverviewQueries(ctx, db, from, to, day) })
			if err != nil {
				return err
			}
			bareOverview = append(bareOverview, d)
			if d, err = uiPage(ctx, client, base+"/"); err != nil {
				return err
			}
			overview = append(overview, d)
		}
		for _, word := range UIWords {
			d, err := timedCall(func() error { return bareSearchQueries(ctx, db, store.SearchQuery(word)) })
			if err != nil {
				return err
			}
			bareSearch = append(bareSearch, d)
			if d, err = uiPage(ctx, client, base+"/transactions?q="+url.QueryEscape(word)); err != nil {
				return err
			}
			search = append(search, d)
		}
		fmt.Fprintf(w, "round %d: overview p50 %s (bare %s), search p50 %s (bare %s)\n", round,
			uiMs(uiPercentile(overview, 50)), uiMs(uiPercentile(bareOverview, 50)), uiMs(uiPercentile(search, 50)), uiMs(uiPercentile(bareSearch, 50)))
	}
	peak, rss := pidMiB(ui.Process.Pid, "VmHWM"), pidMiB(ui.Process.Pid, "VmRSS")
	fmt.Fprintf(w, "\n| page | requests | p50 | p95 | bare query p50 | bare query p95 | p95 ratio to bare | target | met |\n|---|---|---|---|---|---|---|---|---|\n")
	row := func(name string, got, bare []time.Duration, target time.Duration) {
		met := "yes"
		if uiPercentile(got, 95) > target {
			met = "no"
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %.2fx | ≤ %s at p95 | %s |\n", name, len(got), uiMs(uiPercentile(got, 50)), uiMs(uiPercentile(got, 95)),
			uiMs(uiPercentile(bare, 50)), uiMs(uiPercentile(bare, 95)), float64(uiPercentile(got, 95))/float64(uiPercentile(bare, 95)), uiMs(target), met)
	}
	row("overview (/)", overview, bareOverview, benchUIOverviewTarget)
	row("search (/transactions?q=)", search, bareSearch, benchUISearchTarget)
	met := "yes"
	if peak > benchUIRSSTarget {
		met = "no"
	}
	fmt.Fprintf(w, "\nui process RSS: peak %.1f MiB, now %.1f MiB (target ≤ %d MiB: %s)\n", peak, rss, benchUIRSSTarget, met)
	return nil
}

// page gets u and returns the server's time from its Server-Timing
// header.
func uiPage(ctx context.Context, c *http.Client, u string) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	_, dur, ok := strings.Cut(resp.Header.Get("Server-Timing"), "dur=")
	f, err := strconv.ParseFloat(dur, 64)
	if !ok || err != nil {
		return 0, fmt.Errorf("GET %s: no Server-Timing", u)
	}
	return time.Duration(f * float64(time.Millisecond)), nil
}

// bareOverviewQueries are the overview's aggregates as bare SQL, rows
// read and dropped: spending by month and category and income by month
// (twelve months), the balances of the last 90 days, the accounts, the
// HELD transactions.
func bareOverviewQueries(ctx context.Context, db *sql.DB, from, to, day string) error {
	return drainQueries(ctx, db,
		uiQuery{`SELECT month, category_id, sum(total_spent_base_units), sum(count) FROM v_monthly_spending
			WHERE month BETWEEN ? AND ? GROUP BY month, parent_category_id, category_id`, []any{from, to}},
		uiQuery{`SELECT month, sum(total_income_base_units) FROM v_monthly_income WHERE month BETWEEN ? AND ? GROUP BY month`, []any{from, to}},
		uiQuery{`SELECT account_id, date, balance_base_units FROM v_daily_balances WHERE date >= ?`, []any{day}},
		uiQuery{`SELECT id, balance_base_units FROM accounts`, nil},
		uiQuery{`SELECT id, description, amount_base_units FROM transactions WHERE status = 'HELD' ORDER BY created_epoch LIMIT 20`, nil})
}

// bareSearchQueries are a search's count, sum and newest 50 as bare SQL.
func bareSearchQueries(ctx context.Context, db *sql.DB, match string) error {
	const in = `rowid IN (SELECT rowid FROM transactions_search WHERE transactions_search MATCH ?)`
	return drainQueries(ctx, db,
		uiQuery{`SELECT count(*), sum(amount_base_units) FROM transactions WHERE ` + in, []any{match}},
		uiQuery{`SELECT id, description, amount_base_units FROM transactions WHERE ` + in + ` ORDER BY created_epoch DESC LIMIT 50`, []any{match}})
}

type uiQuery struct {
	sql  string
	args []any
}

func drainQueries(ctx context.Context, db *sql.DB, qs ...uiQuery) error {
	for _, q := range qs {
		if err := drainQuery(ctx, db, q); err != nil {
			return fmt.Errorf("bare query: %w", err)
		}
	}
	return nil
}

// drainQuery runs q and reads every row.
func drainQuery(ctx context.Context, db *sql.DB, q uiQuery) error {
	rows, err := db.QueryContext(ctx, q.sql, q.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	for i := range vals {
		vals[i] = new(any)
	}
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			return err
		}
	}
	return rows.Err()
}

func timedCall(f func() error) (time.Duration, error) {
	start := time.Now()
	err := f()
	return time.Since(start), err
}

// pct is the p-th percentile of ds (nearest rank).
func uiPercentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(i-1, 0)]
}

func uiMs(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
