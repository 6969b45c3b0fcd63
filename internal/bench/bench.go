// Package bench runs bankmirror's whole-system benchmarks (`bankmirror
// bench`), each beside a baseline measured in the same run: a full sync
// (Sync), the webhook receiver with its worker (Receiver), a burst of
// webhook events (Burst), an idle daemon (Idle) and the export of a large
// mirror (Export). The command parses the flags and wires in, through Env,
// what only it has: its own binary and the daemon.
package bench

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/httpserver"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Env is what the benchmarks need from the command that runs them.
type Env struct {
	Stdout, Stderr io.Writer
	// Environ is the process's environment: the BANKMIRROR_* variables the
	// user set are measured with (and printed beside the figures).
	Environ map[string]string
	Log     zerolog.Logger
	// Command returns the command running `bankmirror args...` in a child
	// process: the simulated bank, serve, webhook register, the export
	// benchmark's mirror generator.
	Command func(ctx context.Context, args ...string) (*exec.Cmd, error)
	// Binary is the file the children run, once setup made it a copy
	// (installed); "" before.
	Binary string
}

// openDaemon opens d, the daemon as `serve` runs it (internal/daemon), in
// this process; on failure it is closed.
func openDaemon(ctx context.Context, d *daemon.Daemon) error {
	if err := d.Open(ctx); err != nil {
		_ = d.Close()
		return err
	}
	return nil
}

// serve serves h on addr as the daemon's public listener is served (its
// timeouts and limits), until stop.
func serve(ctx context.Context, addr string, h http.Handler) (url string, stop func(), err error) {
	srv, err := httpserver.Start(ctx, "http server", addr, httpserver.New(h))
	if err != nil {
		return "", nil, err
	}
	return srv.URL(), func() { _ = srv.Shutdown(shutdownGrace) }, nil
}

// shutdownGrace is how long a benchmark's server waits for requests in
// flight when it stops.
const shutdownGrace = 5 * time.Second

// SyncOptions are bench sync's settings.
type SyncOptions struct {
	Transactions int           // in the simulated bank
	Rounds       int           // of (sync, baseline, reference client), alternated
	Dir          string        // for the databases; "" makes a temporary one
	Stall        time.Duration // give up when a sync makes no progress for this long
	CPUProfile   string        // file of a CPU profile of the first sync, or ""
	MemLimit     string        // GOMEMLIMIT of the sync's process ("off": none)
}

