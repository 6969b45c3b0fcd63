package feeds

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bankmirror/bankmirror/internal/money"
	"github.com/bankmirror/bankmirror/internal/store"
)

// Kinds of difference a check finds between the app and the mirror.
const (
	Missing           = "missing"            // a fed bank transaction has no row in the app
	Extra             = "extra"              // the app has a row for a bank transaction that is not fed (deleted, dropped)
	Duplicate         = "duplicate"          // the app has two rows for one bank transaction
	WrongAmount       = "wrong_amount"       // the row's amount is not the bank's
	WrongDate         = "wrong_date"         // the row's date is not the bank's
	WrongCleared      = "wrong_cleared"      // cleared is not the bank's SETTLED
	TransferSplit     = "transfer_split"     // a transfer between fed accounts is not one transfer in the app
	DeletedInApp      = "deleted_in_app"     // the person deleted the row in the app (push --restore ID puts it back)
	ReconciledChanged = "reconciled_changed" // the person reconciled the row and the bank changed it since
)

// checkKinds is the order a check reports its kinds in.
var checkKinds = []string{Missing, Extra, Duplicate, WrongAmount, WrongDate, WrongCleared, TransferSplit, DeletedInApp, ReconciledChanged}

// Finding is one difference between the app and the mirror.
type Finding struct {
	Kind          string
	TransactionID string // the bank transaction's id
	Detail        string
}

// CheckResult is what a check found.
type CheckResult struct {
	Feed     string
	Rows     int // the app's rows on the fed accounts since the feed's since
	Fed      int // the bank transactions that should be there
	Findings []Finding
}

// Counts are the findings by kind.
func (c CheckResult) Counts() map[string]int {
	out := map[string]int{}
	for _, f := range c.Findings {
		out[f.Kind]++
	}
	return out
}

// Summary is the counts by kind, in a fixed order ("exact" when none).
func (c CheckResult) Summary() string {
	counts := c.Counts()
	var parts []string
	for _, k := range checkKinds {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
		}
	}
	if len(parts) == 0 {
		return "exact"
	}
	return strings.Join(parts, ", ")
}

// Check reads the app and compares it with the mirror: every fed bank
// transaction since the feed's since has exactly one row, with the bank's
// facts, transfers linked; what the person did in the app is reported
// (deleted rows, reconciled rows the bank changed since) but is not a
// fault of the feed's. The result is recorded in the feed's state.
func (e *Engine) Check(ctx context.Context, fd *Feed) (CheckResult, error) {
	res := CheckResult{Feed: fd.Name}
	app, ok := e.apps[fd.Kind]
	if !ok {
		return res, fmt.Errorf("feed %q: kind %q is not available in this build", fd.Name, fd.Kind)
	}
	accounts, err := e.bankAccounts(ctx, fd)
	if err != nil {
		return res, err
	}
	sess, err := app.Opener.Open(ctx, e.Target(fd))
	if err != nil {
		return res, fmt.Errorf("feed %q: open %s: %w", fd.Name, fd.Kind, err)
	}
	defer func() { _ = sess.Close(context.WithoutCancel(ctx)) }()
	b, err := openBudget(ctx, sess, fd, accounts)
	if err != nil {
		return res, err
	}
	txs, err := e.mirror.FeedAccountTransactions(ctx, keys(accounts), fd.Since)
	if err != nil {
		return res, err
	}
	mapped, err := e.mirror.FeedRows(ctx, fd.Name, nil)
	if err != nil {
		return res, err
	}
	spans, err := e.spans(ctx, fd, b)
	if err != nil {
		return res, err
	}
	rows, err := sess.Rows(ctx, spans.appAccounts(b), fd.Since)
	if err != nil {
		return res, fmt.Errorf("feed %q: read the app's rows: %w", fd.Name, err)
	}
	// The rows of a bank account taken out of the feed's accounts are
	// left in the app as they are, no longer kept exact: not extra.
	unfed, err := e.mirror.FeedUnfedRows(ctx, fd.Name, keys(accounts), nil)
	if err != nil {
		return res, err
	}
	for _, id := range unfed {
		delete(mapped, id)
	}
	// A row another feed's push deleted with a transfer's other leg is
	// not one the person deleted: the feed's next push puts it back.
	pending, err := e.mirror.FeedPending(ctx, fd.Name)
	if err != nil {
		return res, err
	}
	there := map[string]bool{}
	for _, r := range rows {
		there[r.ID] = true
	}
	for id, why := range pending {
		if m, ok := mapped[id]; ok && why == store.FeedPendingLegGone && !there[m.AppID] {
			delete(mapped, id)
		}
	}
	res.Fed = len(txs)
	res.Findings, res.Rows = compare(txs, rows, mapped, b, spans)
	found, _ := json.Marshal(map[string]any{"summary": res.Summary(), "counts": res.Counts(), "rows": res.Rows,
		"fed": res.Fed, "at": time.Now().UTC().Format(time.RFC3339)})
	if err := e.mirror.RecordFeedCheck(ctx, fd.Name, string(found)); err != nil {
		return res, err
	}
	return res, nil
}

