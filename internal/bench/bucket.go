package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/daemon"
	"github.com/bankmirror/bankmirror/internal/store"
)

// BucketOptions are bench bucket's settings.
type BucketOptions struct {
	Transactions  int           // in the simulated bank (100 a page)
	Limit         int           // requests per token per hourly bucket at the simulated bank
	FirstBucket   time.Duration // the bank's first bucket ends this long after the daemon starts (within the hour)
	PurchaseEvery time.Duration // a live purchase at the bank this often until the start-up sync ends
	Timeout       time.Duration // give up when the mirror is not exact this long after the daemon starts
	Dir           string        // for the mirror; "" makes a temporary one
}

// Bucket measures a first sync that needs more than one of the bank's
// hourly buckets and starts late in the first: the simulated bank (a child
// process) allows Limit requests an hour, in buckets that start where the
// first ends FirstBucket after the daemon starts. The daemon (as serve runs
// it, in this process, default settings, a registered webhook) backfills
// an empty mirror while live purchases arrive at the bank. Reported: when
// the daemon found the bank's second bucket against when it began (the
// same-run floor: a client that knew where buckets begin), the requests of
// each bucket and those sent while it waited, when the start-up sync ended
// and the mirror was exact, and how long live purchases took to reach the
// mirror. A request log in front of the bank (a reverse proxy in this
// process) times every request.
func Bucket(ctx context.Context, env Env, o BucketOptions) error {
	rlog, err := env.startBankLog(ctx)
	if err != nil {
		return err
	}
	defer rlog.stop()
	// No limit until the daemon starts: the webhook registered before it
	// counts in no bucket. The bank's links (and its truth) name the log.
	proxyURL := rlog.url + "/api/v1"
	sim, done, err := env.setup(ctx, &o.Dir, o.Transactions, "--rate-limit", "0", "--webhook-retry", "1s,10s,20", "--public-url", proxyURL)
	if err != nil {
		return err
	}
	defer done()
	if err := rlog.setTarget(sim.apiURL); err != nil {
		return err
	}
	listen, admin, err := freeAddrs()
	if err != nil {
		return err
	}
	db := filepath.Join(o.Dir, "bucket.db")
	cfg, user, err := env.config(map[string]string{"API_URL": proxyURL, "TOKEN": sim.token, "DB": db,
		"LISTEN": listen, "ADMIN_LISTEN": admin})
	if err != nil {
		return err
	}
	w := env.Stdout
	fmt.Fprintf(w, "bench bucket: bankmirror serve (in this process) backfills an empty mirror from a simulated bank of %d transactions (child process) "+
		"allowing %d requests an hour, in hourly buckets the first of which ends %s after the daemon starts; a live purchase every %s meanwhile\n",
		o.Transactions, o.Limit, o.FirstBucket, o.PurchaseEvery)
	fmt.Fprintln(w, settingsLine(user))
	fmt.Fprintf(w, "repeat: bankmirror bench bucket --transactions %d --limit %d --first-bucket %s --purchase-every %s\n", o.Transactions, o.Limit, o.FirstBucket, o.PurchaseEvery)

	if err := benchRegisterWebhook(ctx, sim, db, "http://"+listen+cfg.WebhookPath); err != nil {
		return err
	}

	var mu sync.Mutex
	applied := map[string]time.Time{} // transaction id -> first applied
	onApplied := func(e store.InboxEvent, _ store.Change) {
		mu.Lock()
		if _, ok := applied[e.TransactionID]; !ok {
			applied[e.TransactionID] = time.Now()
		}
		mu.Unlock()
	}

	start := time.Now()
	ends := start.Add(o.FirstBucket)
	offset := time.Duration(ends.UnixNano() % int64(time.Hour))
	if err := sim.control(ctx, http.MethodPut, "/rate-limit", map[string]any{"limit": o.Limit, "bucket": "1h", "offset": offset.String()}, nil); err != nil {
		return err
	}
	d := daemon.New(cfg, env.Log)
	d.OnEventApplied = onApplied
	if err := openDaemon(ctx, d); err != nil {
		return err
	}
	defer d.Close()

	// Live purchases until the start-up sync is over.
	type purchase struct {
		id      string
		created time.Time
		waiting bool // the backfill was waiting for the bank's budget
	}
	var purchases []purchase
	deadline := start.Add(o.Timeout)
	tick := time.NewTicker(o.PurchaseEvery)
	syncOver := false
	for !syncOver {
		select {
		case <-ctx.Done():
			tick.Stop()
			return ctx.Err()
		case <-d.InitialSyncDone:
			syncOver = true
		case <-tick.C:
			if time.Now().After(deadline) {
				syncOver = true
				break
			}
			waiting := d.Bank.Budget().Waiting
			var out struct {
				IDs []string `json:"ids"`
			}
			in := map[string]any{"description": fmt.Sprintf("Live purchase %d", len(purchases)+1), "amountBaseUnits": -1250, "held": true}
			if err := sim.control(ctx, http.MethodPost, "/transactions", in, &out); err != nil {
				tick.Stop()
				return err
			}
			for _, id := range out.IDs {
				purchases = append(purchases, purchase{id: id, created: time.Now(), waiting: waiting})
			}
		}
	}
	tick.Stop()
	syncDone := time.Now()
	initialDone := false
	select {
	case <-d.InitialSyncDone:
		initialDone = true
	default:
	}

	// Poll the mirror against the bank's truth.
	var diff string
	exactAt := time.Time{}
	for {
		if diff, err = mirrorDiff(ctx, sim, d.Store.Reader()); err != nil {
			return err
		}
		if diff == "" {
			exactAt = time.Now()
			break
		}
		if time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}

	// The mirror may be exact before the worker has applied the last
	// purchases' events (a sync listed them first): wait for those too.
	for !time.Now().After(deadline) {
		mu.Lock()
		pending := 0
		for _, p := range purchases {
			if _, ok := applied[p.id]; !ok {
				pending++
			}
		}
		mu.Unlock()
		if pending == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}

	reqs := rlog.snapshot()
	if len(reqs) == 0 {
		return fmt.Errorf("the daemon sent the bank no request")
	}
	t0 := reqs[0].at
	rel := func(t time.Time) string { return fmt.Sprintf("%.1fs", t.Sub(t0).Seconds()) }
	var b1, b2, limited int
	for _, r := range reqs {
		if r.at.Before(ends) {
			b1++
		} else {
			b2++
		}
		if r.status == http.StatusTooManyRequests {
			limited++
		}
	}
	fmt.Fprintf(w, "first request %.0f ms after the daemon started; its first bucket ended %s after the first request\n",
		benchMs(t0.Sub(start)), ends.Sub(t0).Round(100*time.Millisecond))
	// The wait: from the last answer at or below the reserve before the
	// bucket ended to the first answer of the next bucket.
	var waitFrom time.Time
	var found *loggedRequest
	var during []string
	for i := range reqs {
		r := &reqs[i]
		rem, ok := r.remaining()
		switch {
		case r.at.Before(ends) && ok && rem <= cfg.BudgetReserve && waitFrom.IsZero():
			waitFrom = r.at
		case !r.at.Before(ends) && ok && rem > cfg.BudgetReserve:
			found = r
		}
		if found != nil {
			break
		}
		if !waitFrom.IsZero() && r.at.After(waitFrom) {
			during = append(during, fmt.Sprintf("%s %s %s %d (remaining %s)", rel(r.at), r.method, benchRoute(r.path), r.status, r.remainingHeader))
		}
	}
	foundText := "the second bucket was never found"
	if found != nil {
		foundText = fmt.Sprintf("found at %s, %.1f s after it began (the floor: a client knowing where buckets begin finds it at once)",
			rel(found.at), found.at.Sub(ends).Seconds())
	}
	if !waitFrom.IsZero() {
		fmt.Fprintf(w, "reserve (%d) reached at %s; second bucket began at %s, %s\n", cfg.BudgetReserve, rel(waitFrom), rel(ends), foundText)
	} else {
		fmt.Fprintf(w, "the reserve was not reached in the first bucket; second bucket began at %s\n", rel(ends))
	}
	if len(during) > 0 {
		fmt.Fprintf(w, "requests while the backfill waited (%d): %s\n", len(during), strings.Join(during, "; "))
	}

	// Live purchases: creation to applied.
	mu.Lock()
	var lat, latWaiting []time.Duration
	missing := 0
	for _, p := range purchases {
		at, ok := applied[p.id]
		if !ok {
			missing++
			continue
		}
		lat = append(lat, at.Sub(p.created))
		if p.waiting {
			latWaiting = append(latWaiting, at.Sub(p.created))
		}
	}
	mu.Unlock()
	slices.Sort(lat)
	slices.Sort(latWaiting)
	live := "none made"
	if len(lat) > 0 {
		live = fmt.Sprintf("%d: p50 %.0f ms, max %.0f ms", len(lat), benchMs(benchPercentile(lat, 50)), benchMs(lat[len(lat)-1]))
		if len(latWaiting) > 0 {
			live += fmt.Sprintf(" (%d while the backfill waited: p50 %.0f ms, max %.0f ms)", len(latWaiting),
				benchMs(benchPercentile(latWaiting, 50)), benchMs(latWaiting[len(latWaiting)-1]))
		}
	}
	if missing > 0 {
		live += fmt.Sprintf("; %d NOT applied", missing)
	}
	syncText := rel(syncDone)
	if !initialDone {
		syncText = fmt.Sprintf("NOT over after %s", o.Timeout)
	}
	exact := fmt.Sprintf("%s (%.1f min)", rel(exactAt), exactAt.Sub(t0).Minutes())
	if exactAt.IsZero() {
		exact = fmt.Sprintf("NOT exact after %s: %s", o.Timeout, diff)
	}
	fmt.Fprintf(w, "\n| transactions | requests (first bucket + second) | 429 | second bucket found after it began | start-up sync over | exact mirror | target | live purchases, created to applied | target |\n|---|---|---|---|---|---|---|---|---|\n")
	foundAfter := "never"
	if waitFrom.IsZero() {
		foundAfter = "not needed"
	}
	if found != nil {
		foundAfter = fmt.Sprintf("%.1f s", found.at.Sub(ends).Seconds())
	}
	fmt.Fprintf(w, "| %d | %d (%d + %d) | %d | %s | %s | %s | <= 7 min | %s | <= 10 s |\n\n", o.Transactions, len(reqs), b1, b2, limited, foundAfter, syncText, exact, live)
	fmt.Fprintln(w, "times are from the daemon's first request, as the request log in front of the bank saw it")
	return nil
}

