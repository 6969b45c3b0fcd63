package ynab

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// call is one validated request, as a handler sees it.
type call struct {
	params map[string]string
	query  url.Values
	body   []byte
	now    time.Time
}

type handler func(c call) (int, any, *apiError)

// operations maps the description's operation ids to the handlers the
// fake has; the others are answered 404.
func (f *Fake) operations() map[string]handler {
	return map[string]handler{
		"getUser":                  f.getUser,
		"getPlans":                 f.getPlans,
		"getPlanById":              f.getPlan,
		"getAccounts":              f.getAccounts,
		"getAccountById":           f.getAccount,
		"getCategories":            f.getCategories,
		"getPayees":                f.getPayees,
		"getTransactions":          f.getTransactions,
		"getTransactionsByAccount": f.getTransactions,
		"createTransaction":        f.createTransactions,
		"updateTransactions":       f.updateTransactions,
		"getTransactionById":       f.getTransaction,
		"updateTransaction":        f.updateTransaction,
		"deleteTransaction":        f.deleteTransaction,
	}
}

type data map[string]any

func (f *Fake) getUser(call) (int, any, *apiError) {
	return http.StatusOK, data{"data": data{"user": data{"id": "00000000-0000-4000-8000-000000000001"}}}, nil
}

func (f *Fake) getPlans(c call) (int, any, *apiError) {
	withAccounts := c.query.Get("include_accounts") == "true"
	out := []planSummaryJSON{}
	for _, p := range f.plans {
		out = append(out, p.summaryJSON(withAccounts))
	}
	return http.StatusOK, data{"data": data{"plans": out}}, nil
}

// plan finds the plan of the path ("last-used" and "default": the first).
func (f *Fake) plan(c call) (*plan, *apiError) {
	id := c.params["plan_id"]
	for _, p := range f.plans {
		if p.id == id || ((id == "last-used" || id == "default") && p == f.plans[0]) {
			return p, nil
		}
	}
	return nil, notFound("plan")
}

// knowledge parses last_knowledge_of_server: ok false when absent.
func knowledge(c call) (int64, bool) {
	s := c.query.Get("last_knowledge_of_server")
	if s == "" {
		return 0, false
	}
	k, err := strconv.ParseInt(s, 10, 64)
	return k, err == nil
}

func (f *Fake) getPlan(c call) (int, any, *apiError) {
	p, e := f.plan(c)
	if e != nil {
		return 0, nil, e
	}
	k, _ := knowledge(c)
	detail := struct {
		planSummaryJSON
		Accounts       []accountJSON  `json:"accounts"`
		Payees         []payeeJSON    `json:"payees"`
		PayeeLocations []string       `json:"payee_locations"`
		CategoryGroups []groupJSON    `json:"category_groups"`
		Categories     []categoryJSON `json:"categories"`
		Months         []string       `json:"months"`
		Transactions   []txnJSON      `json:"transactions"`
		Subs           []string       `json:"subtransactions"`
		Scheduled      []string       `json:"scheduled_transactions"`
		ScheduledSubs  []string       `json:"scheduled_subtransactions"`
	}{planSummaryJSON: p.summaryJSON(false), Accounts: []accountJSON{}, Payees: []payeeJSON{}, PayeeLocations: []string{},
		CategoryGroups: []groupJSON{}, Categories: []categoryJSON{}, Months: []string{}, Transactions: []txnJSON{},
		Subs: []string{}, Scheduled: []string{}, ScheduledSubs: []string{}}
	for _, a := range p.accounts {
		if a.knowledge > k {
			detail.Accounts = append(detail.Accounts, p.accountJSON(a))
		}
	}
	for _, py := range p.payees {
		if py.knowledge > k {
			detail.Payees = append(detail.Payees, p.payeeJSON(py))
		}
	}
	for _, g := range p.groups {
		if g.knowledge > k {
			detail.CategoryGroups = append(detail.CategoryGroups, groupJSON{ID: g.id, Name: g.name, Internal: g.internal})
		}
	}
	for _, cat := range p.categories {
		if cat.knowledge > k {
			detail.Categories = append(detail.Categories, p.categoryJSON(cat))
		}
	}
	for _, t := range p.txs {
		if t.knowledge > k && (k > 0 || !t.deleted) {
			tj := p.txnJSON(t)
			tj.AccountName, tj.PayeeName, tj.CategoryName = "", nil, nil
			detail.Transactions = append(detail.Transactions, tj)
		}
	}
	return http.StatusOK, data{"data": data{"plan": summaryDetail(detail), "server_knowledge": p.knowledge}}, nil
}

