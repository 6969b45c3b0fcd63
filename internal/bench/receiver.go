package bench

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	json "github.com/goccy/go-json"
	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/config"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/simulator"
	"github.com/bankmirror/bankmirror/internal/store"
)

// ReceiverOptions are bench receiver's settings.
type ReceiverOptions struct {
	Transactions int           // in the simulated bank (the events reference them)
	Events       int           // signed events sent per round
	Rounds       int           // of (bare, daemon), alternated, per concurrency
	Concurrency  []int         // levels of concurrent senders
	CatchUp      time.Duration // to wait after the last acknowledgement for the worker to apply every event
	Dir          string        // for the databases; "" makes a temporary one
	CPUProfile   string        // file of a CPU profile of the rounds (this process), or ""
	MemLimit     string        // GOMEMLIMIT of the daemon ("off": none)
}

// Receiver measures how many webhook deliveries per second the daemon
// acknowledges (`bankmirror serve` in a child process, default settings,
// its worker refetching and applying every event from the simulated bank
// in another), beside a bare handler that only checks the signature and
// answers 200, in a child process of its own too (`bankmirror bench bare`),
// served by the daemon's HTTP server. Rounds alternate bare and daemon at each
// concurrency; each daemon round starts from a copy of the same synced
// mirror. After the last acknowledgement it waits until the worker has
// applied every event: acknowledging fast is no use if the inbox only
// grows.
func Receiver(ctx context.Context, env Env, o ReceiverOptions) error {
	levels := make([]string, len(o.Concurrency))
	for i, c := range o.Concurrency {
		levels[i] = strconv.Itoa(c)
	}
	stopProfile, err := startCPUProfile(o.CPUProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	sim, done, err := env.setup(ctx, &o.Dir, o.Transactions)
	if err != nil {
		return err
	}
	defer done()
	listen, admin, err := freeAddrs()
	if err != nil {
		return err
	}
	secret := randomHex(32)
	set := map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token, "LISTEN": "127.0.0.1:0", "ADMIN_LISTEN": "127.0.0.1:0", "WEBHOOK_SECRET": secret}
	cfg, user, err := env.config(set)
	if err != nil {
		return err
	}
	w := env.Stdout
	fmt.Fprintf(w, "bench receiver: %d signed events per round over %d simulated transactions, %d rounds at concurrency %s\n",
		o.Events, o.Transactions, o.Rounds, strings.Join(levels, ","))
	fmt.Fprintln(w, settingsLine(user))
	fmt.Fprintf(w, "repeat: bankmirror bench receiver --transactions %d --events %d --rounds %d --concurrency %s\n", o.Transactions, o.Events, o.Rounds, strings.Join(levels, ","))

	// The mirror every daemon round starts from: a completed full sync,
	// as a running daemon has.
	template := filepath.Join(o.Dir, "template.db")
	if err := syncTemplate(ctx, env.Log, cfg, template); err != nil {
		return err
	}
	txs, err := sim.transactions(ctx)
	if err != nil {
		return err
	}
	load, distinct, err := benchEvents(txs, o.Events, sim.apiURL, secret)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "events: TRANSACTION_CREATED and TRANSACTION_SETTLED of %d distinct existing transactions, signed with BANKMIRROR_WEBHOOK_SECRET\n", distinct)

	bare, err := env.startBare(ctx, cfg.WebhookPath, secret)
	if err != nil {
		return err
	}
	defer bare.stop()

	type row struct {
		bare, daemon, ratio []float64
		p50, p99            []float64
		catchUp             []time.Duration
		behind              []string
		peak, barePeak      float64
		loadPeak            float64
		anon, file          []float64
	}
	rows := make([]row, len(o.Concurrency))
	for ci, c := range o.Concurrency {
		r := &rows[ci]
		for round := 1; round <= o.Rounds; round++ {
			resetPidPeakRSS(bare.pid())
			b, err := driveWebhooks(ctx, bare.url, cfg.WebhookPath, load, c)
			if err != nil {
				return fmt.Errorf("bare handler: %w", err)
			}
			r.barePeak = max(r.barePeak, pidMiB(bare.pid(), "VmHWM"))
			db := filepath.Join(o.Dir, fmt.Sprintf("receiver-c%d-%d.db", c, round))
			if err := copyFile(db, template); err != nil {
				return err
			}
			vars := benchChildEnv(env.Environ, user, map[string]string{"API_URL": sim.apiURL, "TOKEN": sim.token, "DB": db,
				"LISTEN": listen, "ADMIN_LISTEN": admin, "WEBHOOK_SECRET": secret, "LOG_LEVEL": "warn"}, o.MemLimit)
			d, err := env.daemonRound(ctx, vars, db, listen, cfg.WebhookPath, load, c, o.CatchUp)
			removeDB(db)
			if err != nil {
				return err
			}
			r.bare, r.daemon, r.ratio = append(r.bare, b.rate()), append(r.daemon, d.rate()), append(r.ratio, d.rate()/b.rate())
			r.p50, r.p99 = append(r.p50, benchMs(d.pct(50))), append(r.p99, benchMs(d.pct(99)))
			r.peak = max(r.peak, d.peak)
			r.loadPeak = max(r.loadPeak, d.loadPeak)
			r.anon, r.file = append(r.anon, d.anon), append(r.file, d.file)
			caught := fmt.Sprintf("all applied %.0f ms after the last ack", benchMs(d.catchUp))
			if d.pending > 0 {
				caught = fmt.Sprintf("%d of %d NOT applied %s after the last ack", d.pending, d.stored, o.CatchUp)
				r.behind = append(r.behind, fmt.Sprintf("%d/%d", d.pending, d.stored))
			} else {
				r.catchUp = append(r.catchUp, d.catchUp)
			}
			fmt.Fprintf(w, "c=%d round %d: bare %.0f acks/s (p50 %.2f ms, p99 %.2f ms); daemon %.0f acks/s (p50 %.2f ms, p99 %.2f ms), %.2fx; %s; %s; peak RSS %.1f MiB (start-up %.1f, load %.1f; at the end %.1f anonymous + %.1f file)\n",
				c, round, b.rate(), benchMs(b.pct(50)), benchMs(b.pct(99)), d.rate(), benchMs(d.pct(50)), benchMs(d.pct(99)),
				d.rate()/b.rate(), d.refused(), caught, d.peak, d.startPeak, d.loadPeak, d.anon, d.file)
		}
	}
	fmt.Fprintf(w, "\n| concurrency | bare acks/s | daemon acks/s | ratio | daemon p50 | daemon p99 | worker done after last ack | peak RSS (bare) | peak RSS under load | RSS at the end: anonymous + file |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for ci, c := range o.Concurrency {
		r := rows[ci]
		done := "-"
		if len(r.catchUp) > 0 {
			ds := make([]float64, len(r.catchUp))
			for i, d := range r.catchUp {
				ds[i] = benchMs(d)
			}
			done = fmt.Sprintf("%.0f ms", median(ds))
		}
		if len(r.behind) > 0 {
			done += fmt.Sprintf(" (%d of %d rounds NOT caught up after %s: %s pending)", len(r.behind), o.Rounds, o.CatchUp, strings.Join(r.behind, ", "))
		}
		fmt.Fprintf(w, "| %d | %.0f/s | %.0f/s | %.2fx | %.2f ms | %.2f ms | %s | %.0f MiB (%.0f MiB) | %.1f MiB | %.1f + %.1f MiB |\n",
			c, median(r.bare), median(r.daemon), median(r.ratio), median(r.p50), median(r.p99), done, r.peak, r.barePeak,
			r.loadPeak, median(r.anon), median(r.file))
	}
	fmt.Fprintf(w, "\nmedians of %d rounds; peak RSS is the daemon's own (bankmirror serve in a child process, GOMEMLIMIT=%s, VmHWM), over the round and from the first delivery on (the maxima of the rounds); in brackets the bare handler's own (bankmirror bench bare in a child process, no GOMEMLIMIT); RSS at the end (medians) is RssAnon + RssFile 2 s after the worker applied every event\n", o.Rounds, o.MemLimit)
	return nil
}

