package ynab

import (
	"strings"
	"time"
)

// plan is one YNAB plan (budget) and everything in it.
type plan struct {
	id, name   string
	knowledge  int64 // the plan's server knowledge: bumped by every change
	modified   time.Time
	accounts   []*account
	groups     []*group
	categories []*category
	payees     []*payee
	payeeIDs   map[string]*payee // by id
	payeeNames map[string]*payee // ordinary payees by lower-case name
	txs        []*txn            // in creation order
	byID       map[string]*txn
	// imports holds every import id ever given on an account, deleted
	// rows' included: YNAB does not import an import id twice.
	imports map[string]*txn // account id + "/" + import id
}

type account struct {
	id, name, typ string
	transferPayee string
	onBudget      bool
	closed        bool
	knowledge     int64
}

type group struct {
	id, name  string
	internal  bool
	knowledge int64
}

type category struct {
	id, group, name string
	internal        bool
	hidden          bool
	knowledge       int64
}

type payee struct {
	id, name        string
	transferAccount string
	knowledge       int64
}

// txn is one transaction.
type txn struct {
	id, account, date string
	amount            int64 // milliunits
	memo              *string
	cleared           string // cleared | uncleared | reconciled
	approved          bool
	flag              *string
	payee, category   string // ids, "" for none
	transferAccount   string
	transferTx        string
	importID          string
	importPayeeName   string
	deleted           bool
	knowledge         int64
}

func (p *plan) bump(now time.Time) int64 {
	p.knowledge++
	p.modified = now
	return p.knowledge
}

func (p *plan) account(id string) *account {
	for _, a := range p.accounts {
		if a.id == id {
			return a
		}
	}
	return nil
}

func (p *plan) category(id string) *category {
	for _, c := range p.categories {
		if c.id == id {
			return c
		}
	}
	return nil
}

func (p *plan) payee(id string) *payee { return p.payeeIDs[id] }

func (p *plan) addPayee(py *payee) {
	p.payees = append(p.payees, py)
	p.payeeIDs[py.id] = py
	if py.transferAccount == "" {
		p.payeeNames[strings.ToLower(py.name)] = py
	}
}

// payeeNamed finds or creates the ordinary payee name.
func (p *plan) payeeNamed(name string, now time.Time) *payee {
	if py := p.payeeNames[strings.ToLower(name)]; py != nil {
		return py
	}
	py := &payee{id: newUUID(), name: name, knowledge: p.bump(now)}
	p.addPayee(py)
	return py
}

func (p *plan) group(id string) *group {
	for _, g := range p.groups {
		if g.id == id {
			return g
		}
	}
	return nil
}

// balances are an account's balances in milliunits.
func (p *plan) balances(acct string) (bal, cleared, uncleared int64) {
	for _, t := range p.txs {
		if t.deleted || t.account != acct {
			continue
		}
		bal += t.amount
		if t.cleared == "uncleared" {
			uncleared += t.amount
		} else {
			cleared += t.amount
		}
	}
	return bal, cleared, uncleared
}

// JSON views, as the description names their fields.

type currencyFormatJSON struct {
	ISOCode          string `json:"iso_code"`
	ExampleFormat    string `json:"example_format"`
	DecimalDigits    int    `json:"decimal_digits"`
	DecimalSeparator string `json:"decimal_separator"`
	SymbolFirst      bool   `json:"symbol_first"`
	GroupSeparator   string `json:"group_separator"`
	CurrencySymbol   string `json:"currency_symbol"`
	DisplaySymbol    bool   `json:"display_symbol"`
}

type planSummaryJSON struct {
	ID             string             `json:"id"`
	Name           string             `json:"name"`
	LastModifiedOn string             `json:"last_modified_on"`
	FirstMonth     string             `json:"first_month"`
	LastMonth      string             `json:"last_month"`
	DateFormat     map[string]string  `json:"date_format"`
	CurrencyFormat currencyFormatJSON `json:"currency_format"`
	Accounts       []accountJSON      `json:"accounts,omitempty"`
}

type accountJSON struct {
	ID               string  `json:"id"`
	Name             string  `json:"name"`
	Type             string  `json:"type"`
	OnBudget         bool    `json:"on_budget"`
	Closed           bool    `json:"closed"`
	Note             *string `json:"note"`
	Balance          int64   `json:"balance"`
	ClearedBalance   int64   `json:"cleared_balance"`
	UnclearedBalance int64   `json:"uncleared_balance"`
	TransferPayeeID  string  `json:"transfer_payee_id"`
	Deleted          bool    `json:"deleted"`
}

type groupJSON struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Hidden     bool           `json:"hidden"`
	Internal   bool           `json:"internal"`
	Deleted    bool           `json:"deleted"`
	Categories []categoryJSON `json:"categories,omitempty"`
}

