package ui

import (
	"errors"
	"fmt"
	"mime"
	"net/http"

	"github.com/bankmirror/bankmirror/internal/logfield"
	"github.com/bankmirror/bankmirror/internal/receipts"
	"github.com/bankmirror/bankmirror/internal/store"
)

// transaction is /transactions/{id}: the transaction, its history, its
// receipt.
func (h *Handler) transaction(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if len(id) > 200 {
		h.fail(w, r, badInput{"no such transaction id"})
		return
	}
	d, err := h.m.TransactionDetail(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	rs, err := h.m.TransactionRules(r.Context(), id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	acts := make([]ruleAction, 0, len(rs.Applications))
	for _, a := range rs.Applications {
		acts = append(acts, h.ruleAction(a))
	}
	// The other side of a household transfer: the same money, seen on
	// the other person's account.
	var other *store.TxDetail
	if d.HouseholdTransferID != "" {
		o, err := h.m.TransactionDetail(r.Context(), d.HouseholdTransferID)
		switch {
		case err == nil:
			other = &o
		case !errors.Is(err, store.ErrNotFound):
			h.fail(w, r, err)
			return
		}
	}
	h.render(w, r, http.StatusOK, "transaction", short(60, d.Description), struct {
		T            store.TxDetail
		CategoryRule string
		Actions      []ruleAction
		Other        *store.TxDetail
	}{d, rs.CategoryRule, acts, other})
}

// ruleAction is an action a rule took on the transaction, as its page
// shows it.
type ruleAction struct {
	Rule, Action, Value, Applied, Source string
	WrittenBack, Error                   string
}

// ruleAction says what a rule_applications row did: its value (a
// category's id, "none" for a removal), when, and where the bank stands.
func (h *Handler) ruleAction(a store.RuleApplication) ruleAction {
	out := ruleAction{Rule: a.Rule, Action: a.Action, Value: a.Value, Applied: h.localStamp(a.AppliedAt), Source: a.Source, Error: a.Error}
	switch a.Action {
	case store.RuleCategory:
		if a.Value == "" {
			out.Value = "none"
		}
	case store.RuleExclude:
		out.Value = map[bool]string{true: "left out of spending", false: "kept in spending"}[a.Value == "1"]
	}
	switch {
	case a.WrittenBackAt != "":
		out.WrittenBack = h.localStamp(a.WrittenBackAt)
	case a.WriteBack:
		out.WrittenBack = "waiting"
	case a.Action != store.RuleCategory && a.Action != store.RuleTag:
		out.WrittenBack = "mirror only"
	case a.Error != "":
		out.WrittenBack = "no"
	case a.Source == store.RuleFirstSync:
		out.WrittenBack = "no: a first sync writes nothing back"
	case a.Source == store.RuleApplyRun:
		out.WrittenBack = "no: rules apply without --write-back"
	default:
		out.WrittenBack = "no"
	}
	return out
}

// imageTypes are the receipts shown in the browser, inside a sandbox; a
// PDF (which Chromium does not render in a sandboxed document) and any
// other file are downloaded.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// errNoReceipt: the transaction has no kept receipt the dashboard may
// serve.
var errNoReceipt = errors.New("no receipt kept")

// receipt serves the kept file of a transaction's receipt: only the file
// receipts kept, in the attachments directory, checked by receipts.Open,
// whatever directory the mirror's local_path names.
func (h *Handler) receipt(w http.ResponseWriter, r *http.Request) {
	d, err := h.m.TransactionDetail(r.Context(), r.PathValue("id"))
	if err == nil && d.ReceiptPath == "" {
		err = store.ErrNotFound
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f, err := receipts.Open(h.o.AttachmentsDir, d.ReceiptPath)
	if err != nil {
		h.log.Warn().Err(err).Str(logfield.TransactionID, d.ID).Msg("dashboard: receipt refused")
		h.fail(w, r, errNoReceipt)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		h.fail(w, r, fmt.Errorf("receipt of %s: %w", d.ID, err))
		return
	}
	hd := w.Header()
	// A receipt is the bank's file, not ours: it runs nothing here.
	hd.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'")
	ctype, disposition := d.ReceiptType, "inline"
	switch {
	case ctype == "application/pdf":
		disposition = "attachment"
	case !imageTypes[ctype]:
		ctype, disposition = "application/octet-stream", "attachment"
	}
	hd.Set("Content-Type", ctype)
	hd.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": "receipt-" + d.AttachmentID + extOf(ctype)}))
	http.ServeContent(w, r, "", st.ModTime(), f)
}

func extOf(ctype string) string {
	if exts, _ := mime.ExtensionsByType(ctype); len(exts) > 0 {
		return exts[0]
	}
	return ""
}
