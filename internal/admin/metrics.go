package admin

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/buildinfo"
	"github.com/bankmirror/bankmirror/internal/health"
)

// Metrics are the daemon's Prometheus metrics, in a registry of their own
// (with the Go runtime's and the process's). Counters move on the hot path
// (an atomic add each); what needs SQL is read at scrape time from the
// health monitor, bounded by its timeout.
type Metrics struct {
	reg *prometheus.Registry

	received prometheus.Counter
	refused  *prometheus.CounterVec
	applied  prometheus.Counter
	syncs    *prometheus.HistogramVec
	bank     *prometheus.CounterVec
	bankOK   prometheus.Counter // the common case, resolved once
	feed     *prometheus.CounterVec
	dash     *prometheus.CounterVec
	// alerts: delivered and given up per channel; waiting per channel.
	alertsSent, alertsFailed *prometheus.CounterVec
	alertsPending            *prometheus.GaugeVec
}

// Sync results, the result label of bankmirror_sync_run_duration_seconds.
const (
	ResultOK          = "ok"
	ResultFailed      = "failed"
	ResultInterrupted = "interrupted"
)

// StateSource is what the scrape-time gauges read.
type StateSource struct {
	// Health returns the monitor's current verdict (facts no older than
	// a second; no new write probe).
	Health func(ctx context.Context) health.Snapshot
	Budget func() bank.BudgetState
	Token  func() bank.TokenState
	// People, if set, is each person's token and budget (a household).
	People func() []health.PersonState
}

// NewMetrics registers every metric; src feeds the scrape-time gauges.
func NewMetrics(src StateSource) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		received: prometheus.NewCounter(prometheus.CounterOpts{Name: "bankmirror_webhook_events_received_total",
			Help: "Webhook events stored in the inbox (a redelivered event counts once)."}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bankmirror_webhook_requests_refused_total",
			Help: "Requests to the webhook endpoint refused, by reason."}, []string{"reason"}),
		applied: prometheus.NewCounter(prometheus.CounterOpts{Name: "bankmirror_webhook_events_applied_total",
			Help: "Webhook events applied to the mirror by the worker."}),
		syncs: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "bankmirror_sync_run_duration_seconds",
			Help:    "Syncs and heals run by the schedule, by kind (incremental, full, heal) and result (ok, failed, interrupted); _count counts runs.",
			Buckets: []float64{0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600}}, []string{"kind", "result"}),
		bank: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bankmirror_bank_requests_total",
			Help: "HTTP requests sent to the bank (retries included), by status code; code=\"error\" is no answer (timeout, connection)."}, []string{"code"}),
	}
	m.feed = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bankmirror_export_requests_refused_total",
		Help: "Requests to the export feed refused before any query, by reason (no_token, wrong_token, throttled, cross_site)."}, []string{"reason"})
	m.dash = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bankmirror_dashboard_requests_refused_total",
		Help: "Tokens given to serve's dashboard that were refused, by reason (wrong_token, throttled, cross_site)."}, []string{"reason"})
	m.alertsSent = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bankmirror_alerts_sent_total",
		Help: "Alerts delivered to their channel (the rules file's [channel.NAME]), by channel."}, []string{"channel"})
	m.alertsFailed = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bankmirror_alerts_failed_total",
		Help: "Alerts given up after their attempts (or refused by the channel), by channel."}, []string{"channel"})
	m.alertsPending = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "bankmirror_alerts_pending",
		Help: "Alerts in the outbox waiting for their channel (retries, quiet hours, rate limit), by channel."}, []string{"channel"})
	m.bankOK = m.bank.WithLabelValues("200")
	b := buildinfo.Get()
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "bankmirror_build_info",
		Help: "Always 1; the labels say which build runs: its version and commit, and the Go and SQLite versions."},
		[]string{"version", "commit", "goversion", "sqlite"})
	build.WithLabelValues(b.Version, b.Commit, b.GoVersion, b.SQLite).Set(1)
	reg.MustRegister(m.received, m.refused, m.applied, m.syncs, m.bank, m.feed, m.dash, build,
		m.alertsSent, m.alertsFailed, m.alertsPending,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		&stateCollector{src: src})
	return m
}

// Registry is where the metrics are registered (for the handler, tests).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Received counts n new events stored in the inbox.
func (m *Metrics) Received(n int) { m.received.Add(float64(n)) }

// Refused counts a request the webhook endpoint refused, by reason
// ("bad signature", "too large", ...): the receiver's refusal hook.
func (m *Metrics) Refused(reason string) { m.refused.WithLabelValues(reason).Inc() }

// ExportRefused returns the export feed's refusal hook, counting requests
// refused by reason; each of reasons is exposed from zero.
func (m *Metrics) ExportRefused(reasons ...string) func(reason string) {
	for _, r := range reasons {
		m.feed.WithLabelValues(r)
	}
	return func(reason string) { m.feed.WithLabelValues(reason).Inc() }
}

// DashboardRefused returns the dashboard's refusal hook, counting refused
// tokens by reason; each of reasons is exposed from zero.
func (m *Metrics) DashboardRefused(reasons ...string) func(reason string) {
	for _, r := range reasons {
		m.dash.WithLabelValues(r)
	}
	return func(reason string) { m.dash.WithLabelValues(reason).Inc() }
}

// AlertSent counts an alert delivered to channel.
func (m *Metrics) AlertSent(channel string) { m.alertsSent.WithLabelValues(channel).Inc() }

// AlertFailed counts an alert given up for channel.
func (m *Metrics) AlertFailed(channel string) { m.alertsFailed.WithLabelValues(channel).Inc() }

