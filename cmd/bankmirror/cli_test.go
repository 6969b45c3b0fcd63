package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/buildinfo"
	"github.com/bankmirror/bankmirror/internal/cli"
	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/webhooks"
)

// cliToken is distinctive so that a leak is found by a plain substring
// search of the output.
const cliToken = "SECRET-TOKEN-123"

// cliBuffer is a bytes.Buffer safe for the concurrent writes of a command
// whose goroutines log (an *os.File is; a bytes.Buffer is not).
type cliBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *cliBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *cliBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type cliResult struct {
	code           int
	stdout, stderr string
}

func (r cliResult) String() string {
	return fmt.Sprintf("exit %d\n--- stdout:\n%s--- stderr:\n%s", r.code, r.stdout, r.stderr)
}

// runCLI runs the whole command line in-process.
func runCLI(t *testing.T, env map[string]string, args ...string) cliResult {
	t.Helper()
	var stdout, stderr cliBuffer
	code := run(t.Context(), args, env, &stdout, &stderr)
	return cliResult{code, stdout.String(), stderr.String()}
}

// wantCode fails the test unless r exited with code.
func wantCode(t *testing.T, r cliResult, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got %s", code, r)
	}
}

// noLeak fails the test if any secret appears in the output of r.
func noLeak(t *testing.T, r cliResult, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s == "" {
			t.Fatal("empty secret")
		}
		if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
			t.Errorf("secret %q in the output:\n%s", s, r)
		}
	}
}

// newTokenBank is newBank with a given token.
func newTokenBank(t *testing.T, n int, token string) *bankEnv {
	t.Helper()
	return newBankWith(t, simulator.Options{Seed: 5, Transactions: n, Token: token,
		WebhookRetryBase: time.Millisecond, WebhookRetryMax: 20 * time.Millisecond, WebhookMaxAttempts: 50})
}

// cliEnv is the environment of a command against b with a mirror at db.
func cliEnv(b *bankEnv, db string) map[string]string {
	return map[string]string{
		"BANKMIRROR_API_URL":           b.apiURL,
		"BANKMIRROR_TOKEN":             b.sim.Token(),
		"BANKMIRROR_DB":                db,
		"BANKMIRROR_REQUESTS_PER_HOUR": "0",
		"BANKMIRROR_LOG_FORMAT":        "json",
	}
}

// openMirror opens a mirror that must already exist, for inspection.
func openMirror(t *testing.T, path string) *store.Store {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("mirror: %v", err)
	}
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// usageText is the usage the program prints.
func usageText() string {
	var b strings.Builder
	(&app{}).program().Usage(&b)
	return b.String()
}

func TestCLIHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		t.Run(fmt.Sprint(args), func(t *testing.T) {
			// No configuration at all is needed for help.
			r := runCLI(t, map[string]string{"BANKMIRROR_LOG_LEVEL": "loud"}, args...)
			wantCode(t, r, 0)
			if r.stdout != usageText() {
				t.Errorf("stdout is not the usage:\n%s", r)
			}
			for _, cmd := range []string{"demo", "serve", "webhook", "sync", "status", "backup", "ping", "people", "simulator", "bench",
				"version", "categorize", "categories", "tag", "completion", "man"} {
				if !strings.Contains(r.stdout, "\n  "+cmd+" ") {
					t.Errorf("usage does not list %s", cmd)
				}
			}
			if r.stderr != "" {
				t.Errorf("stderr = %q", r.stderr)
			}
		})
	}
}

// With no command, as with any CLI whose command is required: the usage
// on stderr, exit 2.
func TestCLINoCommand(t *testing.T) {
	r := runCLI(t, nil)
	wantCode(t, r, 2)
	if r.stderr != usageText() || r.stdout != "" {
		t.Errorf("want the usage on stderr only:\n%s", r)
	}
}

// usageFlag is a flag in a usage line: --name, then what follows it.
var usageFlag = regexp.MustCompile(`(?:^|[\s\[|])(--?[a-z][a-z0-9-]*)(=\S+|\s+[^\s\[\]|-][^\s\]]*)?`)

// Every command's --help exits 0 with its help on stdout, whatever the
// configuration says, and every flag its usage lines show exists, with a
// value exactly when it takes one.
func TestCLIEveryHelp(t *testing.T) {
	// A configuration no command could run with: help needs none.
	env := map[string]string{"BANKMIRROR_LOG_LEVEL": "loud", "BANKMIRROR_API_URL": "ftp://x"}
	p := (&app{}).program()
	n := 0
	p.Walk(func(path []*cli.Command) {
		n++
		c := path[len(path)-1]
		var args []string
		for _, pc := range path {
			args = append(args, pc.Name)
		}
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			for _, h := range []string{"--help", "-h"} {
				r := runCLI(t, env, append(slices.Clone(args), h)...)
				wantCode(t, r, 0)
				if r.stderr != "" || !strings.HasPrefix(r.stdout, "Usage: bankmirror "+strings.Join(args, " ")) {
					t.Fatalf("%s: want the help on stdout only:\n%s", h, r)
				}
			}
			fs := c.Flags
			if d := c.Default; d != "" {
				for _, s := range c.Commands {
					if s.Name == d {
						fs = s.Flags
					}
				}
			}
			for _, form := range p.Forms(path) {
				for _, m := range usageFlag.FindAllStringSubmatch(form, -1) {
					name := strings.TrimLeft(m[1], "-")
					var f *flag.Flag
					if fs != nil {
						f = fs.Lookup(name)
					}
					if f == nil {
						t.Errorf("%q shows %s, which is not a flag of %s", form, m[1], strings.Join(args, " "))
						continue
					}
					b, isBool := f.Value.(interface{ IsBoolFlag() bool })
					isBool = isBool && b.IsBoolFlag()
					shownValue := strings.TrimSpace(m[2]) != "" && !strings.HasPrefix(m[2], "=")
					if isBool == shownValue {
						t.Errorf("%q shows %s%s, but the flag takes a value: %v", form, m[1], m[2], !isBool)
					}
					// The value is named as the flag's list names it.
					for _, cf := range cli.Flags(fs) {
						if cf.Name == name && shownValue && strings.TrimSpace(m[2]) != cf.Value {
							t.Errorf("%q names the value of %s %s; its flag list names it %s", form, m[1], strings.TrimSpace(m[2]), cf.Value)
						}
					}
				}
			}
		})
	})
	if n < 25 {
		t.Errorf("only %d commands walked", n)
	}
}

