package receiver

import (
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Reasons a request is refused, passed to Config.OnRefused and logged.
const (
	// ReasonPath: not the webhook path (404).
	ReasonPath = "path"
	// ReasonMethod: the webhook path with another method than POST (405).
	ReasonMethod = "method"
	// ReasonSignatureMissing: no signature header (401).
	ReasonSignatureMissing = "signature_missing"
	// ReasonSignatureMalformed: a signature header that is not 64
	// lowercase hex digits (401).
	ReasonSignatureMalformed = "signature_malformed"
	// ReasonSignatureInvalid: a well-formed signature that matches none of
	// the secrets (401).
	ReasonSignatureInvalid = "signature_invalid"
	// ReasonRegistering: a signature that matches none of the secrets while
	// a webhook registration is storing a new one (503: the bank retries).
	ReasonRegistering = "registering"
	// ReasonBodyTooLarge: a body over MaxBody, declared or sent (413).
	ReasonBodyTooLarge = "body_too_large"
	// ReasonBodyTimeout: a body not sent within BodyTimeout (408).
	ReasonBodyTimeout = "body_timeout"
	// ReasonBodyIncomplete: the connection failed while the body was read
	// (400, rarely seen by the client).
	ReasonBodyIncomplete = "body_incomplete"
	// ReasonMalformed: an authentic body that is not a valid event (400).
	ReasonMalformed = "malformed"
	// ReasonOverloaded: an authentic event while MaxInFlight others wait
	// for their commit (503: the bank retries).
	ReasonOverloaded = "overloaded"
	// ReasonUnavailable: the secrets or the store failed, or the receiver
	// is stopping (503: the bank retries).
	ReasonUnavailable = "unavailable"
)

// reasons is every reason, in the order of the checks.
var reasons = []string{
	ReasonPath, ReasonMethod, ReasonSignatureMissing, ReasonSignatureMalformed,
	ReasonBodyTooLarge, ReasonBodyTimeout, ReasonBodyIncomplete, ReasonSignatureInvalid,
	ReasonRegistering, ReasonMalformed, ReasonOverloaded, ReasonUnavailable,
}

// Reasons returns every reason OnRefused can be called with, so that
// metrics can start each at zero.
func Reasons() []string { return slices.Clone(reasons) }

// refusal is why a request is refused and what to answer.
type refusal struct {
	reason  string // one of the Reason constants; "" for none
	status  int
	cause   error  // logged, capped; never holds the body or a secret
	eventID string // set once the event is known
	// authentic: the body's signature verified (only the bank, or someone
	// holding a secret, gets such a refusal).
	authentic bool
}

// refusalLog keeps refusals from flooding the log: the first refusal of
// each reason is logged in full; those after it are counted and reported in
// one summary line per interval while they keep coming. After an interval
// without a refusal, the next one of any reason is logged in full again.
type refusalLog struct {
	log   zerolog.Logger
	every time.Duration

	mu     sync.Mutex
	full   map[string]bool // reasons logged in full since the log was last quiet
	counts map[string]int  // refusals since the last summary, not logged in full
	timer  *time.Timer     // the next summary; nil while quiet
	gen    uint64          // which timer is current; a stale one does nothing
}

func newRefusalLog(log zerolog.Logger, every time.Duration) *refusalLog {
	return &refusalLog{log: log, every: every, full: map[string]bool{}, counts: map[string]int{}}
}

// record counts ref and logs it if it is the first of its reason.
func (l *refusalLog) record(ref refusal) {
	l.mu.Lock()
	first := !l.full[ref.reason]
	if first {
		l.full[ref.reason] = true
	} else {
		l.counts[ref.reason]++
	}
	if l.timer == nil {
		// The callback gets its generation by value: it must not read a
		// variable this goroutine writes after AfterFunc returns.
		l.gen++
		gen := l.gen
		l.timer = time.AfterFunc(l.every, func() { l.tick(gen) })
	}
	l.mu.Unlock()
	if !first {
		return
	}
	e := l.log.Warn().Str(logReason, ref.reason).Int(logStatus, ref.status) //nolint:zerologlint // sent below
	if ref.eventID != "" {
		e = e.Str(logEventID, ref.eventID)
	}
	if ref.cause != nil {
		// Decoder messages quote field values; cap them.
		msg := ref.cause.Error()
		if len(msg) > maxLoggedError {
			msg = msg[:maxLoggedError] + "..."
		}
		e = e.Str(zerolog.ErrorFieldName, msg)
	}
	e.Str(logInterval, l.every.String()).Msg("webhook request refused; more refusals for this reason are counted and summarised once per interval")
}

// tick writes the summary of the interval that timer gen closes, or goes
// quiet.
func (l *refusalLog) tick(gen uint64) {
	l.mu.Lock()
	if l.timer == nil || l.gen != gen { // flushed meanwhile
		l.mu.Unlock()
		return
	}
	counts := l.counts
	if len(counts) == 0 {
		l.timer = nil
		clear(l.full)
		l.mu.Unlock()
		return
	}
	l.counts = map[string]int{}
	l.timer.Reset(l.every)
	l.mu.Unlock()
	l.summary(counts)
}

// flush writes the refusals not reported yet and goes quiet (Close).
func (l *refusalLog) flush() {
	l.mu.Lock()
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	counts := l.counts
	l.counts = map[string]int{}
	clear(l.full)
	l.mu.Unlock()
	l.summary(counts)
}

func (l *refusalLog) summary(counts map[string]int) {
	if len(counts) == 0 {
		return
	}
	d := zerolog.Dict()
	total := 0
	for _, r := range reasons {
		if n := counts[r]; n > 0 {
			d = d.Int(r, n)
			total += n
		}
	}
	l.log.Warn().Dict(logRefused, d).Int(logTotal, total).Str(logInterval, l.every.String()).Msg("webhook requests refused since the last report")
}
