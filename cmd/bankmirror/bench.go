package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/sync"
)

// cmdBench measures a full sync of the simulated bank end to end, beside a
// baseline measured in the same run: decoding the same pages and inserting
// the same rows with one prepared statement and one transaction per page.
// Rounds alternate the two, each into a fresh database, and the median
// ratio is reported, since these machines are noisy. The simulator runs in
// a child process, and the first round's sync runs before any baseline, so
// the peak RSS reported is the sync's own.
func cmdBench(ctx context.Context, a *app, args []string) error {
	fs := a.flags("bench", "[--transactions N] [--rounds R] [--dir DIR]")
	n := fs.Int("transactions", 100000, "transactions in the simulated bank")
	rounds := fs.Int("rounds", 3, "rounds of (sync, baseline), alternated")
	dir := fs.String("dir", "", "directory for the benchmark databases (default: a temporary one)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the first sync to this file")
	if err := fs.ParseNone(args); err != nil {
		return err
	}
	if *rounds < 1 || *n < 1 {
		return fmt.Errorf("%w: --rounds and --transactions must be positive", errUsage)
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "bankmirror-bench-")
		if err != nil {
			return fmt.Errorf("bench dir: %w", err)
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	apiURL, token, stop, err := startSimulatorProcess(ctx, *n)
	if err != nil {
		return err
	}
	defer stop()
	w := a.stdout
	fmt.Fprintf(w, "bench: full sync of %d simulated transactions, %d rounds (simulator in a child process at %s)\n", *n, *rounds, apiURL)
	client := bank.New(apiURL, token, bank.WithHourlyBudget(0))

	var pages [][]byte
	var ratios, rates []float64
	var first sync.Result
	var peak float64
	var rss []string
	for round := 1; round <= *rounds; round++ {
		var progress func(sync.Progress)
		if round == 1 {
			marks := map[int]bool{*n / 4: false, *n / 2: false}
			progress = func(p sync.Progress) {
				for m, done := range marks {
					if !done && p.Transactions >= m {
						marks[m] = true
						rss = append(rss, fmt.Sprintf("%d tx: %.0f MiB", p.Transactions, procMiB("VmRSS")))
					}
				}
			}
		}
		res, err := benchSync(ctx, client, filepath.Join(*dir, fmt.Sprintf("sync-%d.db", round)), progress, round == 1, *cpuProfile)
		if err != nil {
			return err
		}
		if round == 1 {
			first, peak = res, procMiB("VmHWM")
			rss = append(rss, fmt.Sprintf("end: %.0f MiB", procMiB("VmRSS")))
			// The baseline's pages, fetched once, untimed.
			if pages, err = fetchPages(ctx, token, client.TransactionsURL(bank.TransactionFilter{})); err != nil {
				return err
			}
		}
		baseRows, baseDur, err := baseline(ctx, filepath.Join(*dir, fmt.Sprintf("baseline-%d.db", round)), pages)
		if err != nil {
			return err
		}
		base := float64(baseRows) / baseDur.Seconds()
		e2e := float64(res.Listed) / res.Duration.Seconds()
		ratios, rates = append(ratios, e2e/base), append(rates, e2e)
		fmt.Fprintf(w, "round %d: baseline (decode + 1 prepared INSERT, 1 tx/page) %.0f rows/s; bankmirror full sync (HTTP + decode + upsert + history) %.0f tx/s; ratio %.2fx\n",
			round, base, e2e, e2e/base)
	}
	floor := (first.Listed+99)/100 + 4
	fmt.Fprintf(w, "median: %.0f tx/s, %.2fx the baseline\n", median(rates), median(ratios))
	fmt.Fprintf(w, "requests: %d (floor %d, +%.1f%%)\n", first.Requests, floor, 100*float64(int(first.Requests)-floor)/float64(floor))
	fmt.Fprintf(w, "peak RSS of the first sync: %.0f MiB (RSS at %s)\n", peak, strings.Join(rss, ", "))
	return nil
}

// benchSync runs one full sync into a fresh mirror at path.
func benchSync(ctx context.Context, client *bank.Client, path string, progress func(sync.Progress), profile bool, cpuProfile string) (sync.Result, error) {
	st, err := store.Open(ctx, path)
	if err != nil {
		return sync.Result{}, err
	}
	defer st.Close()
	s := sync.New(client, st, zerolog.Nop(), sync.Options{OnProgress: progress})
	if profile && cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return sync.Result{}, fmt.Errorf("cpu profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return sync.Result{}, fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	return s.Full(ctx)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// startSimulatorProcess runs `bankmirror simulator` as a child on a free
// loopback port and returns its API URL and token.
func startSimulatorProcess(ctx context.Context, n int) (apiURL, token string, stop func(), err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", "", nil, fmt.Errorf("find own binary: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, "simulator", "--listen", "127.0.0.1:0", "--transactions", strconv.Itoa(n))
	cmd.Env = append(os.Environ(), "BANKMIRROR_LOG_LEVEL=warn")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", "", nil, fmt.Errorf("start simulator: %w", err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", "", nil, fmt.Errorf("start simulator: %w", err)
	}
	stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
	sc := bufio.NewScanner(out)
	for (apiURL == "" || token == "") && sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "BANKMIRROR_API_URL="); ok {
			apiURL = v
		}
		if v, ok := strings.CutPrefix(sc.Text(), "BANKMIRROR_TOKEN="); ok {
			token = v
		}
	}
	if apiURL == "" || token == "" {
		stop()
		return "", "", nil, fmt.Errorf("simulator did not print its address")
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return apiURL, token, stop, nil
}

