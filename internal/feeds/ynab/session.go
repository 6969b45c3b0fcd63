package ynab

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/bankmirror/bankmirror/internal/feeds"
	"github.com/bankmirror/bankmirror/internal/logfield"
)

// Milliunits per cent: YNAB counts in thousandths of the currency.
const milliPerCent = 10

// allDates is the since_date that lists every transaction (without one,
// YNAB lists a year back).
const allDates = "1970-01-01"

// txJSON is a transaction as YNAB gives it (unknown fields ignored).
type txJSON struct {
	ID                    string  `json:"id"`
	Date                  string  `json:"date"`
	Amount                int64   `json:"amount"`
	Memo                  *string `json:"memo"`
	Cleared               string  `json:"cleared"`
	AccountID             string  `json:"account_id"`
	PayeeName             *string `json:"payee_name"`
	CategoryID            *string `json:"category_id"`
	TransferAccountID     *string `json:"transfer_account_id"`
	TransferTransactionID *string `json:"transfer_transaction_id"`
	ImportID              *string `json:"import_id"`
	Deleted               bool    `json:"deleted"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// row is a transaction of the plan's copy.
type row struct {
	id, account, importID, date string
	amount                      int64 // milliunits
	cleared                     string
	transferAccount, transferTx string
	payee, category, memo       string
	deleted                     bool
}

// planCache is the copy of a plan's transactions the Opener keeps across
// sessions, brought up to date by server_knowledge deltas.
type planCache struct {
	mu        sync.Mutex
	filled    bool
	since     string // the since_date of the full read
	knowledge int64
	rows      map[string]*row
	live      map[string]string // account + "/" + bank id -> id of its live row
	nextGen   map[string]int    // account + "/" + bank id -> generation of its next import
	// file, if set, is where the copy waits between sessions (spill);
	// changed says it differs from the file.
	file    string
	changed bool
}

func newPlanCache() *planCache {
	return &planCache{rows: map[string]*row{}, live: map[string]string{}, nextGen: map[string]int{}}
}

// merge takes in a transaction read from YNAB.
func (p *planCache) merge(t txJSON) {
	p.put(&row{id: t.ID, account: t.AccountID, importID: str(t.ImportID), date: t.Date, amount: t.Amount,
		cleared: t.Cleared, transferAccount: str(t.TransferAccountID), transferTx: str(t.TransferTransactionID),
		payee: str(t.PayeeName), category: str(t.CategoryID), memo: str(t.Memo), deleted: t.Deleted})
}

// put takes in a row of the plan, replacing the one with its id.
func (p *planCache) put(r *row) {
	p.changed = true
	if old := p.rows[r.id]; old != nil && old.importID != "" {
		bank, _ := decodeImportID(old.importID)
		if k := old.account + "/" + bank; p.live[k] == r.id {
			delete(p.live, k)
		}
	}
	p.rows[r.id] = r
	if r.importID == "" {
		return
	}
	bank, gen := decodeImportID(r.importID)
	k := r.account + "/" + bank
	if p.nextGen[k] <= gen {
		p.nextGen[k] = gen + 1
	}
	if !r.deleted {
		p.live[k] = r.id
	}
}

// session is one round with a plan.
type session struct {
	c        *conn
	plan     string
	pk       string // the Opener's key of st
	st       *planCache
	accounts map[string]accountJSON // by id, after Accounts
	fresh    bool                   // the copy was brought up to date since Open
}

var _ feeds.Session = (*session)(nil)

type accountJSON struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Closed          bool   `json:"closed"`
	Deleted         bool   `json:"deleted"`
	TransferPayeeID string `json:"transfer_payee_id"`
}

func (s *session) path(p string) string { return "/plans/" + url.PathEscape(s.plan) + p }

// Accounts lists the plan's open accounts.
func (s *session) Accounts(ctx context.Context) ([]feeds.Account, error) {
	var res struct {
		Data struct {
			Accounts []accountJSON `json:"accounts"`
		} `json:"data"`
	}
	if err := s.c.do(ctx, http.MethodGet, s.path("/accounts"), nil, nil, &res); err != nil {
		return nil, fmt.Errorf("list ynab accounts: %w", err)
	}
	s.accounts = map[string]accountJSON{}
	var out []feeds.Account
	for _, a := range res.Data.Accounts {
		if a.Deleted || a.Closed {
			continue
		}
		s.accounts[a.ID] = a
		out = append(out, feeds.Account{ID: a.ID, Name: a.Name})
	}
	return out, nil
}

// Categories lists the plan's categories.
func (s *session) Categories(ctx context.Context) ([]feeds.Category, error) {
	var res struct {
		Data struct {
			Groups []struct {
				Name       string `json:"name"`
				Deleted    bool   `json:"deleted"`
				Categories []struct {
					ID      string `json:"id"`
					Name    string `json:"name"`
					Deleted bool   `json:"deleted"`
				} `json:"categories"`
			} `json:"category_groups"`
		} `json:"data"`
	}
	if err := s.c.do(ctx, http.MethodGet, s.path("/categories"), nil, nil, &res); err != nil {
		return nil, fmt.Errorf("list ynab categories: %w", err)
	}
	var out []feeds.Category
	for _, g := range res.Data.Groups {
		if g.Deleted {
			continue
		}
		for _, c := range g.Categories {
			if !c.Deleted {
				out = append(out, feeds.Category{ID: c.ID, Name: c.Name, Group: g.Name})
			}
		}
	}
	return out, nil
}

// refresh brings the plan's copy up to date: the first time (or for an
// earlier since) a read of every transaction dated since, deleted ones
// included; afterwards only what changed since the last read.
func (s *session) refresh(ctx context.Context, since string) error {
	if since == "" {
		since = allDates
	}
	st := s.st
	st.mu.Lock()
	full := !st.filled || since < st.since
	q := url.Values{"since_date": {allDates}, "last_knowledge_of_server": {strconv.FormatInt(st.knowledge, 10)}}
	if full {
		q = url.Values{"since_date": {since}, "last_knowledge_of_server": {"0"}}
	}
	st.mu.Unlock()
	var res struct {
		Data struct {
			Transactions    []txJSON `json:"transactions"`
			ServerKnowledge int64    `json:"server_knowledge"`
		} `json:"data"`
	}
	if err := s.c.do(ctx, http.MethodGet, s.path("/transactions"), q, nil, &res); err != nil {
		return fmt.Errorf("list ynab transactions: %w", err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if full {
		st.rows, st.live, st.nextGen = map[string]*row{}, map[string]string{}, map[string]int{}
		st.filled, st.since = true, since
	}
	for _, t := range res.Data.Transactions {
		st.merge(t)
	}
	if st.knowledge != res.Data.ServerKnowledge || full {
		st.changed = true
	}
	st.knowledge = res.Data.ServerKnowledge
	s.fresh = true
	return nil
}

// Rows lists the plan's live transactions on accounts dated since.
func (s *session) Rows(ctx context.Context, accounts []string, since string) ([]feeds.AppRow, error) {
	if err := s.refresh(ctx, since); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, a := range accounts {
		want[a] = true
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	var out []feeds.AppRow
	for _, r := range s.st.rows {
		if r.deleted || !want[r.account] || r.date < since {
			continue
		}
		out = append(out, appRow(r))
	}
	return out, nil
}

func appRow(r *row) feeds.AppRow {
	a := feeds.AppRow{ID: r.id, Account: r.account, Date: r.date, Amount: r.amount / milliPerCent,
		Cleared: r.cleared != "uncleared", Reconciled: r.cleared == "reconciled", TransferID: r.transferTx,
		Payee: r.payee, Category: r.category, Notes: r.memo}
	if r.importID != "" {
		a.ImportID, _ = decodeImportID(r.importID)
	}
	return a
}

func clearedOf(c bool) string {
	if c {
		return "cleared"
	}
	return "uncleared"
}

// newTx is a transaction to create.
type newTx struct {
	AccountID  string  `json:"account_id"`
	Date       string  `json:"date"`
	Amount     int64   `json:"amount"`
	PayeeID    *string `json:"payee_id,omitempty"`
	PayeeName  *string `json:"payee_name,omitempty"`
	CategoryID *string `json:"category_id,omitempty"`
	Memo       *string `json:"memo,omitempty"`
	Cleared    string  `json:"cleared"`
	Approved   bool    `json:"approved"`
	ImportID   string  `json:"import_id"`
}

type saveResponse struct {
	Data struct {
		TransactionIDs     []string `json:"transaction_ids"`
		Transactions       []txJSON `json:"transactions"`
		DuplicateImportIDs []string `json:"duplicate_import_ids"`
	} `json:"data"`
}

// truncate cuts s to n characters (YNAB's limits: payee 200, memo 500).
func truncate(s string, n int) *string {
	if s == "" {
		return nil
	}
	r := []rune(s)
	if len(r) > n {
		s = string(r[:n])
	}
	return &s
}

// ensureAccounts reads the accounts unless they were read since Open.
func (s *session) ensureAccounts(ctx context.Context) error {
	if s.accounts != nil {
		return nil
	}
	_, err := s.Accounts(ctx)
	return err
}

// ensureFilled brings the plan's copy up to date once a session (the
// person may have changed the plan since the last), reading every
// transaction dated since if the Opener holds none.
func (s *session) ensureFilled(ctx context.Context, since string) error {
	s.st.mu.Lock()
	ok := s.st.filled && s.st.since <= since
	if ok {
		since = s.st.since // only a delta is read
	}
	s.st.mu.Unlock()
	if ok && s.fresh {
		return nil
	}
	return s.refresh(ctx, since)
}

// Create adds rows in bulk (MaxBatch a request) and returns the app id of
// each import id. A row whose bank id already has a live row on its
// account is not sent; one whose import id YNAB reports a duplicate of is
// looked up, and created again under a re-import id when its row was
// deleted (see importid.go). A transfer is sent with the other account's
// transfer payee; YNAB makes the other leg without an import id, and a
// second POST imports the other bank leg onto it: YNAB matches an import
// to the row entered without one on the same account with the same
// amount (its import matching), so the leg takes the import id and
// cleared. On an error the ids created before it are returned with it.
func (s *session) Create(ctx context.Context, rows []feeds.NewRow) (map[string]string, error) {
	out := map[string]string{}
	if len(rows) == 0 {
		return out, nil
	}
	if err := s.ensureAccounts(ctx); err != nil {
		return out, err
	}
	minDate := rows[0].Date
	for _, r := range rows {
		if _, ok := s.accounts[r.Account]; !ok {
			return out, fmt.Errorf("%w: %s (bank transaction %s)", ErrNoAccount, r.Account, r.ImportID)
		}
		if _, ok := s.accounts[r.TransferAccount]; r.TransferAccount != "" && !ok {
			return out, fmt.Errorf("%w: %s (transfer of bank transaction %s)", ErrNoAccount, r.TransferAccount, r.ImportID)
		}
		if _, err := encodeImportID(r.ImportID, 1); err != nil {
			return out, err
		}
		minDate = min(minDate, r.Date)
	}
	if err := s.ensureFilled(ctx, monthBefore(minDate)); err != nil {
		return out, err
	}
	// Both legs of one transfer given: the first makes the other.
	legs := map[string]bool{}
	var pending []feeds.NewRow
	for _, r := range rows {
		if r.TransferAccount != "" && legs[r.Account+"/"+r.ImportID] {
			continue
		}
		if r.TransferAccount != "" && r.TransferImportID != "" {
			legs[r.TransferAccount+"/"+r.TransferImportID] = true
		}
		pending = append(pending, r)
	}
	rows = pending
	for attempt := 0; len(pending) > 0; attempt++ {
		if attempt == 3 {
			return out, fmt.Errorf("ynab: %d import ids still reported duplicate, first %s", len(pending), pending[0].ImportID)
		}
		dups, err := s.createOnce(ctx, pending, out)
		if err != nil {
			return out, err
		}
		if len(dups) == 0 {
			break
		}
		// Someone else created them, or their rows were deleted: read
		// what changed, every date, then look again.
		if err := s.refresh(ctx, allDates); err != nil {
			return out, err
		}
		pending = dups
	}
	return out, s.linkTransfers(ctx, rows, out)
}

// createOnce POSTs the rows without a live row and returns those YNAB
// reported duplicate.
func (s *session) createOnce(ctx context.Context, rows []feeds.NewRow, out map[string]string) ([]feeds.NewRow, error) {
	var send []newTx
	var sent []feeds.NewRow
	s.st.mu.Lock()
	for _, r := range rows {
		k := r.Account + "/" + r.ImportID
		if id, ok := s.st.live[k]; ok {
			out[r.ImportID] = id
			continue
		}
		imp, err := encodeImportID(r.ImportID, max(1, s.st.nextGen[k]))
		if err != nil {
			s.st.mu.Unlock()
			return nil, err
		}
		t := newTx{AccountID: r.Account, Date: r.Date, Amount: r.Amount * milliPerCent, Cleared: clearedOf(r.Cleared),
			Memo: truncate(r.Notes, 500), ImportID: imp}
		if r.TransferAccount != "" {
			p := s.accounts[r.TransferAccount].TransferPayeeID
			t.PayeeID = &p
		} else {
			t.PayeeName = truncate(r.Payee, 200)
			if r.Category != "" {
				t.CategoryID = &r.Category
			}
		}
		send = append(send, t)
		sent = append(sent, r)
	}
	s.st.mu.Unlock()
	var dups []feeds.NewRow
	for i := 0; i < len(send); i += s.c.o.batch {
		j := min(i+s.c.o.batch, len(send))
		res, err := s.post(ctx, send[i:j])
		if err != nil {
			return nil, err
		}
		dup := map[string]bool{}
		for _, d := range res.Data.DuplicateImportIDs {
			dup[d] = true
		}
		for k, t := range send[i:j] {
			if dup[t.ImportID] {
				dups = append(dups, sent[i+k])
			}
		}
		s.st.mu.Lock()
		for _, t := range res.Data.Transactions {
			s.st.merge(t)
			if t.ImportID != nil {
				bank, _ := decodeImportID(*t.ImportID)
				out[bank] = t.ID
			}
		}
		s.st.mu.Unlock()
	}
	return dups, nil
}

func (s *session) post(ctx context.Context, txs []newTx) (saveResponse, error) {
	var res saveResponse
	err := s.c.do(ctx, http.MethodPost, s.path("/transactions"), nil, map[string]any{"transactions": txs}, &res)
	if err != nil {
		return res, fmt.Errorf("create ynab transactions: %w", err)
	}
	s.c.log.Debug().Int(logfield.Rows, len(txs)).Int(logfield.Inserted, len(res.Data.TransactionIDs)).Msg("ynab transactions created")
	return res, nil
}

// linkTransfers gives each transfer's other leg, made by YNAB without an
// import id, its bank leg's import id and cleared.
func (s *session) linkTransfers(ctx context.Context, rows []feeds.NewRow, out map[string]string) error {
	var send []newTx
	var legs []string
	s.st.mu.Lock()
	for _, r := range rows {
		if r.TransferAccount == "" || r.TransferImportID == "" {
			continue
		}
		a := s.st.rows[out[r.ImportID]]
		if a == nil || a.transferTx == "" {
			s.st.mu.Unlock()
			return fmt.Errorf("ynab: transfer of bank transaction %s has no other leg", r.ImportID)
		}
		leg := s.st.rows[a.transferTx]
		if leg != nil && leg.importID != "" {
			bank, _ := decodeImportID(leg.importID)
			if bank != r.TransferImportID {
				s.st.mu.Unlock()
				return fmt.Errorf("ynab: other leg %s of bank transaction %s carries import id %s, not %s",
					leg.id, r.ImportID, bank, r.TransferImportID)
			}
			out[r.TransferImportID] = leg.id
			continue
		}
		if leg != nil && (leg.deleted || leg.amount != -a.amount || leg.account != r.TransferAccount) {
			// The person changed the leg YNAB made: an import would not
			// match it and would make a transfer of its own.
			s.c.log.Warn().Str(logfield.TransactionID, r.TransferImportID).Msg("ynab: the other leg of a transfer was changed in the app; left without its import id")
			continue
		}
		if id, ok := s.st.live[r.TransferAccount+"/"+r.TransferImportID]; ok {
			// The other bank leg already has a row of its own: the
			// engine's to mend; say which it is.
			out[r.TransferImportID] = id
			s.c.log.Warn().Str(logfield.TransactionID, r.TransferImportID).Msg("ynab: the other leg of a transfer already has a row of its own")
			continue
		}
		imp, err := encodeImportID(r.TransferImportID, max(1, s.st.nextGen[r.TransferAccount+"/"+r.TransferImportID]))
		if err != nil {
			s.st.mu.Unlock()
			return err
		}
		p := s.accounts[r.Account].TransferPayeeID
		send = append(send, newTx{AccountID: r.TransferAccount, Date: a.date, Amount: -a.amount, PayeeID: &p,
			Memo: truncate(r.Notes, 500), Cleared: clearedOf(r.TransferCleared), ImportID: imp})
		legs = append(legs, a.transferTx)
	}
	s.st.mu.Unlock()
	return s.importLegs(ctx, send, legs, out)
}

// monthBefore is the date a month before d (YYYY-MM-DD), allDates if d is
// not a date.
func monthBefore(d string) string {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return allDates
	}
	return t.AddDate(0, -1, 0).Format(time.DateOnly)
}

// patchTx is a transaction's bank facts to set.
type patchTx struct {
	ID      string `json:"id"`
	Date    string `json:"date"`
	Amount  int64  `json:"amount"`
	Cleared string `json:"cleared"`
}

// Update sets amount, date and cleared of rows the feed created, in bulk
// (MaxBatch a request). Nothing else of a row changes; a row without an
// import id (the person's) or reconciled is left alone, as is one whose
// facts are already the bank's.
func (s *session) Update(ctx context.Context, facts []feeds.Facts) error {
	if len(facts) == 0 {
		return nil
	}
	minDate := facts[0].Date
	for _, f := range facts {
		minDate = min(minDate, f.Date)
	}
	if err := s.ensureFilled(ctx, monthBefore(minDate)); err != nil {
		return err
	}
	var send []patchTx
	s.st.mu.Lock()
	for _, f := range facts {
		r := s.st.rows[f.ID]
		switch {
		case r == nil || r.deleted:
			s.c.log.Debug().Str(logfield.TransactionID, f.ID).Msg("ynab: no row to update")
			continue
		case r.importID == "" || r.cleared == "reconciled":
			continue
		}
		p := patchTx{ID: r.id, Date: f.Date, Amount: f.Amount * milliPerCent, Cleared: clearedOf(f.Cleared)}
		if p.Date == r.date && p.Amount == r.amount && p.Cleared == r.cleared {
			continue
		}
		send = append(send, p)
	}
	s.st.mu.Unlock()
	for i := 0; i < len(send); i += s.c.o.batch {
		j := min(i+s.c.o.batch, len(send))
		var res saveResponse
		if err := s.c.do(ctx, http.MethodPatch, s.path("/transactions"), nil, map[string]any{"transactions": send[i:j]}, &res); err != nil {
			return fmt.Errorf("update ynab transactions: %w", err)
		}
		s.st.mu.Lock()
		for _, t := range res.Data.Transactions {
			s.st.merge(t)
		}
		s.st.mu.Unlock()
	}
	return nil
}

// Delete removes rows by app id, a request each (YNAB deletes a
// transfer's other leg with it). A row without an import id or reconciled
// is left alone; one already gone counts as deleted.
func (s *session) Delete(ctx context.Context, ids []string) error {
	for _, id := range ids {
		s.st.mu.Lock()
		r := s.st.rows[id]
		s.st.mu.Unlock()
		if r == nil {
			var res struct {
				Data struct {
					Transaction txJSON `json:"transaction"`
				} `json:"data"`
			}
			err := s.c.do(ctx, http.MethodGet, s.path("/transactions/"+url.PathEscape(id)), nil, nil, &res)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return fmt.Errorf("read ynab transaction: %w", err)
			}
			s.st.mu.Lock()
			s.st.merge(res.Data.Transaction)
			r = s.st.rows[id]
			s.st.mu.Unlock()
		}
		if r.deleted || r.importID == "" || r.cleared == "reconciled" {
			continue
		}
		var res struct {
			Data struct {
				Transaction txJSON `json:"transaction"`
			} `json:"data"`
		}
		err := s.c.do(ctx, http.MethodDelete, s.path("/transactions/"+url.PathEscape(id)), nil, nil, &res)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("delete ynab transaction: %w", err)
		}
		s.st.mu.Lock()
		if err == nil {
			s.st.merge(res.Data.Transaction)
		} else {
			r.deleted = true
		}
		if o := s.st.rows[r.transferTx]; o != nil && !o.deleted {
			d := txJSON{ID: o.id, Date: o.date, Amount: o.amount, Cleared: o.cleared, AccountID: o.account,
				ImportID: &o.importID, Deleted: true}
			s.st.merge(d)
		}
		s.st.mu.Unlock()
	}
	return nil
}

// Link makes pairs of rows one transfer each. YNAB links a transfer only
// as it makes one: the first row is given the other account's transfer
// payee (PATCH), on which YNAB adds the other leg on that account; the
// other row's bank leg is then imported onto that leg (YNAB's import
// matching, under a re-import id, since the other row still holds the
// bank id) and the other row is deleted. The second leg's app id changes
// (returned), and of that row's own fields only its memo carries over.
func (s *session) Link(ctx context.Context, links []feeds.Link) (map[string]string, error) {
	out := map[string]string{}
	if len(links) == 0 {
		return out, nil
	}
	if err := s.ensureAccounts(ctx); err != nil {
		return out, err
	}
	type payeePatch struct {
		ID      string `json:"id"`
		PayeeID string `json:"payee_id"`
	}
	var patch []payeePatch
	for _, l := range links {
		a, err := s.row(ctx, l.ID)
		if err != nil {
			return out, err
		}
		b, err := s.row(ctx, l.OtherID)
		if err != nil {
			return out, err
		}
		acct, ok := s.accounts[b.account]
		switch {
		case !ok:
			return out, fmt.Errorf("%w: %s (transfer of bank transaction %s)", ErrNoAccount, b.account, l.ImportID)
		case a.transferAccount == "":
			patch = append(patch, payeePatch{ID: a.id, PayeeID: acct.TransferPayeeID})
		case a.transferAccount != b.account:
			return out, fmt.Errorf("ynab: row of bank transaction %s is a transfer to another account", l.ImportID)
		}
	}
	for i := 0; i < len(patch); i += s.c.o.batch {
		j := min(i+s.c.o.batch, len(patch))
		var res saveResponse
		if err := s.c.do(ctx, http.MethodPatch, s.path("/transactions"), nil, map[string]any{"transactions": patch[i:j]}, &res); err != nil {
			return out, fmt.Errorf("make ynab transfers: %w", err)
		}
		s.st.mu.Lock()
		for _, t := range res.Data.Transactions {
			s.st.merge(t)
		}
		s.st.mu.Unlock()
	}
	if len(patch) > 0 {
		// The legs YNAB made.
		if err := s.refresh(ctx, allDates); err != nil {
			return out, err
		}
	}
	var send []newTx
	var legs, olds []string
	s.st.mu.Lock()
	for _, l := range links {
		a, b := s.st.rows[l.ID], s.st.rows[l.OtherID]
		if a == nil || b == nil {
			s.st.mu.Unlock()
			return out, fmt.Errorf("ynab: a row of the transfer of bank transaction %s is gone from the plan", l.ImportID)
		}
		leg := s.st.rows[a.transferTx]
		if leg == nil || leg.deleted {
			s.st.mu.Unlock()
			return out, fmt.Errorf("ynab: transfer of bank transaction %s has no other leg", l.ImportID)
		}
		if leg.id == b.id {
			continue
		}
		if leg.importID != "" {
			if bank, _ := decodeImportID(leg.importID); bank != l.OtherImportID {
				s.st.mu.Unlock()
				return out, fmt.Errorf("ynab: other leg %s of bank transaction %s carries import id %s, not %s",
					leg.id, l.ImportID, bank, l.OtherImportID)
			}
			out[l.OtherImportID] = leg.id
			olds = append(olds, b.id)
			continue
		}
		imp, err := encodeImportID(l.OtherImportID, max(2, s.st.nextGen[b.account+"/"+l.OtherImportID]))
		if err != nil {
			s.st.mu.Unlock()
			return out, err
		}
		p := s.accounts[a.account].TransferPayeeID
		memo := b.memo
		send = append(send, newTx{AccountID: leg.account, Date: leg.date, Amount: leg.amount, PayeeID: &p,
			Memo: truncate(memo, 500), Cleared: b.cleared, ImportID: imp})
		legs = append(legs, leg.id)
		olds = append(olds, b.id)
	}
	s.st.mu.Unlock()
	if err := s.importLegs(ctx, send, legs, out); err != nil {
		return out, err
	}
	// The rows the legs replace.
	if err := s.Delete(ctx, olds); err != nil {
		return out, err
	}
	return out, nil
}

// importLegs imports send, the other bank legs of transfers, onto legs,
// the rows YNAB made for them without an import id (YNAB's import
// matching), and records each bank id's row in out; a leg matched to
// another row is an error.
func (s *session) importLegs(ctx context.Context, send []newTx, legs []string, out map[string]string) error {
	for i := 0; i < len(send); i += s.c.o.batch {
		j := min(i+s.c.o.batch, len(send))
		res, err := s.post(ctx, send[i:j])
		if err != nil {
			return err
		}
		s.st.mu.Lock()
		for _, t := range res.Data.Transactions {
			s.st.merge(t)
		}
		s.st.mu.Unlock()
		for k, t := range send[i:j] {
			bank, _ := decodeImportID(t.ImportID)
			got := ""
			for _, x := range res.Data.Transactions {
				if str(x.ImportID) == t.ImportID {
					got = x.ID
				}
			}
			if got != legs[i+k] {
				return fmt.Errorf("ynab: the import of transfer leg %s did not match the leg ynab made (%s, got %q)", bank, legs[i+k], got)
			}
			out[bank] = got
		}
	}
	return nil
}

// row is the plan's row id, read from YNAB when the copy does not hold it.
func (s *session) row(ctx context.Context, id string) (*row, error) {
	s.st.mu.Lock()
	r := s.st.rows[id]
	s.st.mu.Unlock()
	if r != nil && !r.deleted {
		return r, nil
	}
	var res struct {
		Data struct {
			Transaction txJSON `json:"transaction"`
		} `json:"data"`
	}
	if err := s.c.do(ctx, http.MethodGet, s.path("/transactions/"+url.PathEscape(id)), nil, nil, &res); err != nil {
		return nil, fmt.Errorf("read ynab transaction: %w", err)
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	s.st.merge(res.Data.Transaction)
	r = s.st.rows[id]
	if r == nil || r.deleted {
		return nil, fmt.Errorf("ynab: transaction %s is deleted", id)
	}
	return r, nil
}

// Sync does nothing: YNAB's writes are applied as they are answered.
func (s *session) Sync(context.Context) error { return nil }

// Close ends the session: YNAB's writes are applied as they are
// answered. The plan's copy goes to the feed's folder (see spill).
func (s *session) Close(context.Context) error {
	if err := s.c.o.spill(s.pk, s.st); err != nil {
		s.c.log.Warn().Err(err).Msg("the plan's copy is read whole from YNAB next time")
	}
	return nil
}