// Sync measures a full sync of the simulated bank end to end, with the
// client built as the daemon builds it (default settings: the request
// budget on) against a simulator that reports ample headroom, beside two
// clients measured in the same run:
//
//   - the baseline: decoding the same pages, read from a file (untimed),
//     and inserting the same rows with one prepared statement and one
//     transaction per page: the floor of what any client can do;
//   - the reference client: a plain client that mirrors the bank with a
//     search index, the way one is written without bankmirror's care. It
//     fetches each page over HTTP from the same simulator, decodes it and
//     inserts its rows with one prepared statement and one transaction per
//     page, into a table with an FTS5 index kept by a trigger, so that its
//     mirror is searchable when it ends, as bankmirror's is. Issue 32's
//     target (a first sync 1.7 times as fast) is the ratio against it.
//
// Rounds alternate the three, each into a fresh database, and the median
// ratios are reported, since these machines are noisy. The simulator runs
// in a child process, and so does each sync, as users run it: `bankmirror
// sync --full` from the installed copy of the binary (Env.setup), with
// GOMEMLIMIT=MemLimit; its figures are those it logs, its CPU time and
// peak RSS those of its process. With a CPU profile, the first round's
// sync runs in this process instead, to be profiled, before any other
// client, so that the peak RSS reported is still the sync's own.
func Sync(ctx context.Context, env Env, o SyncOptions) error {
	n, rounds, dir := o.Transactions, o.Rounds, o.Dir
	sim, done, err := env.setup(ctx, &dir, n)
	if err != nil {
		return err
	}
	defer done()
	cfg, user, err := env.config(map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token})
	if err != nil {
		return err
	}
	w := env.Stdout
	fmt.Fprintf(w, "bench sync: full sync of %d simulated transactions, %d rounds (simulator in a child process at %s, reporting %s requests/hour of headroom; each sync `bankmirror sync --full` in a child process, GOMEMLIMIT=%s)\n",
		n, rounds, sim.apiURL, benchHeadroom[1], o.MemLimit)
	fmt.Fprintln(w, settingsLine(user))
	fmt.Fprintf(w, "repeat: bankmirror bench sync --transactions %d --rounds %d --gomemlimit %s\n", n, rounds, o.MemLimit)

	pagesFile := filepath.Join(dir, "pages.bin")
	var ratios, rates, bases []float64
	// Rows per CPU second (this process's user and system time: the
	// simulator runs in a child), which the other jobs of a shared machine
	// disturb far less than the time by the clock.
	var cpuRatios, cpuRates, cpuBases []float64
	var refRatios, refRates, refCPURatios []float64
	var first childSync
	var rss string
	inProcess := o.CPUProfile != ""
	client := daemonClient(cfg, env.Log)
	for round := 1; round <= rounds; round++ {
		path := filepath.Join(dir, fmt.Sprintf("sync-%d.db", round))
		var res childSync
		if round == 1 && inProcess {
			res, rss, err = syncInProcess(ctx, cfg, env.Log, path, n, o.Stall, o.CPUProfile)
		} else {
			vars := benchChildEnv(env.Environ, user, map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token, "DB": path,
				"LOG_FORMAT": "json", "LOG_LEVEL": "info"}, o.MemLimit)
			res, err = env.runSyncChild(ctx, vars, o.Stall)
			if round == 1 {
				rss = "end: " + res.end
			}
		}
		if err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		syncCPU := res.cpu
		if round == 1 {
			first = res
			// The baseline's pages, fetched once, untimed, kept on disk
			// so that a million transactions fit.
			if err := fetchPages(ctx, sim.token, client.TransactionsURL(bank.TransactionFilter{}), pagesFile); err != nil {
				return err
			}
		}
		baseCPU := cpuTime()
		baseRows, baseDur, err := baseline(ctx, filepath.Join(dir, fmt.Sprintf("baseline-%d.db", round)), pagesFile)
		if err != nil {
			return err
		}
		baseCPU = cpuTime() - baseCPU
		refCPU := cpuTime()
		refRows, refDur, err := reference(ctx, filepath.Join(dir, fmt.Sprintf("reference-%d.db", round)), sim.token,
			client.TransactionsURL(bank.TransactionFilter{}))
		if err != nil {
			return err
		}
		refCPU = cpuTime() - refCPU
		for _, p := range []string{path, filepath.Join(dir, fmt.Sprintf("baseline-%d.db", round)), filepath.Join(dir, fmt.Sprintf("reference-%d.db", round))} {
			removeDB(p) // keep the disk use of a million-transaction run flat
		}
		base := float64(baseRows) / baseDur.Seconds()
		e2e := float64(res.listed) / res.duration.Seconds()
		ratios, rates, bases = append(ratios, e2e/base), append(rates, e2e), append(bases, base)
		cpuBase, cpuE2E := float64(baseRows)/baseCPU.Seconds(), float64(res.listed)/syncCPU.Seconds()
		cpuRatios, cpuRates, cpuBases = append(cpuRatios, cpuE2E/cpuBase), append(cpuRates, cpuE2E), append(cpuBases, cpuBase)
		ref, cpuRef := float64(refRows)/refDur.Seconds(), float64(refRows)/refCPU.Seconds()
		refRatios, refRates, refCPURatios = append(refRatios, e2e/ref), append(refRates, ref), append(refCPURatios, cpuE2E/cpuRef)
		fmt.Fprintf(w, "round %d: baseline (decode + 1 prepared INSERT, 1 tx/page) %.0f rows/s; bankmirror full sync (HTTP + decode + upsert + history + search index) %.0f tx/s in %.1fs; ratio %.2fx; per CPU second %.0f and %.0f, ratio %.2fx\n",
			round, base, e2e, res.duration.Seconds(), e2e/base, cpuBase, cpuE2E, cpuE2E/cpuBase)
		fmt.Fprintf(w, "round %d: reference client (HTTP + decode + 1 prepared INSERT, 1 tx/page, FTS5 by trigger) %.0f rows/s in %.1fs; bankmirror %.2fx; per CPU second %.0f, bankmirror %.2fx\n",
			round, ref, refDur.Seconds(), e2e/ref, cpuRef, cpuE2E/cpuRef)
	}
	floor := (first.listed+99)/100 + 4
	fmt.Fprintf(w, "\n| rounds | baseline median | bankmirror median | median ratio | requests (floor) | peak RSS |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| %d | %.0f rows/s | %.0f tx/s | %.2fx | %d (%d, +%.1f%%) | %.0f MiB |\n\n", rounds,
		median(bases), median(rates), median(ratios), first.requests, floor,
		100*float64(first.requests-floor)/float64(floor), first.peak)
	fmt.Fprintf(w, "median: %.0f tx/s, %.2fx the baseline\n", median(rates), median(ratios))
	fmt.Fprintf(w, "per CPU second (median): baseline %.0f rows, bankmirror %.0f tx, %.2fx\n", median(cpuBases), median(cpuRates), median(cpuRatios))
	fmt.Fprintf(w, "against the reference client (median): %.0f rows/s, bankmirror %.2fx by the clock, %.2fx per CPU second\n",
		median(refRates), median(refRatios), median(refCPURatios))
	fmt.Fprintf(w, "requests: %d (floor %d, +%.1f%%)\n", first.requests, floor, 100*float64(first.requests-floor)/float64(floor))
	where := "its own process, from the installed copy; anonymous sampled every 20 ms"
	if inProcess {
		where = "in this process, profiled; anonymous sampled at each page"
	}
	fmt.Fprintf(w, "peak RSS of the first sync: %.0f MiB, of which anonymous at most %.0f MiB (%s; the rest is file pages, mostly the binary's) (RSS at %s)\n",
		first.peak, first.peakAnon, where, rss)
	return nil
}

