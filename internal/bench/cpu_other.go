//go:build !unix

package bench

import "time"

// cpuTime is not measured here: rows per CPU second show as +Inf.
func cpuTime() time.Duration { return 0 }
