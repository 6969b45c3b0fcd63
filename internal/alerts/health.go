package alerts

import (
	"fmt"
	"time"

	"github.com/bankmirror/bankmirror/internal/health"
	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// UnreachableFor is how long the bank must have been out of reach before
// [alert.health] says so.
const UnreachableFor = time.Hour

// Conditions are what [alert.health] tells of the daemon's facts: each
// person's token the bank rejected, the bank unreachable past an hour,
// the mirror stale (its last sync older than r.StaleAfter). A time is
// shown as the status shows it (r.At: in r.Zone, with its offset).
func Conditions(f health.Facts, r health.Rules) []Condition {
	var out []Condition
	for _, p := range f.People {
		if p.Token.Rejected {
			out = append(out, Condition{Key: "token:" + p.Name, Since: p.Token.RejectedAt,
				Title:   fmt.Sprintf("The bank rejected %s's token", p.Name),
				Message: fmt.Sprintf("The bank answered 401 to %s's token: their accounts are not mirrored until a new token is in place (then systemctl restart bankmirror: the unit copies a credential at start).", p.Name)})
		}
	}
	if len(f.People) == 0 && f.TokenRejected {
		out = append(out, Condition{Key: "token", Since: f.TokenRejectedAt, Title: "The bank rejected the token",
			Message: "The bank answered 401 to the token: nothing is mirrored until a new token is in place (then systemctl restart bankmirror: the unit copies the credential at start)."})
	}
	if o := f.BankOutage; o.Syncs > 0 && f.Now.Sub(o.Since) >= UnreachableFor {
		out = append(out, Condition{Key: "bank_unreachable", Since: o.Since, Title: "The bank is unreachable",
			Message: fmt.Sprintf("The last %d syncs could not reach the bank, since %s: %s", o.Syncs, r.At(o.Since), textsafe.Cut(o.LastError, 200))})
	}
	if r.StaleAfter > 0 && !f.LastSync.IsZero() && f.Now.Sub(f.LastSync) > r.StaleAfter {
		out = append(out, Condition{Key: "stale", Since: f.LastSync, Title: "The mirror is stale",
			Message: fmt.Sprintf("The last successful sync was %s ago.", f.Now.Sub(f.LastSync).Round(time.Minute))})
	}
	return out
}