func TestCLIVersion(t *testing.T) {
	want := regexp.MustCompile(`^bankmirror (\S+)\ncommit:    \S+\ncommitted: \S+\ngo:        go1\.\d+\S* \S+/\S+\nsqlite:    3\.\d+\.\d+\n$`)
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
		// No configuration is needed.
		r := runCLI(t, map[string]string{"BANKMIRROR_LOG_LEVEL": "loud"}, args...)
		wantCode(t, r, 0)
		if m := want.FindStringSubmatch(r.stdout); m == nil || m[1] != buildinfo.Get().Version {
			t.Errorf("%v: stdout = %q", args, r.stdout)
		}
	}
	r := runCLI(t, nil, "version", "--json")
	wantCode(t, r, 0)
	var got buildinfo.Info
	must(t, json.Unmarshal([]byte(r.stdout), &got))
	if got != buildinfo.Get() {
		t.Errorf("version --json = %+v, want %+v", got, buildinfo.Get())
	}
}

func TestCLICommandsRequireToken(t *testing.T) {
	for _, args := range [][]string{{"sync"}, {"sync", "--full"}, {"ping"}, {"serve"}, {"webhook", "list"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "mirror.db")
			r := runCLI(t, map[string]string{"BANKMIRROR_DB": db, "BANKMIRROR_API_URL": "http://127.0.0.1:9/api/v1"}, args...)
			wantCode(t, r, 2)
			if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "BANKMIRROR_TOKEN") {
				t.Errorf("want one line naming BANKMIRROR_TOKEN:\n%s", r)
			}
			if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("mirror created without a token: %v", err)
			}
		})
	}
}

func TestCLIPing(t *testing.T) {
	b := newTokenBank(t, 10, cliToken)
	p, err := b.client.Ping(t.Context())
	must(t, err)
	env := cliEnv(b, filepath.Join(t.TempDir(), "mirror.db"))
	r := runCLI(t, env, "ping")
	wantCode(t, r, 0)
	if want := "token accepted by " + b.apiURL + ": customer " + p.ID; !strings.HasPrefix(r.stdout, want) {
		t.Errorf("stdout does not start with %q:\n%s", want, r)
	}
	noLeak(t, r, cliToken)
	if _, err := os.Stat(env["BANKMIRROR_DB"]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ping created the mirror: %v", err)
	}
}

// A rejected token is reported as such, and never shown, whatever the
// command and at the most verbose log level.
func TestCLIWrongTokenRejectedAndNotShown(t *testing.T) {
	b := newBank(t, 10) // accepts "tok"
	for _, args := range [][]string{{"ping"}, {"sync", "--full"}, {"webhook", "list"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			env := cliEnv(b, filepath.Join(t.TempDir(), "mirror.db"))
			env["BANKMIRROR_TOKEN"] = cliToken
			env["BANKMIRROR_LOG_LEVEL"] = "trace"
			r := runCLI(t, env, args...)
			wantCode(t, r, 1)
			if !strings.Contains(r.stderr, "token rejected") {
				t.Errorf("stderr does not say the token was rejected:\n%s", r)
			}
			noLeak(t, r, cliToken)
		})
	}
}

var syncSummary = regexp.MustCompile(`^(full|incremental) sync: (\d+) transactions listed, (\d+) rows changed, (\d+) deleted, (\d+) requests, \S+\n$`)

