//go:build !race

package logfield_test

// raceEnabled: the test binary is built with -race.
const raceEnabled = false
