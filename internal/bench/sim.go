package bench

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/procinfo"
	"github.com/bankmirror/bankmirror/internal/simulator"
)

// What the benchmark modes share: the simulated bank in a child process
// (so the memory measured is bankmirror's own), its control API, the
// daemon's configuration as a user gets it, and memory readings.

// benchHeadroom makes the simulated bank report ample headroom in
// X-RateLimit-Remaining, as the real bank does early in its hour, so the
// budget logic runs but never has to wait.
var benchHeadroom = []string{"--rate-limit", "1000000", "--rate-bucket", "1h"}

// benchSim is `bankmirror simulator` running as a child process.
type benchSim struct {
	apiURL, token            string
	controlURL, controlToken string
	ynabURL, ynabToken       string // the fake YNAB's, with --ynab
	cmd                      *exec.Cmd
	hc                       *http.Client
}

// startSim starts the simulator with n seeded transactions, ample
// rate-limit headroom and the extra flags given (with --ynab, the fake
// YNAB's URL and token are read too).
func (env Env) startSim(ctx context.Context, n int, extra ...string) (*benchSim, error) {
	args := append([]string{"simulator", "--listen", "127.0.0.1:0", "--transactions", strconv.Itoa(n)}, benchHeadroom...)
	cmd, err := env.Command(ctx, append(args, extra...)...)
	if err != nil {
		return nil, err
	}
	// The daemon's memory limit (GOMEMLIMIT) is not the bank's: the
	// simulator holds every transaction in memory.
	cmd.Env = append(slices.DeleteFunc(cmd.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOMEMLIMIT=") }),
		"BANKMIRROR_LOG_LEVEL=warn")
	s := &benchSim{cmd: cmd, hc: &http.Client{Timeout: 2 * time.Minute}}
	vars := map[string]*string{
		"BANKMIRROR_API_URL=": &s.apiURL, "BANKMIRROR_TOKEN=": &s.token,
		"BANKMIRROR_SIM_CONTROL_URL=": &s.controlURL, "BANKMIRROR_SIM_CONTROL_TOKEN=": &s.controlToken,
	}
	if slices.Contains(extra, "--people") {
		s.token = "-" // a token per person, given by --token
	}
	if slices.Contains(extra, "--ynab") {
		vars["BANKMIRROR_YNAB_URL="], vars["BANKMIRROR_YNAB_TOKEN="] = &s.ynabURL, &s.ynabToken
	}
	if err := startPrinting(cmd, "simulator", vars); err != nil {
		return nil, err
	}
	return s, nil
}

// startPrinting starts cmd, its standard error ours, and reads its
// standard output until a line starting with each prefix of vars has set
// the string it points to (to the rest of the line); those already set are
// not waited for. A child that ends first is an error; what it prints after
// is discarded.
func startPrinting(cmd *exec.Cmd, what string, vars map[string]*string) error {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("start %s: %w", what, err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", what, err)
	}
	unset := func() bool {
		for _, p := range vars {
			if *p == "" {
				return true
			}
		}
		return false
	}
	sc := bufio.NewScanner(out)
	for unset() && sc.Scan() {
		for prefix, p := range vars {
			if v, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				*p = v
			}
		}
	}
	if unset() {
		interruptAndWait(cmd)
		return fmt.Errorf("%s ended without printing where it serves", what)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return nil
}

// interruptAndWait asks a started child to stop (SIGINT) and waits for it,
// killing it after childStopGrace.
func interruptAndWait(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(os.Interrupt)
	t := time.AfterFunc(childStopGrace, func() { _ = cmd.Process.Kill() })
	defer t.Stop()
	_ = cmd.Wait()
}

// childStopGrace is how long a child asked to stop has before it is killed.
const childStopGrace = 30 * time.Second

func (s *benchSim) stop() { interruptAndWait(s.cmd) }

// control calls the simulator's control API: in (if not nil) is sent as
// JSON, the answer decoded into out (if not nil). Any status >= 300 is an
// error.
func (s *benchSim) control(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.controlURL+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.controlToken)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return fmt.Errorf("simulator control %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("simulator control %s %s: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("simulator control %s %s: %d %s", method, path, resp.StatusCode, bytes.TrimSpace(b))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("simulator control %s %s: %w", method, path, err)
		}
	}
	return nil
}

