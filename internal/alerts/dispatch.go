package alerts

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// Outbox is what the dispatcher needs of the store (*store.Store).
type Outbox interface {
	EnqueueAlerts(ctx context.Context, alerts []store.Alert) (int, error)
	DueAlerts(ctx context.Context, now time.Time, limit int) ([]store.Alert, error)
	AlertSent(ctx context.Context, id int64) error
	AlertFailed(ctx context.Context, id int64, cause string, retryAt time.Time) error
	DeferAlert(ctx context.Context, id int64, until time.Time) error
	AlertCountsByChannel(ctx context.Context) ([]store.AlertCounts, error)
	NextAlertDue(ctx context.Context) (string, bool, error)
}

var _ Outbox = (*store.Store)(nil)

// Delivery limits.
const (
	// MaxAttempts is how many times an alert is tried before it is given
	// up (failed_at).
	MaxAttempts = 10
	dueBatch    = 50
	// maxMessage and maxTitle bound what a channel is sent of a message.
	maxMessage = 1000
	maxTitle   = 200
)

// Counter counts deliveries per channel (the admin listener's metrics).
type Counter interface {
	AlertSent(channel string)
	AlertFailed(channel string)
	AlertsPending(pending map[string]int)
}

// Dispatcher sends the outbox's alerts to their channels.
type Dispatcher struct {
	outbox  Outbox
	log     zerolog.Logger
	now     func() time.Time
	counter Counter

	config atomic.Pointer[config]
	wake   chan struct{}
	mu     sync.Mutex // guards buckets and reserved
	// buckets holds each channel's rate limit: when its next message may
	// go, paced at the channel's per-hour rate after a burst.
	buckets map[string]*bucket
	// reserved are the alerts deferred for their channel's rate limit,
	// each holding the token it goes with when due: a backlog is deferred
	// once, each alert to its own turn, not all again at every turn.
	reserved map[int64]bool
}

// config is a rules file's channels and alert settings, opened.
type config struct {
	senders  map[string]Sender
	perHour  map[string]int
	settings rules.AlertSettings
}

// NewDispatcher returns a dispatcher with no channels; Configure gives it
// the rules file's.
func NewDispatcher(o Outbox, counter Counter, log zerolog.Logger) *Dispatcher {
	d := &Dispatcher{outbox: o, counter: counter, now: time.Now, wake: make(chan struct{}, 1), buckets: map[string]*bucket{}, reserved: map[int64]bool{},
		log: log.With().Str(logfield.Component, "alerts").Logger()}
	d.config.Store(&config{senders: map[string]Sender{}})
	return d
}

// Configure opens the channels of set; on any error nothing changes.
func (d *Dispatcher) Configure(set *rules.Set, client *http.Client) error {
	c := &config{senders: map[string]Sender{}, perHour: map[string]int{}, settings: set.AlertSettings}
	for name, ch := range set.Channels {
		s, err := Open(ch, client)
		if err != nil {
			return err
		}
		c.senders[name] = s
		c.perHour[name] = ch.PerHour
	}
	d.config.Store(c)
	d.Wake()
	return nil
}

// Settings are the rules file's [alerts] settings in use.
func (d *Dispatcher) Settings() rules.AlertSettings { return d.config.Load().settings }

// Wake makes the dispatcher look at the outbox now.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Enqueue puts m in the outbox once for each channel (a key already there
// for a channel is not queued again) and wakes the dispatcher.
func (d *Dispatcher) Enqueue(ctx context.Context, m Message, channels []string) error {
	if len(channels) == 0 {
		return nil
	}
	if m.CreatedAt == "" {
		m.CreatedAt = d.now().UTC().Format(time.RFC3339)
	}
	// A title and a message are one line each, whatever the bank's text
	// holds (an email's Subject, a line of its body, a notification's
	// heading): what is hidden in it is shown as ⟨U+XXXX⟩.
	m.Title = textsafe.Cut(m.Title, maxTitle)
	m.Message = textsafe.Cut(m.Message, maxMessage)
	payload, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode alert: %w", err)
	}
	alerts := make([]store.Alert, 0, len(channels))
	for _, c := range channels {
		alerts = append(alerts, store.Alert{Key: m.Key, Channel: c, Kind: m.Kind, Title: m.Title, Message: m.Message, Payload: string(payload)})
	}
	if _, err := d.outbox.EnqueueAlerts(ctx, alerts); err != nil {
		return err
	}
	d.Wake()
	return nil
}

