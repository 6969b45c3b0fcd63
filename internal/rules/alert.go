package rules

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// The built-in alerts a rules file turns on, as [alert.KIND]:
//
//	[alert.low_balance]       account = "2Up Spending" (name or id), below = 200: the balance under it
//	[alert.held]              days = 5: a HELD transaction older than that
//	[alert.recurring]         a recurring payment whose amount changed, that is new, or that is late
//	[alert.health]            a token rejected, the bank unreachable past an hour, the mirror stale
//
// Each takes notify = ["channel", ...].
const (
	AlertLowBalance = "low_balance"
	AlertHeld       = "held"
	AlertRecurring  = "recurring"
	AlertHealth     = "health"
)

// AlertKinds lists the built-in alerts, in the order errors name them.
var AlertKinds = []string{AlertLowBalance, AlertHeld, AlertRecurring, AlertHealth}

// Alert is an [alert.KIND] of the file: a built-in alert turned on, with
// its settings (those of its kind; the others are zero).
type Alert struct {
	Kind   string
	Notify []string
	// LowBalance is [alert.low_balance]'s, Held [alert.held]'s.
	LowBalance LowBalance
	Held       Held
	// Line is where the alert's table is in the file.
	Line int
}

// LowBalance is [alert.low_balance]: an account's balance under a
// threshold.
type LowBalance struct {
	// Account is the account's name (any case) or id, as written.
	Account string
	// BelowCents is `below`, in cents: a balance under it alerts.
	BelowCents int64
}

// Held is [alert.held]: a HELD transaction older than After.
type Held struct {
	After time.Duration
}

// parseAlert reads an [alert.KIND] table: notify and the settings of its
// kind, with what is wrong said as a short phrase (the caller adds where).
func parseAlert(kind string, table map[string]any) (Alert, error) {
	a := Alert{Kind: kind}
	if v, ok := table["notify"]; ok {
		list, err := stringList(v)
		if err != nil {
			return a, fmt.Errorf("alert %s: notify: %w", kind, err)
		}
		a.Notify = dedupe(list)
	}
	var err error
	switch kind {
	case AlertLowBalance:
		account, ok := table["account"].(string)
		if !ok {
			err = errors.New("needs account (a name or an id)")
			break
		}
		below, nerr := number(table["below"])
		if nerr != nil {
			err = fmt.Errorf("below: %w", nerr)
			break
		}
		a.LowBalance = LowBalance{Account: account, BelowCents: int64(math.Round(below * 100))}
	case AlertHeld:
		days, nerr := number(table["days"])
		if nerr != nil {
			err = fmt.Errorf("days: %w", nerr)
			break
		}
		a.Held = Held{After: time.Duration(days * 24 * float64(time.Hour))}
	case AlertRecurring, AlertHealth:
	default:
		err = fmt.Errorf("no such alert: want one of %s", strings.Join(AlertKinds, ", "))
	}
	if err == nil && len(a.Notify) == 0 {
		err = errors.New("needs notify")
	}
	if err != nil {
		return a, fmt.Errorf("alert.%s: %w", kind, err)
	}
	return a, nil
}

// number is a TOML number (an integer or a float) as a float.
func number(v any) (float64, error) {
	switch n := v.(type) {
	case int64:
		return float64(n), nil
	case float64:
		return n, nil
	case nil:
		return 0, errors.New("missing")
	default:
		return 0, fmt.Errorf("want a number, not %v", v)
	}
}

// stringList is a TOML array of strings.
func stringList(v any) ([]string, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, errors.New("want a list of channel names")
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, errors.New("want a list of channel names")
		}
		out = append(out, s)
	}
	return out, nil
}

// AlertSettings is the [alerts] table: where the dashboard is, and the
// quiet hours during which alerts wait.
type AlertSettings struct {
	DashboardURL string
	// Quiet hours, as minutes of the day in Zone: from QuietFrom to
	// QuietTo (across midnight when QuietTo < QuietFrom); none when equal.
	QuietFrom, QuietTo int
	// Zone is the customer's zone (Options.Zone; UTC when nil).
	Zone *time.Location
}

// QuietUntil says whether now is in the quiet hours, and when they end.
func (a AlertSettings) QuietUntil(now time.Time) (time.Time, bool) {
	if a.QuietFrom == a.QuietTo {
		return time.Time{}, false
	}
	zone := a.Zone
	if zone == nil {
		zone = time.UTC
	}
	local := now.In(zone)
	m := local.Hour()*60 + local.Minute()
	in := (a.QuietFrom < a.QuietTo && m >= a.QuietFrom && m < a.QuietTo) ||
		(a.QuietFrom > a.QuietTo && (m >= a.QuietFrom || m < a.QuietTo))
	if !in {
		return time.Time{}, false
	}
	end := time.Date(local.Year(), local.Month(), local.Day(), a.QuietTo/60, a.QuietTo%60, 0, 0, zone)
	if !end.After(local) {
		end = end.AddDate(0, 0, 1)
	}
	return end, true
}

// parseQuiet reads "HH:MM-HH:MM".
func parseQuiet(v string) (from, to int, err error) {
	a, b, ok := strings.Cut(v, "-")
	if !ok {
		return 0, 0, fmt.Errorf("quiet_hours %q: want HH:MM-HH:MM", v)
	}
	parse := func(s string) (int, error) {
		t, err := time.Parse("15:04", strings.TrimSpace(s))
		if err != nil {
			return 0, fmt.Errorf("quiet_hours %q: want HH:MM-HH:MM", v)
		}
		return t.Hour()*60 + t.Minute(), nil
	}
	if from, err = parse(a); err != nil {
		return 0, 0, err
	}
	to, err = parse(b)
	return from, to, err
}