type categoryJSON struct {
	ID                string  `json:"id"`
	CategoryGroupID   string  `json:"category_group_id"`
	CategoryGroupName string  `json:"category_group_name"`
	Name              string  `json:"name"`
	Hidden            bool    `json:"hidden"`
	Internal          bool    `json:"internal"`
	Note              *string `json:"note"`
	Budgeted          int64   `json:"budgeted"`
	Activity          int64   `json:"activity"`
	Balance           int64   `json:"balance"`
	Deleted           bool    `json:"deleted"`
}

type payeeJSON struct {
	ID                string  `json:"id"`
	Name              string  `json:"name"`
	TransferAccountID *string `json:"transfer_account_id"`
	Deleted           bool    `json:"deleted"`
}

type txnJSON struct {
	ID                    string   `json:"id"`
	Date                  string   `json:"date"`
	Amount                int64    `json:"amount"`
	Memo                  *string  `json:"memo"`
	Cleared               string   `json:"cleared"`
	Approved              bool     `json:"approved"`
	FlagColor             *string  `json:"flag_color"`
	FlagName              *string  `json:"flag_name"`
	AccountID             string   `json:"account_id"`
	AccountName           string   `json:"account_name"`
	PayeeID               *string  `json:"payee_id"`
	PayeeName             *string  `json:"payee_name"`
	CategoryID            *string  `json:"category_id"`
	CategoryName          *string  `json:"category_name"`
	TransferAccountID     *string  `json:"transfer_account_id"`
	TransferTransactionID *string  `json:"transfer_transaction_id"`
	MatchedTransactionID  *string  `json:"matched_transaction_id"`
	ImportID              *string  `json:"import_id"`
	ImportPayeeName       *string  `json:"import_payee_name"`
	ImportPayeeNameOrig   *string  `json:"import_payee_name_original"`
	DebtTransactionType   *string  `json:"debt_transaction_type"`
	Deleted               bool     `json:"deleted"`
	Subtransactions       []string `json:"subtransactions"`
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (p *plan) summaryJSON(withAccounts bool) planSummaryJSON {
	first := "2026-01-01"
	for _, t := range p.txs {
		if m := t.date[:8] + "01"; m < first {
			first = m
		}
	}
	s := planSummaryJSON{ID: p.id, Name: p.name, LastModifiedOn: p.modified.UTC().Format(time.RFC3339),
		FirstMonth: first, LastMonth: p.modified.UTC().Format("2006-01") + "-01",
		DateFormat: map[string]string{"format": "DD/MM/YYYY"},
		CurrencyFormat: currencyFormatJSON{ISOCode: "AUD", ExampleFormat: "123,456.78", DecimalDigits: 2,
			DecimalSeparator: ".", SymbolFirst: true, GroupSeparator: ",", CurrencySymbol: "$", DisplaySymbol: true}}
	if withAccounts {
		s.Accounts = []accountJSON{}
		for _, a := range p.accounts {
			s.Accounts = append(s.Accounts, p.accountJSON(a))
		}
	}
	return s
}

func (p *plan) accountJSON(a *account) accountJSON {
	bal, cl, uncl := p.balances(a.id)
	return accountJSON{ID: a.id, Name: a.name, Type: a.typ, OnBudget: a.onBudget, Closed: a.closed,
		Balance: bal, ClearedBalance: cl, UnclearedBalance: uncl, TransferPayeeID: a.transferPayee}
}

func (p *plan) categoryJSON(c *category) categoryJSON {
	gname := ""
	if g := p.group(c.group); g != nil {
		gname = g.name
	}
	return categoryJSON{ID: c.id, CategoryGroupID: c.group, CategoryGroupName: gname, Name: c.name,
		Hidden: c.hidden, Internal: c.internal}
}

func (p *plan) payeeJSON(py *payee) payeeJSON {
	return payeeJSON{ID: py.id, Name: py.name, TransferAccountID: strPtr(py.transferAccount)}
}

func (p *plan) txnJSON(t *txn) txnJSON {
	j := txnJSON{ID: t.id, Date: t.date, Amount: t.amount, Memo: t.memo, Cleared: t.cleared, Approved: t.approved,
		FlagColor: t.flag, AccountID: t.account, PayeeID: strPtr(t.payee), CategoryID: strPtr(t.category),
		TransferAccountID: strPtr(t.transferAccount), TransferTransactionID: strPtr(t.transferTx),
		ImportID: strPtr(t.importID), ImportPayeeName: strPtr(t.importPayeeName), Deleted: t.deleted,
		Subtransactions: []string{}}
	if a := p.account(t.account); a != nil {
		j.AccountName = a.name
	}
	if py := p.payee(t.payee); py != nil {
		j.PayeeName = strPtr(py.name)
	}
	if c := p.category(t.category); c != nil {
		j.CategoryName = strPtr(c.name)
	}
	return j
}
