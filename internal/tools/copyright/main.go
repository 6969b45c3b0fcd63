// Command copyright writes the Debian copyright file of a bankmirror binary:
// bankmirror's licence and that of every module compiled into the binary
// (read from its build information, as go version -m shows it), with the
// full text of each module's licence files from the module cache. It reaches
// no network: the modules must be in the cache (they are after a build).
//
//	go run ./internal/tools/copyright -binary dist/bankmirror \
//	    -modcache "$(go env GOMODCACHE)" -goroot "$(go env GOROOT)" > copyright
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	binary := flag.String("binary", "", "the Go binary to list the modules of")
	modcache := flag.String("modcache", "", "the module cache (go env GOMODCACHE)")
	goroot := flag.String("goroot", "", "the Go installation that built it (go env GOROOT), for Go's licence")
	flag.Parse()
	if err := run(os.Stdout, *binary, *modcache, *goroot); err != nil {
		fmt.Fprintln(os.Stderr, "copyright:", err)
		os.Exit(1)
	}
}
