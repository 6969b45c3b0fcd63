package rules

import (
	"fmt"
	"strings"

	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
	"github.com/bankmirror/bankmirror/internal/writeback"
)

// Describe says what the rule does, short: its actions, for
// `rules check`.
func (r *Rule) Describe() string {
	var parts []string
	if r.SetsCategory() {
		parts = append(parts, "category "+r.Category)
	}
	if len(r.Tags) > 0 {
		parts = append(parts, "tags "+strings.Join(r.Tags, ", "))
	}
	if r.ExcludeFromSpending != nil {
		parts = append(parts, fmt.Sprintf("exclude_from_spending %v", *r.ExcludeFromSpending))
	}
	if r.Note != nil {
		parts = append(parts, "note")
	}
	if len(r.Notify) > 0 {
		parts = append(parts, "notify "+strings.Join(r.Notify, ", "))
	}
	return strings.Join(parts, "; ")
}

// Who is whose transaction it is: the person who made it, else the
// bank's performing customer, else those who see the account.
func Who(t store.RuleTransaction) string {
	switch {
	case t.Person != "":
		return t.Person
	case t.PerformingCustomer != "":
		return t.PerformingCustomer
	default:
		return strings.Join(t.AccountPeople, ",")
	}
}

// DescribeAction says what an action changes on t, for `rules preview`.
func DescribeAction(t store.RuleTransaction, act store.RuleApplication) string {
	switch act.Action {
	case store.RuleCategory:
		return fmt.Sprintf("category %s → %s", writeback.OrNone(t.CategoryID), writeback.OrNone(act.Value))
	case store.RuleTag:
		s := "tag +" + act.Value
		switch act.Error {
		case "":
		case JointTags:
			s += " (mirror only: 2Up)"
		case SeventhTag:
			s += " (mirror only: a 7th tag)"
		default:
			s += " (mirror only)"
		}
		return s
	case store.RuleExclude:
		return "exclude from spending"
	default:
		return "note " + textsafe.Cut(act.Value, 30)
	}
}
