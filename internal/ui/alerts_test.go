package ui_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
)

// The alerts page counts each channel's sent, pending and failed alerts as
// the outbox has them, and lists the newest, newest first, with the time
// in the customer's zone and the title as text.
func TestAlertsPage(t *testing.T) {
	ctx := context.Background()
	path, w := copyMirror(t)
	if _, err := w.EnqueueAlerts(ctx, []store.Alert{
		{Key: "rule:a:1", Channel: "phone", Kind: "rule", Title: "Spent $12.00 at <b>Cafe</b>", Message: "m", Payload: "{}"},
		{Key: "rule:a:2", Channel: "phone", Kind: "rule", Title: "Spent $900.00 at Store", Message: "m", Payload: "{}"},
		{Key: "low_balance:x:1", Channel: "mail", Kind: "low_balance", Title: "2Up Spending is low", Message: "m", Payload: "{}"},
		{Key: "held:y", Channel: "mail", Kind: "held", Title: "Still held", Message: "m", Payload: "{}"},
	}); err != nil {
		t.Fatal(err)
	}
	queued, err := w.RecentAlerts(ctx, 10)
	if err != nil || len(queued) != 4 {
		t.Fatalf("queued %d alerts: %v", len(queued), err)
	}
	id := map[string]int64{}
	for _, a := range queued {
		id[a.Key] = a.ID
	}
	if err := w.AlertSent(ctx, id["rule:a:1"]); err != nil {
		t.Fatal(err)
	}
	if err := w.AlertFailed(ctx, id["rule:a:2"], "ntfy: 403 <forbidden>", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := w.AlertFailed(ctx, id["low_balance:x:1"], "smtp: connection refused", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d := dashboardAt(t, path)
	c := d.browser(t)
	code, _, body := get(t, c, d.base+"/alerts")
	if code != http.StatusOK {
		t.Fatalf("alerts: %d", code)
	}
	for _, s := range []string{
		`data-channel="mail"><td class="text"><bdi>mail</bdi></td><td class="num" data-sent="0">0</td><td class="num" data-pending="2">2</td><td class="num" data-failed="0">0</td>`,
		`data-channel="phone"><td class="text"><bdi>phone</bdi></td><td class="num" data-sent="1">1</td><td class="num" data-pending="0">0</td><td class="num error" data-failed="1">1</td>`,
		"Spent $12.00 at &lt;b&gt;Cafe&lt;/b&gt;", "ntfy: 403 &lt;forbidden&gt;", "pending, retrying at", "smtp: connection refused",
	} {
		if !strings.Contains(body, s) {
			t.Errorf("the alerts page does not say %q", s)
		}
	}
	if strings.Contains(body, "<b>Cafe") {
		t.Error("an alert's title is shown as markup")
	}
	rows := regexp.MustCompile(`<tr class="alert-(\w+)"><td class="when">([^<]+)</td><td class="text"><bdi>(\w+)</bdi></td><td class="text">(\w+)</td>`).FindAllStringSubmatch(body, -1)
	if len(rows) != 4 {
		t.Fatalf("the alerts page lists %d alerts, want 4", len(rows))
	}
	// newest first: held, low_balance, then phone's failed and sent one
	want := [][3]string{{"pending", "mail", "held"}, {"pending", "mail", "low_balance"}, {"failed", "phone", "rule"}, {"sent", "phone", "rule"}}
	for i, r := range rows {
		if [3]string{r[1], r[3], r[4]} != want[i] {
			t.Errorf("alert %d: %v, want %v", i, r[1:], want[i])
		}
	}
	created, _ := time.Parse(store.TimeLayout, queued[0].CreatedAt)
	if local := created.In(melbourne).Format("2006-01-02 15:04"); rows[0][2] != local {
		t.Errorf("the newest alert shows %q; it was created %s in Melbourne", rows[0][2], local)
	}
}

// Without any alert, the page says so.
func TestAlertsPageEmpty(t *testing.T) {
	d := newDashboard(t)
	c := d.browser(t)
	if code, _, body := get(t, c, d.base+"/alerts"); code != http.StatusOK || !strings.Contains(body, "No alert yet.") {
		t.Errorf("alerts of a mirror without any: %d", code)
	}
}
