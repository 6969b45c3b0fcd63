package writeback

import (
	"fmt"
	"strings"

	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// What a write-back did, in words, as the commands print it.

// Shortfall says what a run did not do of what it was asked (refused,
// failed, not attempted, not yet mirrored, invalid lines skipped); "" when
// it did it all.
func (r Report) Shortfall() string {
	var bad []string
	if n := r.Count(Refused); n > 0 {
		bad = append(bad, fmt.Sprintf("%d refused by the bank", n))
	}
	if n := r.Count(Failed); n > 0 {
		bad = append(bad, fmt.Sprintf("%d failed", n))
	}
	if n := r.Count(NotAttempted); n > 0 {
		bad = append(bad, fmt.Sprintf("%d not attempted", n))
	}
	if n := r.Unmirrored(); n > 0 {
		bad = append(bad, fmt.Sprintf("%d applied but not yet in the mirror (the next sync brings them)", n))
	}
	if n := len(r.Invalid); n > 0 {
		bad = append(bad, fmt.Sprintf("%d invalid lines skipped", n))
	}
	return strings.Join(bad, ", ")
}

// Subject names the step's transaction, and its lines in a file.
func (s Step) Subject() string {
	var b strings.Builder
	if len(s.Lines) > 0 && s.Lines[0] > 0 {
		b.WriteString("line")
		if len(s.Lines) > 1 {
			b.WriteString("s")
		}
		for i, l := range s.Lines {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %d", l)
		}
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s \"%s\"", textsafe.Line(s.TxID), textsafe.Line(s.Description))
	return b.String()
}

// Change describes what the step asks of the bank.
func (s Step) Change(op Op) string {
	switch op {
	case Categorize:
		return fmt.Sprintf("category %s -> %s", OrNone(s.Before), OrNone(s.Category))
	case AddTags:
		return "add tags " + quoteAll(s.Labels)
	default:
		return "remove tags " + quoteAll(s.Labels)
	}
}

// Already says why the step needs no request.
func (s Step) Already(op Op) string {
	switch op {
	case Categorize:
		return "category is already " + OrNone(s.Category)
	case AddTags:
		return "already has those tags"
	default:
		return "has none of those tags"
	}
}

// Describe says in one line what became of the result's step.
func (r Result) Describe(op Op) string {
	line := r.Subject() + ": " + r.Change(op) + ": "
	switch r.Status {
	case Applied:
		line += "applied"
		switch {
		case r.MirrorErr != nil:
			line += fmt.Sprintf("; the mirror is not updated yet (%v); the next sync brings it", r.MirrorErr)
		case r.Recorded:
			line += "; mirror updated (transaction_history keeps the previous version)"
		default:
			line += "; mirror already had it"
		}
		if m := r.Mismatch(op); m != "" {
			line += "; but " + m
		}
	case Refused:
		line += "refused by the bank: " + BankDetail(r.Err) + "; nothing changed"
	case Failed:
		line += fmt.Sprintf("failed: %v", r.Err)
	default:
		line += "not attempted"
	}
	return line
}

// OrNone is category c, or None for no category.
func OrNone(c string) string {
	if c == "" {
		return None
	}
	return c
}

func quoteAll(ls []string) string {
	q := make([]string, len(ls))
	for i, l := range ls {
		q[i] = fmt.Sprintf("%q", l)
	}
	return strings.Join(q, ", ")
}
