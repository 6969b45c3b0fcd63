package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
)

// alerts list prints its times in the customer's zone in the commands'
// one layout (no UTC microseconds), and says why each pending alert waits:
// its failed attempts, last error and next try; the time it is held to
// (quiet hours, the rate limit); or that it is due.
func TestCLIAlertsListSaysWhyAnAlertWaits(t *testing.T) {
	db := filepath.Join(t.TempDir(), "mirror.db")
	st, err := store.Open(context.Background(), db)
	must(t, err)
	ctx := t.Context()
	_, err = st.EnqueueAlerts(ctx, []store.Alert{
		{Key: "retried", Channel: "mail", Kind: "rule", Title: "Retried", Payload: "{}"},
		{Key: "deferred", Channel: "mail", Kind: "rule", Title: "Deferred", Payload: "{}"},
		{Key: "due", Channel: "mail", Kind: "rule", Title: "Due", Payload: "{}"},
		{Key: "sent", Channel: "mail", Kind: "rule", Title: "Sent", Payload: "{}"},
	})
	must(t, err)
	byKey := map[string]int64{}
	all, err := st.RecentAlerts(ctx, 10)
	must(t, err)
	for _, a := range all {
		byKey[a.Key] = a.ID
	}
	next := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	must(t, st.AlertFailed(ctx, byKey["retried"], "the channel answered 503 Service Unavailable", next))
	must(t, st.DeferAlert(ctx, byKey["deferred"], next))
	must(t, st.AlertSent(ctx, byKey["sent"]))
	must(t, st.Close())

	const zone = "Australia/Sydney"
	r := runCLI(t, map[string]string{"BANKMIRROR_DB": db, "BANKMIRROR_TIMEZONE": zone}, "alerts", "list")
	wantCode(t, r, 0)
	loc, err := time.LoadLocation(zone)
	must(t, err)
	at := next.In(loc).Format("2006-01-02 15:04:05 -07:00")
	lines := map[string]string{}
	for _, l := range strings.Split(r.stdout, "\n") {
		for key := range byKey {
			if strings.Contains(l, strings.ToUpper(key[:1])+key[1:]) {
				lines[key] = l
			}
		}
	}
	want := map[string]string{
		"retried":  "pending  Retried   1 attempt failed (the channel answered 503 Service Unavailable); next try " + at,
		"deferred": "pending  Deferred  not before " + at + ": quiet hours or the channel's rate limit",
		"due":      "pending  Due       due now",
		"sent":     "sent     Sent      sent ",
	}
	for key, w := range want {
		if !strings.Contains(lines[key], w) {
			t.Errorf("alerts list, %s: %q, want it to hold %q\n%s", key, lines[key], w, r.stdout)
		}
	}
	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d  `)
	for key, l := range lines {
		if !stamp.MatchString(l) {
			t.Errorf("alerts list, %s: %q does not start with the one layout", key, l)
		}
	}
	if regexp.MustCompile(`\d\d:\d\d:\d\d\.\d+|T\d\d:`).MatchString(r.stdout) {
		t.Errorf("alerts list prints another time layout:\n%s", r.stdout)
	}
}
