// Package simulator is an in-process simulated bank that serves the bank API
// (the project's spec, modelled on Up Banking's API v1) over HTTP, in the
// spirit of stripe-mock. It seeds deterministic, realistic data and has a
// control API so tests can create, settle and delete transactions and
// inject faults while a client talks to it.
//
// Behaviour where the spec is silent:
//   - Every request is counted, then delayed by Faults.Latency, then
//     authenticated (401), then rate limited (429), then subject to injected
//     faults (429, 5xx), then routed (404 unknown path, 405 wrong method).
//   - Transactions are listed newest first by (createdAt, id) descending;
//     cursors are keyset positions, so pages are stable under inserts.
//     filter[since] is inclusive and filter[until] exclusive.
//   - Accounts are listed oldest first, attachments newest first, tags by
//     label (byte order). Default page size 20, maximum 100.
//   - An empty filter[tag] matches nothing; a malformed query string is 400.
//   - Webhooks are simulated with asynchronous, signed, retried delivery;
//     see webhooks.go for the choices made there.
//   - Attachment fileURLs point at {server}/files/attachments/..., signed
//     links served without the API token until fileURLExpiresAt (files.go).
//   - Cursors are the real bank's: padded standard base64 of a JSON array.
//   - With RateLimit set, every authenticated response carries
//     X-RateLimit-Remaining; the limit is checked after authentication and
//     before injected faults (ratelimit.go).
//   - The control API is served under /_sim/ (control_http.go).
//   - With Options.People the bank is a household: a token per person, who
//     sees only their own accounts and the shared joint account, and
//     their own webhooks (people.go, household.go).
//
// The simulator imports none of the daemon's packages.
package simulator

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	mrand "math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Sentinel errors returned by the control API.
var (
	ErrNotFound         = errors.New("simulator: transaction not found")
	ErrNotHeld          = errors.New("simulator: transaction is not HELD")
	ErrTooManyTags      = errors.New("simulator: a transaction carries at most 6 tags")
	ErrNotCategorizable = errors.New("simulator: transaction is not categorizable")
	ErrInvalidCategory  = errors.New("simulator: not a child category")
	ErrInvalidTag       = errors.New("simulator: invalid tag label")

	ErrUnknownAccount    = errors.New("simulator: unknown account")
	ErrInvalidAttachment = errors.New("simulator: attachment content type must be image/jpeg, image/png or application/pdf")
	ErrInvalidTransfer   = errors.New("simulator: invalid transfer")
)

// rngStream is the PCG stream of the data's rng (the seed is Options.Seed).
const rngStream = 0x5eed_ba4c_0ff1_ce

// faultStream is the PCG stream of the faults' rng.
const faultStream = 0xfa17

// maxTags is the spec's limit of tags per transaction.
const maxTags = 6

// Options configures New.
type Options struct {
	Seed         uint64           // deterministic data for the same Seed+Transactions+Now
	Transactions int              // number of seeded transactions (default 2000 if 0)
	Empty        bool             // seed no transactions at all (Transactions is ignored)
	Token        string           // bearer token accepted; if "" New generates a random one
	Now          func() time.Time // clock; default time.Now
	RateLimit    RateLimit        // hourly-bucket rate limiting; zero = none (see SetRateLimit)
	ControlToken string           // bearer token of the control API under /_sim/; "" = a random one
	PublicURL    string           // API base URL written into links, e.g. https://api.up.com.au/api/v1; "" = the address the client used

	// PageCacheBytes bounds the memory of rendered transaction pages kept
	// for repeated listings (default 256 MiB; negative = no page cache).
	PageCacheBytes int64

	// Webhook delivery (zero = default).
	WebhookRetryBase   time.Duration // first retry delay, doubled per attempt (default 30s)
	WebhookRetryMax    time.Duration // cap of the retry delay (default 1h)
	WebhookMaxAttempts int           // attempts per delivery before giving up (default 8)
	WebhookTimeout     time.Duration // per attempt (default 30s, as the spec says)
	WebhookWorkers     int           // concurrent deliveries (default 4)
	HTTPClient         *http.Client  // for deliveries; default: a client with WebhookTimeout that does not follow redirects

	// WebhookSignatureHeader is the header deliveries carry their
	// signature in: SignatureHeader (the spec's) when "", UpSignatureHeader
	// for the real bank's. An invalid header name makes every delivery
	// fail as UNDELIVERABLE.
	WebhookSignatureHeader string

	// People makes the bank a household (see household.go): one customer
	// per name (CheckPeople: [a-z0-9_-], 1-32 characters, distinct), each
	// with a token, a customer id, own accounts and webhooks, all sharing
	// one 2Up joint account. nil is a household of one: the customer
	// "bobby" (Bobby) with every account, as the bank has always been.
	People []string
	// Tokens are the people's tokens by name; a person without one gets a
	// random token. Token is the first person's when this has none.
	Tokens map[string]string
	// JointTransactions is the number of seeded transactions on the joint
	// account of a household, besides each person's Transactions (0 =
	// Transactions/5; negative or Empty = none).
	JointTransactions int
	// JointWebhooks sends the events of the joint account to every
	// person's webhooks. Off by default, as the real bank sends none
	// (up-banking/api#142).
	JointWebhooks bool
}

