//go:build ynabspec

package main

import (
	ynabfake "github.com/bankmirror/bankmirror/internal/simulator/ynab"
	"github.com/bankmirror/bankmirror/internal/simulator/ynab/ynabspec"
)

func init() {
	ynabSpec = func() (ynabfake.Spec, error) { return ynabspec.Load() }
}
