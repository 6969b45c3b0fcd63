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
	h.render(w, r, http.StatusOK, "transaction", short(60, d.Description), struct{ T store.TxDetail }{d})
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
