// Package rules owns the rules file (BANKMIRROR_RULES_FILE, TOML) and what
// its rules do to transactions: the category they set, the tags they add,
// the channels they notify, and the mirror-only flags
// (exclude_from_spending, note).
//
// A rule's `when` is an expression of github.com/expr-lang/expr over the
// transaction as the bank has it (Transaction's fields, by their expr
// names): conditions never see what an earlier rule did, so a rule's match
// does not depend on the rules above it. Rules run in file order; for the
// category, exclude_from_spending and note the first rule that sets one
// wins; tags and notify accumulate, each once, in order of first mention.
//
// The files, by what they hold:
//
//	file.go    the file's format and its one loader, Load: rules compiled,
//	           channels checked, categories resolved against the mirror's
//	alert.go   the [alerts] table and the built-in [alert.KIND] tables,
//	           each parsed into typed settings at load
//	eval.go    what a `when` sees (Transaction) and the evaluation of a set
//	bounds.go  what a `when` may say, and the limits of one evaluation
//	engine.go  the Engine: the rules on each arrival, the record of what
//	           they did (rule_applications) and the write-back at the bank
//	apply.go   the same over the mirror's history (`rules preview`, `apply`)
//
// Loading and evaluating write nothing. The Engine writes: it records its
// decisions in the mirror (through Mirror), writes them back at the bank
// (through a Writer) and hands notices to a Notifier (the alerts package).
package rules
