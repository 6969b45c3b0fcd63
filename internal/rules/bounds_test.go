package rules_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/rules"
)

// A condition whose work has no bound is refused when the file is read,
// with the file, the line of its when and the rule's name.
func TestUnboundedConditionsAreRefusedAtLoad(t *testing.T) {
	cases := []struct{ name, when, want string }{
		{"reduce (the issue's)", `len(reduce(1..999999, #acc + "xxxxxxxxxx", "")) > 0`, "reduce() is not allowed in a rule"},
		{"repeat", `len(repeat(description, 999999)) > 0`, "repeat() is not allowed in a rule"},
		{"replace", `replace(description, "", description) != ""`, "replace() is not allowed in a rule"},
		{"join", `len(join(map(1..1000, {description}), "")) > 0`, "join() is not allowed in a rule"},
		{"toJSON", `len(toJSON(tags)) > 2`, "toJSON() is not allowed in a rule"},
		{"the clock", `now().Hour() > 20`, "now() is not allowed in a rule"},
		{"a large range", `any(1..999999, {# == 5})`, "at most 1000 apart"},
		{"a range of the data", `any(1..int(amount), {# == 5})`, "whole numbers written in the rule"},
		{"a loop in a loop", `any(1..1000, {any(1..1000, {any(1..1000, {# == 1})})})`, "a loop inside a loop"},
		{"let", `let d = description + description; let e = d + d; len(e) > 0`, "let is not allowed"},
		{"the guard", `_guard()`, "unknown name _guard"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := "# our rules\n\n[[rule]]\nname = \"greedy\"\ntags = [\"x\"]\nwhen = '" + c.when + "'\n"
			_, err := rules.Parse("rules.toml", []byte(text), nil)
			if err == nil {
				t.Fatal("accepted")
			}
			want := `rules.toml:6: rule "greedy": when: ` + c.want
			if !strings.HasPrefix(err.Error(), `rules.toml:6: rule "greedy": when: `) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q, want %q", err, want)
			}
			var fe *rules.FileError
			if !errors.As(err, &fe) || fe.Line != 6 {
				t.Fatalf("error %#v, want a FileError at line 6", err)
			}
		})
	}
}

// What stays allowed still works: loops over tags and small ranges, the
// functions of text, ranges in comparisons.
func TestBoundedConditionsStillWork(t *testing.T) {
	set := parse(t, `
[[rule]]
name = "tagged"
when = 'any(tags, {# startsWith "ho"}) and count(1..10, {# > hour}) == 4 and hour in 1..23 and lower(trim(description)) == "cafe"'
tags = ["x"]
`)
	o := evaluate(t, set, &rules.Transaction{Description: " Cafe ", Tags: []string{"holiday"}, Hour: 6})
	if len(o.Matched) != 1 {
		t.Fatalf("matched %d rules, want 1", len(o.Matched))
	}
}

// pastDeadline is a context whose deadline has passed but which has not
// said so yet (its timer has not fired): only a look at the clock inside
// the evaluation stops it.
type pastDeadline struct{ context.Context }

func (pastDeadline) Deadline() (time.Time, bool) { return time.Unix(1, 0), true }

// A condition that is allowed but takes work (a loop of a thousand steps)
// stops at its caller's deadline, inside the loop, with the context's
// error; without one it runs to its end.
func TestAnAllowedLoopStopsAtTheDeadline(t *testing.T) {
	set := parse(t, `
[[rule]]
name = "every number"
when = 'all(1..1000, {# > 0 and description != string(#)})'
tags = ["x"]
`)
	tx := &rules.Transaction{Description: "Cafe"}
	if o := evaluate(t, set, tx); len(o.Matched) != 1 {
		t.Fatalf("without a deadline: matched %d rules, want 1", len(o.Matched))
	}
	o, err := set.Evaluate(pastDeadline{context.Background()}, tx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("past the deadline: error %v, want context.DeadlineExceeded", err)
	}
	if len(o.Matched) != 0 {
		t.Fatalf("past the deadline: matched %v", o.Matched)
	}
}

// cancelledAfter is a context that is cancelled from its n-th look on:
// cancelled while an evaluation runs.
type cancelledAfter struct {
	context.Context
	n int
}

func (c *cancelledAfter) Err() error {
	if c.n--; c.n <= 0 {
		return context.Canceled
	}
	return nil
}

// Cancelling the caller (a client gone, a signal) stops an evaluation
// under way: its error is the context's.
func TestCancellationStopsAnEvaluation(t *testing.T) {
	set := parse(t, `
[[rule]]
name = "first"
when = 'description == "Cafe"'
tags = ["x"]

[[rule]]
name = "every number"
when = 'all(1..1000, {# > 0})'
tags = ["y"]
`)
	tx := &rules.Transaction{Description: "Cafe"}
	// The first rule runs (one look before it), the second starts (a
	// look before it) and is cancelled inside its loop (the third).
	o, err := set.Evaluate(&cancelledAfter{Context: context.Background(), n: 3}, tx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if len(o.Matched) != 1 || o.Matched[0].Name != "first" {
		t.Fatalf("matched %v, want the first rule only", o.Matched)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := set.Evaluate(ctx, tx); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled context: error %v, want context.Canceled", err)
	}
}

// A condition that makes lists beyond the memory budget fails (and does
// not match) instead of growing.
func TestMemoryBudgetStopsARule(t *testing.T) {
	set := parse(t, `
[[rule]]
name = "lists"
when = 'any(1..1000, {len([#, #, #, #, #, #, #, #, #, #, #, #, #, #, #, #, #, #, #, #, #, #, #, #, #]) == 0})'
tags = ["x"]
`)
	o, err := set.Evaluate(context.Background(), &rules.Transaction{})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Errors) != 1 || !strings.Contains(o.Errors[0].Error(), "memory budget exceeded") || len(o.Matched) != 0 {
		t.Fatalf("errors %v, matched %v; want the memory budget exceeded", o.Errors, o.Matched)
	}
}