// Money is an amount in the smallest unit of a currency.
type Money struct {
	CurrencyCode     string
	ValueInBaseUnits int64
}

// Value is the decimal text form of the amount, e.g. "-12.50".
func (m Money) Value() string { return string(appendDecimal(nil, m)) }

// Account is an account of the simulated customer.
type Account struct {
	ID            string
	DisplayName   string
	AccountType   string // SAVER, TRANSACTIONAL, HOME_LOAN
	OwnershipType string // INDIVIDUAL, JOINT
	// Balance is the available balance: OpeningBalance plus the amounts of
	// all the account's transactions, HELD ones included.
	Balance        Money
	OpeningBalance Money // the balance before the account's first transaction
	CreatedAt      time.Time
}

// Category is a node of the fixed two-level category tree.
type Category struct {
	ID       string
	Name     string
	ParentID string // "" for a parent (top-level) category
}

// HoldInfo is the amount of a transaction while it was HELD.
type HoldInfo struct {
	Amount        Money
	ForeignAmount *Money
}

// RoundUp describes a Round Up applied to a purchase (negative amounts).
type RoundUp struct {
	Amount       Money
	BoostPortion *Money
}

// Cashback is an instant reimbursement (positive amount).
type Cashback struct {
	Description string
	Amount      Money
}

// CardPurchaseMethod describes the card used.
type CardPurchaseMethod struct {
	Method           string // BAR_CODE, OCR, CARD_PIN, CARD_DETAILS, CARD_ON_FILE, ECOMMERCE, MAGNETIC_STRIPE, CONTACTLESS
	CardNumberSuffix *string
}

// Transaction is the simulator's truth about one transaction. Nil pointers
// and empty IDs render as JSON null.
type Transaction struct {
	ID                 string
	AccountID          string
	Status             string // HELD, SETTLED
	RawText            *string
	Description        string
	Message            *string
	IsCategorizable    bool
	HoldInfo           *HoldInfo
	RoundUp            *RoundUp
	Cashback           *Cashback
	Amount             Money
	ForeignAmount      *Money
	CardPurchaseMethod *CardPurchaseMethod
	SettledAt          *time.Time
	CreatedAt          time.Time
	TransactionType    *string
	Note               *string // NoteObject.text
	PerformingCustomer *string // CustomerObject.displayName
	TransferAccountID  string
	CategoryID         string
	ParentCategoryID   string
	Tags               []string
	AttachmentID       string
}

// Attachment is a file attached to a transaction.
type Attachment struct {
	ID              string
	TransactionID   string
	CreatedAt       time.Time
	FileExtension   string
	FileContentType string
}

// Snapshot is a deep copy of the simulator's state.
type Snapshot struct {
	Accounts     []Account
	Categories   []Category
	Transactions []Transaction // newest first
	Attachments  []Attachment
}

// txn is a stored transaction plus its render cache.
type txn struct {
	Transaction
	cache atomic.Pointer[renderCache]
}

// renderCache holds the rendered TransactionResource for one base URL.
type renderCache struct {
	base string
	json []byte
}

// Bank is a simulated bank. All methods are safe for concurrent use.
type Bank struct {
	controlToken string
	customerID   string
	clock        clock
	now          func() time.Time // clock.Now
	opts         Options          // as given to New, defaults applied: Reset seeds from them
	seededAt     time.Time        // the clock when New seeded the data
	publicURL    string
	secret       []byte // signs attachment download URLs

	requests atomic.Int64
	record   requestRecord
	faults   faultState
	limiter  rateLimiter

	mu          sync.RWMutex
	rng         *mrand.Rand // guarded by mu
	accounts    []*Account  // stable order: createdAt asc, id asc
	accountByID map[string]*Account
	mainAccount string
	jointPeople []string
	categories  []Category // parents first, each followed by its children, sorted by id
	categoryMap map[string]*Category
	txs         []*txn // createdAt desc, id desc
	txByID      map[string]*txn
	attachments []*Attachment // createdAt desc, id desc
	attByID     map[string]*Attachment
	tagCount    map[string]int
	held        map[string]*txn // the HELD transactions, for LiveStep
	writeLog    writeLog        // the API's write-backs (GET /_sim/writes)

	gen   atomic.Uint64 // data generation: bumped by every mutation, under mu
	pages pageCache
	live  liveRunner

	wh              webhookState
	replaceOnSettle atomic.Bool

	// The household: immutable after New (a person's accounts are set by
	// the first seed; a Reset draws the same ids again).
	household    bool                      // Options.People was set
	people       []*person                 // in Options.People order; one person when !household
	personByName map[string]*person        // people by name
	jointAccount string                    // the 2Up account every person sees
	owner        map[string]*person        // the person of each INDIVIDUAL account of a household
	accountTags  map[string]map[string]int // tags in use per account; guarded by mu
}

