//go:build !ynabspec

package main

import (
	ynabfake "github.com/bankmirror/bankmirror/internal/simulator/ynab"
	"github.com/bankmirror/bankmirror/internal/simulator/ynab/ynabspec"
)

// The tests' `simulator --ynab` (in process, or the test binary re-run as
// a child) validates requests as a build with -tags ynabspec does.
func init() {
	ynabSpec = func() (ynabfake.Spec, error) { return ynabspec.Load() }
}
