package ui

// SetRuleBudget makes the rules page read at most evaluations / rules
// transactions, batch at a time, until restore is called.
func SetRuleBudget(evaluations, batch int) (restore func()) {
	e, b := maxRuleEvaluations, ruleBatch
	maxRuleEvaluations, ruleBatch = evaluations, batch
	return func() { maxRuleEvaluations, ruleBatch = e, b }
}
