package ui

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/rules"
	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/textsafe"
	"github.com/bankmirror/bankmirror/internal/writeback"
)

// The rules page shows the rules file (Options.RulesFile) as it is on
// disk, read at each visit (a file being edited shows at once; `serve`
// takes it on SIGHUP): each rule with its line, what it does, how many of
// the last rulesDays days' transactions it matches, and what
// rule_applications says of its work. It is read-only: rules live in the
// file.

// rulesDays is the window of the page's counts.
const rulesDays = 30

// The matching of one visit reads at most maxRuleTransactions of the
// newest transactions of the window, and fewer with many rules: at most
// maxRuleEvaluations transactions × rules. So a visit's work has a bound
// whatever the size of the mirror or of the file; past it the page says
// how many it read. ruleBatch is how many transactions it reads at a time.
// (Variables for the tests.)
var (
	maxRuleTransactions = 20_000
	maxRuleEvaluations  = 500_000
	ruleBatch           = 1000
)

// ruleRow is a rule of the file, or one that acted before and is no
// longer in it (Line 0).
type ruleRow struct {
	Line       int
	Name, When string
	Does       []string
	Matches    int
	S          store.RuleSummary
	A          store.RuleAlerts
	// LastApplied is the newest action or alert, in the customer's zone.
	LastApplied string
	Unknown     bool // the category is not in the mirror yet
	Removed     bool // no longer in the file
}

// newRuleRow is the row of a rule's work: its actions s and alerts a.
func (h *Handler) newRuleRow(name string, s store.RuleSummary, a store.RuleAlerts) ruleRow {
	return ruleRow{Name: name, S: s, A: a, LastApplied: h.localStamp(max(s.LastAppliedAt, a.LastCreatedAt))}
}

