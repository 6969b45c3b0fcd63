package rules

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Alert is an [alert.KIND] of the file: a built-in alert turned on, with
// its settings as written (the alerts package reads them).
type Alert struct {
	Kind     string
	Notify   []string
	Settings map[string]any
	Line     int
}

// AlertSettings is the [alerts] table: where the dashboard is, and the
// quiet hours during which alerts wait.
type AlertSettings struct {
	DashboardURL string
	// Quiet hours, as minutes of the day in Zone: from QuietFrom to
	// QuietTo (across midnight when QuietTo < QuietFrom); none when equal.
	QuietFrom, QuietTo int
	// Zone is the customer's zone (set by the caller; UTC when nil).
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