func TestCLISyncAndStatus(t *testing.T) {
	b := newTokenBank(t, 300, cliToken)
	db := filepath.Join(t.TempDir(), "mirror.db")
	env := cliEnv(b, db)

	r := runCLI(t, env, "sync", "--full")
	wantCode(t, r, 0)
	noLeak(t, r, cliToken)
	m := syncSummary.FindStringSubmatch(r.stdout)
	if m == nil || m[1] != "full" || m[3] != "300" || m[4] != "0" {
		t.Errorf("full sync summary:\n%s", r)
	}
	// Run from a script, the log goes to stderr, one JSON object a line,
	// and the summary alone to stdout (the summary regexp is anchored).
	for _, l := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
		if !json.Valid([]byte(l)) {
			t.Errorf("stderr line is no JSON log line: %q", l)
		}
	}
	// The log's durations say their unit.
	if !regexp.MustCompile(`"duration_ms":[0-9.]+,[^\n]*"message":"sync finished"`).MatchString(r.stderr) || strings.Contains(r.stderr, `"duration":`) {
		t.Errorf("the sync's log has no duration_ms:\n%s", r.stderr)
	}

	fi, err := os.Stat(db)
	must(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mirror mode = %v, want 0600", fi.Mode().Perm())
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if fi, err := os.Stat(db + suffix); err == nil && fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s mode = %v, readable by others", suffix, fi.Mode().Perm())
		}
	}

	b.sim.AddTransaction(simulator.NewTransaction{Description: "After the full sync", AmountBaseUnits: -1234})
	r = runCLI(t, env, "sync")
	wantCode(t, r, 0)
	noLeak(t, r, cliToken)
	if m := syncSummary.FindStringSubmatch(r.stdout); m == nil || m[1] != "incremental" || m[3] == "0" {
		t.Errorf("incremental sync summary:\n%s", r)
	}

	st := openMirror(t, db)
	mirrortest.AssertEqualsTruth(t, b.sim, st.Reader(), b.apiURL)
	accounts := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM accounts")
	txs := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transactions")
	must(t, st.Close())
	if txs != 301 {
		t.Errorf("mirror has %d transactions, want 301", txs)
	}

	// No daemon has run on this mirror: DEGRADED (exit 1), the syncs fresh.
	r = runCLI(t, env, "status")
	wantCode(t, r, 1)
	noLeak(t, r, cliToken)
	for _, want := range []string{
		"DEGRADED: daemon: no daemon has run on this mirror",
		"mirror: " + db + ", ",
		fmt.Sprintf("rows: %d accounts, %d transactions (", accounts, txs),
		"webhook events: 0 received, 0 pending, 0 stuck",
		"last sync runs (times in Australia/Melbourne):\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r)
		}
	}
	// The mirror's size, and per transaction, as status --json has it.
	rj := runCLI(t, env, "status", "--json")
	var sj struct {
		Size struct {
			Bytes, FreeBytes, WALBytes int64
		} `json:"size"`
	}
	if err := json.Unmarshal([]byte(rj.stdout), &sj); err != nil || sj.Size.Bytes <= 0 || sj.Size.FreeBytes > sj.Size.Bytes {
		t.Errorf("status --json size %+v (%v):\n%s", sj.Size, err, rj.stdout)
	}
	if fi, err := os.Stat(db + "-wal"); err == nil && fi.Size() != sj.Size.WALBytes {
		t.Errorf("status --json says a WAL of %d bytes, the file has %d", sj.Size.WALBytes, fi.Size())
	}
	perTx := regexp.MustCompile(`mirror: .*, [\d.]+ (?:KiB|MiB|GiB) \(([\d,]+) bytes a transaction; [\d.]+ (?:bytes|KiB|MiB|GiB) free; WAL [\d.]+ (?:bytes|KiB|MiB|GiB)\)\n`).FindStringSubmatch(r.stdout)
	if want := money.Thousands((sj.Size.Bytes + sj.Size.WALBytes) / int64(txs)); perTx == nil || perTx[1] != want {
		t.Errorf("status's size line %q, want %s bytes a transaction:\n%s", perTx, want, r.stdout)
	}
	// Newest first: the incremental run, then the full one, both ok; their
	// times in the customer's zone, with its offset, as the last successful
	// ones are.
	stamp := `(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (\+1[01]:00))`
	runs := regexp.MustCompile(`(?m)^\s+(\d+)\s+(full|incremental)\s+`+stamp+`\s+`+stamp+`\s+(\w+)\s`).FindAllStringSubmatch(r.stdout, -1)
	if len(runs) != 2 || runs[0][2] != "incremental" || runs[1][2] != "full" || runs[0][7] != "ok" || runs[1][7] != "ok" {
		t.Errorf("status runs = %q:\n%s", runs, r)
	}
	// The line lists the three kinds separated by "; ", with no stray one at its end.
	if !regexp.MustCompile(`(?m)^last successful: incremental \S+ ago \(` + stamp + `\); full \S+ ago \(` + stamp + `\); heal[^;\n]*[^;\s]$`).MatchString(r.stdout) {
		t.Errorf("last successful runs without their zone:\n%s", r)
	}
	// In UTC, if that is the customer's zone: said so by the offset.
	env["BANKMIRROR_TIMEZONE"] = "UTC"
	r = runCLI(t, env, "status")
	if !strings.Contains(r.stdout, "last sync runs (times in UTC):\n") || !regexp.MustCompile(`\d\d:\d\d:\d\d \+00:00\s+\d{4}-`).MatchString(r.stdout) {
		t.Errorf("status in UTC:\n%s", r)
	}
}

// At debug level, with JSON logs and retries being logged, the token is
// never written to stderr.
func TestCLISyncDebugLogsNeverShowToken(t *testing.T) {
	b := newTokenBank(t, 150, cliToken)
	env := cliEnv(b, filepath.Join(t.TempDir(), "mirror.db"))
	env["BANKMIRROR_LOG_LEVEL"] = "debug"
	// One 429 so that the retry path logs too.
	b.sim.SetFaults(simulator.Faults{RateLimitBurst: 1})
	r := runCLI(t, env, "sync", "--full")
	wantCode(t, r, 0)
	noLeak(t, r, cliToken)
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if r.stderr == "" || len(lines) == 0 {
		t.Fatalf("no logs at debug level:\n%s", r)
	}
	sawRetry := false
	for _, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Errorf("log line is not JSON: %q", l)
			continue
		}
		if rec["status"] == float64(http.StatusTooManyRequests) {
			sawRetry = true
		}
	}
	if !sawRetry {
		t.Errorf("the 429 was not logged:\n%s", r)
	}

	r = runCLI(t, env, "sync")
	wantCode(t, r, 0)
	noLeak(t, r, cliToken)
}

func TestCLIStatusWithoutMirror(t *testing.T) {
	db := filepath.Join(t.TempDir(), "absent.db")
	r := runCLI(t, map[string]string{"BANKMIRROR_DB": db}, "status")
	wantCode(t, r, 2)
	if !strings.HasPrefix(r.stdout, "FAILING: no mirror at "+db) || !strings.Contains(r.stdout, "sync --full") {
		t.Errorf("status should say FAILING: there is no mirror, and how to make one:\n%s", r)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("status created the mirror: %v", err)
	}
}