// rules is /rules.
func (h *Handler) rules(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	now := h.o.Now()
	set, missing, fileErr := h.loadRules(ctx)
	if fileErr != nil && ctx.Err() != nil {
		return
	}
	windowStart := now.Add(-rulesDays * 24 * time.Hour).UTC().Format(store.TimeLayout)
	sums, err := h.m.RuleSummaries(ctx, windowStart)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	sent, err := h.m.RuleAlertCounts(ctx, windowStart)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	since := now.In(h.o.Location).AddDate(0, 0, -rulesDays).Format(time.DateOnly)
	var m ruleMatches
	if set != nil {
		if m, err = h.matchRules(ctx, set, since); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	var list, gone []ruleRow
	if set != nil {
		for _, rl := range set.Rules {
			row := h.newRuleRow(rl.Name, sums[rl.Name], sent[rl.Name])
			delete(sums, rl.Name)
			delete(sent, rl.Name)
			row.Line, row.When, row.Does, row.Matches = rl.Line, rl.When, ruleDoes(rl), m.counts[rl.Name]
			row.Unknown = set.Unresolved && rl.SetsCategory()
			list = append(list, row)
		}
	}
	for name, s := range sums {
		row := h.newRuleRow(name, s, sent[name])
		delete(sent, name)
		row.Removed = true
		gone = append(gone, row)
	}
	for name, a := range sent {
		row := h.newRuleRow(name, store.RuleSummary{}, a)
		row.Removed = true
		gone = append(gone, row)
	}
	slices.SortFunc(gone, func(a, b ruleRow) int { return cmp.Compare(a.Name, b.Name) })
	data := struct {
		Path, Error      string
		Loaded, Missing  bool
		Since            string
		Days             int
		Scanned          int
		Capped           bool
		Rules, Gone      []ruleRow
		Channels, Alerts []string
	}{Path: h.o.RulesFile, Missing: missing, Since: since, Days: rulesDays, Scanned: m.scanned, Capped: m.capped, Rules: list, Gone: gone}
	if fileErr != nil {
		data.Error = textsafe.FirstLine(fileErr.Error())
	}
	if set != nil {
		data.Loaded = true
		for name := range set.Channels {
			data.Channels = append(data.Channels, name)
		}
		slices.Sort(data.Channels)
		for _, a := range set.Alerts {
			data.Alerts = append(data.Alerts, a.Kind)
		}
	}
	h.render(w, r, http.StatusOK, "rules", "Rules", data)
}

// errNoRulesFile: the dashboard was given no rules file to show.
var errNoRulesFile = errors.New("no rules file given to the dashboard (BANKMIRROR_RULES_FILE)")

// loadRules reads the rules file and checks it as `bankmirror rules
// check` does, its channels aside (checking one reads its secret, and the
// dashboard reads no secret): nil and why when it is bad or missing. missing says the
// default file is absent, which is no rules.
func (h *Handler) loadRules(ctx context.Context) (set *rules.Set, missing bool, err error) {
	if h.o.RulesFile == "" {
		return nil, false, errNoRulesFile
	}
	if !h.o.RulesFileSet {
		_, err := os.Stat(h.o.RulesFile)
		missing = errors.Is(err, os.ErrNotExist)
	}
	if set, err = rules.Load(ctx, h.o.RulesFile, rules.Options{MissingOK: !h.o.RulesFileSet, Zone: h.o.Location, Categories: h.m}); err != nil {
		return nil, false, err
	}
	return set, missing, nil
}

// ruleMatches is what matchRules counted.
type ruleMatches struct {
	counts  map[string]int
	scanned int
	capped  bool // older transactions of the window were not read
}

// matchRules counts, per rule, the transactions created since the start
// of the local date since that it matches, as `rules check` counts them
// (each rule on the transaction as the bank has it): the newest of them,
// within the budget above.
func (h *Handler) matchRules(ctx context.Context, set *rules.Set, since string) (ruleMatches, error) {
	m := ruleMatches{counts: map[string]int{}}
	if len(set.Rules) == 0 {
		return m, nil
	}
	start, err := time.ParseInLocation(time.DateOnly, since, h.o.Location)
	if err != nil {
		return m, err
	}
	most := max(1, min(maxRuleTransactions, maxRuleEvaluations/len(set.Rules)))
	ids, err := h.m.NewestTransactionIDs(ctx, start.Unix(), most+1)
	if err != nil {
		return m, err
	}
	if len(ids) > most {
		ids, m.capped = ids[:most], true
	}
	for batch := range slices.Chunk(ids, ruleBatch) {
		txs, _, err := h.m.RuleTransactions(ctx, store.RuleQuery{IDs: batch})
		if err != nil {
			return m, err
		}
		for i := range txs {
			o, err := set.Evaluate(ctx, rules.ToTransaction(&txs[i], h.o.Location))
			if err != nil {
				return m, err
			}
			for _, rl := range o.Matched {
				m.counts[rl.Name]++
			}
		}
		m.scanned += len(txs)
	}
	return m, nil
}

// ruleDoes says what a rule does, a phrase an action.
func ruleDoes(r *rules.Rule) []string {
	var out []string
	switch {
	case !r.SetsCategory():
	case r.CategoryID == "" && strings.EqualFold(r.Category, writeback.None):
		out = append(out, "removes the category")
	default:
		out = append(out, "category "+r.Category)
	}
	if len(r.Tags) > 0 {
		out = append(out, "tags "+strings.Join(r.Tags, ", "))
	}
	if r.ExcludeFromSpending != nil {
		if *r.ExcludeFromSpending {
			out = append(out, "leaves it out of spending")
		} else {
			out = append(out, "keeps it in spending")
		}
	}
	if r.Note != nil {
		out = append(out, "note “"+*r.Note+"”")
	}
	if len(r.Notify) > 0 {
		out = append(out, "notifies "+strings.Join(r.Notify, ", "))
	}
	if len(out) == 0 {
		out = append(out, "nothing")
	}
	return out
}

// localStamp is a time of the mirror (store.TimeLayout, UTC) in the
// customer's zone, to the minute; "" stays "".
func (h *Handler) localStamp(s string) string {
	t, err := time.Parse(store.TimeLayout, s)
	if err != nil {
		return s
	}
	return t.In(h.o.Location).Format("2006-01-02 15:04")
}