// syncTemplate writes a mirror of the whole simulated bank to path, with
// a client built as the daemon builds it.
func syncTemplate(ctx context.Context, log zerolog.Logger, cfg config.Config, path string) error {
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	client := daemonClient(cfg, log)
	if _, err := replica.New(client, st, log, replica.Options{}).Full(ctx); err != nil {
		st.Close()
		return fmt.Errorf("sync the starting mirror: %w", err)
	}
	return st.Close()
}

// webhookLoad is a set of signed deliveries.
type webhookLoad struct {
	bodies [][]byte
	sigs   []string
}

// benchEvents makes n signed events, rendered as the bank renders a
// WebhookEventResource (see the simulator's webhooks.go), each with its
// own id: TRANSACTION_CREATED of a random transaction, or
// TRANSACTION_SETTLED when it is settled. It returns how many distinct
// transactions they reference.
func benchEvents(txs []simTransaction, n int, apiURL, secret string) (webhookLoad, int, error) {
	if len(txs) == 0 {
		return webhookLoad{}, 0, fmt.Errorf("the simulated bank has no transactions")
	}
	rng := mrand.New(mrand.NewPCG(1, 2))
	hookID := benchUUID(rng)
	now := time.Now().Format(time.RFC3339)
	load := webhookLoad{bodies: make([][]byte, n), sigs: make([]string, n)}
	seen := map[string]bool{}
	for i := range n {
		t := txs[rng.IntN(len(txs))]
		var attrs struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal(t.Attributes, &attrs); err != nil {
			return webhookLoad{}, 0, err
		}
		typ := "TRANSACTION_CREATED"
		if attrs.Status == "SETTLED" && rng.IntN(2) == 0 {
			typ = "TRANSACTION_SETTLED"
		}
		seen[t.ID] = true
		load.bodies[i] = webhookEventBody(apiURL, benchUUID(rng), typ, now, hookID, t.ID)
		load.sigs[i] = simulator.Sign(secret, load.bodies[i])
	}
	return load, len(seen), nil
}