// The demo, by default a household (alex and sam, a 2Up joint account),
// with and without its live part, and a single customer (--people me).
func TestCLIDemo(t *testing.T) {
	for _, tc := range []struct {
		name   string
		live   bool
		people string
	}{{"household", true, ""}, {"household,live=false", false, ""}, {"single", true, "me"}} {
		t.Run(tc.name, func(t *testing.T) {
			household := tc.people == ""
			db := filepath.Join(t.TempDir(), "demo.db")
			// An empty file is no mirror: the demo may write there (any
			// other file is refused: TestCLIDemoReplacesOnlyItsOwnMirrors).
			must(t, os.WriteFile(db, nil, 0o600))
			args := []string{"demo", "--db", db, "--transactions", "300"}
			if !tc.live {
				args = append(args, "--live=false")
			}
			if tc.people != "" {
				args = append(args, "--people", tc.people)
			}
			r := runCLI(t, map[string]string{"BANKMIRROR_LOG_FORMAT": "json"}, args...)
			wantCode(t, r, 0)
			for _, want := range []string{
				"Simulated bank with 300 transactions at http://127.0.0.1:",
				"\nAccounts:\n",
				"Transactions: ",
				"The mirror is a plain SQLite file. Try:\n",
				"  sqlite3 -header " + db + ` "SELECT created_local, description`,
				"  sqlite3 -header " + db + ` "SELECT observed_local, change`,
			} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, r)
				}
			}
			st := openMirror(t, db)
			// The queries the demo suggests run on its mirror and answer.
			suggested := regexp.MustCompile(`(?m)^  sqlite3 -header \S+ "(.+)"$`).FindAllStringSubmatch(r.stdout, -1)
			if want := map[bool]int{false: 3, true: 6}[household]; len(suggested) != want {
				t.Errorf("%d suggested queries, want %d:\n%s", len(suggested), want, r)
			}
			for _, q := range suggested {
				if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM ("+q[1]+")"); n == 0 {
					t.Errorf("suggested query answers nothing: %s", q[1])
				}
			}
			// Its tags read as a list: a space after each comma.
			if len(suggested) > 0 {
				q := strings.Replace(suggested[0][1], "FROM v_transactions", "FROM v_transactions WHERE json_array_length(tags_json) >= 2", 1)
				q = strings.TrimSuffix(q, " LIMIT 10")
				tags := mirrortest.Strings(t, st.Reader(), "SELECT tags FROM ("+q+")")
				if len(tags) == 0 {
					t.Error("no transaction of the demo has two tags")
				}
				for _, tg := range tags {
					if !strings.Contains(tg, ", ") || regexp.MustCompile(`,\S`).MatchString(tg) {
						t.Errorf("tags print as %q, want a space after each comma", tg)
					}
				}
			}
			// It suggests the dashboard, on its own mirror.
			if !strings.Contains(r.stdout, "\n  BANKMIRROR_DB="+db+" bankmirror ui\n") {
				t.Errorf("the demo does not suggest the dashboard:\n%s", r.stdout)
			}
			// Amounts have thousands separators.
			amounts := regexp.MustCompile(`-?[0-9][0-9,]*\.[0-9]{2} AUD`).FindAllString(r.stdout, -1)
			if len(amounts) == 0 {
				t.Errorf("no amounts in the summary:\n%s", r.stdout)
			}
			for _, am := range amounts {
				if !regexp.MustCompile(`^-?[0-9]{1,3}(,[0-9]{3})*\.[0-9]{2} AUD$`).MatchString(am) {
					t.Errorf("amount %q has no thousands separators", am)
				}
			}
			if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transactions"); n < 300 {
				t.Errorf("demo mirror has %d transactions, want 300 or more", n)
			}
			if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM sync_runs WHERE kind = 'full' AND status = 'ok'"); n != 1 {
				t.Errorf("%d successful full sync runs, want 1", n)
			}
			if household {
				checkDemoHousehold(t, st, r, tc.live)
			} else if got := mirrortest.Strings(t, st.Reader(), "SELECT name FROM people"); !slices.Equal(got, []string{"me"}) {
				t.Errorf("people of the single customer's demo = %q, want [me]", got)
			}
			processed := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM webhook_events WHERE processed_at IS NOT NULL")
			live1 := regexp.MustCompile(`\nLive: (\d+) events received and applied; (\d+) pending\.\n`).FindStringSubmatch(r.stdout)
			if !tc.live {
				if live1 != nil || strings.Contains(r.stdout, "webhook") || strings.Contains(r.stdout, "Poll:") || processed != 0 {
					t.Errorf("live part ran with --live=false (%d events processed):\n%s", processed, r)
				}
				return
			}
			if live1 == nil || live1[2] != "0" {
				t.Fatalf("no live summary with nothing pending:\n%s", r)
			}
			// The single customer's seven steps make 8 events (the last one
			// is DELETED + CREATED); the household's 7: nothing for the
			// joint purchase, two for the payment between them.
			if fmt.Sprint(processed) != live1[1] || processed != map[bool]int{false: 8, true: 7}[household] {
				t.Errorf("%d webhook events processed in the mirror; the demo says %s\n%s", processed, live1[1], r)
			}
			if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transactions WHERE description IN ('Woolworths', 'Ticketek')"); n < 1 {
				t.Errorf("the live purchase was not mirrored")
			}
			if n, want := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM webhooks WHERE deleted_at IS NULL"), map[bool]int{false: 1, true: 2}[household]; n != want {
				t.Errorf("%d active webhooks stored, want %d", n, want)
			}
		})
	}
}

// An empty bank (--transactions 0, which the simulator would take for its
// default) has no transaction but the live ones; its joint account, with
// none in the mirror, is polled from its start: the 2Up purchase comes.
func TestCLIDemoEmptyBank(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	r := runCLI(t, map[string]string{"BANKMIRROR_LOG_FORMAT": "json"}, "demo", "--db", db, "--transactions", "0")
	wantCode(t, r, 0)
	if !strings.Contains(r.stdout, "Transactions: 0 (0 HELD)") ||
		!strings.Contains(r.stdout, "Poll: sam's 2Up purchase (tx ") {
		t.Errorf("the empty bank's demo:\n%s", r.stdout)
	}
	st := openMirror(t, db)
	// The coffee, the tickets, the 2Up groceries, the payment's two sides
	// (the deposit came and went).
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM transactions"); n != 5 {
		t.Errorf("%d transactions in the empty bank's mirror, want the 5 live ones", n)
	}
}