// Run sends alerts as they fall due until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		next, err := d.Round(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			d.log.Warn().Err(err).Msg("alerts round failed")
			next = d.now().Add(time.Minute)
		}
		t.Reset(max(next.Sub(d.now()), 100*time.Millisecond))
		select {
		case <-ctx.Done():
			return nil
		case <-d.wake:
		case <-t.C:
		}
	}
}

// Round sends what is due and says when to look again.
func (d *Dispatcher) Round(ctx context.Context) (time.Time, error) {
	now := d.now()
	next := now.Add(time.Minute)
	due, err := d.outbox.DueAlerts(ctx, now, dueBatch)
	if err != nil {
		return next, err
	}
	c := d.config.Load()
	// What is to be sent now, per channel: each channel's alerts go in
	// order, the channels side by side, so that one that never answers
	// holds up only its own.
	sends := map[string][]store.Alert{}
	for _, a := range due {
		if until, quiet := c.settings.QuietUntil(now); quiet && a.Kind != KindTest {
			d.release(a.Channel, a.ID)
			if err := d.outbox.DeferAlert(ctx, a.ID, until); err != nil {
				return next, err
			}
			continue
		}
		if _, ok := c.senders[a.Channel]; !ok {
			d.release(a.Channel, a.ID)
			if err := d.outbox.AlertFailed(ctx, a.ID, fmt.Sprintf("no channel %q in the rules file", a.Channel), time.Time{}); err != nil {
				return next, err
			}
			d.count(a.Channel, false)
			continue
		}
		if wait := d.take(a.Channel, a.ID, c.perHour[a.Channel], now); wait > 0 {
			if err := d.outbox.DeferAlert(ctx, a.ID, now.Add(wait)); err != nil {
				return next, err
			}
			continue
		}
		sends[a.Channel] = append(sends[a.Channel], a)
	}
	if err := d.sendAll(ctx, c, sends); err != nil {
		return next, err
	}
	if err := d.reportPending(ctx, c); err != nil {
		return next, err
	}
	if len(due) == dueBatch {
		return now, nil
	}
	// The next alert waiting (a retry, the rate limit, quiet hours) may
	// fall due before the minute is up.
	if at, ok, err := d.outbox.NextAlertDue(ctx); err != nil {
		return next, err
	} else if ok {
		if t, err := time.Parse(store.TimeLayout, at); err == nil && t.Before(next) {
			next = t
		}
	}
	return next, nil
}

