package ui

import (
	"net/http"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
)

// recentAlerts is how many of the newest alerts the alerts page lists.
const recentAlerts = 50

// alertRow is an alert of the outbox as the page shows it.
type alertRow struct {
	When, Channel, Kind, Title string
	State, Class, Error        string
}

// alerts is /alerts: each channel's sent, pending and failed alerts
// (alert_outbox), and the newest alerts. Read-only: channels live in the
// rules file; `bankmirror alerts test CHANNEL` sends one.
func (h *Handler) alerts(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	counts, err := h.m.AlertCountsByChannel(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	recent, err := h.m.RecentAlerts(ctx, recentAlerts)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	now := h.o.Now()
	rows := make([]alertRow, 0, len(recent))
	for _, a := range recent {
		row := alertRow{When: h.localStamp(a.CreatedAt), Channel: a.Channel, Kind: a.Kind, Title: a.Title, Error: a.Error}
		row.State, row.Class = h.alertState(a, now)
		rows = append(rows, row)
	}
	var total store.AlertCounts
	for _, c := range counts {
		total.Sent += c.Sent
		total.Pending += c.Pending
		total.Failed += c.Failed
	}
	h.render(w, r, http.StatusOK, "alerts", "Alerts", struct {
		Counts []store.AlertCounts
		Total  store.AlertCounts
		Recent []alertRow
		Most   int
	}{counts, total, rows, recentAlerts})
}

// alertState says where an alert is: sent, given up, or waiting (for its
// time: quiet hours, the channel's rate limit, a retry).
func (h *Handler) alertState(a store.Alert, now time.Time) (state, class string) {
	switch {
	case a.SentAt != "":
		return "sent " + h.localStamp(a.SentAt), "sent"
	case a.FailedAt != "":
		return "failed (given up " + h.localStamp(a.FailedAt) + ")", "failed"
	}
	state = "pending"
	if a.Attempts > 0 {
		state = "pending, retrying"
	}
	if t, err := time.Parse(store.TimeLayout, a.NotBefore); err == nil && t.After(now) {
		state += " at " + h.localStamp(a.NotBefore)
	}
	return state, "pending"
}
