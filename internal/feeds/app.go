// Package feeds puts the mirror's transactions into the household's
// budgeting app (Actual Budget, YNAB) and keeps them exact as the bank
// changes: one row per bank transaction of each fed account, carrying the
// bank transaction's id as its import id; holds that settle are updated,
// deletions removed, transfers between fed accounts linked as the app
// links them. What the person does in the app stands.
//
// The engine (engine.go) follows transaction_history through a cursor per
// feed and keeps a map of bank id to app id in the mirror; each app is one
// file of its own package implementing [Opener] and [Session], the one
// small interface the engine asks of an app.
package feeds

import (
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"
)

// Opener is one app kind: it opens a session with the app for a round.
type Opener interface {
	// Open starts a session with the budget target names (Actual: starts
	// its client and downloads the budget; YNAB: finds the plan).
	Open(ctx context.Context, target Target) (Session, error)
	// Pace is the least time between two rounds of a feed to this app
	// (YNAB's request budget), 0 for none.
	Pace() time.Duration
}

// Target is what a session opens: one feed's app and budget.
type Target struct {
	Feed   string // the feed's name
	URL    string // the app's server (Actual), or a test server (YNAB); "" for the app's default
	Secret string // Actual's server password, YNAB's personal access token
	Budget string // Actual: sync id or budget name; YNAB: plan id or name
	// Dir is a directory of the feed's own (<directory of the mirror>/feeds/NAME):
	// Actual keeps its client and the budget's local copy there.
	Dir string
	Log zerolog.Logger
}

// Session is one round's use of an app. Amounts are in the currency's
// base units (cents) whatever the app counts in; dates are YYYY-MM-DD.
type Session interface {
	// Accounts lists the budget's open accounts.
	Accounts(ctx context.Context) ([]Account, error)
	// Categories lists the budget's categories.
	Categories(ctx context.Context) ([]Category, error)
	// Rows lists the app's transactions on the accounts (app ids) dated
	// on or after since ("" for all). Rows the person deleted are absent.
	Rows(ctx context.Context, accounts []string, since string) ([]AppRow, error)
	// Create adds rows and returns the app id of each import id it
	// created. A row with TransferAccount set is one leg of a transfer:
	// the app makes the other leg on TransferAccount, and Create gives
	// that leg the import id TransferImportID and cleared TransferCleared
	// and returns its app id too. A row whose import id the app already
	// holds is not added twice: Create returns the id of the one it has.
	Create(ctx context.Context, rows []NewRow) (map[string]string, error)
	// Update sets the bank's facts (amount, date, cleared) of rows the
	// feed created, by app id; nothing else of the row changes.
	Update(ctx context.Context, facts []Facts) error
	// Delete removes rows by app id (both legs of a transfer go when
	// either is given).
	Delete(ctx context.Context, ids []string) error
	// Link makes pairs of rows already in the app one transfer each, as
	// the app links transfers; each row keeps its import id, amount, date
	// and cleared. It returns the app id of each import id whose row the
	// app holds under a new id since (YNAB makes the second leg anew).
	Link(ctx context.Context, links []Link) (map[string]string, error)
	// Sync makes what was written since Open (or the last Sync) reach
	// the app (Actual: its sync with the server), and returns why it did
	// not.
	Sync(ctx context.Context) error
	// Close ends the session once what was written reached the app, and
	// returns why it did not.
	Close(ctx context.Context) error
}

// Account is an account of the app.
type Account struct {
	ID   string
	Name string
}

// Category is a category of the app.
type Category struct {
	ID    string
	Name  string
	Group string
}

// NewRow is a row to create in the app for one bank transaction.
type NewRow struct {
	ImportID string // the bank transaction's id (36 characters)
	Account  string // the app account's id
	Date     string // createdAt's date in the customer's zone, YYYY-MM-DD
	Amount   int64  // base units, negative for money out
	Cleared  bool   // the bank transaction is SETTLED
	Payee    string // the bank's description
	Notes    string // the message and foreign amount, "" when none
	Category string // the app category's id, "" for none

	// One leg of a transfer between two fed accounts: the other leg's
	// app account, bank id and cleared.
	TransferAccount  string
	TransferImportID string
	TransferCleared  bool
}

// Link is two rows of the app, the legs of one bank transfer, to link.
type Link struct {
	ID, ImportID           string // one leg: its app id and bank id
	OtherID, OtherImportID string // the other leg's
}

// Facts are the bank's facts of a row the feed created.
type Facts struct {
	ID      string // app id
	Date    string
	Amount  int64
	Cleared bool
}

// AppRow is a transaction as the app holds it.
type AppRow struct {
	ID         string
	Account    string // app account id
	ImportID   string // "" for a row the person added by hand
	Date       string
	Amount     int64
	Cleared    bool
	Reconciled bool   // the person reconciled it: never changed
	TransferID string // the app id of the linked other leg, "" when not a transfer
	Payee      string // the payee's name as the app shows it
	Category   string // category id, "" when none
	Notes      string
}

// ErrUnavailable wraps an error that a later round may not meet: the app
// is down, refused for a while (YNAB's 429), or its client is not
// installed. The engine retries with backoff and says how to mend it.
var ErrUnavailable = errors.New("app unavailable")

// Unavailable is ErrUnavailable with what mends it (a command to run),
// and, for a refusal that says so, when to try again.
type Unavailable struct {
	Err        error
	Mend       string    // e.g. "bankmirror feeds setup actual"
	RetryAfter time.Time // zero: the engine's own backoff
}

func (u *Unavailable) Error() string {
	if u.Mend != "" {
		return u.Err.Error() + " (" + u.Mend + ")"
	}
	return u.Err.Error()
}

func (u *Unavailable) Unwrap() []error { return []error{ErrUnavailable, u.Err} }