// simTransaction is one of the bank's transactions as the control API
// lists it: exactly as the API renders it.
type simTransaction struct {
	ID         string          `json:"id"`
	Attributes json.RawMessage `json:"attributes"`
	raw        []byte
}

// transactions lists every live transaction of the bank, with its exact
// rendering (the bank's truth).
func (s *benchSim) transactions(ctx context.Context) ([]simTransaction, error) {
	var doc struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := s.control(ctx, http.MethodGet, "/transactions", nil, &doc); err != nil {
		return nil, err
	}
	out := make([]simTransaction, len(doc.Data))
	for i, raw := range doc.Data {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			return nil, fmt.Errorf("simulator transactions: %w", err)
		}
		out[i].raw = raw
	}
	return out, nil
}

// purchase makes a purchase at the bank (on its first account) with the
// description and amount (base units, negative) given, and returns its id.
func (s *benchSim) purchase(ctx context.Context, description string, amountBaseUnits int64) (string, error) {
	var created struct {
		IDs []string `json:"ids"`
	}
	if err := s.control(ctx, http.MethodPost, "/transactions", map[string]any{
		"description": description, "amountBaseUnits": amountBaseUnits}, &created); err != nil {
		return "", err
	}
	if len(created.IDs) == 0 {
		return "", errors.New("the bank made no purchase")
	}
	return created.IDs[0], nil
}

// accounts lists the bank's accounts as the control API describes them.
func (s *benchSim) accounts(ctx context.Context) ([]simulator.Account, error) {
	type money struct {
		CurrencyCode     string `json:"currencyCode"`
		ValueInBaseUnits int64  `json:"valueInBaseUnits"`
	}
	var doc struct {
		Data []struct {
			ID             string    `json:"id"`
			DisplayName    string    `json:"displayName"`
			AccountType    string    `json:"accountType"`
			OwnershipType  string    `json:"ownershipType"`
			Balance        money     `json:"balance"`
			OpeningBalance money     `json:"openingBalance"`
			CreatedAt      time.Time `json:"createdAt"`
		} `json:"data"`
	}
	if err := s.control(ctx, http.MethodGet, "/accounts", nil, &doc); err != nil {
		return nil, err
	}
	out := make([]simulator.Account, len(doc.Data))
	for i, a := range doc.Data {
		out[i] = simulator.Account{ID: a.ID, DisplayName: a.DisplayName, AccountType: a.AccountType, OwnershipType: a.OwnershipType,
			Balance:        simulator.Money{CurrencyCode: a.Balance.CurrencyCode, ValueInBaseUnits: a.Balance.ValueInBaseUnits},
			OpeningBalance: simulator.Money{CurrencyCode: a.OpeningBalance.CurrencyCode, ValueInBaseUnits: a.OpeningBalance.ValueInBaseUnits},
			CreatedAt:      a.CreatedAt}
	}
	return out, nil
}

// requestCounts is the bank's own record of the API requests it served,
// by "METHOD route status".
func (s *benchSim) requestCounts(ctx context.Context) (map[string]int64, error) {
	var doc struct {
		Data []struct {
			Method string `json:"method"`
			Route  string `json:"route"`
			Status int    `json:"status"`
			Count  int64  `json:"count"`
		} `json:"data"`
	}
	if err := s.control(ctx, http.MethodGet, "/requests", nil, &doc); err != nil {
		return nil, err
	}
	m := map[string]int64{}
	for _, c := range doc.Data {
		m[fmt.Sprintf("%s %s %d", c.Method, c.Route, c.Status)] += c.Count
	}
	return m, nil
}

