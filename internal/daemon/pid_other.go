//go:build !unix

package daemon

// pidAlive cannot tell without kill(2): a stale report then reads as a
// stopped daemon.
func pidAlive(int) bool { return false }