// compare finds the differences between the fed transactions txs and the
// app's rows (of the accounts the feed feeds now, and of the other
// accounts of its spans), and counts the rows of the accounts it feeds
// now and the rows elsewhere that hold a fed transaction. A transaction's
// row is in the app account its bank account is fed into, or the one the
// mirror recorded it in; another row of it within the feed's spans is a
// duplicate, and one outside them is not the feed's.
func compare(txs []store.FeedTx, rows []AppRow, mapped map[string]store.FeedRow, b budget, spans feedSpans) ([]Finding, int) {
	var out []Finding
	byImport := map[string][]AppRow{}
	byApp := map[string]AppRow{}
	current := map[string]bool{}
	for _, id := range b.appAccount {
		current[id] = true
	}
	counted := 0
	for _, r := range rows {
		byApp[r.ID] = r
		if r.ImportID != "" {
			byImport[r.ImportID] = append(byImport[r.ImportID], r)
		}
		if current[r.Account] {
			counted++
		}
	}
	fed := map[string]store.FeedTx{}
	for _, t := range txs {
		fed[t.ID] = t
	}
	// rowsOf are t's rows: in its account, or the one the mirror
	// recorded; and its other rows within the feed's spans.
	rowsOf := func(t store.FeedTx) (got, stray []AppRow) {
		m, isMapped := mapped[t.ID]
		for _, r := range byImport[t.ID] {
			switch {
			case r.Account == b.appAccount[t.AccountID] || (isMapped && r.ID == m.AppID):
				got = append(got, r)
			case spans.covers(t.AccountID, r.Account, t.Date):
				stray = append(stray, r)
			}
		}
		return got, stray
	}
	for _, t := range txs {
		got, stray := rowsOf(t)
		for _, r := range got {
			if !current[r.Account] {
				counted++
			}
		}
		m := mapped[t.ID]
		if n := len(got) + len(stray); n > 1 || (len(got) == 0 && n > 0) {
			detail := fmt.Sprintf("%d rows", n)
			if len(stray) > 0 {
				var where []string
				for _, r := range stray {
					where = append(where, fmt.Sprintf("%s in account %s", r.ID, r.Account))
				}
				detail += ", in another account than its own: " + strings.Join(where, ", ")
			}
			out = append(out, Finding{Duplicate, t.ID, detail})
		}
		if len(got) == 0 {
			switch {
			case m.State == store.FeedDeletedInApp || (m.State == store.FeedPushed && m.AppID != ""):
				out = append(out, Finding{DeletedInApp, t.ID, fmt.Sprintf("%s %s %s", t.Date, money.Format(t.Amount, ""), t.Description)})
			default:
				out = append(out, Finding{Missing, t.ID, fmt.Sprintf("%s %s %s", t.Date, money.Format(t.Amount, ""), t.Description)})
			}
			continue
		}
		r := got[0]
		date, amount, cleared := facts(t)
		if r.Reconciled {
			if r.Date != date || r.Amount != amount || r.Cleared != cleared {
				out = append(out, Finding{ReconciledChanged, t.ID, fmt.Sprintf("the app has %s %s, the bank %s %s",
					r.Date, money.Format(r.Amount, ""), date, money.Format(amount, ""))})
			}
		} else {
			if r.Amount != amount {
				out = append(out, Finding{WrongAmount, t.ID, fmt.Sprintf("the app has %s, the bank %s", money.Format(r.Amount, ""), money.Format(amount, ""))})
			}
			if r.Date != date {
				out = append(out, Finding{WrongDate, t.ID, fmt.Sprintf("the app has %s, the bank %s", r.Date, date)})
			}
			if r.Cleared != cleared {
				out = append(out, Finding{WrongCleared, t.ID, fmt.Sprintf("the app has cleared %v, the bank %v", r.Cleared, cleared)})
			}
		}
		if o, ok := fed[t.OtherID]; ok && b.appAccount[o.AccountID] != b.appAccount[t.AccountID] && t.ID < o.ID {
			others, _ := rowsOf(o)
			if len(others) > 0 && (r.TransferID == "" || r.TransferID != others[0].ID) {
				out = append(out, Finding{TransferSplit, t.ID, fmt.Sprintf("with %s: not linked as a transfer", o.ID)})
			}
		}
	}
	for imp, list := range byImport {
		if _, ok := fed[imp]; ok {
			continue
		}
		m, known := mapped[imp]
		if !known {
			// A row of the accounts fed now; elsewhere only the rows the
			// mirror recorded are the feed's.
			list = slices.DeleteFunc(slices.Clone(list), func(r AppRow) bool { return !current[r.Account] })
			if len(list) == 0 {
				continue
			}
		}
		if known && m.State == store.FeedReconciled {
			out = append(out, Finding{ReconciledChanged, imp, "reconciled in the app, no longer at the bank"})
			continue
		}
		if !known && !looksLikeBankID(imp) {
			continue // another importer's row
		}
		out = append(out, Finding{Extra, imp, fmt.Sprintf("%s %s %s", list[0].Date, money.Format(list[0].Amount, ""), list[0].Payee)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return kindOrder(out[i].Kind) < kindOrder(out[j].Kind)
		}
		return out[i].TransactionID < out[j].TransactionID
	})
	return out, counted
}

func kindOrder(k string) int {
	for i, v := range checkKinds {
		if v == k {
			return i
		}
	}
	return len(checkKinds)
}

// looksLikeBankID reports whether s has the shape of the bank's ids (a
// UUID), so that rows another importer made are not called extra.
func looksLikeBankID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
	}
	return true
}
