package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestLinkerValuesWin(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.9.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "1111111111111111111111111111111111111111"},
		{Key: "vcs.time", Value: "2020-01-01T00:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	got := get(bi, "1.2.3", "2222222222222222222222222222222222222222", "2026-03-04T05:06:07Z")
	if got.Version != "1.2.3" || got.Commit != "2222222222222222222222222222222222222222" || got.Date != "2026-03-04T05:06:07Z" || got.Modified {
		t.Errorf("linker values not kept: %+v", got)
	}
	if got.GoVersion != "go1.26.8" {
		t.Errorf("GoVersion = %q", got.GoVersion)
	}
}

// A `go install module@version` build knows its module version; a build in
// a checkout knows its commit and the commit's time.
func TestToolchainRecordFillsIn(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	got := get(bi, "", "", "")
	if got.Version != "1.4.0" || got.Commit != "0123456789abcdef0123456789abcdef01234567" || got.Date != "2026-01-02T03:04:05Z" || !got.Modified {
		t.Errorf("toolchain record not used: %+v", got)
	}
	if s := got.Short(); s != "0123456789ab-dirty" {
		t.Errorf("Short() = %q", s)
	}
}

func TestNothingKnown(t *testing.T) {
	for _, bi := range []*debug.BuildInfo{nil, {Main: debug.Module{Version: "(devel)"}}} {
		got := get(bi, "", "", "")
		if got.Version != "dev" || got.Commit != Unknown || got.Date != Unknown || got.Short() != Unknown {
			t.Errorf("%v: %+v", bi, got)
		}
		if !strings.HasPrefix(got.GoVersion, "go") || !strings.Contains(got.Platform, "/") {
			t.Errorf("runtime facts missing: %+v", got)
		}
		// The SQLite library linked in, e.g. 3.50.4.
		if parts := strings.Split(got.SQLite, "."); len(parts) != 3 || parts[0] != "3" {
			t.Errorf("SQLite = %q", got.SQLite)
		}
	}
}
