package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLinksNoTestOnlyCode keeps what only tests and the fake YNAB's
// validation need out of the daemon's binary: package testing (its code
// and data would be file pages of every process), and the OpenAPI, JSON
// Schema and ABNF libraries, whose package initialisation allocates in
// every process, serve included.
func TestBinaryLinksNoTestOnlyCode(t *testing.T) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list bankmirror's packages with")
	}
	out, err := exec.Command(gotool, "list", "-deps", "-tags", "sqlite_fts5", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("go list gave %d packages: %s", len(deps), out)
	}
	for _, p := range deps {
		switch {
		case p == "testing", strings.HasPrefix(p, "testing/"),
			strings.HasPrefix(p, "github.com/getkin/kin-openapi"),
			strings.HasPrefix(p, "github.com/santhosh-tekuri/jsonschema"),
			strings.HasPrefix(p, "github.com/pandatix/go-abnf"),
			strings.HasSuffix(p, "/ynabspec"), strings.HasSuffix(p, "/actualtest"):
			t.Errorf("bankmirror links %s", p)
		}
	}
}
