package replica

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// OutageKey is the daemon_state key of the bank outage that syncs met.
const OutageKey = "bank_outage"

// Outage is the syncs that failed in a row because the bank or the network
// did (bank.Outage), since the last that did not: what `bankmirror status`
// reports as DEGRADED. The next successful sync clears it.
type Outage struct {
	// Since is when the first of them started.
	Since time.Time `json:"since"`
	// Syncs counts them.
	Syncs int `json:"syncs"`
	// LastError is the last one's cause (bank.Cause), LastAt when it
	// ended.
	LastError string    `json:"last_error"`
	LastAt    time.Time `json:"last_at"`
	// RetryAt is when the daemon's schedule syncs again (zero: unknown,
	// the failed syncs were not the daemon's).
	RetryAt time.Time `json:"retry_at,omitzero"`
}

// recordOutage keeps the Outage up to date after a run that started at
// start: one more failed sync when runErr is the bank's or the network's
// failure, none after a success; another failure leaves it as it is. Its
// own failure is logged: the run's outcome is recorded already.
func (s *Syncer) recordOutage(ctx context.Context, start time.Time, runErr error, log zerolog.Logger) {
	if runErr != nil && !bank.Outage(runErr) {
		return
	}
	var o Outage
	_, ok, err := s.store.GetState(ctx, OutageKey, &o)
	if err == nil {
		switch {
		case runErr == nil && (!ok || o.Syncs == 0):
			return
		case runErr == nil:
			o = Outage{}
		default:
			if o.Syncs == 0 {
				o.Since = start.UTC()
			}
			o.Syncs++
			o.LastError, o.LastAt, o.RetryAt = bank.Cause(runErr), s.now().UTC(), time.Time{}
		}
		err = s.store.PutState(ctx, OutageKey, o)
	}
	if err != nil {
		log.Warn().Err(err).Msg("record the bank outage for status")
	}
}
