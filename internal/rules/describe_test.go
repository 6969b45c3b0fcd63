package rules_test

import (
	"testing"

	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
)

// What rules check and rules preview print: a rule's actions, each
// action's change, and whose transaction it is.
func TestDescriptions(t *testing.T) {
	exclude := true
	r := &rules.Rule{Category: "fuel", Tags: []string{"car", "work"}, ExcludeFromSpending: &exclude, Notify: []string{"phone"}}
	if got, want := r.Describe(), "category fuel; tags car, work; exclude_from_spending true; notify phone"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	tx := store.RuleTransaction{CategoryID: "groceries", AccountPeople: []string{"alex", "sam"}}
	for _, c := range []struct {
		act  store.RuleApplication
		want string
	}{
		{store.RuleApplication{Action: store.RuleCategory, Value: "fuel"}, "category groceries → fuel"},
		{store.RuleApplication{Action: store.RuleTag, Value: "car", Error: rules.JointTags}, "tag +car (mirror only: 2Up)"},
		{store.RuleApplication{Action: store.RuleExclude}, "exclude from spending"},
		{store.RuleApplication{Action: store.RuleNote, Value: "paid back\x1b[2J"}, "note paid back⟨U+001B⟩[2J"},
	} {
		if got := rules.DescribeAction(tx, c.act); got != c.want {
			t.Errorf("DescribeAction(%+v) = %q, want %q", c.act, got, c.want)
		}
	}
	if got := rules.Who(tx); got != "alex,sam" {
		t.Errorf("Who of a joint transaction nobody is named for = %q, want alex,sam", got)
	}
	tx.PerformingCustomer, tx.Person = "Sam", "sam"
	if got := rules.Who(tx); got != "sam" {
		t.Errorf("Who = %q, want the person who made it", got)
	}
}
