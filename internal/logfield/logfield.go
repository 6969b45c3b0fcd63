// Package logfield names the fields of the log once for every package
// (keys.go). The fields that hold a duration have their unit in the name;
// UseUnits makes zerolog write durations in that unit, and is called where
// the program makes its logger.
package logfield

import (
	"time"

	"github.com/rs/zerolog"
)

// DurationUnit is the unit of every duration field: a key below ends in
// "_ms" because durations are written in it.
const DurationUnit = time.Millisecond

// Duration fields, written with zerolog's Dur: milliseconds, with a
// fraction (595.87 is 595.87 ms).
const (
	// Duration is how long something took.
	Duration = "duration_ms"
	// Wait is how long a request waits before it is retried.
	Wait = "wait_ms"
	// RetryIn is how long until the next attempt.
	RetryIn = "retry_in_ms"
	// ETA is the estimated time left.
	ETA = "eta_ms"
	// StopShare is the part of serve's stop budget a step had.
	StopShare = "share_ms"
)

// UseUnits makes zerolog write durations as the keys say: in
// DurationUnit, with a fraction. zerolog's settings are global: call it
// where the program makes its logger, before anything is logged. It writes
// them only if they differ (zerolog's defaults are these), so that calling
// it again beside loggers already writing is no data race.
func UseUnits() {
	if zerolog.DurationFieldUnit != DurationUnit || zerolog.DurationFieldInteger {
		zerolog.DurationFieldUnit = DurationUnit
		zerolog.DurationFieldInteger = false
	}
}
