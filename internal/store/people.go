package store

import (
	_ "embed"
)

// householdViews is the migration that adds who made each transaction,
// household transfers and the monthly views per person
// (household_views.sql).
//
//go:embed household_views.sql
var householdViews string
