package health

import (
	"fmt"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/bank"
)

// PersonState is what the daemon knows of one person of the household:
// their token's state and their own request budget (each token has its
// own rate limit).
type PersonState struct {
	Name   string           `json:"name"`
	Token  bank.TokenState  `json:"token"`
	Budget bank.BudgetState `json:"budget"`
}

// rejected lists the people whose token the bank rejected, and the
// earliest rejection.
func rejected(people []PersonState) (names []string, since time.Time) {
	for _, p := range people {
		if !p.Token.Rejected {
			continue
		}
		names = append(names, p.Name)
		if since.IsZero() || p.Token.RejectedAt.Before(since) {
			since = p.Token.RejectedAt
		}
	}
	return names, since
}

// AllRejected reports whether the bank rejected every token: tok, the
// single token's state, or in a household of several people each
// person's.
func AllRejected(tok bank.TokenState, people []PersonState) bool {
	if len(people) < 2 {
		return tok.Rejected
	}
	names, _ := rejected(people)
	return len(names) == len(people)
}

// tokenCheck is the token check of a household: a rejected token stops
// only its person's work, so while another person's token is accepted it
// is DEGRADED naming the person, and not a readiness check (/readyz
// follows the age of the last sync, which the other tokens keep fresh).
// Every token rejected stops everything: FAILING, as for a single token.
func tokenCheck(f Facts) (Check, bool) {
	if len(f.People) < 2 {
		return Check{}, false
	}
	names, since := rejected(f.People)
	switch {
	case len(names) == 0:
		return Check{Name: CheckToken, Level: OK, Readiness: true, Detail: "every person's token accepted at last use"}, true
	case len(names) == len(f.People):
		return Check{Name: CheckToken, Level: Failing, Readiness: true, Detail: fmt.Sprintf(
			"the bank rejected every person's token (401), the first %s ago: syncs and webhook refetches wait for new tokens "+
				"(each person's line in `bankmirror status` says where theirs goes and what makes the daemon take it)", Age(f.Now.Sub(since)))}, true
	}
	return Check{Name: CheckToken, Level: Degraded, Detail: fmt.Sprintf(
		"the bank rejected %s token (401) %s ago: what only %s can see waits for a new token "+
			"(%s line in `bankmirror status` says where it goes and what makes the daemon take it); the others' accounts and the joint ones stay exact",
		possessive(names), Age(f.Now.Sub(since)), strings.Join(names, " and "), possessive(names))}, true
}

// possessive is "sam's", "sam's and kim's".
func possessive(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + "'s"
	}
	return strings.Join(out, " and ")
}

// The states of a person's token, as people.token_state records them.
const (
	tokenOK      = "ok"
	tokenRevoked = "revoked"
	tokenUnknown = "unknown"
)
