// Package buildinfo says which build of bankmirror is running: its version,
// commit and the commit's time, the Go release that compiled it and the SQLite
// library linked into it.
//
// A release build sets the three variables with the linker:
//
//	go build -tags sqlite_fts5 -ldflags "-X github.com/bankmirror/bankmirror/internal/buildinfo.Version=1.2.3 \
//	  -X github.com/bankmirror/bankmirror/internal/buildinfo.Commit=$(git rev-parse HEAD) \
//	  -X github.com/bankmirror/bankmirror/internal/buildinfo.Date=$(TZ=UTC git show -s --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd HEAD)"
//
// Any left empty is taken from what the Go toolchain records in the binary
// (runtime/debug.ReadBuildInfo): the module version of a `go install
// module@version` build, and vcs.revision and vcs.time of a build in a git
// checkout.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// Set with -ldflags "-X ...": see the package documentation.
var (
	// Version is the release, without a leading "v" (1.2.3).
	Version string
	// Commit is the git commit the binary was built from.
	Commit string
	// Date is the time of that commit (not of the build, so that a rebuild
	// gives the same binary), RFC 3339 in UTC.
	Date string
)

// Unknown stands for what neither the linker nor the toolchain recorded.
const Unknown = "unknown"

// Info describes the running build.
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	// Modified is true when the build's checkout had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
	// Date is the commit's time.
	Date      string `json:"date"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
	SQLite    string `json:"sqlite_version"`
}

// Get returns the running build's description.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return get(bi, Version, Commit, Date)
}

// get fills the linker's values in from the toolchain's record bi (nil when
// the binary has none).
func get(bi *debug.BuildInfo, version, commit, date string) Info {
	sqlite, _, _ := sqlite3.Version()
	info := Info{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, SQLite: sqlite}
	if bi != nil {
		if info.Version == "" {
			if v := bi.Main.Version; v != "" && v != "(devel)" {
				info.Version = v
			}
		}
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
		vcsCommit, vcsTime, modified := "", "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				vcsCommit = s.Value
			case "vcs.time":
				vcsTime = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		// The toolchain's record describes the checkout only when the
		// linker did not name a commit of its own.
		if info.Commit == "" {
			info.Commit, info.Modified = vcsCommit, modified
			if info.Date == "" {
				info.Date = vcsTime
			}
		}
	}
	info.Version = strings.TrimPrefix(info.Version, "v")
	if info.Version == "" {
		info.Version = "dev"
	}
	if info.Commit == "" {
		info.Commit = Unknown
	}
	if info.Date == "" {
		info.Date = Unknown
	}
	return info
}

// Short is the commit abbreviated to 12 characters, with "-dirty" for a
// modified checkout.
func (i Info) Short() string {
	c := i.Commit
	if len(c) > 12 && c != Unknown {
		c = c[:12]
	}
	if i.Modified {
		c += "-dirty"
	}
	return c
}
