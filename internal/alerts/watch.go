package alerts

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/recurring"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// The built-in alerts a rules file turns on, as [alert.KIND], and their
// settings are the rules package's (rules.AlertKinds, rules.Alert): the
// watcher checks what they say.

// Facts is what the watcher reads of the mirror (*store.Store).
type Facts interface {
	AccountBalances(ctx context.Context) ([]store.AccountBalance, error)
	HeldTransactions(ctx context.Context, n int) ([]store.TxRow, error)
	PaymentsOut(ctx context.Context, from string) ([]store.PaymentOut, error)
}

var _ Facts = (*store.Store)(nil)

// Condition is something wrong with the daemon itself, for
// [alert.health]: Since keys it, so that one outage alerts once.
type Condition struct {
	Key     string // e.g. "token:alex", "bank_unreachable", "stale"
	Since   time.Time
	Title   string
	Message string
}

// Watcher checks the built-in alerts.
type Watcher struct {
	d     *Dispatcher
	facts Facts
	zone  *time.Location
	// Health, if set, says what is wrong with the daemon now.
	Health func(ctx context.Context) ([]Condition, error)
	now    func() time.Time
}

// NewWatcher returns a watcher queueing through d.
func NewWatcher(d *Dispatcher, facts Facts, zone *time.Location) *Watcher {
	if zone == nil {
		zone = time.UTC
	}
	return &Watcher{d: d, facts: facts, zone: zone, now: time.Now}
}

// SetClock replaces the watcher's clock (tests).
func (w *Watcher) SetClock(now func() time.Time) { w.now = now }

// Recent is how old the event behind a recurring alert may be: a first
// check of a mirror full of history alerts about none of it.
const Recent = 7 * 24 * time.Hour

