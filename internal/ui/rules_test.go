package ui_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/ui"
)

// copyMirror copies the test mirror into a directory of the test and
// opens the copy for writing.
func copyMirror(t *testing.T) (string, *store.Store) {
	t.Helper()
	src, err := os.ReadFile(mirrorPath)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mirror.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := store.Open(context.Background(), path, store.WithTimeZone(melbourne))
	if err != nil {
		t.Fatal(err)
	}
	return path, w
}

const testRules = `# the household's rules

[[rule]]
name = "netflix is tv"
when = 'description contains "Netflix"'
category = "tv-and-music"
tags = ["tv"]
notify = ["phone"]

[[rule]]
name = "<b>all purchases</b>"
when = 'amount < 0'
note = "<script>alert(1)</script>"

[channel.phone]
url = "ntfy://ntfy.example.org/our-money"

[alert.recurring]
notify = ["phone"]
`

// writeRules writes a rules file into the test's directory.
func writeRules(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rules.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// countSince counts the mirror's transactions created since the rules
// page's window began that match the SQL condition where.
func countSince(t *testing.T, st *store.Store, where string) int {
	t.Helper()
	since := simNow.In(melbourne).AddDate(0, 0, -30).Format(time.DateOnly)
	var n int
	if err := st.Reader().QueryRow("SELECT count(*) FROM transactions WHERE created_date >= ? AND "+where, since).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// ruleCell is the matches the rules page gives the rule on line.
func ruleCell(t *testing.T, body string, line int) int {
	t.Helper()
	m := regexp.MustCompile(`data-rule-line="` + strconv.Itoa(line) + `">.*?data-matches="(\d+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the rules page has no rule of line %d", line)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// The rules page lists each rule of the file with its line, what it does
// and its matches in the last 30 days (as the mirror counts them), what
// rule_applications recorded (write-backs waiting, the last error), and
// the rules that acted before and are no longer in the file; the rule
// text is shown as text. A transaction's page names the rule that set its
// category and lists every rule's action on it.
func TestRulesPageAndTransactionRules(t *testing.T) {
	ctx := context.Background()
	path, w := copyMirror(t)
	var category string
	if err := w.Reader().QueryRow("SELECT coalesce(category_id, '') FROM transactions WHERE id = ?", scriptID).Scan(&category); err != nil {
		t.Fatal(err)
	}
	joint := "kept in the mirror only: the bank allows no tags on 2Up (joint) transactions"
	if err := w.RecordRuleApplications(ctx, []store.RuleApplication{
		{TransactionID: scriptID, Rule: "netflix is tv", Action: store.RuleCategory, Value: category, Source: store.RuleOnArrival, WriteBack: true},
		{TransactionID: scriptID, Rule: "netflix is tv", Action: store.RuleTag, Value: "tv", Source: store.RuleOnArrival, Error: joint},
		{TransactionID: scriptID, Rule: "<b>all purchases</b>", Action: store.RuleNote, Value: "<script>alert(1)</script>", Source: store.RuleOnArrival},
		{TransactionID: spoofID, Rule: "an old rule", Action: store.RuleTag, Value: "old", Source: store.RuleApplyRun},
	}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rulesPath := writeRules(t, testRules)
	d := dashboardAt(t, path, func(o *ui.Options) { o.RulesFile, o.RulesFileSet = rulesPath, true })
	c := d.browser(t)

	code, _, body := get(t, c, d.base+"/rules")
	if code != http.StatusOK {
		t.Fatalf("rules: %d", code)
	}
	if got, want := ruleCell(t, body, 3), countSince(t, d.st, "instr(description, 'Netflix') > 0"); got != want || want == 0 {
		t.Errorf("netflix is tv matches %d in the last 30 days; the mirror has %d", got, want)
	}
	if got, want := ruleCell(t, body, 10), countSince(t, d.st, "amount_base_units < 0"); got != want || want == 0 {
		t.Errorf("all purchases matches %d in the last 30 days; the mirror has %d", got, want)
	}
	for _, s := range []string{"<bdi>category tv-and-music</bdi>; <bdi>tags tv</bdi>", "notifies phone", `1 write-back waiting`,
		`(1 action <bdi>` + joint + `</bdi>)`,
		"&lt;b&gt;all purchases&lt;/b&gt;", "note “&lt;script&gt;alert(1)&lt;/script&gt;”", `an old rule`, `id="rules-gone"`,
		"description contains &#34;Netflix&#34;", "Built-in alerts: recurring"} {
		if !strings.Contains(body, s) {
			t.Errorf("the rules page does not say %q", s)
		}
	}
	if strings.Contains(body, `class="error"`) {
		t.Error("the rules page shows the 2Up tag limit, which is expected, as an error")
	}
	if strings.Contains(body, "<b>all") || strings.Contains(body, "<script>") {
		t.Error("the rules page shows a rule's markup as markup")
	}

	code, _, page := get(t, c, d.base+"/transactions/"+scriptID)
	if code != http.StatusOK {
		t.Fatalf("transaction: %d", code)
	}
	if !strings.Contains(page, `<span id="category-rule">(set by the rule <a href="rules"><bdi>netflix is tv</bdi></a>)</span>`) {
		t.Error("the transaction's page does not name the rule that set its category")
	}
	_, actions, ok := strings.Cut(page, `id="rule-actions"`)
	actions, _, _ = strings.Cut(actions, "</table>")
	if !ok {
		t.Fatal("the transaction's page lists no rule actions")
	}
	for _, s := range []string{"category", "waiting", "tag <bdi>tv</bdi>", joint, "note <bdi>&lt;script&gt;", "mirror only"} {
		if !strings.Contains(actions, s) {
			t.Errorf("the transaction's rule actions do not say %q", s)
		}
	}
	if strings.Count(actions, "<tr>") != 4 {
		t.Errorf("the transaction's rule actions have %d rows, want a header and 3", strings.Count(actions, "<tr>"))
	}
	if _, _, old := get(t, c, d.base+"/transactions/"+spoofID); !strings.Contains(old, "no: rules apply without --write-back") {
		t.Error("a tag rules apply recorded without --write-back does not say it was not written back")
	}
	if _, _, other := get(t, c, d.base+"/transactions/"+hugeID); strings.Contains(other, "category-rule") || strings.Contains(other, "rule-actions") {
		t.Error("a transaction no rule acted on shows rules")
	}
}

// A bad rules file shows what `rules check` says, one line with its
// file:line; a named file that is missing says so; the default file
// missing is no rules.
func TestRulesPageOfABadOrMissingFile(t *testing.T) {
	bad := writeRules(t, "[[rule]]\nname = \"x\"\nwhen = 'amount <'\n")
	missing := filepath.Join(t.TempDir(), "rules.toml")
	for _, tc := range []struct {
		name string
		path string
		set  bool
		want string
	}{
		{"bad", bad, true, `<p class="health level-FAILING" id="rules-error"><bdi>` + bad + `:1: rule &#34;x&#34;`},
		{"bad alert", writeRules(t, "[alert.held]\nnotify = [\"phone\"]\n[channel.phone]\nurl = \"ntfy://ntfy.example.org/x\"\n"), true, `:1: alert.held: days`},
		{"missing", missing, true, `id="rules-error"><bdi>no rules file at ` + missing + ` (set BANKMIRROR_RULES_FILE)`},
		{"missing default", missing, false, `id="rules-none">There is no rules file at`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDashboard(t, func(o *ui.Options) { o.RulesFile, o.RulesFileSet = tc.path, tc.set })
			c := d.browser(t)
			code, _, body := get(t, c, d.base+"/rules")
			if code != http.StatusOK || !strings.Contains(body, tc.want) {
				i := strings.Index(body, "<main>")
				t.Errorf("rules: %d, want %q in %s", code, tc.want, body[i:])
			}
			if m := regexp.MustCompile(`id="rules-error"><bdi>([^<]*)</bdi>`).FindStringSubmatch(body); m != nil && strings.Contains(m[1], "\n") {
				t.Errorf("the error is more than one line: %q", m[1])
			}
		})
	}
}

// On a mirror busier than its budget, the rules page reads the newest
// transactions of the window only, and says so.
func TestRulesPageMatchingIsBounded(t *testing.T) {
	t.Cleanup(ui.SetRuleBudget(10, 5)) // two rules: 5 transactions, 5 at a time
	rulesPath := writeRules(t, testRules)
	d := newDashboard(t, func(o *ui.Options) { o.RulesFile, o.RulesFileSet = rulesPath, true })
	c := d.browser(t)
	if n := countSince(t, d.st, "1"); n <= 5 {
		t.Fatalf("the test mirror has %d transactions in the last 30 days; the test needs more than 5", n)
	}
	code, _, body := get(t, c, d.base+"/rules")
	if code != http.StatusOK || !strings.Contains(body, fmt.Sprintf(`id="rules-capped">Matches counted in the newest %d transactions`, 5)) {
		t.Fatalf("rules: %d, not saying it read 5 transactions only", code)
	}
	start, _ := time.ParseInLocation(time.DateOnly, simNow.In(melbourne).AddDate(0, 0, -30).Format(time.DateOnly), melbourne)
	var want int
	if err := d.st.Reader().QueryRow(`SELECT count(*) FROM (SELECT amount_base_units FROM transactions WHERE created_epoch >= ?
		ORDER BY created_epoch DESC LIMIT 5) WHERE amount_base_units < 0`, start.Unix()).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if got := ruleCell(t, body, 10); got != want {
		t.Errorf("all purchases matches %d of the 5 newest transactions; %d of them are purchases", got, want)
	}
}

// A rule that only notifies has no actions but alerts: the page counts
// them (and when the last was) instead of "0 of 0, never"; a failed
// write-back is an error, a tag the bank cannot take is a note.
func TestRulesPageCountsAlertsAndLocalTags(t *testing.T) {
	ctx := context.Background()
	path, w := copyMirror(t)
	var a, b string
	if err := w.Reader().QueryRow("SELECT min(id), max(id) FROM transactions").Scan(&a, &b); err != nil {
		t.Fatal(err)
	}
	var alerts []store.Alert
	for i, id := range []string{a, b, a} {
		channel := "phone"
		if i == 2 {
			channel = "mail" // the same alert on a second channel: one alert
		}
		alerts = append(alerts, store.Alert{Key: "rule:big purchases:" + id, Channel: channel, Kind: "rule", Title: "t", Message: "m",
			Payload: `{"kind":"rule","rule":"big purchases","transaction_id":"` + id + `"}`})
	}
	if _, err := w.EnqueueAlerts(ctx, alerts); err != nil {
		t.Fatal(err)
	}
	seventh := store.KeptLocally + "a transaction carries at most 6 tags at the bank"
	if err := w.RecordRuleApplications(ctx, []store.RuleApplication{
		{TransactionID: a, Rule: "netflix is tv", Action: store.RuleTag, Value: "tv", Source: store.RuleApplyRun, Error: seventh},
		{TransactionID: b, Rule: "netflix is tv", Action: store.RuleTag, Value: "tv", Source: store.RuleApplyRun, WriteBack: true},
	}, nil); err != nil {
		t.Fatal(err)
	}
	pending, err := w.PendingRuleWriteBacks(ctx, simNow.Add(time.Hour), 10)
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending write-backs %v %v", pending, err)
	}
	if err := w.FinishRuleWriteBacks(ctx, []store.WriteBackOutcome{{ID: pending[0].ID, Err: "the bank said no"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rulesPath := writeRules(t, testRules+`
[[rule]]
name = "big purchases"
when = 'amount <= -500'
notify = ["phone"]
`)
	d := dashboardAt(t, path, func(o *ui.Options) { o.RulesFile, o.RulesFileSet = rulesPath, true })
	code, _, body := get(t, d.browser(t), d.base+"/rules")
	if code != http.StatusOK {
		t.Fatalf("rules: %d", code)
	}
	row := func(name string) string {
		_, after, ok := strings.Cut(body, "<bdi>"+name+"</bdi>")
		if !ok {
			t.Fatalf("the rules page has no rule %q", name)
		}
		r, _, _ := strings.Cut(after, "</tr>")
		return r
	}
	big := row("big purchases")
	if !strings.Contains(big, `data-alerts="2"`) || strings.Contains(big, "never") {
		t.Errorf("big purchases, which sent 2 alerts (one on two channels): %s", big)
	}
	netflix := row("netflix is tv")
	if !strings.Contains(netflix, `<span class="error">1 error</span>, the last: <bdi>not written back: the bank said no</bdi>`) {
		t.Errorf("netflix is tv does not show its failed write-back as an error: %s", netflix)
	}
	if !strings.Contains(netflix, `<span class="note rule-local">(1 action <bdi>`+seventh+`</bdi>)</span>`) {
		t.Errorf("netflix is tv does not show its 7th tag as a note: %s", netflix)
	}
}

// cancelledAfter is a context cancelled from its n-th look on: the
// visitor leaving while the page counts.
type cancelledAfter struct {
	context.Context
	n int
}

func (c *cancelledAfter) Err() error {
	if c.n--; c.n <= 0 {
		return context.Canceled
	}
	return nil
}

// When the visitor leaves, the rules page stops counting at once, inside
// its batch of transactions, and gives the context's error (the page
// then returns, freeing its heavy-page slot).
func TestRulesPageStopsWhenTheVisitorLeaves(t *testing.T) {
	st, err := store.OpenReadOnly(context.Background(), mirrorPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	set, err := rules.Parse("rules.toml", []byte("[[rule]]\nname = \"every number\"\nwhen = 'all(1..1000, {# > 0})'\ntags = [\"x\"]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := ui.MatchRules(context.Background(), st, melbourne, set, "2000-01-01"); err != nil || n == 0 {
		t.Fatalf("counting with the visitor there: %d transactions read, %v", n, err)
	}
	// Cancelled at the 50th look: past the few of the mirror's reads,
	// within the first transactions' evaluation.
	n, err := ui.MatchRules(&cancelledAfter{Context: context.Background(), n: 50}, st, melbourne, set, "2000-01-01")
	if !errors.Is(err, context.Canceled) || n != 0 {
		t.Fatalf("the visitor gone: %d transactions read, error %v; want none and context.Canceled", n, err)
	}
}
