package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// status (and people) without a mirror where the service has one points
// at the service's mirror, with the command to read it as its owner,
// instead of suggesting a sync that would start a second mirror; without
// a service's mirror it says how to make one.
func TestCLIStatusPointsAtTheServiceMirror(t *testing.T) {
	svc := filepath.Join(t.TempDir(), "bankmirror.db")
	must(t, os.WriteFile(svc, nil, 0o600))
	old := serviceMirror
	serviceMirror = svc
	t.Cleanup(func() { serviceMirror = old })
	db := filepath.Join(t.TempDir(), "bankmirror.db")
	env := map[string]string{"BANKMIRROR_DB": db}

	r := runCLI(t, env, "status")
	wantCode(t, r, 2)
	if !strings.HasPrefix(r.stdout, "FAILING: no mirror at "+db+"; the service's mirror is "+svc+": run ") ||
		!strings.Contains(r.stdout, "BANKMIRROR_DB="+svc+" bankmirror status") || strings.Contains(r.stdout, "sync --full") {
		t.Errorf("status without a mirror, the service's there:\n%s", r)
	}
	if os.Geteuid() == 0 && !strings.Contains(r.stdout, "sudo -u root ") && !strings.Contains(r.stdout, "runuser -u root -- env ") {
		t.Errorf("status as root names neither sudo nor runuser:\n%s", r)
	}
	r = runCLI(t, env, "people")
	wantCode(t, r, 1)
	if !strings.Contains(r.stderr, "the service's mirror is "+svc) || strings.Contains(r.stderr, "sync --full") {
		t.Errorf("people without a mirror, the service's there:\n%s", r)
	}

	must(t, os.Remove(svc))
	r = runCLI(t, env, "status")
	wantCode(t, r, 2)
	if !strings.Contains(r.stdout, "sync --full") || strings.Contains(r.stdout, "service's mirror") {
		t.Errorf("status without any mirror:\n%s", r)
	}
}
