package rules_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
)

// example is the file the documentation pins.
const example = `
[[rule]]
name = "fuel, not groceries"
when = 'description contains "Woolworths Petrol" or raw_text matches "(?i)^WW PETROL"'
category = "fuel"            # a category's id or name; "none" removes it
tags = ["car"]               # added
notify = ["phone"]           # channel names

[[rule]]
name = "work lunches"
when = 'amount < -15 and amount > -60 and weekday in [1,2,3,4,5] and category == "restaurants-and-cafes"'
tags = ["work"]
exclude_from_spending = true # local only: v_monthly_spending leaves it out, v_transactions says why
note = "reimbursed"          # local only

[[rule]]
name = "anything at the servo"
when = 'description contains "Petrol"'
category = "groceries"
tags = ["car", "servo"]

[channel.phone]
url = "ntfy://ntfy.example.org/our-money"

[channel.hook]
url = "https://example.org/hooks/money"   # http(s): POST of a JSON body
secret_file = "/etc/bankmirror/hook.secret"

[alert.low_balance]
account = "2Up Spending"
below = 200
notify = ["phone"]
`

func parse(t *testing.T, text string) *rules.Set {
	t.Helper()
	s, err := rules.Parse("rules.toml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// evaluate is s.Evaluate(tx), which must not fail.
func evaluate(t *testing.T, s *rules.Set, tx *rules.Transaction) rules.Outcome {
	t.Helper()
	o, err := s.Evaluate(context.Background(), tx)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range o.Errors {
		t.Error(err)
	}
	return o
}

func TestExampleFileParses(t *testing.T) {
	s := parse(t, example)
	if len(s.Rules) != 3 || s.Rules[0].Name != "fuel, not groceries" || s.Rules[1].Line != 9 {
		t.Fatalf("rules %+v", s.Rules)
	}
	if c := s.Channels["hook"]; c.URL != "https://example.org/hooks/money" || c.SecretFile != "/etc/bankmirror/hook.secret" {
		t.Fatalf("hook channel %+v", c)
	}
	if len(s.Alerts) != 1 || s.Alerts[0].Kind != "low_balance" || !slices.Equal(s.Alerts[0].Notify, []string{"phone"}) ||
		s.Alerts[0].LowBalance != (rules.LowBalance{Account: "2Up Spending", BelowCents: 20000}) {
		t.Fatalf("alerts %+v", s.Alerts)
	}
}

func TestFirstCategoryWinsTagsAccumulate(t *testing.T) {
	s := parse(t, example)
	if err := s.Resolve(func(v string) (string, string) { return strings.ToLower(v), "" }); err != nil {
		t.Fatal(err)
	}
	tx := &rules.Transaction{Description: "Woolworths Petrol Carlton", Amount: -55.2, Weekday: 3, Category: "groceries"}
	o := evaluate(t, s, tx)
	if !o.CategorySet || o.CategoryID != "fuel" || o.CategoryRule.Name != "fuel, not groceries" {
		t.Fatalf("category %v %q %v", o.CategorySet, o.CategoryID, o.CategoryRule)
	}
	if !slices.Equal(o.Tags, []string{"car", "servo"}) || o.TagRules["servo"].Name != "anything at the servo" {
		t.Fatalf("tags %v", o.Tags)
	}
	if !slices.Equal(o.Notify, []string{"phone"}) || o.Exclude != nil || len(o.Matched) != 2 {
		t.Fatalf("notify %v exclude %v matched %d", o.Notify, o.Exclude, len(o.Matched))
	}

	lunch := &rules.Transaction{Description: "Cafe", Amount: -22.5, Weekday: 2, Category: "restaurants-and-cafes"}
	o = evaluate(t, s, lunch)
	if o.CategorySet || !slices.Equal(o.Tags, []string{"work"}) || o.Exclude == nil || !*o.Exclude || *o.Note != "reimbursed" {
		t.Fatalf("lunch outcome %+v", o)
	}
	lunch.Weekday = 6
	if o = evaluate(t, s, lunch); len(o.Matched) != 0 {
		t.Fatalf("a Saturday lunch matched %d rules", len(o.Matched))
	}
}

func TestRawTextMatchesAndNoneRemoves(t *testing.T) {
	s := parse(t, `
[[rule]]
name = "landlord"
when = 'raw_text matches "(?i)^ww petrol" and foreign_currency == "" and "rent" in tags'
category = "none"
`)
	if err := s.Resolve(func(v string) (string, string) {
		if v == "none" {
			return "", ""
		}
		return "", "unknown"
	}); err != nil {
		t.Fatal(err)
	}
	o := evaluate(t, s, &rules.Transaction{RawText: "WW PETROL 123", Tags: []string{"rent"}})
	if !o.CategorySet || o.CategoryID != "" {
		t.Fatalf("outcome %+v", o)
	}
}

// Every mistake is one line naming the file and the line, and nothing of
// the file is kept.
func TestBadFilesSayWhereAndWhy(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"syntax", "[[rule]]\nname = \"a\"\nwhen = 'true'\ntags = [\"x\"\n", "rules.toml:4:"},
		{"unknown field", "[[rule]]\nname = \"a\"\nwhen = 'descripton contains \"x\"'\ntags = [\"x\"]\n", `rules.toml:3: rule "a": when: unknown name descripton`},
		{"not boolean", "[[rule]]\nname = \"a\"\nwhen = 'amount + 1'\ntags = [\"x\"]\n", `rules.toml:3: rule "a": when: expected bool`},
		{"unknown key", "[[rule]]\nname = \"a\"\nwhen = 'true'\ntags = [\"x\"]\ncatgory = \"fuel\"\n", `rules.toml:5: unknown key "rule.catgory"`},
		{"unknown channel", "[[rule]]\nname = \"a\"\nwhen = 'true'\nnotify = [\"pager\"]\n", `rules.toml:1: rule "a": notify names channel "pager"`},
		{"no name", "[[rule]]\nwhen = 'true'\ntags = [\"x\"]\n\n[[rule]]\nname = \"b\"\n", "rules.toml:1: a rule needs a name"},
		{"duplicate", "[[rule]]\nname = \"a\"\nwhen = 'true'\ntags = [\"x\"]\n[[rule]]\nname = \"a\"\nwhen = 'true'\ntags = [\"y\"]\n", `rules.toml:5: rule "a" is already defined at line 1`},
		{"does nothing", "[[rule]]\nname = \"a\"\nwhen = 'true'\n", `rules.toml:1: rule "a" does nothing`},
		{"no url", "[channel.phone]\nsecret_file = \"x\"\n", `rules.toml:1: channel "phone" has no url`},
		{"wrong type", "[channel.hook]\nurl = \"https://example.org/h\"\nper_hour = \"ten\"\n", `rules.toml:3: channel.hook.per_hour: incompatible types`},
		{"too many tags", "[[rule]]\nname = \"a\"\nwhen = 'true'\ntags = [\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\"]\n", "adds 7 tags"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := rules.Parse("rules.toml", []byte(c.text), nil)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line containing %q", err, c.want)
			}
			var fe *rules.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a FileError", err)
			}
		})
	}
}