// syncInProcess is the first round's sync in this process, with a CPU
// profile, as a childSync; rss is the RSS at a few marks on the way.
func syncInProcess(ctx context.Context, cfg config.Config, log zerolog.Logger, path string, n int, stall time.Duration,
	cpuProfile string) (res childSync, rss string, err error) {
	// A fresh client, as a freshly started daemon has.
	client := daemonClient(cfg, log)
	marks := []int{n / 4, n / 2, 3 * n / 4, n}
	var at []string
	peakReset := resetPeakRSS()
	progress := func(p replica.Progress) {
		res.peakAnon = max(res.peakAnon, procMiB("RssAnon"))
		for len(marks) > 0 && p.Transactions >= marks[0] {
			if marks[0] == n {
				// The listing is complete: what follows (deletions,
				// tags, attachments) is measured by the end figures.
				at = append(at, fmt.Sprintf("listed: %s (peak so far %.0f MiB)", rssSplit(), procMiB("VmHWM")))
			} else {
				at = append(at, fmt.Sprintf("%d tx: %s", marks[0], rssSplit()))
			}
			marks = marks[1:]
		}
	}
	cpu := cpuTime()
	r, err := benchSync(ctx, client, path, log, progress, stall, cfg.RequestsPerHour, true, cpuProfile)
	if err != nil {
		return res, "", err
	}
	res.cpu = cpuTime() - cpu
	res.listed, res.requests, res.duration = r.Listed, int(r.Requests), r.Duration
	res.peak, res.peakAnon = procMiB("VmHWM"), max(res.peakAnon, procMiB("RssAnon"))
	at = append(at, "end: "+rssSplit())
	if !peakReset {
		at = append(at, "the peak is the process's up to the end of the sync")
	}
	return res, strings.Join(at, ", "), nil
}

// rssSplit is this process's RSS now, with its anonymous and file-backed
// shares: the file pages are mostly the binary's own, as many as the page
// cache holds of it around the pages the process touched.
func rssSplit() string {
	return fmt.Sprintf("%.0f MiB (%.0f anonymous + %.0f file)", procMiB("VmRSS"), procMiB("RssAnon"), procMiB("RssFile"))
}

// benchDir makes *dir a temporary directory when it is empty; cleanup
// removes it.
func benchDir(dir *string) (cleanup func(), err error) {
	if *dir != "" {
		return func() {}, os.MkdirAll(*dir, 0o700)
	}
	d, err := os.MkdirTemp("", "bankmirror-bench-")
	if err != nil {
		return nil, fmt.Errorf("bench dir: %w", err)
	}
	*dir = d
	return func() { os.RemoveAll(d) }, nil
}