// New builds a bank seeded with deterministic data.
func New(opts Options) *Bank {
	if opts.Transactions <= 0 {
		opts.Transactions = 2000
	}
	if opts.Empty {
		opts.Transactions = 0
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := CheckPeople(opts.People); err != nil {
		panic("simulator: " + err.Error())
	}
	if opts.Token == "" && len(opts.People) > 0 {
		opts.Token = opts.Tokens[opts.People[0]]
	}
	if opts.Token == "" {
		opts.Token = randomToken()
	}
	if opts.ControlToken == "" {
		opts.ControlToken = randomToken()
	}
	b := &Bank{
		opts:         opts,
		controlToken: opts.ControlToken,
		clock:        clock{base: opts.Now},
		publicURL:    strings.TrimSuffix(opts.PublicURL, "/"),
		rng:          mrand.New(mrand.NewPCG(opts.Seed, rngStream)), //nolint:gosec // seeded on purpose: the same data for the same seed
	}
	b.now = b.clock.Now
	b.initPeople()
	b.pages.max = opts.PageCacheBytes
	if b.pages.max == 0 {
		b.pages.max = defaultPageCacheBytes
	}
	b.limiter.set(opts.RateLimit)
	b.faults.rng = mrand.New(mrand.NewPCG(opts.Seed, faultStream))
	b.wh.init(opts)
	b.seededAt = b.now()
	b.seed(opts.Transactions, b.seededAt)
	return b
}

// randomToken returns 32 random bytes, hex-encoded.
func randomToken() string {
	var buf [32]byte
	if _, err := rand.Read(buf[:]); err != nil {
		panic("simulator: crypto/rand: " + err.Error())
	}
	return hex.EncodeToString(buf[:])
}

// Token is the bearer token the bank accepts: the first person's in a
// household (see PersonToken); "" while revoked.
func (b *Bank) Token() string { return b.people[0].currentToken() }

// Requests is the number of HTTP requests served, faulted ones included.
func (b *Bank) Requests() int64 { return b.requests.Load() }

// Snapshot returns a deep copy of the bank's state.
func (b *Bank) Snapshot() Snapshot {
	b.mu.RLock()
	defer b.mu.RUnlock()
	s := Snapshot{
		Accounts:     make([]Account, len(b.accounts)),
		Categories:   append([]Category(nil), b.categories...),
		Transactions: make([]Transaction, len(b.txs)),
		Attachments:  make([]Attachment, len(b.attachments)),
	}
	for i, a := range b.accounts {
		s.Accounts[i] = *a
	}
	for i, t := range b.txs {
		s.Transactions[i] = t.clone()
	}
	for i, a := range b.attachments {
		s.Attachments[i] = *a
	}
	return s
}

// changedLocked marks the data as changed, so that no cached page of the
// previous generation is served again; b.mu is held for writing.
func (b *Bank) changedLocked() { b.gen.Add(1) }

// clone deep-copies a transaction.
func (t Transaction) clone() Transaction {
	c := t
	c.RawText = clonePtr(t.RawText)
	c.Message = clonePtr(t.Message)
	c.ForeignAmount = clonePtr(t.ForeignAmount)
	c.SettledAt = clonePtr(t.SettledAt)
	c.TransactionType = clonePtr(t.TransactionType)
	c.Note = clonePtr(t.Note)
	c.PerformingCustomer = clonePtr(t.PerformingCustomer)
	c.Tags = append([]string(nil), t.Tags...)
	if t.HoldInfo != nil {
		c.HoldInfo = &HoldInfo{Amount: t.HoldInfo.Amount, ForeignAmount: clonePtr(t.HoldInfo.ForeignAmount)}
	}
	if t.RoundUp != nil {
		c.RoundUp = &RoundUp{Amount: t.RoundUp.Amount, BoostPortion: clonePtr(t.RoundUp.BoostPortion)}
	}
	if t.Cashback != nil {
		cb := *t.Cashback
		c.Cashback = &cb
	}
	if t.CardPurchaseMethod != nil {
		c.CardPurchaseMethod = &CardPurchaseMethod{Method: t.CardPurchaseMethod.Method, CardNumberSuffix: clonePtr(t.CardPurchaseMethod.CardNumberSuffix)}
	}
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func ptr[T any](v T) *T { return &v }

// txBefore reports whether a is listed before b (newest first, id desc).
func txBefore(a, b *Transaction) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	return a.ID > b.ID
}
