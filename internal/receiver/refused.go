package receiver

import (
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/bank"
	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/refusals"
)

// Reasons a request is refused, passed to Config.OnRefused and logged.
const (
	// ReasonPath: not the webhook path (404).
	ReasonPath = "path"
	// ReasonMethod: the webhook path with another method than POST (405).
	ReasonMethod = "method"
	// ReasonSignatureMissing: neither signature header (401).
	ReasonSignatureMissing = "signature_missing"
	// ReasonSignatureMalformed: a signature header that is not 64
	// lowercase hex digits, or that is given twice (401).
	ReasonSignatureMalformed = "signature_malformed"
	// ReasonSignatureInvalid: a well-formed signature that matches none of
	// the secrets; with both headers present, either failing (401).
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
	// ReasonSourceConnections: not a request but a connection, closed by
	// the public listener as soon as it was accepted because its source
	// (an IPv4 address, an IPv6 /64) already held its share of
	// connections (httpserver.PerSourceLimit). The receiver never sees it;
	// the daemon counts it with the others.
	ReasonSourceConnections = "source_connections"
)

// reasons is every reason, in the order of the checks.
var reasons = []string{
	ReasonPath, ReasonMethod, ReasonSignatureMissing, ReasonSignatureMalformed,
	ReasonBodyTooLarge, ReasonBodyTimeout, ReasonBodyIncomplete, ReasonSignatureInvalid,
	ReasonRegistering, ReasonMalformed, ReasonOverloaded, ReasonUnavailable,
	ReasonSourceConnections,
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

// refusalLog keeps refusals from flooding the log (package refusals): the
// first refusal of each reason is logged in full; those after it are
// counted and reported in one summary line per interval while they keep
// coming. After an interval without a refusal, the next one of any reason
// is logged in full again.
type refusalLog struct {
	log    zerolog.Logger
	counts *refusals.Counter
}

func newRefusalLog(log zerolog.Logger, every time.Duration) *refusalLog {
	return &refusalLog{log: log, counts: refusals.New(refusals.Options{Log: log, Level: zerolog.WarnLevel, Every: every,
		Reasons: reasons, Message: "webhook requests refused since the last report"})}
}

// record counts ref and logs it if it is the first of its reason.
func (l *refusalLog) record(ref refusal) {
	if !l.counts.Note(ref.reason) {
		return
	}
	e := l.log.Warn().Str(logfield.Reason, ref.reason).Int(logfield.Status, ref.status) //nolint:zerologlint // sent below
	if ref.eventID != "" {
		e = e.Str(logfield.EventID, bank.LogID(ref.eventID))
	}
	if ref.cause != nil {
		// Decoder messages quote field values; cap them.
		msg := ref.cause.Error()
		if len(msg) > maxLoggedError {
			msg = msg[:maxLoggedError] + "..."
		}
		e = e.Str(zerolog.ErrorFieldName, msg)
	}
	e.Str(logfield.Interval, l.counts.Every().String()).Msg("webhook request refused; more refusals for this reason are counted and summarised once per interval")
}

// flush writes the refusals not reported yet and goes quiet (Close).
func (l *refusalLog) flush() { l.counts.Flush() }