// benchRegisterWebhook registers a webhook for url at the bank and stores
// it (with its secret) in the mirror at db, as `webhook register` does
// before the daemon starts.
func benchRegisterWebhook(ctx context.Context, sim *benchSim, db, url string) error {
	st, err := store.Open(ctx, db)
	if err != nil {
		return err
	}
	defer st.Close()
	hook, err := bank.New(sim.apiURL, sim.token).CreateWebhook(ctx, url, nil)
	if err != nil {
		return fmt.Errorf("register the webhook: %w", err)
	}
	return st.SaveWebhook(ctx, store.Webhook{ID: hook.ID, URL: hook.URL, SecretKey: hook.SecretKey, CreatedAt: hook.CreatedAt})
}

// benchRoute shortens a request path for the report: ids become {id}.
func benchRoute(path string) string {
	parts := strings.Split(strings.TrimPrefix(path, "/api/v1"), "/")
	for i, p := range parts {
		if len(p) >= 20 {
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}

// loggedRequest is one request the daemon sent the bank.
type loggedRequest struct {
	at              time.Time
	method, path    string
	status          int
	remainingHeader string
}

func (r *loggedRequest) remaining() (int, bool) {
	v, err := strconv.Atoi(r.remainingHeader)
	return v, err == nil
}

// bankLog is a reverse proxy in front of the bank that logs each request:
// its arrival, status and X-RateLimit-Remaining.
type bankLog struct {
	url    string // where it listens
	target atomic.Pointer[url.URL]
	stop   func()

	mu   sync.Mutex
	reqs []loggedRequest
}

func (l *bankLog) snapshot() []loggedRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reqs)
}

// setTarget sets the API the log forwards to.
func (l *bankLog) setTarget(apiURL string) error {
	u, err := url.Parse(apiURL)
	if err != nil {
		return fmt.Errorf("bank url: %w", err)
	}
	l.target.Store(u)
	return nil
}

// statusWriter remembers the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// startBankLog starts the request log on a loopback port; it forwards once
// setTarget names the bank (502 before).
func (env Env) startBankLog(ctx context.Context) (*bankLog, error) {
	l := &bankLog{}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		t := l.target.Load()
		r.Out.URL.Scheme, r.Out.URL.Host = t.Scheme, t.Host
	}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l.target.Load() == nil {
			http.Error(w, "no bank yet", http.StatusBadGateway)
			return
		}
		at := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		proxy.ServeHTTP(sw, r)
		l.mu.Lock()
		l.reqs = append(l.reqs, loggedRequest{at: at, method: r.Method, path: r.URL.Path, status: sw.status,
			remainingHeader: sw.Header().Get(bank.RemainingHeader)})
		l.mu.Unlock()
	})
	u, stop, err := serve(ctx, "127.0.0.1:0", h)
	if err != nil {
		return nil, err
	}
	l.url, l.stop = u, stop
	return l, nil
}