// A bad --people is a usage error naming it, and the demo writes nothing.
func TestCLIDemoBadPeople(t *testing.T) {
	for _, people := range []string{"Alex,sam", "alex,alex", "alex,", ""} {
		dir := t.TempDir()
		r := runCLI(t, map[string]string{"BANKMIRROR_LOG_FORMAT": "json"}, "demo", "--db", filepath.Join(dir, "demo.db"), "--people", people)
		wantCode(t, r, 2)
		if first, _, _ := strings.Cut(r.stderr, "\n"); !strings.HasPrefix(first, "bankmirror: usage: --people: ") {
			t.Errorf("--people %q: want a usage error naming --people:\n%s", people, r)
		}
		if got := names(t, dir); len(got) != 0 {
			t.Errorf("--people %q: the demo wrote %q", people, got)
		}
	}
}

// checkDemoHousehold checks the household demo's mirror and what it
// printed: two people, the joint account once, joint purchases with their
// person, household transfers in pairs; live, the joint purchase the poll
// brought (sam's), the payment alex made sam, a webhook each.
func checkDemoHousehold(t *testing.T, st *store.Store, r cliResult, live bool) {
	t.Helper()
	db := st.Reader()
	if !strings.Contains(r.stdout, "a household, alex and sam, each with their own token and accounts, sharing a 2Up joint account") {
		t.Errorf("the demo does not say it is a household:\n%s", r.stdout)
	}
	if got := mirrortest.Strings(t, db, "SELECT name FROM people WHERE removed_at IS NULL ORDER BY name"); !slices.Equal(got, []string{"alex", "sam"}) {
		t.Errorf("people = %q, want [alex sam]", got)
	}
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM accounts WHERE ownership_type = 'JOINT'"); n != 1 {
		t.Errorf("%d joint accounts in the mirror, want 1", n)
	}
	if n := mirrortest.Int(t, db, "SELECT count(*) FROM v_account_people WHERE ownership_type = 'JOINT' AND people = 'alex,sam'"); n != 1 {
		t.Errorf("the joint account is not recorded as both people's")
	}
	for _, p := range []string{"alex", "sam"} {
		if n := mirrortest.Int(t, db, "SELECT count(*) FROM v_account_people WHERE ownership_type = 'INDIVIDUAL' AND people = ?", p); n == 0 {
			t.Errorf("%s has no account of their own in the mirror", p)
		}
		if n := mirrortest.Int(t, db, "SELECT count(*) FROM v_transactions WHERE ownership_type = 'JOINT' AND person = ?", p); n == 0 {
			t.Errorf("no joint transaction is %s's", p)
		}
	}
	// Each transaction once: as many ids as rows, and the joint account's
	// as many as the bank seeded there.
	if n := mirrortest.Int(t, db, "SELECT count(*) - count(DISTINCT id) FROM transactions"); n != 0 {
		t.Errorf("%d transactions twice", n)
	}
	pairs := mirrortest.Int(t, db, "SELECT count(*) FROM v_transactions WHERE household_transfer")
	out := mirrortest.Int(t, db, "SELECT count(*) FROM v_transactions WHERE household_transfer AND amount_base_units < 0")
	if pairs == 0 || pairs != 2*out {
		t.Errorf("%d transactions flagged household_transfer, %d of them money out: want pairs", pairs, out)
	}
	for _, want := range []string{"spending per person (v_monthly_spending_by_person):", "who paid for what on 2Up (v_transactions.person):",
		"(v_transactions.household_transfer), the latest:", "What a couple asks"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	// The per-person lines say what the view says.
	m := regexp.MustCompile(`this month \(([0-9]{4}-[0-9]{2})\):`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no month of the household's summary:\n%s", r.stdout)
	}
	month := m[1]
	for _, p := range []string{"alex", "sam"} {
		cents := mirrortest.Int(t, db, "SELECT sum(total_spent_base_units) FROM v_monthly_spending_by_person WHERE month = ? AND person = ?", month, p)
		if line := regexp.MustCompile(`(?m)^ +` + p + ` +` + regexp.QuoteMeta(money.Format(int64(cents), "AUD"))); !line.MatchString(r.stdout) {
			t.Errorf("no line of %s spending %s in %s:\n%s", p, money.Format(int64(cents), "AUD"), month, r.stdout)
		}
	}
	if !live {
		return
	}
	if got := mirrortest.Strings(t, db, "SELECT person || ' ' || amount_base_units || ' ' || people FROM v_transactions WHERE ownership_type = 'JOINT' ORDER BY created_epoch DESC, id LIMIT 1"); !slices.Equal(got, []string{"sam -8745 alex,sam"}) {
		t.Errorf("the newest joint transaction = %q, want sam's groceries, -8745 cents", got)
	}
	if !regexp.MustCompile(`(?m)^Poll: sam's 2Up purchase \(tx [0-9a-f-]{8}\.\.\.\) reached the mirror [0-9.]+ s after the bank made it, with no event\.$`).MatchString(r.stdout) {
		t.Errorf("the demo does not show the poll bringing the joint purchase:\n%s", r.stdout)
	}
	if got := mirrortest.Strings(t, db, "SELECT person || ' ' || amount_base_units FROM v_transactions WHERE household_transfer AND message = 'Half the concert tickets 🎸' ORDER BY amount_base_units"); !slices.Equal(got, []string{"alex -6000", "sam 6000"}) {
		t.Errorf("the payment between them = %q, want alex -6000 and sam 6000, flagged household_transfer", got)
	}
	if got := mirrortest.Strings(t, db, "SELECT person FROM webhooks WHERE deleted_at IS NULL ORDER BY person"); !slices.Equal(got, []string{"alex", "sam"}) {
		t.Errorf("webhooks' people = %q, want one each", got)
	}
	for _, p := range []string{"alex", "sam"} {
		if !strings.Contains(r.stdout, "    webhook ("+p+"): TRANSACTION_CREATED") {
			t.Errorf("no event shown as %s's:\n%s", p, r.stdout)
		}
	}
}

func TestCLISimulatorCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr cliBuffer
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"simulator", "--listen", "127.0.0.1:0", "--token", "T", "--transactions", "20"}, nil, pw, &stderr)
		pw.Close()
		done <- code
	}()
	sc := bufio.NewScanner(pr)
	var apiURL string
	var lines []string
	for apiURL == "" && sc.Scan() {
		lines = append(lines, sc.Text())
		if v, ok := strings.CutPrefix(sc.Text(), "BANKMIRROR_API_URL="); ok {
			apiURL = v
		}
	}
	if len(lines) == 0 || lines[0] != "simulated bank listening" {
		t.Errorf("simulator stdout starts %q", lines)
	}
	// Read the rest until the command ends and closes the pipe.
	rest := make(chan []string, 1)
	go func() {
		var more []string
		for sc.Scan() {
			more = append(more, sc.Text())
		}
		rest <- more
	}()
	if apiURL == "" {
		cancel()
		t.Fatalf("no BANKMIRROR_API_URL line in %q; exit %d, stderr %q", lines, <-done, stderr.String())
	}

	p, err := bank.New(apiURL, "T", bank.WithHourlyBudget(0)).Ping(ctx)
	if err != nil || p.ID == "" {
		t.Errorf("ping the simulator at %s: %+v, %v", apiURL, p, err)
	}
	if _, err := bank.New(apiURL, "not-T", bank.WithHourlyBudget(0)).Ping(ctx); !errors.Is(err, bank.ErrUnauthorized) {
		t.Errorf("the simulator accepted another token than --token: %v", err)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("simulator exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the simulator did not stop when its context was cancelled")
	}
	if more := <-rest; len(more) != 1 || more[0] != "BANKMIRROR_TOKEN=T" {
		t.Errorf("after the URL, stdout = %q, want the token line", more)
	}
	if _, err := bank.New(apiURL, "T", bank.WithHourlyBudget(0), bank.WithMaxAttempts(1)).Ping(context.Background()); err == nil {
		t.Error("the simulator still answers after the command returned")
	}
}

// webhookSink answers every delivery 200.
func webhookSink(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/hook"
}

func storedWebhook(t *testing.T, db, id string) (store.Webhook, error) {
	t.Helper()
	st := openMirror(t, db)
	defer st.Close()
	return st.Webhook(context.Background(), id)
}

func hookIDs(b *bankEnv) []string {
	var ids []string
	for _, h := range b.sim.Webhooks() {
		ids = append(ids, h.ID)
	}
	return ids
}