// setup prepares a benchmark's directory (benchDir), makes env run its
// children from a copy of its binary there, as installed (installed), and
// starts the simulated bank with n transactions in a child process; done
// stops the bank and removes the copy and a temporary directory.
func (env *Env) setup(ctx context.Context, dir *string, n int, simArgs ...string) (sim *benchSim, done func(), err error) {
	cleanup, err := benchDir(dir)
	if err != nil {
		return nil, nil, err
	}
	uninstall, err := env.installed(ctx, *dir)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	fmt.Fprintf(env.Stdout, "children run from %s, a copy of this binary written as a package install writes it\n", env.Binary)
	if sim, err = env.startSim(ctx, n, simArgs...); err != nil {
		uninstall()
		cleanup()
		return nil, nil, err
	}
	return sim, func() { sim.stop(); uninstall(); cleanup() }, nil
}

// removeDB removes an SQLite file and its WAL and shared-memory files.
func removeDB(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", ".sync-lock", ".heal-lock"} {
		_ = os.Remove(path + suffix)
	}
}

// benchSync runs one full sync into a fresh mirror at path. It gives up
// when the sync makes no progress for stall (today's default request cap
// makes a large sync wait for the next hour).
func benchSync(ctx context.Context, client *bank.Client, path string, log zerolog.Logger, progress func(replica.Progress),
	stall time.Duration, perHour int, profile bool, cpuProfile string) (replica.Result, error) {
	st, err := store.Open(ctx, path)
	if err != nil {
		return replica.Result{}, err
	}
	defer st.Close()
	var last atomic.Int64
	var listed, pages atomic.Int64
	last.Store(time.Now().UnixNano())
	s := replica.New(client, st, log, replica.Options{OnProgress: func(p replica.Progress) {
		last.Store(time.Now().UnixNano())
		listed.Store(int64(p.Transactions))
		pages.Store(int64(p.Pages))
		progress(p)
	}})
	if profile {
		stopProfile, err := startCPUProfile(cpuProfile)
		if err != nil {
			return replica.Result{}, err
		}
		defer stopProfile()
	}
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-t.C:
				if idle := time.Since(time.Unix(0, last.Load())); idle > stall {
					cancel(fmt.Errorf("no progress for %s after %d transactions in %d pages and %d requests: "+
						"the client is probably waiting for its request budget (BANKMIRROR_REQUESTS_PER_HOUR=%d, 0 = no cap; see the log above)",
						idle.Round(time.Second), listed.Load(), pages.Load(), client.Requests(), perHour))
					return
				}
			}
		}
	}()
	res, err := s.Full(sctx)
	if err != nil && context.Cause(sctx) != nil && ctx.Err() == nil {
		return res, context.Cause(sctx)
	}
	return res, err
}

// fetchPages downloads every page's body, following links.next, into
// path: each body after its length (8 bytes, big-endian).
func fetchPages(ctx context.Context, token, first, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("baseline fetch: %w", err)
	}
	bw := bufio.NewWriter(f)
	for next := first; next != ""; {
		body, err := fetchPage(ctx, token, next)
		if err != nil {
			f.Close()
			return fmt.Errorf("baseline %w", err)
		}
		_ = binary.Write(bw, binary.BigEndian, uint64(len(body)))
		_, _ = bw.Write(body)
		var links struct {
			Links struct {
				Next *string `json:"next"`
			} `json:"links"`
		}
		if err := json.Unmarshal(body, &links); err != nil {
			f.Close()
			return fmt.Errorf("baseline fetch: %w", err)
		}
		next = ""
		if links.Links.Next != nil {
			next = *links.Links.Next
		}
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("baseline fetch: %w", err)
	}
	return f.Close()
}