// summaryDetail drops the detail-only names from a plan export's
// transactions (TransactionSummaryBase has no names) by re-encoding.
func summaryDetail(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return v
	}
	if ts, ok := m["transactions"].([]any); ok {
		for _, t := range ts {
			tm := t.(map[string]any)
			delete(tm, "account_name")
			delete(tm, "payee_name")
			delete(tm, "category_name")
			delete(tm, "subtransactions")
		}
	}
	return m
}

func (f *Fake) getAccounts(c call) (int, any, *apiError) {
	p, e := f.plan(c)
	if e != nil {
		return 0, nil, e
	}
	k, _ := knowledge(c)
	out := []accountJSON{}
	for _, a := range p.accounts {
		if a.knowledge > k {
			out = append(out, p.accountJSON(a))
		}
	}
	return http.StatusOK, data{"data": data{"accounts": out, "server_knowledge": p.knowledge}}, nil
}

func (f *Fake) getAccount(c call) (int, any, *apiError) {
	p, e := f.plan(c)
	if e != nil {
		return 0, nil, e
	}
	a := p.account(c.params["account_id"])
	if a == nil {
		return 0, nil, notFound("account")
	}
	return http.StatusOK, data{"data": data{"account": p.accountJSON(a)}}, nil
}

func (f *Fake) getCategories(c call) (int, any, *apiError) {
	p, e := f.plan(c)
	if e != nil {
		return 0, nil, e
	}
	k, _ := knowledge(c)
	out := []groupJSON{}
	for _, g := range p.groups {
		gj := groupJSON{ID: g.id, Name: g.name, Internal: g.internal, Categories: []categoryJSON{}}
		changed := g.knowledge > k
		for _, cat := range p.categories {
			if cat.group == g.id && cat.knowledge > k {
				gj.Categories = append(gj.Categories, p.categoryJSON(cat))
				changed = true
			}
		}
		if changed {
			out = append(out, gj)
		}
	}
	return http.StatusOK, data{"data": data{"category_groups": out, "server_knowledge": p.knowledge}}, nil
}

func (f *Fake) getPayees(c call) (int, any, *apiError) {
	p, e := f.plan(c)
	if e != nil {
		return 0, nil, e
	}
	k, _ := knowledge(c)
	out := []payeeJSON{}
	for _, py := range p.payees {
		if py.knowledge > k {
			out = append(out, p.payeeJSON(py))
		}
	}
	return http.StatusOK, data{"data": data{"payees": out, "server_knowledge": p.knowledge}}, nil
}

// getTransactions lists a plan's (or an account's) transactions: since
// since_date (default: a year before today, as YNAB), until until_date;
// with last_knowledge_of_server only those changed since, deleted ones
// included (deleted: true); without, deleted ones left out.
func (f *Fake) getTransactions(c call) (int, any, *apiError) {
	p, e := f.plan(c)
	if e != nil {
		return 0, nil, e
	}
	acct := c.params["account_id"]
	if acct != "" && p.account(acct) == nil {
		return 0, nil, notFound("account")
	}
	since := c.query.Get("since_date")
	if since == "" {
		since = c.now.AddDate(-1, 0, 0).UTC().Format(time.DateOnly)
	}
	until := c.query.Get("until_date")
	k, delta := knowledge(c)
	typ := c.query.Get("type")
	out := []txnJSON{}
	for _, t := range p.txs {
		switch {
		case acct != "" && t.account != acct,
			t.date < since, until != "" && t.date > until,
			delta && t.knowledge <= k, !delta && t.deleted,
			typ == "unapproved" && t.approved,
			typ == "uncategorized" && (t.category != "" || t.transferAccount != ""):
			continue
		}
		out = append(out, p.txnJSON(t))
	}
	return http.StatusOK, data{"data": data{"transactions": out, "server_knowledge": p.knowledge}}, nil
}

func (f *Fake) getTransaction(c call) (int, any, *apiError) {
	p, e := f.plan(c)
	if e != nil {
		return 0, nil, e
	}
	t := p.byID[c.params["transaction_id"]]
	if t == nil {
		return 0, nil, notFound("transaction")
	}
	return http.StatusOK, data{"data": data{"transaction": p.txnJSON(t), "server_knowledge": p.knowledge}}, nil
}

