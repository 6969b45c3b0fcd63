package ui_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/ui"
)

// The feeds page lists each feed of the feeds file with its last push,
// rows, pending, its error since when, and its last check, as the mirror
// records them; a feed that never ran says never.
func TestFeedsPage(t *testing.T) {
	ctx := context.Background()
	path, w := copyMirror(t)
	if err := w.RecordFeedRound(ctx, store.FeedRound{Feed: "actual", Cursor: 1, Put: []store.FeedRow{
		{TransactionID: "tx-1", AppID: "a-1", AppAccount: "acc", Date: "2026-11-02", Amount: -1250, State: store.FeedPushed},
		{TransactionID: "tx-2", AppID: "a-2", AppAccount: "acc", Date: "2026-11-03", Amount: -990, State: store.FeedDeletedInApp},
	}}); err != nil {
		t.Fatal(err)
	}
	if err := w.RecordFeedCheck(ctx, "actual", `{"summary":"deleted_in_app 1"}`); err != nil {
		t.Fatal(err)
	}
	if err := w.RecordFeedFailure(ctx, "ynab", errors.New("ynab: 401 <unauthorized>"), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "feeds.toml")
	if err := os.WriteFile(file, []byte(`[[feed]]
name = "actual"
kind = "actual"
url = "http://127.0.0.1:5006"
budget = "Household"
[feed.accounts]
"Spending" = "Up Spending"

[[feed]]
name = "ynab"
kind = "ynab"
budget = "Our plan"
[feed.accounts]
"Spending" = "Checking"

[[feed]]
name = "later"
kind = "ynab"
budget = "Other"
[feed.accounts]
"Spending" = "Checking"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	d := dashboardAt(t, path, func(o *ui.Options) { o.FeedsFile, o.FeedsFileSet = file, true })
	c := d.browser(t)
	code, _, body := get(t, c, d.base+"/feeds")
	if code != http.StatusOK {
		t.Fatalf("feeds: %d", code)
	}
	row := func(name string) string {
		i := strings.Index(body, `data-feed="`+name+`"`)
		if i < 0 {
			t.Fatalf("no row for feed %s", name)
		}
		return body[i : i+strings.Index(body[i:], "</tr>")]
	}
	if r := row("actual"); !strings.Contains(r, `<td class="num">2</td>`) || !strings.Contains(r, "deleted_in_app 1") || strings.Contains(r, "never</td><td class=\"num\"") {
		t.Errorf("actual's row: %s", r)
	}
	if r := row("ynab"); !strings.Contains(r, "ynab: 401 &lt;unauthorized&gt;") || !strings.Contains(r, "failing since") || !strings.Contains(r, "next try") || !strings.Contains(r, ">never<") {
		t.Errorf("ynab's row: %s", r)
	}
	if r := row("later"); !strings.Contains(r, ">never<") {
		t.Errorf("a feed that never ran: %s", r)
	}

	// A bad feeds file is said on the page, which still answers.
	if err := os.WriteFile(file, []byte("[[feed]]\nname = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, body := get(t, c, d.base+"/feeds"); code != http.StatusOK || !strings.Contains(body, "The feeds file cannot be read") {
		t.Errorf("bad file: %d %s", code, body)
	}
}
