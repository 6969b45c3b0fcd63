package store

import (
	_ "embed" // monthly_totals.sql
	"strings"
)

// monthlyTotals is the migration that adds monthly_totals, the monthly
// views summed ahead of time and kept by triggers (monthly_totals.sql).
//
//go:embed monthly_totals.sql
var monthlyTotals string

// monthlyTotalsRebuild fills monthly_totals anew from the transactions:
// monthly_totals.sql's own statements, which do it for an existing mirror.
var monthlyTotalsRebuild = []string{
	sqlStatement(monthlyTotals, "DELETE FROM monthly_totals;"),
	sqlStatement(monthlyTotals, "INSERT INTO monthly_totals "),
	sqlStatement(after(monthlyTotals, "GROUP BY month, kind"), "INSERT INTO monthly_totals "),
}

// after is what follows the first marker in src.
func after(src, marker string) string {
	_, rest, ok := strings.Cut(src, marker)
	if !ok {
		panic("store: no " + marker)
	}
	return rest
}
