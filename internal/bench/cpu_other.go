//go:build !unix

package bench

import (
	"os"
	"time"
)

// cpuTime is not measured here: rows per CPU second show as +Inf.
func cpuTime() time.Duration { return 0 }

// childUsage is not measured here.
func childUsage(*os.ProcessState) (time.Duration, float64) { return 0, 0 }
