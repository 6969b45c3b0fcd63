package feeds_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/bankmirror/bankmirror/internal/feeds"
)

// check prints the first few findings of each kind and how many more.
func TestCheckResultFirst(t *testing.T) {
	var res feeds.CheckResult
	for i := range 4 {
		res.Findings = append(res.Findings, feeds.Finding{Kind: "missing", TransactionID: string(rune('a' + i))})
	}
	res.Findings = append(res.Findings, feeds.Finding{Kind: "extra", TransactionID: "x"})
	first, more := res.First(2)
	var ids []string
	for _, f := range first {
		ids = append(ids, f.TransactionID)
	}
	if got := strings.Join(ids, ","); got != "a,b,x" {
		t.Errorf("first = %s, want a,b,x", got)
	}
	if !maps.Equal(more, map[string]int{"missing": 2}) {
		t.Errorf("more = %v, want missing 2", more)
	}
	rep := feeds.Report{Created: 3, Adopted: 1, Linked: 4, Waiting: 2}
	if s := rep.Summary(); !strings.HasPrefix(s, "3 created, 0 updated, 0 deleted, 1 found in the app already, 4 transfers linked;") || !strings.HasSuffix(s, "2 waiting for a transfer's other leg") {
		t.Errorf("summary %q", s)
	}
}