func TestCLIWebhookCommands(t *testing.T) {
	b := newTokenBank(t, 20, cliToken)
	url := webhookSink(t)
	db := filepath.Join(t.TempDir(), "mirror.db")
	env := cliEnv(b, db)
	// Every secret ever issued; none may be printed.
	secrets := []string{cliToken}
	check := func(r cliResult, code int) cliResult {
		t.Helper()
		wantCode(t, r, code)
		for _, h := range b.sim.Webhooks() {
			secrets = append(secrets, h.Secret)
		}
		noLeak(t, r, secrets...)
		return r
	}

	// register
	r := check(runCLI(t, env, "webhook", "register", "--url", url, "--description", "cli test"), 0)
	hooks := b.sim.Webhooks()
	if len(hooks) != 1 {
		t.Fatalf("bank has %d webhooks after register, want 1", len(hooks))
	}
	h := hooks[0]
	if want := fmt.Sprintf("registered webhook %s for %s; its secret is stored in %s\n", h.ID, url, db+".secrets"); r.stdout != want {
		t.Errorf("register stdout = %q, want %q", r.stdout, want)
	}
	if h.URL != url || h.Description == nil || *h.Description != "cli test" {
		t.Errorf("bank webhook = %+v", h)
	}
	sw, err := storedWebhook(t, db, h.ID)
	must(t, err)
	if sw.SecretKey != h.Secret || sw.DeletedAt != nil {
		t.Errorf("stored webhook %+v does not hold the bank's secret", sw)
	}

	// list: ours has its secret stored, one made elsewhere does not.
	other, err := b.client.CreateWebhook(t.Context(), url+"/other", nil)
	must(t, err)
	r = check(runCLI(t, env, "webhook", "list"), 0)
	if !strings.HasPrefix(r.stdout, "ID") || !strings.Contains(strings.SplitN(r.stdout, "\n", 2)[0], "SECRET STORED") {
		t.Errorf("list has no header:\n%s", r)
	}
	listed := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n")[1:] {
		f := strings.Fields(l)
		listed[f[0]] = f[len(f)-1]
	}
	if len(listed) != 2 || listed[h.ID] != "yes" || listed[other.ID] != "no" {
		t.Errorf("list = %v, want %s yes and %s no:\n%s", listed, h.ID, other.ID, r)
	}
	if !strings.Contains(r.stdout, "cli test") {
		t.Errorf("list does not show the description:\n%s", r)
	}

	// ping, then its delivery in the logs.
	r = check(runCLI(t, env, "webhook", "ping", h.ID), 0)
	m := regexp.MustCompile(`^PING event (\S+) sent to webhook ` + regexp.QuoteMeta(h.ID) + "\n$").FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("ping stdout:\n%s", r)
	}
	eventID := m[1]
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	must(t, b.sim.WaitDeliveries(ctx))
	r = check(runCLI(t, env, "webhook", "logs", h.ID), 0)
	if !regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d\s+DELIVERED\s+200\s+` + regexp.QuoteMeta(eventID) + `\s*$`).MatchString(r.stdout) {
		t.Errorf("logs do not show the PING %s delivered:\n%s", eventID, r)
	}
	r = check(runCLI(t, env, "webhook", "logs", "--limit", "0", h.ID), 0)
	if strings.Contains(r.stdout, eventID) {
		t.Errorf("logs --limit 0 shows entries:\n%s", r)
	}

	// rotate: a new webhook with the same URL; the old one is gone.
	r = check(runCLI(t, env, "webhook", "rotate", h.ID), 0)
	ids := hookIDs(b)
	if len(ids) != 2 || ids[0] != other.ID || ids[1] == h.ID {
		t.Fatalf("bank webhooks after rotate = %v (old %s, other %s)", ids, h.ID, other.ID)
	}
	newHook := b.sim.Webhooks()[1]
	// The PING sent to the sink above never reached a daemon's inbox: the
	// rotation takes it from the old webhook's delivery log first.
	want := fmt.Sprintf("recovered 1 undelivered events of webhook %s into the inbox\nrotated webhook %s -> %s for %s\n", h.ID, h.ID, newHook.ID, url)
	if r.stdout != want {
		t.Errorf("rotate stdout = %q, want %q", r.stdout, want)
	}
	if newHook.URL != url || newHook.Description == nil || *newHook.Description != "cli test" {
		t.Errorf("rotated webhook = %+v, want the old URL and description", newHook)
	}
	sw, err = storedWebhook(t, db, newHook.ID)
	must(t, err)
	if sw.SecretKey != newHook.Secret || sw.DeletedAt != nil {
		t.Errorf("new webhook stored as %+v", sw)
	}
	sw, err = storedWebhook(t, db, h.ID)
	must(t, err)
	if sw.DeletedAt == nil || sw.SecretKey != h.Secret {
		t.Errorf("old webhook stored as %+v, want its secret kept and deleted_at set", sw)
	}

	// delete
	r = check(runCLI(t, env, "webhook", "delete", newHook.ID), 0)
	if r.stdout != "deleted webhook "+newHook.ID+"\n" {
		t.Errorf("delete stdout = %q", r.stdout)
	}
	if ids := hookIDs(b); len(ids) != 1 || ids[0] != other.ID {
		t.Errorf("bank webhooks after delete = %v, want only %s", ids, other.ID)
	}
	sw, err = storedWebhook(t, db, newHook.ID)
	must(t, err)
	if sw.DeletedAt == nil {
		t.Errorf("deleted webhook not marked deleted: %+v", sw)
	}
	r = check(runCLI(t, env, "webhook", "delete", newHook.ID), 0)
	if r.stdout != "webhook "+newHook.ID+" did not exist at the bank; forgotten locally\n" {
		t.Errorf("second delete stdout = %q", r.stdout)
	}

	// Unknown ids are errors (exit 1) for ping, logs and rotate.
	for _, sub := range []string{"ping", "logs", "rotate"} {
		r = check(runCLI(t, env, "webhook", sub, newHook.ID), 1)
		if !strings.Contains(r.stderr, "not found") {
			t.Errorf("webhook %s of a deleted id:\n%s", sub, r)
		}
	}
}

func TestCLIWebhookLimit(t *testing.T) {
	b := newTokenBank(t, 10, cliToken)
	url := webhookSink(t)
	db := filepath.Join(t.TempDir(), "mirror.db")
	for i := range webhooks.MaxWebhooks {
		_, err := b.client.CreateWebhook(t.Context(), fmt.Sprintf("%s/%d", url, i), nil)
		must(t, err)
	}
	r := runCLI(t, cliEnv(b, db), "webhook", "register", "--url", url)
	wantCode(t, r, 1)
	if !strings.Contains(r.stderr, "at most 10 webhooks and you have 10") || !strings.Contains(r.stderr, "bankmirror webhook delete") {
		t.Errorf("stderr does not explain the limit:\n%s", r)
	}
	if n := len(b.sim.Webhooks()); n != webhooks.MaxWebhooks {
		t.Errorf("bank has %d webhooks", n)
	}
	st := openMirror(t, db)
	if n := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM webhooks"); n != 0 {
		t.Errorf("%d webhooks stored after a refused registration", n)
	}
}

func TestCLIWebhookUsage(t *testing.T) {
	b := newTokenBank(t, 10, cliToken)
	for _, tc := range []struct {
		args     []string
		noToken  bool
		inStderr string
	}{
		{[]string{"webhook"}, true, "Commands:\n  register  create a webhook at the bank"},
		{[]string{"webhook", "frobnicate"}, false, `unknown webhook command "frobnicate"`},
		{[]string{"webhook", "register"}, false, "--url is required"},
		{[]string{"webhook", "delete"}, false, "webhook delete takes one webhook id"},
		{[]string{"webhook", "rotate", "a", "b"}, false, "webhook rotate takes one webhook id"},
		{[]string{"webhook", "logs"}, false, "webhook logs takes one webhook id"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			env := cliEnv(b, filepath.Join(t.TempDir(), "mirror.db"))
			if tc.noToken {
				delete(env, "BANKMIRROR_TOKEN")
			}
			r := runCLI(t, env, tc.args...)
			wantCode(t, r, 2)
			if !strings.Contains(r.stderr, tc.inStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.inStderr, r)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q", r.stdout)
			}
			noLeak(t, r, cliToken)
			// A usage error creates no mirror file, with or without a token.
			if _, err := os.Stat(env["BANKMIRROR_DB"]); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("usage error created the mirror: %v", err)
			}
		})
	}
	if n := len(b.sim.Webhooks()); n != 0 {
		t.Errorf("usage errors made %d webhooks", n)
	}
}

// A bad flag is a usage error: exit 2, the flag package's message once, no
// mirror created.
func TestCLIBadFlagIsAUsageError(t *testing.T) {
	b := newTokenBank(t, 10, cliToken)
	for _, args := range [][]string{{"sync", "--bogus"}, {"demo", "--transactions", "abc"}, {"webhook", "logs", "--limit", "x", "id"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			env := cliEnv(b, filepath.Join(t.TempDir(), "mirror.db"))
			r := runCLI(t, env, args...)
			wantCode(t, r, 2)
			if n := strings.Count(r.stderr, "invalid value") + strings.Count(r.stderr, "not defined"); n != 1 {
				t.Errorf("flag error shown %d times:\n%s", n, r)
			}
			if _, err := os.Stat(env["BANKMIRROR_DB"]); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("bad flag created the mirror: %v", err)
			}
		})
	}
}

// Flags may follow the webhook id, as the usage text shows them.
func TestCLIWebhookLogsFlagAfterID(t *testing.T) {
	b := newTokenBank(t, 10, cliToken)
	env := cliEnv(b, filepath.Join(t.TempDir(), "mirror.db"))
	wantCode(t, runCLI(t, env, "webhook", "register", "--url", webhookSink(t)), 0)
	id := b.sim.Webhooks()[0].ID
	wantCode(t, runCLI(t, env, "webhook", "ping", id), 0)
	wantCode(t, runCLI(t, env, "webhook", "ping", id), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.sim.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, env, "webhook", "logs", id, "--limit", "1")
	wantCode(t, r, 0)
	if lines := strings.Count(r.stdout, "DELIVERED"); lines != 1 {
		t.Errorf("--limit 1 after the id showed %d entries:\n%s", lines, r)
	}
}

// When creating a webhook fails ambiguously (the bank made it but the
// answer was lost), the command names the orphan so the user can delete it.
func TestCLIWebhookRegisterReportsOrphan(t *testing.T) {
	sim := simulator.New(simulator.Options{Seed: 5, Transactions: 10, Token: cliToken, RateLimit: simulator.RateLimit{Limit: ampleBudget}})
	t.Cleanup(sim.Close)
	h := sim.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/webhooks") {
			h.ServeHTTP(httptest.NewRecorder(), r) // created at the bank...
			http.Error(w, "bad gateway", http.StatusBadGateway)
			return // ...but the answer is lost
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{
		"BANKMIRROR_API_URL": srv.URL + "/api/v1", "BANKMIRROR_TOKEN": cliToken,
		"BANKMIRROR_DB": filepath.Join(t.TempDir(), "m.db"), "BANKMIRROR_REQUESTS_PER_HOUR": "0",
	}
	r := runCLI(t, env, "webhook", "register", "--url", "https://example.org/hook")
	wantCode(t, r, 1)
	hooks := sim.Webhooks()
	if len(hooks) != 1 {
		t.Fatalf("bank has %d webhooks, want the orphan", len(hooks))
	}
	if !strings.Contains(r.stderr, "bankmirror webhook delete "+hooks[0].ID) {
		t.Errorf("orphan %s not reported:\n%s", hooks[0].ID, r)
	}
	noLeak(t, r, cliToken, hooks[0].Secret)
}

func TestCLIStrayArgumentIsAUsageError(t *testing.T) {
	for _, args := range [][]string{{"sync", "--full", "false"}, {"status", "now"}, {"webhook", "list", "all"}} {
		r := runCLI(t, map[string]string{"BANKMIRROR_TOKEN": "t", "BANKMIRROR_DB": filepath.Join(t.TempDir(), "m.db")}, args...)
		wantCode(t, r, 2)
		if !strings.Contains(r.stderr, "takes no arguments") {
			t.Errorf("%v: %s", args, r)
		}
	}
}

// With BANKMIRROR_ATTACHMENTS_DIR set, `sync` also keeps every receipt's
// file: on disk, 0600, and its path in attachments.local_path.
func TestCLISyncKeepsReceipts(t *testing.T) {
	b := newTokenBank(t, 300, cliToken)
	db := filepath.Join(t.TempDir(), "mirror.db")
	env := cliEnv(b, db)
	env["BANKMIRROR_ATTACHMENTS_DIR"] = filepath.Join(t.TempDir(), "receipts")
	id := b.sim.AddTransaction(simulator.NewTransaction{Description: "Hardware store", AmountBaseUnits: -8950, Attachment: "application/pdf"})

	r := runCLI(t, env, "sync")
	wantCode(t, r, 0)
	n := len(b.sim.Snapshot().Attachments)
	if !strings.Contains(r.stdout, fmt.Sprintf("receipts: %d saved, 0 refused", n)) {
		t.Errorf("want %d receipts saved:\n%s", n, r)
	}
	st, err := store.Open(t.Context(), db)
	must(t, err)
	defer st.Close()
	path := mirrortest.Strings(t, st.Reader(), `SELECT a.local_path FROM attachments AS a
		JOIN transactions AS t ON t.attachment_id = a.id WHERE t.id = ?`, id)
	if len(path) != 1 {
		t.Fatalf("the new transaction's receipt: %v", path)
	}
	body, err := os.ReadFile(path[0])
	must(t, err)
	if !bytes.HasPrefix(body, []byte("%PDF-")) {
		t.Errorf("the receipt on disk is not a PDF: %q", body[:min(16, len(body))])
	}
	if got := mirrortest.Int(t, st.Reader(), "SELECT count(*) FROM attachments WHERE local_path IS NOT NULL"); got != n {
		t.Errorf("%d of %d receipts on disk", got, n)
	}

	bad := cliEnv(b, db)
	bad["BANKMIRROR_ATTACHMENTS_MAX_BYTES"] = "0"
	wantCode(t, runCLI(t, bad, "sync"), 2)
}

// status --json names the build that gathered it, beside the status.
func TestCLIStatusJSONNamesTheBuild(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	st, err := store.Open(t.Context(), empty)
	must(t, err)
	must(t, st.Close())
	for _, db := range []string{filepath.Join(dir, "missing.db"), empty} {
		r := runCLI(t, map[string]string{"BANKMIRROR_DB": db}, "status", "--json")
		if r.code == 0 {
			t.Errorf("status of %s: %s", db, r)
		}
		var got struct {
			Level string
			Build buildinfo.Info
		}
		must(t, json.Unmarshal([]byte(r.stdout), &got))
		if got.Level == "" || got.Build != buildinfo.Get() {
			t.Errorf("status --json of %s = %+v, want the level and build %+v", db, got, buildinfo.Get())
		}
	}
}