func TestResolveNamesTheRuleOfAnUnknownCategory(t *testing.T) {
	s := parse(t, example)
	err := s.Resolve(func(v string) (string, string) {
		if v == "groceries" {
			return "", "no such category"
		}
		return v, ""
	})
	if err == nil || err.Error() != `rules.toml:19: rule "anything at the servo": category "groceries": no such category` {
		t.Fatalf("error %v", err)
	}
}

func TestLoad(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "rules.toml")
	s, err := rules.Load(ctx, missing, rules.Options{MissingOK: true})
	if err != nil || len(s.Rules) != 0 {
		t.Fatalf("missing file with MissingOK: %v %v", s, err)
	}
	_, err = rules.Load(ctx, missing, rules.Options{})
	if !errors.Is(err, os.ErrNotExist) || err.Error() != "no rules file at "+missing+" (set BANKMIRROR_RULES_FILE): open "+missing+": no such file or directory" {
		t.Fatalf("missing file without MissingOK: %v", err)
	}
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, []byte(strings.Repeat("#", rules.MaxFileBytes+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := rules.Load(ctx, big, rules.Options{MissingOK: true}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("big file: %v", err)
	}
}

// Load is the one loader: it parses, checks each channel with what it is
// given (in the order of their names), resolves the categories against
// the mirror's and gives the alerts the customer's zone.
func TestLoadChecksChannelsAndResolves(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rules.toml")
	if err := os.WriteFile(path, []byte(example), 0o600); err != nil {
		t.Fatal(err)
	}
	var checked []string
	refuse := func(ch rules.Channel) error {
		checked = append(checked, ch.Name)
		if ch.Name == "phone" {
			return errors.New("channel phone: want ntfy://host/topic")
		}
		return nil
	}
	_, err := rules.Load(ctx, path, rules.Options{CheckChannel: refuse})
	var fe *rules.FileError
	if !errors.As(err, &fe) || err.Error() != path+":22: channel phone: want ntfy://host/topic" || !slices.Equal(checked, []string{"hook", "phone"}) {
		t.Fatalf("error %v after checking %v, want the phone channel's at its line, hook checked first", err, checked)
	}

	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sydney, err := time.LoadLocation("Australia/Sydney")
	if err != nil {
		t.Fatal(err)
	}
	// An empty mirror (before the first sync) leaves the categories
	// unresolved.
	set, err := rules.Load(ctx, path, rules.Options{Zone: sydney, Categories: st, CheckChannel: func(rules.Channel) error { return nil }})
	if err != nil || !set.Unresolved || set.AlertSettings.Zone != sydney {
		t.Fatalf("load on an empty mirror: %v, unresolved %v", err, set != nil && set.Unresolved)
	}
	if err := st.ReplaceCategories(ctx, []bank.Category{{ID: "fuel", Name: "Fuel"}, {ID: "groceries", Name: "Groceries"}}); err != nil {
		t.Fatal(err)
	}
	if set, err = rules.Load(ctx, path, rules.Options{Categories: st}); err != nil || set.Unresolved || set.Rules[0].CategoryID != "fuel" {
		t.Fatalf("load on a mirror with categories: %v", err)
	}
	if err := st.ReplaceCategories(ctx, []bank.Category{{ID: "fuel", Name: "Fuel"}}); err != nil {
		t.Fatal(err)
	}
	if _, err = rules.Load(ctx, path, rules.Options{Categories: st}); !errors.As(err, &fe) || fe.Line != 19 {
		t.Fatalf("a category the mirror lacks: %v, want an error at line 19", err)
	}
}

// The [alert.*] tables are typed at load: each kind's settings, what a
// kind needs and the kinds themselves are checked there.
func TestAlertSettingsAreTypedAtLoad(t *testing.T) {
	s := parse(t, `
[channel.phone]
url = "ntfy://ntfy.example.org/our-money"
[alert.held]
days = 1.5
notify = ["phone", "phone"]
[alert.low_balance]
account = "Savings"
below = 99.995
notify = ["phone"]
[alert.recurring]
notify = ["phone"]
`)
	want := []rules.Alert{
		{Kind: rules.AlertHeld, Notify: []string{"phone"}, Held: rules.Held{After: 36 * time.Hour}, Line: 4},
		{Kind: rules.AlertLowBalance, Notify: []string{"phone"}, LowBalance: rules.LowBalance{Account: "Savings", BelowCents: 10000}, Line: 7},
		{Kind: rules.AlertRecurring, Notify: []string{"phone"}, Line: 11},
	}
	if len(s.Alerts) != len(want) {
		t.Fatalf("alerts %+v", s.Alerts)
	}
	for i := range want {
		if a := s.Alerts[i]; a.Kind != want[i].Kind || !slices.Equal(a.Notify, want[i].Notify) || a.Held != want[i].Held || a.LowBalance != want[i].LowBalance || a.Line != want[i].Line {
			t.Errorf("alert %d: %+v, want %+v", i, a, want[i])
		}
	}

	const phone = "[channel.phone]\nurl = \"https://x/y\"\n\n"
	for _, c := range []struct{ name, text, want string }{
		{"no account", phone + "[alert.low_balance]\nbelow = 200\nnotify = [\"phone\"]\n", "rules.toml:4: alert.low_balance: needs account (a name or an id)"},
		{"no below", phone + "[alert.low_balance]\naccount = \"x\"\nnotify = [\"phone\"]\n", "rules.toml:4: alert.low_balance: below: missing"},
		{"days as text", phone + "[alert.held]\ndays = \"5\"\nnotify = [\"phone\"]\n", "rules.toml:4: alert.held: days: want a number, not 5"},
		{"no notify", phone + "[alert.health]\n", "rules.toml:4: alert.health: needs notify"},
		{"unknown kind", phone + "[alert.weather]\nnotify = [\"phone\"]\n", "rules.toml:4: alert.weather: no such alert: want one of low_balance, held, recurring, health"},
		{"notify not a list", phone + "[alert.health]\nnotify = \"phone\"\n", "rules.toml:4: alert health: notify: want a list of channel names"},
		{"unknown channel", phone + "[alert.health]\nnotify = [\"pager\"]\n", `rules.toml:4: alert health: notify names channel "pager", which has no [channel.pager]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := rules.Parse("rules.toml", []byte(c.text), nil)
			var fe *rules.FileError
			if !errors.As(err, &fe) || err.Error() != c.want {
				t.Fatalf("error %v, want %s", err, c.want)
			}
		})
	}
}

// Rules see the first MaxText bytes of the bank's text: a description of
// 200,000 characters costs each rule no more than a short one.
func TestRulesSeeBoundedText(t *testing.T) {
	long := strings.Repeat("é", 100_000) + "TAIL"
	tx := rules.ToTransaction(&store.RuleTransaction{ID: "t", Description: long, RawText: long, Message: long,
		CreatedLocal: "2025-03-03 10:00:00"}, time.UTC)
	for _, s := range []string{tx.Description, tx.RawText, tx.Message} {
		if len(s) > rules.MaxText || !utf8.ValidString(s) || !strings.HasPrefix(long, s) {
			t.Fatalf("%d bytes seen, want a valid prefix of at most %d", len(s), rules.MaxText)
		}
	}
	set, err := rules.Parse("r.toml", []byte("[[rule]]\nname = \"tail\"\nwhen = 'description endsWith \"TAIL\"'\ntags = [\"x\"]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := evaluate(t, set, tx); len(o.Matched) != 0 {
		t.Fatalf("a rule saw past MaxText: %v", o.Matched)
	}
	if short := rules.ToTransaction(&store.RuleTransaction{Description: "Coffee TAIL"}, time.UTC); short.Description != "Coffee TAIL" {
		t.Fatalf("a short description changed: %q", short.Description)
	}
}