// saveTxn is a transaction as a request gives it: only the fields set are
// non-nil.
type saveTxn struct {
	ID        *string         `json:"id"`
	AccountID *string         `json:"account_id"`
	Date      *string         `json:"date"`
	Amount    *int64          `json:"amount"`
	PayeeID   *string         `json:"payee_id"`
	PayeeName *string         `json:"payee_name"`
	Category  json.RawMessage `json:"category_id"`
	Memo      json.RawMessage `json:"memo"`
	Cleared   *string         `json:"cleared"`
	Approved  *bool           `json:"approved"`
	FlagColor json.RawMessage `json:"flag_color"`
	ImportID  *string         `json:"import_id"`
	Subs      []any           `json:"subtransactions"`
}

// nullable decodes an optional nullable string: set false when absent.
func nullable(raw json.RawMessage) (val *string, set bool) {
	if raw == nil {
		return nil, false
	}
	if bytes.Equal(raw, []byte("null")) {
		return nil, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	return &s, true
}

func (f *Fake) createTransactions(c call) (int, any, *apiError) {
	p, e := f.plan(c)
	if e != nil {
		return 0, nil, e
	}
	var body struct {
		Transaction  *saveTxn  `json:"transaction"`
		Transactions []saveTxn `json:"transactions"`
	}
	if err := json.Unmarshal(c.body, &body); err != nil {
		return 0, nil, badRequest("%v", err)
	}
	single := body.Transaction != nil
	switch {
	case single && body.Transactions != nil:
		return 0, nil, badRequest("only one of transaction and transactions may be given")
	case !single && body.Transactions == nil:
		return 0, nil, badRequest("transaction or transactions is required")
	}
	in := body.Transactions
	if single {
		in = []saveTxn{*body.Transaction}
	}
	// Check every transaction before creating any.
	for i, s := range in {
		if err := p.checkNew(s, c.now); err != nil {
			err.detail = "transactions[" + strconv.Itoa(i) + "]: " + err.detail
			return 0, nil, err
		}
	}
	ids := []string{}
	dups := []string{}
	saved := []txnJSON{}
	for _, s := range in {
		t, dup := p.create(s, c.now)
		if dup {
			if single {
				return 0, nil, &apiError{status: http.StatusConflict, id: "409", name: "conflict",
					detail: "A transaction on the same account with the same import_id already exists."}
			}
			dups = append(dups, *s.ImportID)
			continue
		}
		ids = append(ids, t.id)
		saved = append(saved, p.txnJSON(t))
	}
	d := data{"transaction_ids": ids, "server_knowledge": p.knowledge}
	if single {
		d["transaction"] = saved[0]
	} else {
		d["transactions"] = saved
		d["duplicate_import_ids"] = dups
	}
	return http.StatusCreated, data{"data": d}, nil
}

// checkNew refuses what YNAB refuses of a new transaction beyond the
// description's schema.
func (p *plan) checkNew(s saveTxn, now time.Time) *apiError {
	switch {
	case s.AccountID == nil:
		return badRequest("account_id is required")
	case p.account(*s.AccountID) == nil:
		return badRequest("account_id %s does not exist", *s.AccountID)
	case s.Date == nil:
		return badRequest("date is required")
	case s.Amount == nil:
		return badRequest("amount is required")
	case *s.Date > now.AddDate(0, 0, 1).UTC().Format(time.DateOnly):
		return badRequest("date must not be in the future")
	case len(s.Subs) > 0:
		return badRequest("the fake does not create splits")
	}
	if s.PayeeID != nil {
		py := p.payee(*s.PayeeID)
		if py == nil {
			return badRequest("payee_id %s does not exist", *s.PayeeID)
		}
		if py.transferAccount == *s.AccountID {
			return badRequest("a transfer to its own account")
		}
	}
	if cat, set := nullable(s.Category); set && cat != nil && p.category(*cat) == nil {
		return badRequest("category_id %s does not exist", *cat)
	}
	return nil
}

// create adds one checked transaction: dup when its import id is already
// on the account (a deleted row's included). A transfer payee makes the
// other leg on its account. An import id matches an unmatched row the
// person entered (no import id) on the account with the same amount and
// transfer account, dated within 10 days: that row takes the import id,
// as YNAB's import matching does, instead of a new row.
func (p *plan) create(s saveTxn, now time.Time) (*txn, bool) {
	acct := *s.AccountID
	imp := ""
	if s.ImportID != nil {
		imp = *s.ImportID
	}
	if imp != "" && p.imports[acct+"/"+imp] != nil {
		return nil, true
	}
	t := &txn{id: newUUID(), account: acct, date: *s.Date, amount: *s.Amount, cleared: "uncleared", importID: imp}
	if s.Cleared != nil {
		t.cleared = *s.Cleared
	}
	if s.Approved != nil {
		t.approved = *s.Approved
	}
	if m, set := nullable(s.Memo); set {
		t.memo = m
	}
	if fl, set := nullable(s.FlagColor); set && fl != nil && *fl != "" {
		t.flag = fl
	}
	var to *account
	switch {
	case s.PayeeID != nil:
		t.payee = *s.PayeeID
		if py := p.payee(t.payee); py.transferAccount != "" {
			to = p.account(py.transferAccount)
			t.transferAccount = to.id
		}
	case s.PayeeName != nil && *s.PayeeName != "":
		t.payee = p.payeeNamed(*s.PayeeName, now).id
		if imp != "" {
			t.importPayeeName = *s.PayeeName
		}
	}
	if cat, set := nullable(s.Category); set && cat != nil && (to == nil || !to.onBudget) {
		t.category = *cat
	}
	if imp != "" {
		if m := p.match(t); m != nil {
			m.importID = imp
			m.cleared = t.cleared
			m.importPayeeName = t.importPayeeName
			m.knowledge = p.bump(now)
			p.imports[acct+"/"+imp] = m
			return m, false
		}
		p.imports[acct+"/"+imp] = t
	}
	t.knowledge = p.bump(now)
	p.add(t)
	if to != nil {
		p.makeTransfer(t, to, now)
	}
	return t, false
}

// makeTransfer makes t a transfer to the account to: the other leg is a
// new row there, uncleared and without an import id; on an on-budget
// account's transfer t has no category.
func (p *plan) makeTransfer(t *txn, to *account, now time.Time) {
	from := p.account(t.account)
	t.transferAccount = to.id
	if to.onBudget && from.onBudget {
		t.category = ""
	}
	t.knowledge = p.bump(now)
	o := &txn{id: newUUID(), account: to.id, date: t.date, amount: -t.amount, cleared: "uncleared",
		memo: t.memo, payee: from.transferPayee, transferAccount: t.account, transferTx: t.id, knowledge: t.knowledge}
	t.transferTx = o.id
	p.add(o)
}

// match finds the row an import matches (see create), nil for none.
func (p *plan) match(n *txn) *txn {
	nd, err := time.Parse(time.DateOnly, n.date)
	if err != nil {
		return nil
	}
	var best *txn
	var bestGap time.Duration
	for _, t := range p.txs {
		if t.deleted || t.importID != "" || t.account != n.account || t.amount != n.amount || t.transferAccount != n.transferAccount {
			continue
		}
		td, err := time.Parse(time.DateOnly, t.date)
		if err != nil {
			continue
		}
		gap := td.Sub(nd).Abs()
		if gap > 10*24*time.Hour {
			continue
		}
		if best == nil || gap < bestGap {
			best, bestGap = t, gap
		}
	}
	return best
}

func (p *plan) add(t *txn) {
	p.txs = append(p.txs, t)
	p.byID[t.id] = t
}

func (f *Fake) updateTransactions(c call) (int, any, *apiError) {
	p, e := f.plan(c)
	if e != nil {
		return 0, nil, e
	}
	var body struct {
		Transactions []saveTxn `json:"transactions"`
	}
	if err := json.Unmarshal(c.body, &body); err != nil {
		return 0, nil, badRequest("%v", err)
	}
	targets := make([]*txn, len(body.Transactions))
	for i, s := range body.Transactions {
		var t *txn
		switch {
		case s.ID != nil:
			t = p.byID[*s.ID]
		case s.ImportID != nil:
			for _, cand := range p.txs {
				if cand.importID == *s.ImportID && !cand.deleted && (s.AccountID == nil || cand.account == *s.AccountID) {
					t = cand
					break
				}
			}
		default:
			return 0, nil, badRequest("transactions[%d]: id or import_id is required", i)
		}
		if t == nil || t.deleted {
			return 0, nil, badRequest("transactions[%d]: transaction not found", i)
		}
		if err := p.checkUpdate(t, s, c.now); err != nil {
			return 0, nil, err
		}
		targets[i] = t
	}
	ids := []string{}
	saved := []txnJSON{}
	for i, s := range body.Transactions {
		t := targets[i]
		p.update(t, s, c.now)
		ids = append(ids, t.id)
		saved = append(saved, p.txnJSON(t))
	}
	return 209, data{"data": data{"transaction_ids": ids, "transactions": saved, "server_knowledge": p.knowledge}}, nil
}

func (p *plan) checkUpdate(t *txn, s saveTxn, now time.Time) *apiError {
	if s.AccountID != nil && *s.AccountID != t.account && p.account(*s.AccountID) == nil {
		return badRequest("account_id %s does not exist", *s.AccountID)
	}
	if s.Date != nil && *s.Date > now.AddDate(0, 0, 1).UTC().Format(time.DateOnly) {
		return badRequest("date must not be in the future")
	}
	if s.PayeeID != nil && p.payee(*s.PayeeID) == nil {
		return badRequest("payee_id %s does not exist", *s.PayeeID)
	}
	if s.PayeeID != nil && p.payee(*s.PayeeID).transferAccount == t.account {
		return badRequest("a transfer to its own account")
	}
	if cat, set := nullable(s.Category); set && cat != nil && p.category(*cat) == nil {
		return badRequest("category_id %s does not exist", *cat)
	}
	return nil
}

// update applies the fields s sets to t (never its import id); a
// transfer's other leg follows its amount and date.
func (p *plan) update(t *txn, s saveTxn, now time.Time) {
	if s.Date != nil {
		t.date = *s.Date
	}
	if s.Amount != nil {
		t.amount = *s.Amount
	}
	if s.Cleared != nil {
		t.cleared = *s.Cleared
	}
	if s.Approved != nil {
		t.approved = *s.Approved
	}
	if m, set := nullable(s.Memo); set {
		t.memo = m
	}
	if cat, set := nullable(s.Category); set {
		t.category = ""
		if cat != nil {
			t.category = *cat
		}
	}
	if fl, set := nullable(s.FlagColor); set {
		t.flag = nil
		if fl != nil && *fl != "" {
			t.flag = fl
		}
	}
	if s.PayeeID != nil && t.transferAccount == "" {
		t.payee = *s.PayeeID
		if py := p.payee(t.payee); py.transferAccount != "" {
			// A transfer payee makes the row a transfer, as on create:
			// the other leg is made on the payee's account.
			p.makeTransfer(t, p.account(py.transferAccount), now)
		}
	} else if s.PayeeName != nil && *s.PayeeName != "" && t.transferAccount == "" {
		t.payee = p.payeeNamed(*s.PayeeName, now).id
	}
	t.knowledge = p.bump(now)
	if o := p.byID[t.transferTx]; o != nil && (o.amount != -t.amount || o.date != t.date) {
		o.amount, o.date = -t.amount, t.date
		o.knowledge = t.knowledge
	}
}

func (f *Fake) updateTransaction(c call) (int, any, *apiError) {
	p, e := f.plan(c)
	if e != nil {
		return 0, nil, e
	}
	var body struct {
		Transaction saveTxn `json:"transaction"`
	}
	if err := json.Unmarshal(c.body, &body); err != nil {
		return 0, nil, badRequest("%v", err)
	}
	t := p.byID[c.params["transaction_id"]]
	if t == nil || t.deleted {
		return 0, nil, badRequest("transaction not found")
	}
	if err := p.checkUpdate(t, body.Transaction, c.now); err != nil {
		return 0, nil, err
	}
	p.update(t, body.Transaction, c.now)
	return http.StatusOK, data{"data": data{"transaction": p.txnJSON(t), "server_knowledge": p.knowledge}}, nil
}

// deleteTransaction deletes a transaction, and a transfer's other leg
// with it. A deleted row keeps its import id (see plan.imports).
func (f *Fake) deleteTransaction(c call) (int, any, *apiError) {
	p, e := f.plan(c)
	if e != nil {
		return 0, nil, e
	}
	t := p.byID[c.params["transaction_id"]]
	if t == nil || t.deleted {
		return 0, nil, notFound("transaction")
	}
	p.delete(t, c.now)
	return http.StatusOK, data{"data": data{"transaction": p.txnJSON(t), "server_knowledge": p.knowledge}}, nil
}

func (p *plan) delete(t *txn, now time.Time) {
	k := p.bump(now)
	t.deleted, t.knowledge = true, k
	if o := p.byID[t.transferTx]; o != nil && !o.deleted {
		o.deleted, o.knowledge = true, k
	}
}