// sendAll sends each channel's alerts in order, the channels at once,
// and returns the first failure to record one.
func (d *Dispatcher) sendAll(ctx context.Context, c *config, sends map[string][]store.Alert) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for channel, alerts := range sends {
		s := c.senders[channel]
		wg.Go(func() {
			for _, a := range alerts {
				if err := d.send(ctx, s, a); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// reportPending tells the counter how many alerts wait per channel.
func (d *Dispatcher) reportPending(ctx context.Context, c *config) error {
	if d.counter == nil {
		return nil
	}
	counts, err := d.outbox.AlertCountsByChannel(ctx)
	if err != nil {
		return err
	}
	pending := map[string]int{}
	for name := range c.senders {
		pending[name] = 0
	}
	for _, n := range counts {
		pending[n.Channel] = n.Pending
	}
	d.counter.AlertsPending(pending)
	return nil
}

// send delivers one alert and records what became of it.
func (d *Dispatcher) send(ctx context.Context, s Sender, a store.Alert) error {
	var m Message
	if err := json.Unmarshal([]byte(a.Payload), &m); err != nil {
		return d.outbox.AlertFailed(ctx, a.ID, "unreadable payload", time.Time{})
	}
	sctx, cancel := context.WithTimeout(ctx, sendTimeout)
	err := s.Send(sctx, shown(m))
	cancel()
	if err == nil {
		d.count(a.Channel, true)
		d.log.Info().Str(logfield.Channel, a.Channel).Str(logfield.Kind, a.Kind).Msg("alert sent")
		return d.outbox.AlertSent(ctx, a.ID)
	}
	retry := time.Time{}
	if !IsPermanent(err) && a.Attempts+1 < MaxAttempts {
		retry = d.now().Add(backoff(a.Attempts))
	}
	if retry.IsZero() {
		d.count(a.Channel, false)
	}
	d.log.Warn().Err(err).Str(logfield.Channel, a.Channel).Str(logfield.Kind, a.Kind).Int(logfield.Attempts, a.Attempts+1).Msg("alert not delivered")
	return d.outbox.AlertFailed(ctx, a.ID, err.Error(), retry)
}

func (d *Dispatcher) count(channel string, sent bool) {
	if d.counter == nil {
		return
	}
	if sent {
		d.counter.AlertSent(channel)
	} else {
		d.counter.AlertFailed(channel)
	}
}

// backoff is the wait after attempts failures: 30 s doubling to an hour.
func backoff(attempts int) time.Duration {
	return min(30*time.Second<<min(attempts, 7), time.Hour)
}

// SendNow sends m to one channel at once, past the outbox (`bankmirror
// alerts test`).
func (d *Dispatcher) SendNow(ctx context.Context, channel string, m Message) error {
	s, ok := d.config.Load().senders[channel]
	if !ok {
		return fmt.Errorf("no channel %q in the rules file", channel)
	}
	sctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	return s.Send(sctx, shown(m))
}

// bucket paces a channel: burst messages at once, then one every
// hour/perHour.
type bucket struct {
	tokens float64
	at     time.Time
}

// Rate limits of a channel.
const (
	DefaultPerHour = 30
	burst          = 5
)

// take spends one of the channel's tokens for alert id, or reserves the
// next one and says how long until it is there (id then goes, when due,
// with its reserved token).
func (d *Dispatcher) take(channel string, id int64, perHour int, now time.Time) time.Duration {
	if perHour <= 0 {
		perHour = DefaultPerHour
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.reserved[id] {
		delete(d.reserved, id)
		return 0
	}
	b := d.buckets[channel]
	if b == nil {
		b = &bucket{tokens: burst, at: now}
		d.buckets[channel] = b
	}
	rate := float64(perHour) / float64(time.Hour)
	b.tokens = min(burst, b.tokens+float64(now.Sub(b.at))*rate)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	// Rounded up: a token a rounding error short is not a wait of 0.
	wait := time.Duration(math.Ceil((1 - b.tokens) / rate))
	b.tokens--
	d.reserved[id] = true
	return wait
}

// release gives back the token alert id reserved, if any (it is deferred
// for another reason: quiet hours).
func (d *Dispatcher) release(channel string, id int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.reserved[id] {
		delete(d.reserved, id)
		if b := d.buckets[channel]; b != nil {
			b.tokens++
		}
	}
}

// shown is m as a channel shows it: its title and message each one line
// with what is hidden made visible, also when m was queued before the
// outbox held them so (Enqueue does the same, with the cuts).
func shown(m Message) Message {
	m.Title, m.Message = textsafe.Line(m.Title), textsafe.Line(m.Message)
	return m
}

// Kinds of alert (a message's, in the outbox's kind column). A built-in
// alert's messages are of its [alert.KIND], but for [alert.recurring]'s,
// which say what happened to the payment.
const (
	KindRule             = "rule"
	KindLowBalance       = rules.AlertLowBalance
	KindHeld             = rules.AlertHeld
	KindRecurringChanged = "recurring_changed"
	KindRecurringNew     = "recurring_new"
	KindRecurringMissed  = "recurring_missed"
	KindHealth           = rules.AlertHealth
	KindTest             = "test"
)

// SetClock replaces the dispatcher's clock (tests, and a bench's frozen
// time).
func (d *Dispatcher) SetClock(now func() time.Time) { d.now = now }
