package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// After a sync, people shows each person's customer id (the bank's
// /util/ping id, learned once), and people --json has snake_case keys and
// no zero times.
func TestCLIPeopleShowsCustomerIDs(t *testing.T) {
	b, env, _ := householdCLI(t)
	wantCode(t, runCLI(t, env, "sync", "--full"), 0)
	ids := map[string]string{}
	for _, p := range b.sim.People() {
		ids[p.Name] = p.CustomerID
	}
	r := runCLI(t, env, "people")
	wantCode(t, r, 0)
	for name, id := range ids {
		if id == "" || !regexp.MustCompile(`(?m)^`+name+`\s+`+regexp.QuoteMeta(id)+`\s`).MatchString(r.stdout) {
			t.Errorf("people does not show %s's customer id %q:\n%s", name, id, r.stdout)
		}
	}

	r = runCLI(t, env, "people", "--json")
	wantCode(t, r, 0)
	var people []map[string]any
	must(t, json.Unmarshal([]byte(r.stdout), &people))
	if len(people) != 2 {
		t.Fatalf("people --json: %s", r.stdout)
	}
	for _, p := range people {
		name, _ := p["name"].(string)
		if p["customer_id"] != ids[name] {
			t.Errorf("people --json: %s's customer_id = %v, want %q", name, p["customer_id"], ids[name])
		}
	}
	if k := regexp.MustCompile(`"[A-Z][A-Za-z]*":`).FindString(r.stdout); k != "" || strings.Contains(r.stdout, "0001-01-01") {
		t.Errorf("people --json has a Go field name (%s) or a zero time:\n%s", k, r.stdout)
	}
}