// fetchPages downloads every page's body, following links.next.
func fetchPages(ctx context.Context, token, first string) ([][]byte, error) {
	var pages [][]byte
	for next := first; next != ""; {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
		if err != nil {
			return nil, fmt.Errorf("baseline fetch: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, fmt.Errorf("baseline fetch: %w", err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("baseline fetch: status %d: %w", resp.StatusCode, err)
		}
		pages = append(pages, body)
		var links struct {
			Links struct {
				Next *string `json:"next"`
			} `json:"links"`
		}
		if err := json.Unmarshal(body, &links); err != nil {
			return nil, fmt.Errorf("baseline fetch: %w", err)
		}
		next = ""
		if links.Links.Next != nil {
			next = *links.Links.Next
		}
	}
	return pages, nil
}

// baseline decodes pages and inserts each transaction's main columns and raw
// JSON with one prepared statement, one transaction per page, into a fresh
// database with the mirror's pragmas.
func baseline(ctx context.Context, path string, pages [][]byte) (int, time.Duration, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=FULL&_busy_timeout=5000&_txlock=immediate")
	if err != nil {
		return 0, 0, fmt.Errorf("baseline: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (id TEXT PRIMARY KEY, account_id TEXT, status TEXT, description TEXT,
		amount_value TEXT, amount_base_units INTEGER, created_at TEXT, settled_at TEXT, category_id TEXT, raw TEXT) STRICT`); err != nil {
		return 0, 0, fmt.Errorf("baseline: %w", err)
	}
	start := time.Now()
	rows := 0
	for _, body := range pages {
		var page struct {
			Data []json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return 0, 0, fmt.Errorf("baseline decode: %w", err)
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return 0, 0, fmt.Errorf("baseline: %w", err)
		}
		stmt, err := tx.PrepareContext(ctx, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		if err != nil {
			tx.Rollback()
			return 0, 0, fmt.Errorf("baseline: %w", err)
		}
		for _, raw := range page.Data {
			t, err := bank.ParseTransaction(raw)
			if err != nil {
				tx.Rollback()
				return 0, 0, fmt.Errorf("baseline decode: %w", err)
			}
			if _, err := stmt.ExecContext(ctx, t.ID, t.AccountID, t.Status, t.Description, t.Amount.Value,
				t.Amount.ValueInBaseUnits, t.CreatedAt, t.SettledAt, t.CategoryID, string(raw)); err != nil {
				tx.Rollback()
				return 0, 0, fmt.Errorf("baseline insert: %w", err)
			}
			rows++
		}
		stmt.Close()
		if err := tx.Commit(); err != nil {
			return 0, 0, fmt.Errorf("baseline commit: %w", err)
		}
	}
	return rows, time.Since(start), nil
}

// procMiB reads a memory figure (VmRSS, VmHWM) of this process in MiB.
func procMiB(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}
