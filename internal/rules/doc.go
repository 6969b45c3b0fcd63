// Package rules reads the rules file (BANKMIRROR_RULES_FILE, TOML) and
// decides what its rules do to a transaction: the category they set, the
// tags they add, the channels they notify, and the mirror-only flags
// (exclude_from_spending, note).
//
// A rule's `when` is an expression of github.com/expr-lang/expr over the
// transaction as the bank has it (Transaction's fields, by their expr
// names): conditions never see what an earlier rule did, so a rule's match
// does not depend on the rules above it. Rules run in file order; for the
// category, exclude_from_spending and note the first rule that sets one
// wins; tags and notify accumulate, each once, in order of first mention.
//
// The package decides; it writes nothing. Applying the decision (at the
// bank, in the mirror, as alerts) belongs to its callers.
package rules
