package ui

import (
	"context"
	"time"

	"github.com/bankmirror/bankmirror/internal/rules"
)

// SetRuleBudget makes the rules page read at most evaluations / rules
// transactions, batch at a time, until restore is called.
func SetRuleBudget(evaluations, batch int) (restore func()) {
	e, b := maxRuleEvaluations, ruleBatch
	maxRuleEvaluations, ruleBatch = evaluations, batch
	return func() { maxRuleEvaluations, ruleBatch = e, b }
}

// MatchRules counts set's matches in m as the rules page does, from the
// local date since, and says how many transactions it read.
func MatchRules(ctx context.Context, m Mirror, loc *time.Location, set *rules.Set, since string) (scanned int, err error) {
	h := &Handler{m: m, o: Options{Location: loc}}
	r, err := h.matchRules(ctx, set, since)
	return r.scanned, err
}