// AlertsPending sets how many alerts wait for each channel (the channels
// of the rules file, those with none at 0).
func (m *Metrics) AlertsPending(pending map[string]int) {
	m.alertsPending.Reset()
	for ch, n := range pending {
		m.alertsPending.WithLabelValues(ch).Set(float64(n))
		m.alertsSent.WithLabelValues(ch)
		m.alertsFailed.WithLabelValues(ch)
	}
}

// Applied counts an event applied by the worker.
func (m *Metrics) Applied() { m.applied.Inc() }

// SyncRun records a sync or heal the schedule ran.
func (m *Metrics) SyncRun(kind string, took time.Duration, err error) {
	result := ResultOK
	switch {
	case errors.Is(err, context.Canceled):
		result = ResultInterrupted
	case err != nil:
		result = ResultFailed
	}
	m.syncs.WithLabelValues(kind, result).Observe(took.Seconds())
}

// BankResponse counts one HTTP attempt to the bank by status (0: no
// answer): the bank client's response observer.
func (m *Metrics) BankResponse(status int) {
	switch status {
	case 200:
		m.bankOK.Inc()
	case 0:
		m.bank.WithLabelValues("error").Inc()
	default:
		m.bank.WithLabelValues(strconv.Itoa(status)).Inc()
	}
}

// stateCollector reads the gauges that describe state at scrape time.
type stateCollector struct{ src StateSource }

var (
	descPending = prometheus.NewDesc("bankmirror_webhook_events_pending",
		"Webhook events waiting to be applied (attempts left).", nil, nil)
	descOldest = prometheus.NewDesc("bankmirror_webhook_events_oldest_pending_age_seconds",
		"How long the oldest pending webhook event has waited (0 when none).", nil, nil)
	descStuck = prometheus.NewDesc("bankmirror_webhook_events_stuck",
		"Webhook events that ran out of attempts (bankmirror events stuck).", nil, nil)
	descTransactions = prometheus.NewDesc("bankmirror_transactions",
		"Transactions in the mirror.", nil, nil)
	descLastSync = prometheus.NewDesc("bankmirror_last_successful_sync_timestamp_seconds",
		"When the last successful run of each kind finished (Unix time; a heal is the least recent completed heal of the registered webhooks).", []string{"kind"}, nil)
	descBudget = prometheus.NewDesc("bankmirror_bank_budget_remaining",
		"Requests left in the bank's current rate-limit bucket, as it last reported them (absent until it has).", nil, nil)
	descBudgetWaiting = prometheus.NewDesc("bankmirror_bank_budget_waiting",
		"1 while a request waits for the bank's budget.", nil, nil)
	descTokenRejected = prometheus.NewDesc("bankmirror_token_rejected",
		"1 while the bank rejects the token (syncs and refetches wait for a new one); in a household, every person's token.", nil, nil)
	descCheck = prometheus.NewDesc("bankmirror_health_check_ok",
		"1 when a readiness check passes (database, sync, token, inbox).", []string{"check"}, nil)
	descReady       = prometheus.NewDesc("bankmirror_ready", "1 when /readyz answers 200.", nil, nil)
	descUnreachable = prometheus.NewDesc("bankmirror_bank_unreachable_syncs",
		"Syncs in a row that could not reach the bank (the bank or the network failed); 0 once one succeeds.", nil, nil)
	descPersonToken = prometheus.NewDesc("bankmirror_person_token_ok",
		"1 while the bank accepts the person's token, 0 once it rejected it (revoked or expired: that person's work waits for a new token).", []string{"person"}, nil)
	descPersonBudget = prometheus.NewDesc("bankmirror_person_budget_remaining",
		"Requests left in the person's token's rate-limit bucket, as the bank last reported them (absent until it has).", []string{"person"}, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPending, descOldest, descStuck, descTransactions, descLastSync,
		descBudget, descBudgetWaiting, descTokenRejected, descCheck, descReady, descUnreachable, descPersonToken, descPersonBudget} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	if c.src.Health != nil {
		s := c.src.Health(context.Background())
		f := s.Facts
		gauge(descPending, float64(f.Pending))
		oldest := 0.0
		if !f.OldestPending.IsZero() {
			oldest = max(s.At.Sub(f.OldestPending).Seconds(), 0)
		}
		gauge(descOldest, oldest)
		gauge(descStuck, float64(f.Stuck))
		gauge(descTransactions, float64(s.Transactions))
		for kind, at := range s.LastRuns {
			gauge(descLastSync, float64(at.UnixMilli())/1000, kind)
		}
		for _, chk := range s.Checks {
			if chk.Readiness {
				gauge(descCheck, b2f(chk.Level == health.OK), chk.Name)
			}
		}
		gauge(descReady, b2f(s.Ready))
		gauge(descUnreachable, float64(f.BankOutage.Syncs))
	}
	if c.src.Budget != nil {
		b := c.src.Budget()
		if b.Known {
			gauge(descBudget, float64(b.Remaining))
		}
		gauge(descBudgetWaiting, b2f(b.Waiting))
	}
	var people []health.PersonState
	if c.src.People != nil {
		people = c.src.People()
	}
	if c.src.Token != nil {
		gauge(descTokenRejected, b2f(health.AllRejected(c.src.Token(), people)))
	}
	if c.src.People != nil {
		for _, p := range people {
			gauge(descPersonToken, b2f(!p.Token.Rejected), p.Name)
			if p.Budget.Known {
				gauge(descPersonBudget, float64(p.Budget.Remaining), p.Name)
			}
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
