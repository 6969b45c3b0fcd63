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
	"os/exec"
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
	// Mirror is an existing mirror to measure instead of a generated
	// one (a copy of one made by `sync --full`: the ui process and the
	// bare queries only read it).
	Mirror string
	// Words are searched instead of UIWords.
	Words []string
	// Warmups are rounds made before the measured ones, and not counted.
	Warmups int
	// UIBinary, when set, is the bankmirror binary that serves the
	// dashboard (another build's, to compare in the same run).
	UIBinary string
}

// uiSample is one page's times: the client's (from the request sent to
// the body read, over loopback, with the session's cookie), the server's
// (its Server-Timing header), and its bare query's in the same run.
type uiSample struct{ client, server, bare []time.Duration }

// UI measures the dashboard (`bankmirror bench ui`): the overview and
// searches served by a real `bankmirror ui` child process on a generated
// mirror (synthetic.Fill, in another child process running
// GenerateExportMirror) or on a given one, by the client's time and the
// server's own (the Server-Timing header of each page), each beside a
// bare query of the same aggregates in the same run, and the RSS of the
// ui process.
func UI(ctx context.Context, env Env, o UIOptions) error {
	words := o.Words
	if len(words) == 0 {
		words = UIWords
	}
	w := env.Stdout
	path := o.Mirror
	if path == "" {
		cleanup, err := benchDir(&o.Dir)
		if err != nil {
			return err
		}
		defer cleanup()
		fmt.Fprintf(w, "bench ui: the dashboard on a generated mirror of %d transactions, %d rounds of %d overviews and %d searches, by the client's and the server's time (Server-Timing), beside bare queries of the same aggregates\n",
			o.Transactions, o.Rounds, o.Requests, len(words))
		fmt.Fprintf(w, "repeat: bankmirror bench ui --transactions %d --rounds %d --requests %d%s\n", o.Transactions, o.Rounds, o.Requests, uiRepeatWords(o))
		path = filepath.Join(o.Dir, "ui-bench.db")
		defer removeDB(path)
		if err := generateMirror(ctx, env, w, path, o.Transactions); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(w, "bench ui: the dashboard on the mirror %s, %d rounds of %d overviews and %d searches, by the client's and the server's time (Server-Timing), beside bare queries of the same aggregates\n",
			path, o.Rounds, o.Requests, len(words))
		fmt.Fprintf(w, "repeat: bankmirror bench ui --mirror %s --rounds %d --requests %d%s\n", path, o.Rounds, o.Requests, uiRepeatWords(o))
	}

	ui, client, base, err := startUI(ctx, env, path, o.UIBinary)
	if err != nil {
		return err
	}
	defer func() {
		_ = ui.Process.Signal(os.Interrupt)
		_ = ui.Wait()
	}()
	fmt.Fprintf(w, "ui: bankmirror ui%s at %s (pid %d), RSS %.1f MiB after the first page\n", uiRepeatBinary(o.UIBinary), base, ui.Process.Pid, pidMiB(ui.Process.Pid, "VmRSS"))

	db, err := store.OpenReadOnlyDB(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	now := time.Now().In(o.Location)
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, o.Location)
	from, to := first.AddDate(0, -11, 0).Format("2006-01"), first.Format("2006-01")
	day := now.AddDate(0, 0, -90).Format(time.DateOnly)

	// measure gets u once beside its bare queries, and adds the times to
	// s unless it is a warm-up.
	measure := func(s *uiSample, u string, bare func() error, warm bool) error {
		b, err := timedCall(bare)
		if err != nil {
			return err
		}
		c, sv, err := uiPage(ctx, client, u)
		if err != nil {
			return err
		}
		if !warm {
			s.bare, s.client, s.server = append(s.bare, b), append(s.client, c), append(s.server, sv)
		}
		return nil
	}
	var overview, search uiSample
	perWord := make([]uiSample, len(words))
	for i := range o.Warmups + o.Rounds {
		warm := i < o.Warmups
		for range o.Requests {
			if err := measure(&overview, base+"/", func() error { return bareOverviewQueries(ctx, db, from, to, day) }, warm); err != nil {
				return err
			}
		}
		for j, word := range words {
			u := base + "/transactions?q=" + url.QueryEscape(word)
			bare := func() error { return bareSearchQueries(ctx, db, store.SearchQuery(word)) }
			if err := measure(&perWord[j], u, bare, warm); err != nil {
				return err
			}
		}
		if warm {
			continue
		}
		search = uiSample{}
		for _, s := range perWord {
			search.client, search.server, search.bare = append(search.client, s.client...), append(search.server, s.server...), append(search.bare, s.bare...)
		}
		fmt.Fprintf(w, "round %d: overview p50 %s (bare %s), search p50 %s (bare %s)\n", i+1-o.Warmups,
			uiMs(uiPercentile(overview.server, 50)), uiMs(uiPercentile(overview.bare, 50)), uiMs(uiPercentile(search.server, 50)), uiMs(uiPercentile(search.bare, 50)))
	}
	peak, rss := pidMiB(ui.Process.Pid, "VmHWM"), pidMiB(ui.Process.Pid, "VmRSS")
	fmt.Fprintf(w, "\nBy the server's time (Server-Timing):\n\n| page | requests | p50 | p95 | bare query p50 | bare query p95 | p95 ratio to bare | target | met |\n|---|---|---|---|---|---|---|---|---|\n")
	row := func(name string, got, bare []time.Duration, target time.Duration) {
		met := "yes"
		if uiPercentile(got, 95) > target {
			met = "no"
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %.2fx | ≤ %s at p95 | %s |\n", name, len(got), uiMs(uiPercentile(got, 50)), uiMs(uiPercentile(got, 95)),
			uiMs(uiPercentile(bare, 50)), uiMs(uiPercentile(bare, 95)), float64(uiPercentile(got, 95))/float64(uiPercentile(bare, 95)), uiMs(target), met)
	}
	row("overview (/)", overview.server, overview.bare, benchUIOverviewTarget)
	row("search (/transactions?q=)", search.server, search.bare, benchUISearchTarget)
	fmt.Fprintf(w, "\nBy the client's time (request sent to body read, loopback, with the session's cookie), each word apart (matches: its count):\n\n| page | matches | requests | client p50 | client p95 | server p50 | server p95 | bare p50 | bare p95 | target (client p95) | met |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	clientRow := func(name, matches string, s uiSample, target time.Duration) {
		met := "yes"
		if uiPercentile(s.client, 95) > target {
			met = "no"
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | ≤ %s | %s |\n", name, matches, len(s.client),
			uiMs(uiPercentile(s.client, 50)), uiMs(uiPercentile(s.client, 95)), uiMs(uiPercentile(s.server, 50)), uiMs(uiPercentile(s.server, 95)),
			uiMs(uiPercentile(s.bare, 50)), uiMs(uiPercentile(s.bare, 95)), uiMs(target), met)
	}
	clientRow("overview (/)", "", overview, benchUIOverviewTarget)
	for j, word := range words {
		matches := "?"
		var n int64
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM transactions_search WHERE transactions_search MATCH ?", store.SearchQuery(word)).Scan(&n); err == nil {
			matches = strconv.FormatInt(n, 10)
		}
		clientRow("search "+strconv.Quote(word), matches, perWord[j], benchUISearchTarget)
	}
	met := "yes"
	if peak > benchUIRSSTarget {
		met = "no"
	}
	fmt.Fprintf(w, "\nui process RSS: peak %.1f MiB, now %.1f MiB (target ≤ %d MiB: %s)\n", peak, rss, benchUIRSSTarget, met)
	return nil
}

