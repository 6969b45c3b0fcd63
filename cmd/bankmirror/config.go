package main

import (
	"fmt"
	"io"

	"github.com/bankmirror/bankmirror/internal/config"
)

// warnSetAside tells on stderr which bad settings cmd runs without; status
// and config report them in their own output.
func warnSetAside(w io.Writer, cmd string, setAside []*config.Error) {
	if cmd == "status" || cmd == "config" || cmd == "version" {
		return
	}
	for _, ce := range setAside {
		fmt.Fprintf(w, "bankmirror: warning: %v (%s does not use it and runs without it; commands that use it refuse to start)\n", ce, cmd)
	}
}