// requestDiff is after minus before, by key, without zero entries, and
// the total.
func requestDiff(before, after map[string]int64) (map[string]int64, int64) {
	d := map[string]int64{}
	var total int64
	for k, v := range after {
		if n := v - before[k]; n != 0 {
			d[k] = n
			total += n
		}
	}
	return d, total
}

// formatCounts prints counts as "k: n, k: n", largest first.
func formatCounts(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return int(m[b] - m[a])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// benchOwnVars are the settings the benchmark itself sets: where the bank
// is, the token, the mirror file, the address and the webhook secret.
var benchOwnVars = []string{"API_URL", "TOKEN", "TOKEN_FILE", "DB", "LISTEN", "ADMIN_LISTEN", "WEBHOOK_SECRET", "WEBHOOK_SECRET_FILE"}

// config is the configuration the daemon gets as a user runs it: the
// defaults of every BANKMIRROR_* variable, any the user set (so one can
// measure a setting), and set, the benchmark's own. It also returns the
// user's settings, to be printed beside the figures.
func (env Env) config(set map[string]string) (config.Config, []string, error) {
	cfg, user, _, err := env.configEnv(set)
	return cfg, user, err
}

// configEnv is config, with the variables it was read from.
func (env Env) configEnv(set map[string]string) (config.Config, []string, map[string]string, error) {
	vars := map[string]string{}
	var user []string
	for k, v := range env.Environ {
		name, ok := strings.CutPrefix(k, config.Prefix)
		if !ok || slices.Contains(benchOwnVars, name) || strings.HasPrefix(name, "SIM_") {
			continue
		}
		vars[k] = v
		if name != "LOG_LEVEL" && name != "LOG_FORMAT" {
			user = append(user, k+"="+v)
		}
	}
	for k, v := range set {
		vars[config.Prefix+k] = v
	}
	slices.Sort(user)
	cfg, err := config.Load(vars)
	return cfg, user, vars, err
}

// daemonClient builds the bank client as the daemon does
// (daemon.BankClient): the request budget as configured.
func daemonClient(cfg config.Config, log zerolog.Logger) *bank.Client {
	return daemon.BankClient(cfg, "", cfg.Token, log, daemon.ClientOptions{})
}

// settingsLine says which settings the daemon ran with.
func settingsLine(user []string) string {
	if len(user) == 0 {
		return "settings: the defaults (no BANKMIRROR_* variable set)"
	}
	return "settings: the defaults except " + strings.Join(user, " ")
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// procMiB reads a memory figure (VmRSS, VmHWM) of this process in MiB; 0
// when it cannot.
func procMiB(field string) float64 {
	mib, _ := procinfo.StatusMiB("/proc/self/status", field)
	return mib
}

// resetPeakRSS returns free memory to the OS and resets VmHWM to the
// current RSS (Linux: clear_refs 5), so the next reading is the peak of
// what runs from now on. It reports whether the reset worked.
func resetPeakRSS() bool {
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// resetPidPeakRSS resets the peak RSS (VmHWM) of the process pid.
func resetPidPeakRSS(pid int) bool {
	return os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0) == nil
}

// copyFile copies src to dst (the benchmark's template mirrors).
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	// On disk before the daemon starts on it: the kernel would otherwise
	// write the copy back 30 s later (vm.dirty_expire_centisecs), in the
	// middle of a later round, where the daemon's fsyncs would queue
	// behind it, as no daemon's do on a mirror it has run on for a while.
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ms is a duration in milliseconds, for tables.
func benchMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// benchPercentile is the p-th percentile of sorted durations.
func benchPercentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := min(int(float64(len(sorted))*p/100), len(sorted)-1)
	return sorted[i]
}

// median of v (not modified); 0 when empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// startCPUProfile writes a CPU profile to path until stop is called; with
// an empty path it does nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