// uiRepeatWords is the flags of o that the repeat line shows besides
// the others.
func uiRepeatWords(o UIOptions) string {
	out := ""
	if len(o.Words) > 0 {
		out += " --words " + strconv.Quote(strings.Join(o.Words, ","))
	}
	if o.Warmups > 0 {
		out += " --warmups " + strconv.Itoa(o.Warmups)
	}
	if o.UIBinary != "" {
		out += " --ui-binary " + o.UIBinary
	}
	return out
}

// uiRepeatBinary names the ui's binary, when another build's, after
// "bankmirror ui".
func uiRepeatBinary(b string) string {
	if b == "" {
		return ""
	}
	return " (" + b + ")"
}

// startUI starts `bankmirror ui` (binary's, or this one's if "") on the
// mirror at path and opens a
// session through the link it prints: the client holds its cookie, and
// base is the address its pages live under.
func startUI(ctx context.Context, env Env, path, binary string) (ui *exec.Cmd, client *http.Client, base string, err error) {
	token := randomHex(16)
	if binary != "" {
		ui = exec.CommandContext(ctx, binary, "ui", "--listen", "127.0.0.1:0")
	} else if ui, err = env.Command(ctx, "ui", "--listen", "127.0.0.1:0"); err != nil {
		return nil, nil, "", err
	}
	ui.Env = append(ui.Environ(), "BANKMIRROR_DB="+path, "BANKMIRROR_UI_TOKEN="+token, "BANKMIRROR_LOG_LEVEL=warn")
	ui.Stderr = env.Stderr
	stdout, err := ui.StdoutPipe()
	if err != nil {
		return nil, nil, "", err
	}
	if err := ui.Start(); err != nil {
		return nil, nil, "", fmt.Errorf("start bankmirror ui: %w", err)
	}
	defer func() {
		if err != nil {
			_ = ui.Process.Signal(os.Interrupt)
			_ = ui.Wait()
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return nil, nil, "", fmt.Errorf("bankmirror ui printed no address: %w", err)
	}
	link, ok := strings.CutPrefix(strings.TrimSpace(line), "dashboard: ")
	if !ok {
		return nil, nil, "", fmt.Errorf("bankmirror ui printed %q", line)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	jar, _ := cookiejar.New(nil)
	client = &http.Client{Jar: jar, Timeout: 30 * time.Second}
	// The printed link's code opens a session, whose pages live under the
	// address it leads to.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return nil, nil, "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, "", err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, "", fmt.Errorf("the printed link: %s", resp.Status)
	}
	return ui, client, strings.TrimSuffix(resp.Request.URL.String(), "/"), nil
}

// uiPage gets u and returns the client's time (from the request sent
// to its body read) and the server's (its Server-Timing header).
func uiPage(ctx context.Context, c *http.Client, u string) (client, server time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, 0, err
	}
	client = time.Since(start)
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	_, dur, ok := strings.Cut(resp.Header.Get("Server-Timing"), "dur=")
	f, err := strconv.ParseFloat(dur, 64)
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("GET %s: no Server-Timing", u)
	}
	return client, time.Duration(f * float64(time.Millisecond)), nil
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
