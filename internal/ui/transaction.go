package ui

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"regexp"

	"github.com/bankmirror/bankmirror/internal/logfield"
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

// receiptName is the shape of a kept receipt's file name (receipts' save):
// its content's SHA-256 and a short extension.
var receiptName = regexp.MustCompile(`^[0-9a-f]{64}\.[a-z0-9]{1,8}$`)

// errNoReceipt: the transaction has no kept receipt the dashboard may
// serve.
var errNoReceipt = errors.New("no receipt kept")

// receipt serves the kept file of a transaction's receipt: only a file
// named as receipts names them, directly in the attachments directory (not
// a link), whatever directory the mirror's local_path names.
func (h *Handler) receipt(w http.ResponseWriter, r *http.Request) {
	d, err := h.m.TransactionDetail(r.Context(), r.PathValue("id"))
	if err == nil && d.ReceiptPath == "" {
		err = store.ErrNotFound
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	f, err := h.openReceipt(d.ReceiptPath)
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

// openReceipt opens the kept file stored as path: its base name, checked,
// in the attachments directory, through os.Root (nothing outside it), and
// refused if it is a symbolic link or not a regular file.
func (h *Handler) openReceipt(path string) (*os.File, error) {
	if h.o.AttachmentsDir == "" {
		return nil, errors.New("no attachments directory (BANKMIRROR_ATTACHMENTS_DIR) set")
	}
	name := filepath.Base(path)
	if !receiptName.MatchString(name) {
		return nil, fmt.Errorf("stored file name %q is not a receipt's", name)
	}
	root, err := os.OpenRoot(h.o.AttachmentsDir)
	if err != nil {
		return nil, fmt.Errorf("attachments directory: %w", err)
	}
	defer root.Close()
	if fi, err := root.Lstat(name); err != nil {
		return nil, fmt.Errorf("receipt file: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("receipt file %s is not a regular file (%s)", name, fi.Mode().Type())
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("receipt file: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("receipt file %s is not a regular file", name)
	}
	return f, nil
}

func extOf(ctype string) string {
	if exts, _ := mime.ExtensionsByType(ctype); len(exts) > 0 {
		return exts[0]
	}
	return ""
}
