package ptr_test

import (
	"testing"

	"github.com/bankmirror/bankmirror/internal/ptr"
)

func TestValueAndOr(t *testing.T) {
	s := "fuel"
	if got := ptr.Value(&s); got != "fuel" {
		t.Errorf("Value(&%q) = %q", s, got)
	}
	if got := ptr.Value[string](nil); got != "" {
		t.Errorf("Value(nil) = %q, want \"\"", got)
	}
	if got := ptr.Or(nil, "-"); got != "-" {
		t.Errorf("Or(nil, \"-\") = %q", got)
	}
	empty := ""
	if got := ptr.Or(&empty, "-"); got != "" {
		t.Errorf("Or(&\"\", \"-\") = %q, want the value, \"\"", got)
	}
	n := 0
	if got := ptr.Or(&n, 7); got != 0 {
		t.Errorf("Or(&0, 7) = %d", got)
	}
}
