package health

import (
	"context"
	"encoding/json"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/replica"
	"github.com/bankmirror/bankmirror/internal/store"
)

// ReportKey is the daemon_state key of the daemon's report.
const ReportKey = "daemon"

// Report is what a running daemon says of itself, for `bankmirror status`.
type Report struct {
	PID    int                 `json:"pid"`
	Budget bank.BudgetState    `json:"budget"`
	Worker replica.WorkerState `json:"worker"`
	Sync   *replica.Progress   `json:"sync,omitempty"` // the sync in progress, if any
	Token  bank.TokenState     `json:"token"`
	// People is each person's token and budget, in a household (the
	// fields above are then the first person's).
	People []PersonState `json:"people,omitempty"`
	// DatabaseError is the last write probe's failure, "" when it passed.
	DatabaseError string `json:"database_error,omitempty"`
	// Stopped is set by the daemon's last report when it shuts down.
	Stopped bool `json:"stopped,omitempty"`
	// AdminExposed is the admin listener's address when it is bound beyond
	// loopback ("" when on loopback or off).
	AdminExposed string `json:"admin_exposed,omitempty"`
}

// stateStore is what the reporter needs of the store.
type stateStore interface {
	PutState(ctx context.Context, key string, v any) error
}

var _ stateStore = (*store.Store)(nil)

// RunReporter records snapshot() under ReportKey every interval while it
// changes, and at least once a minute so that its age shows the daemon is
// alive, until ctx ends.
func RunReporter(ctx context.Context, st stateStore, every time.Duration, snapshot func() Report, log zerolog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	var last []byte
	var lastAt time.Time
	for {
		r := snapshot()
		b, err := json.Marshal(r)
		if err == nil && (string(b) != string(last) || time.Since(lastAt) >= time.Minute) {
			if err := st.PutState(ctx, ReportKey, r); err != nil {
				if ctx.Err() != nil {
					return
				}
				log.Debug().Err(err).Msg("record daemon report")
			} else {
				last, lastAt = b, time.Now()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
