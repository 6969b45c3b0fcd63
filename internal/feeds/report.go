package feeds

import "fmt"

// Summary says what a push did (or, for a dry run, would do), in the
// words `feeds push` prints after the feed's name.
func (r Report) Summary() string {
	s := fmt.Sprintf("%d created, %d updated, %d deleted, %d found in the app already, %d transfers linked; %d deleted in the app by the person, %d reconciled (left alone), %d waiting for a transfer's other leg",
		r.Created, r.Updated, r.Deleted, r.Adopted, r.Linked, r.DeletedInApp, r.Reconciled, r.Waiting)
	if r.Left > 0 {
		s += fmt.Sprintf("; %d rows of accounts no longer fed left in the app as they are", r.Left)
	}
	return s
}

// First is the first n findings of each kind, in the order found, and
// how many more of each kind there are beyond them.
func (c CheckResult) First(n int) (first []Finding, more map[string]int) {
	seen := map[string]int{}
	more = map[string]int{}
	for _, f := range c.Findings {
		if seen[f.Kind]++; seen[f.Kind] <= n {
			first = append(first, f)
		} else {
			more[f.Kind]++
		}
	}
	return first, more
}
