package simulator

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// The customers of the bank. A bank is a household: Options.People names
// its customers, each with a token of their own (and so a rate-limit
// bucket of their own, the limiter counting per token), a customer id
// (GET /util/ping's meta.id), own accounts only they see, and webhooks
// only they list, ping, read the logs of and delete. Every person sees the
// one 2Up joint account (ownershipType JOINT) and its transactions, with
// the same ids. Without Options.People the bank is a household of one, as
// it has always been: one customer who sees every account, the joint one
// included.

// ErrUnknownPerson is returned for a name that is not one of Options.People.
var ErrUnknownPerson = errors.New("simulator: unknown person")

// ErrJointTags is returned when tags are set on a transaction of the joint
// account of a household: the real bank does not allow tags on 2Up
// transactions.
var ErrJointTags = errors.New("simulator: tags cannot be added to transactions of a 2Up (joint) account")

// soloPerson is the name of the customer of a household of one.
const soloPerson = "bobby"

// surnames give the people of a household their full names, in order.
var surnames = []string{"Jones", "Smith", "Nguyen", "Taylor", "Brown", "Wilson", "Chen", "Martin"}

var personName = regexp.MustCompile(`^[a-z0-9_-]{1,32}$`)

// CheckPeople checks the names of Options.People: each [a-z0-9_-], 1-32
// characters, no two the same.
func CheckPeople(names []string) error {
	for i, n := range names {
		if !personName.MatchString(n) {
			return fmt.Errorf("person name %q: want 1-32 characters of a-z, 0-9, _ and -", n)
		}
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("person %q named twice", n)
		}
	}
	return nil
}

// Person is one customer of the bank, as People and PersonOf report them.
type Person struct {
	Name        string   // as in Options.People, e.g. "alex"
	DisplayName string   // performingCustomer.displayName of what they do, e.g. "Alex"
	FullName    string   // how the bank names them to others (Up-to-Up payments), e.g. "Alex Jones"
	CustomerID  string   // meta.id of GET /util/ping with their token
	Token       string   // the token accepted now; "" while revoked
	Revoked     bool     // RevokePersonToken was called and not undone
	CardSuffix  string   // last four digits of their card
	AccountIDs  []string // their own (INDIVIDUAL) accounts, oldest first
	Requests    int64    // API requests authenticated with their token, rate-limited ones included
}

// person is the state of one customer.
type person struct {
	name, display, full string
	initialToken        string // Options' token: Reset restores it

	// Set by the first seed; immutable after New.
	customerID string
	card       string
	own        []string        // own accounts, oldest first
	sees       map[string]bool // accounts they see; nil = every account

	tokMu   sync.Mutex
	token   string // "" = revoked
	revoked string // the token RevokePersonToken took away

	requests atomic.Int64
	record   requestRecord
}

// initPeople makes the people of Options (one when none are named).
func (b *Bank) initPeople() {
	names := b.opts.People
	b.household = len(names) > 0
	if !b.household {
		names = []string{soloPerson}
	}
	b.personByName = make(map[string]*person, len(names))
	for i, n := range names {
		p := &person{name: n, display: capitalise(n), full: capitalise(n) + " " + surnames[i%len(surnames)]}
		p.initialToken = b.opts.Tokens[n]
		if i == 0 {
			p.initialToken = b.opts.Token
		}
		if p.initialToken == "" {
			p.initialToken = randomToken()
		}
		if !b.household {
			p.display, p.full = primaryPerson, primaryPerson+" "+surnames[0]
		}
		p.token = p.initialToken
		b.people = append(b.people, p)
		b.personByName[n] = p
	}
}

// capitalise upper-cases the first letter: "alex" is "Alex".
func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// settle records what the first seed drew for a household of one: the
// customer id and every account; sees nil = all of them.
func (p *person) settle(customerID string, accounts []*Account, sees map[string]bool) {
	if p.customerID != "" {
		return
	}
	p.customerID, p.sees = customerID, sees
	if p.card == "" {
		p.card = "4821"
	}
	for _, a := range accounts {
		if a.OwnershipType == "INDIVIDUAL" && (sees == nil || sees[a.ID]) {
			p.own = append(p.own, a.ID)
		}
	}
}

// sees reports whether the person sees the account.
func (p *person) canSee(accountID string) bool { return p.sees == nil || p.sees[accountID] }

func (p *person) currentToken() string {
	p.tokMu.Lock()
	defer p.tokMu.Unlock()
	return p.token
}

func (p *person) setToken(token string) {
	p.tokMu.Lock()
	defer p.tokMu.Unlock()
	p.token, p.revoked = token, ""
}