// baseline decodes the pages stored in pagesFile and inserts each
// transaction's main columns and raw JSON with one prepared statement, one
// transaction per page, into a fresh database with the mirror's pragmas.
// Reading a page from the file is not timed.
func baseline(ctx context.Context, path, pagesFile string) (int, time.Duration, error) {
	f, err := os.Open(pagesFile)
	if err != nil {
		return 0, 0, fmt.Errorf("baseline: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
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
	var elapsed time.Duration
	rows := 0
	var body []byte
	for {
		var size uint64
		if err := binary.Read(br, binary.BigEndian, &size); err == io.EOF {
			break
		} else if err != nil {
			return 0, 0, fmt.Errorf("baseline read: %w", err)
		}
		body = slices.Grow(body[:0], int(size))[:size]
		if _, err := io.ReadFull(br, body); err != nil {
			return 0, 0, fmt.Errorf("baseline read: %w", err)
		}
		start := time.Now()
		n, err := baselinePage(ctx, db, body)
		if err != nil {
			return 0, 0, err
		}
		elapsed += time.Since(start)
		rows += n
	}
	return rows, elapsed, nil
}

// baselinePage decodes one page and inserts its rows in one transaction.
func baselinePage(ctx context.Context, db *sql.DB, body []byte) (int, error) {
	var page struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return 0, fmt.Errorf("baseline decode: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("baseline: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // after Commit: a no-op
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		return 0, fmt.Errorf("baseline: %w", err)
	}
	defer stmt.Close()
	for _, raw := range page.Data {
		t, err := bank.ParseTransaction(raw)
		if err != nil {
			return 0, fmt.Errorf("baseline decode: %w", err)
		}
		if _, err := stmt.ExecContext(ctx, t.ID, t.AccountID, t.Status, t.Description, t.Amount.Value,
			t.Amount.ValueInBaseUnits, t.CreatedAt, t.SettledAt, t.CategoryID, string(raw)); err != nil {
			return 0, fmt.Errorf("baseline insert: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("baseline commit: %w", err)
	}
	return len(page.Data), nil
}

// reference runs the reference client (see Sync) into a fresh database at
// path: every page from first on, following links.next, fetched, decoded
// and inserted in turn. All of it is timed: fetching is part of its work,
// as it is of bankmirror's.
func reference(ctx context.Context, path, token, first string) (int, time.Duration, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=FULL&_busy_timeout=5000&_txlock=immediate")
	if err != nil {
		return 0, 0, fmt.Errorf("reference: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, referenceSchema); err != nil {
		return 0, 0, fmt.Errorf("reference: %w", err)
	}
	start := time.Now()
	rows := 0
	for next := first; next != ""; {
		body, err := fetchPage(ctx, token, next)
		if err != nil {
			return 0, 0, fmt.Errorf("reference: %w", err)
		}
		n, following, err := referencePage(ctx, db, body)
		if err != nil {
			return 0, 0, err
		}
		rows, next = rows+n, following
	}
	return rows, time.Since(start), nil
}

// referenceSchema is the reference client's table and its search index:
// an FTS5 table over the transaction's text, filled by a trigger at every
// insert.
const referenceSchema = `CREATE TABLE t (id TEXT PRIMARY KEY, account_id TEXT, status TEXT, description TEXT,
	message TEXT, raw_text TEXT, amount_value TEXT, amount_base_units INTEGER, created_at TEXT, settled_at TEXT,
	category_id TEXT, raw TEXT) STRICT;
CREATE VIRTUAL TABLE t_search USING fts5(description, message, raw_text, tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER t_search_insert AFTER INSERT ON t BEGIN
	INSERT INTO t_search (rowid, description, message, raw_text) VALUES (new.rowid, new.description, new.message, new.raw_text);
END;`

// fetchPage returns the body of one page.
func fetchPage(ctx context.Context, token, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch: status %d", resp.StatusCode)
	}
	return body, nil
}

// referencePage decodes one page and inserts its rows in one transaction;
// it returns the page's links.next.
func referencePage(ctx context.Context, db *sql.DB, body []byte) (int, string, error) {
	var page struct {
		Data  []json.RawMessage `json:"data"`
		Links struct {
			Next *string `json:"next"`
		} `json:"links"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return 0, "", fmt.Errorf("reference decode: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, "", fmt.Errorf("reference: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // after Commit: a no-op
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		return 0, "", fmt.Errorf("reference: %w", err)
	}
	defer stmt.Close()
	for _, raw := range page.Data {
		t, err := bank.ParseTransaction(raw)
		if err != nil {
			return 0, "", fmt.Errorf("reference decode: %w", err)
		}
		if _, err := stmt.ExecContext(ctx, t.ID, t.AccountID, t.Status, t.Description, t.Message, t.RawText,
			t.Amount.Value, t.Amount.ValueInBaseUnits, t.CreatedAt, t.SettledAt, t.CategoryID, string(raw)); err != nil {
			return 0, "", fmt.Errorf("reference insert: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, "", fmt.Errorf("reference commit: %w", err)
	}
	next := ""
	if page.Links.Next != nil {
		next = *page.Links.Next
	}
	return len(page.Data), next, nil
}