// Check looks at every built-in alert set turns on and queues what is
// due. Errors of one kind do not stop the others.
func (w *Watcher) Check(ctx context.Context, set *rules.Set) error {
	var errs []error
	for _, a := range set.Alerts {
		if len(a.Notify) == 0 {
			continue
		}
		var err error
		switch a.Kind {
		case rules.AlertLowBalance:
			err = w.lowBalance(ctx, a)
		case rules.AlertHeld:
			err = w.held(ctx, a)
		case rules.AlertRecurring:
			err = w.recurring(ctx, a)
		case rules.AlertHealth:
			err = w.health(ctx, a)
		default:
			err = fmt.Errorf("alert.%s: no such alert", a.Kind)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (w *Watcher) lowBalance(ctx context.Context, a rules.Alert) error {
	name, threshold := a.LowBalance.Account, a.LowBalance.BelowCents
	accounts, err := w.facts.AccountBalances(ctx)
	if err != nil {
		return err
	}
	today := w.now().In(w.zone).Format("2006-01-02")
	for _, acc := range accounts {
		if acc.ID != name && !strings.EqualFold(acc.Name, name) {
			continue
		}
		if acc.Cents >= threshold {
			continue
		}
		m := Message{Kind: KindLowBalance, Key: "low_balance:" + acc.ID + ":" + today,
			Title:   fmt.Sprintf("%s is low: %s", textsafe.Line(acc.Name), money.Format(acc.Cents, acc.Currency)),
			Message: fmt.Sprintf("%s has %s, below %s.", textsafe.Line(acc.Name), money.Format(acc.Cents, acc.Currency), money.Format(threshold, acc.Currency)),
			Amount:  strconv.FormatFloat(float64(acc.Cents)/100, 'f', 2, 64)}
		if err := w.d.Enqueue(ctx, m, a.Notify); err != nil {
			return err
		}
	}
	return nil
}

func (w *Watcher) held(ctx context.Context, a rules.Alert) error {
	rows, err := w.facts.HeldTransactions(ctx, 1000)
	if err != nil {
		return err
	}
	cutoff := w.now().Add(-a.Held.After).Unix()
	for _, r := range rows {
		if r.Epoch == 0 || r.Epoch > cutoff {
			continue
		}
		age := int(w.now().Sub(time.Unix(r.Epoch, 0)).Hours() / 24)
		m := Message{Kind: KindHeld, Key: "held:" + r.ID, TransactionID: r.ID,
			Title:   fmt.Sprintf("Still held after %d days: %s", age, textsafe.Cut(r.Description, 60)),
			Message: fmt.Sprintf("%s of %s at %s has been held since %s.", strings.TrimPrefix(money.Format(r.Cents, r.Currency), "-"), textsafe.Line(r.AccountName), textsafe.Cut(r.Description, 120), r.Local),
			Amount:  strconv.FormatFloat(float64(r.Cents)/100, 'f', 2, 64)}
		if u := w.d.Settings().DashboardURL; u != "" {
			m.DashboardURL = u + "/transactions/" + url.PathEscape(r.ID)
		}
		if err := w.d.Enqueue(ctx, m, a.Notify); err != nil {
			return err
		}
	}
	return nil
}

func (w *Watcher) recurring(ctx context.Context, a rules.Alert) error {
	now := w.now().In(w.zone)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	rows, err := w.facts.PaymentsOut(ctx, today.AddDate(-2, 0, 0).Format("2006-01-02"))
	if err != nil {
		return err
	}
	ps := make([]recurring.Payment, 0, len(rows))
	for _, r := range rows {
		d, err := time.Parse("2006-01-02", r.Date)
		if err != nil {
			continue
		}
		ps = append(ps, recurring.Payment{ID: r.ID, Payee: r.Description, Date: d, Cents: r.Cents, Currency: r.Currency})
	}
	link := ""
	if u := w.d.Settings().DashboardURL; u != "" {
		link = u + "/recurring"
	}
	for _, s := range recurring.Find(ps) {
		var m Message
		recent := today.Sub(s.Last) <= Recent
		switch {
		case s.Changed() && recent:
			prev := s.Prices[len(s.Prices)-2].Cents
			m = Message{Kind: KindRecurringChanged, Key: "recurring_changed:" + s.Payee + ":" + s.LastID,
				Title:         fmt.Sprintf("%s changed its price: %s", textsafe.Cut(s.Payee, 60), money.Format(s.Cents, s.Currency)),
				Message:       fmt.Sprintf("%s (%s) charged %s, was %s.", textsafe.Cut(s.Payee, 120), s.Cadence.Name, money.Format(s.Cents, s.Currency), money.Format(prev, s.Currency)),
				TransactionID: s.LastID}
		case s.Count == s.Cadence.MinCount && recent:
			m = Message{Kind: KindRecurringNew, Key: "recurring_new:" + s.Payee,
				Title:         fmt.Sprintf("New recurring payment: %s", textsafe.Cut(s.Payee, 60)),
				Message:       fmt.Sprintf("%s looks %s: %s, next about %s.", textsafe.Cut(s.Payee, 120), s.Cadence.Name, money.Format(s.Cents, s.Currency), s.Next.Format("Mon 2 Jan")),
				TransactionID: s.LastID}
		case s.Late(today) && today.Sub(s.Next) <= Recent:
			m = Message{Kind: KindRecurringMissed, Key: "recurring_missed:" + s.Payee + ":" + s.Next.Format("2006-01-02"),
				Title:   fmt.Sprintf("%s did not come", textsafe.Cut(s.Payee, 60)),
				Message: fmt.Sprintf("%s (%s, %s) was expected on %s.", textsafe.Cut(s.Payee, 120), s.Cadence.Name, money.Format(s.Cents, s.Currency), s.Next.Format("Mon 2 Jan"))}
		default:
			continue
		}
		m.DashboardURL = link
		m.Amount = strconv.FormatFloat(-float64(s.Cents)/100, 'f', 2, 64)
		if err := w.d.Enqueue(ctx, m, a.Notify); err != nil {
			return err
		}
	}
	return nil
}

func (w *Watcher) health(ctx context.Context, a rules.Alert) error {
	if w.Health == nil {
		return nil
	}
	conds, err := w.Health(ctx)
	if err != nil {
		return err
	}
	for _, c := range conds {
		m := Message{Kind: KindHealth, Key: "health:" + c.Key + ":" + c.Since.UTC().Format(time.RFC3339), Title: c.Title, Message: c.Message}
		if err := w.d.Enqueue(ctx, m, a.Notify); err != nil {
			return err
		}
	}
	return nil
}