func (p *person) revoke() {
	p.tokMu.Lock()
	defer p.tokMu.Unlock()
	if p.token != "" {
		p.revoked = p.token
	}
	p.token = ""
}

// restore undoes revoke: the revoked token works again.
func (p *person) restore() string {
	p.tokMu.Lock()
	defer p.tokMu.Unlock()
	if p.token == "" && p.revoked != "" {
		p.token, p.revoked = p.revoked, ""
	}
	return p.token
}

// personNamed finds a person by name.
func (b *Bank) personNamed(name string) (*person, error) {
	p, ok := b.personByName[name]
	if !ok {
		return nil, fmt.Errorf("%q: %w", name, ErrUnknownPerson)
	}
	return p, nil
}

// info is the exported view of p.
func (p *person) info() Person {
	p.tokMu.Lock()
	tok, revoked := p.token, p.token == ""
	p.tokMu.Unlock()
	return Person{Name: p.name, DisplayName: p.display, FullName: p.full, CustomerID: p.customerID,
		Token: tok, Revoked: revoked, CardSuffix: p.card, AccountIDs: slices.Clone(p.own), Requests: p.requests.Load()}
}

// People lists the bank's customers in Options.People order (one,
// "bobby", in a household of one).
func (b *Bank) People() []Person {
	out := make([]Person, len(b.people))
	for i, p := range b.people {
		out[i] = p.info()
	}
	return out
}

// PersonOf reports one person.
func (b *Bank) PersonOf(name string) (Person, error) {
	p, err := b.personNamed(name)
	if err != nil {
		return Person{}, err
	}
	return p.info(), nil
}

// PersonToken is the token the person's requests are accepted with now,
// "" while revoked or for an unknown name.
func (b *Bank) PersonToken(name string) string {
	p, ok := b.personByName[name]
	if !ok {
		return ""
	}
	return p.currentToken()
}

// PersonAccounts lists the ids of the person's own (INDIVIDUAL) accounts,
// oldest first (the transactional "Spending" account first); nil for an
// unknown name. The joint account is JointAccount.
func (b *Bank) PersonAccounts(name string) []string {
	p, ok := b.personByName[name]
	if !ok {
		return nil
	}
	return slices.Clone(p.own)
}

// AccountPeople lists the names of the people who see the account, in
// Options.People order.
func (b *Bank) AccountPeople(accountID string) []string {
	out := []string{}
	for _, p := range b.people {
		if p.canSee(accountID) {
			out = append(out, p.name)
		}
	}
	return out
}

// JointAccount is the id of the 2Up joint account every person sees.
func (b *Bank) JointAccount() string { return b.jointAccount }

// RevokePersonToken revokes the person's token: their API requests are
// answered 401 until RestorePersonToken or RotatePersonToken; the other
// people's tokens keep working.
func (b *Bank) RevokePersonToken(name string) error {
	p, err := b.personNamed(name)
	if err != nil {
		return err
	}
	p.revoke()
	return nil
}

// RestorePersonToken makes the token RevokePersonToken took away work
// again and returns it (the current token when it was not revoked).
func (b *Bank) RestorePersonToken(name string) (string, error) {
	p, err := b.personNamed(name)
	if err != nil {
		return "", err
	}
	return p.restore(), nil
}

// RotatePersonToken gives the person a new token (token, or a random one
// when ""), as when they generate one in the app, and returns it; the old
// token stops working at once. The new token starts a fresh rate-limit
// bucket.
func (b *Bank) RotatePersonToken(name, token string) (string, error) {
	p, err := b.personNamed(name)
	if err != nil {
		return "", err
	}
	if token == "" {
		token = randomToken()
	}
	p.setToken(token)
	return token, nil
}

// PersonRequestCounts lists the API requests authenticated with the
// person's token, by route, method and status, as RequestCounts does for
// every request; nil for an unknown name.
func (b *Bank) PersonRequestCounts(name string) []RequestCount {
	p, ok := b.personByName[name]
	if !ok {
		return nil
	}
	return p.record.list()
}

// PersonBucketUsed is the number of the person's requests counted against
// their current token's rate-limit bucket now (0 without a rate limit):
// Limit minus this is what X-RateLimit-Remaining would say.
func (b *Bank) PersonBucketUsed(name string) int {
	p, ok := b.personByName[name]
	if !ok {
		return 0
	}
	return b.limiter.usedBy(p.currentToken(), b.now())
}

// tokenPerson finds the person whose token this is.
func (b *Bank) tokenPerson(token string) *person {
	var found *person
	for _, p := range b.people {
		if want := p.currentToken(); want != "" && constantTimeEqual(token, want) && found == nil {
			found = p
		}
	}
	return found
}