// webhookEventBody renders {"data": WebhookEventResource} for a
// transaction event, as the bank sends it.
func webhookEventBody(apiURL, id, typ, createdAt, hookID, txID string) []byte {
	q := strconv.Quote
	var b strings.Builder
	b.WriteString(`{"data":{"type":"webhook-events","id":` + q(id) + `,"attributes":{"eventType":` + q(typ) +
		`,"createdAt":` + q(createdAt) + `},"relationships":{"webhook":{"data":{"type":"webhooks","id":` + q(hookID) +
		`},"links":{"related":` + q(apiURL+"/webhooks/"+hookID) + `}},"transaction":{"data":{"type":"transactions","id":` + q(txID) + `}`)
	if typ != "TRANSACTION_DELETED" {
		b.WriteString(`,"links":{"related":` + q(apiURL+"/transactions/"+txID) + `}`)
	}
	b.WriteString(`}}}}`)
	return []byte(b.String())
}

// benchUUID is a version-4 UUID from rng.
func benchUUID(rng *mrand.Rand) string {
	var u [16]byte
	for i := range u {
		u[i] = byte(rng.Uint32()) //nolint:gosec // random bytes: truncation intended
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// loadResult is one round of deliveries.
type loadResult struct {
	acked    int
	statuses map[int]int // answers other than 200
	elapsed  time.Duration
	end      time.Time       // when the last answer arrived
	lat      []time.Duration // sorted, of the 200s
}

func (r loadResult) rate() float64 { return float64(r.acked) / r.elapsed.Seconds() }

func (r loadResult) pct(p float64) time.Duration { return benchPercentile(r.lat, p) }

// refused describes answers other than 200.
func (r loadResult) refused() string {
	if len(r.statuses) == 0 {
		return "every delivery acknowledged"
	}
	var parts []string
	for s, n := range r.statuses {
		parts = append(parts, fmt.Sprintf("%d x %d", n, s))
	}
	slices.Sort(parts)
	return "NOT acknowledged: " + strings.Join(parts, ", ")
}

// driveWebhooks POSTs every delivery of load to url from c senders over
// keep-alive connections (each opened by its sender's first request, for
// the bare handler and the daemon alike: a refused warm-up request would
// close its connection now).
func driveWebhooks(ctx context.Context, baseURL, path string, load webhookLoad, c int) (loadResult, error) {
	tr := &http.Transport{MaxIdleConns: 2 * c, MaxIdleConnsPerHost: 2 * c, MaxConnsPerHost: c}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: time.Minute}
	url := baseURL + path
	var wg sync.WaitGroup

	n := len(load.bodies)
	lat := make([]time.Duration, n)
	status := make([]int, n)
	var next atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var last atomic.Int64
	start := time.Now()
	for range c {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(load.bodies[i]))
				if err == nil {
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set(simulator.SignatureHeader, load.sigs[i])
					t0 := time.Now()
					var resp *http.Response
					if resp, err = hc.Do(req); err == nil {
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						now := time.Now()
						lat[i], status[i] = now.Sub(t0), resp.StatusCode
						last.Store(now.UnixNano())
					}
				}
				if err != nil {
					mu.Lock()
					firstErr = cmpOr(firstErr, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return loadResult{}, firstErr
	}
	res := loadResult{statuses: map[int]int{}, end: time.Unix(0, last.Load())}
	res.elapsed = res.end.Sub(start)
	for i, s := range status {
		if s == http.StatusOK {
			res.acked++
			res.lat = append(res.lat, lat[i])
		} else {
			res.statuses[s]++
		}
	}
	if len(res.statuses) == 0 {
		res.statuses = nil
	}
	slices.Sort(res.lat)
	return res, nil
}

// cmpOr is the first non-nil error.
func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// daemonResult is one daemon round: its deliveries, then its worker.
type daemonResult struct {
	loadResult
	stored, pending int           // events in the inbox, and not yet applied at the end
	catchUp         time.Duration // last acknowledgement -> every event applied
	peak            float64       // VmHWM during the round, MiB
	startPeak       float64       // VmHWM from the daemon's start to the end of its start-up sync, MiB
	loadPeak        float64       // VmHWM from the first delivery on, MiB
	anon, file      float64       // RSS settle after the end: anonymous, and file pages (the binary's, shared libraries), MiB
}

// settle is how long after the worker caught up the daemon's RSS is read.
const settle = 2 * time.Second

// daemonRound runs `bankmirror serve` in a child process, with vars (the
// defaults, the bench's settings and the unit's GOMEMLIMIT) on the mirror
// at db, waits for its start-up sync, sends load to its webhook and waits
// up to catchUp after the last acknowledgement for its worker to have
// applied every stored event. In a child process, the daemon's memory
// limit and peak RSS are its own, not shared with the load generator.
func (env Env) daemonRound(ctx context.Context, vars []string, db, listen, path string, load webhookLoad, c int, catchUp time.Duration) (daemonResult, error) {
	ro, err := store.OpenReadOnlyDB(ctx, db)
	if err != nil {
		return daemonResult{}, err
	}
	defer ro.Close()
	var before int
	if err := ro.QueryRowContext(ctx, "SELECT count(*) FROM sync_runs WHERE status = ?", store.RunOK).Scan(&before); err != nil {
		return daemonResult{}, fmt.Errorf("read sync runs: %w", err)
	}
	child, err := env.startServeChild(ctx, vars)
	if err != nil {
		return daemonResult{}, err
	}
	defer child.stop()
	// The start-up sync (incremental) finishes before the load starts.
	if err := waitStartupSync(ctx, ro, child, before); err != nil {
		return daemonResult{}, err
	}
	// The peak of the start-up, then that of the load alone.
	startPeak := pidMiB(child.pid(), "VmHWM")
	resetPidPeakRSS(child.pid())
	res, err := driveWebhooks(ctx, "http://"+listen, path, load, c)
	if err != nil {
		return daemonResult{}, fmt.Errorf("daemon: %w", err)
	}
	d := daemonResult{loadResult: res, startPeak: startPeak}
	deadline := res.end.Add(catchUp)
	for {
		// The inbox is the schema's public interface: an event is applied
		// once processed_at is set, the time the worker applied it.
		var last sql.NullString
		err := ro.QueryRowContext(ctx,
			"SELECT count(*), count(*) FILTER (WHERE processed_at IS NULL), max(processed_at) FROM webhook_events").
			Scan(&d.stored, &d.pending, &last)
		now := time.Now()
		if err != nil {
			return d, fmt.Errorf("read the inbox: %w", err)
		}
		if d.pending == 0 {
			at := now
			if t, err := time.Parse(store.TimeLayout, last.String); err == nil && t.Before(now) {
				at = t
			}
			d.catchUp = max(at.Sub(res.end), 0)
			break
		}
		if now.After(deadline) || child.exited() {
			break
		}
		select {
		case <-ctx.Done():
			return d, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	d.loadPeak = pidMiB(child.pid(), "VmHWM")
	d.peak = max(d.startPeak, d.loadPeak)
	// Steady state: the daemon idle again after the burst.
	select {
	case <-ctx.Done():
		return d, ctx.Err()
	case <-time.After(settle):
	}
	d.anon, d.file = pidMiB(child.pid(), "RssAnon"), pidMiB(child.pid(), "RssFile")
	if d.stored != res.acked {
		return d, fmt.Errorf("daemon: %d events acknowledged but %d in the inbox", res.acked, d.stored)
	}
	return d, nil
}
