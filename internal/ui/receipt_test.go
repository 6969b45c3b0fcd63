package ui_test

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/store"
	"github.com/bankmirror/bankmirror/internal/ui"
)

// keptName is the name receipts gives a kept file: its SHA-256 and ext.
func keptName(b []byte, ext string) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]) + "." + ext
}

// A receipt is served only from the attachments directory, under a name
// of the shape receipts gives (SHA-256 and extension), never through a
// symbolic link and never from where else local_path points: a mirror
// whose local_path names /etc/passwd, a file elsewhere or a link out of
// the directory serves nothing. Images are shown inline in a sandbox, PDFs
// downloaded.
func TestReceiptServedOnlyFromTheAttachmentsDir(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	raw, err := os.ReadFile(mirrorPath)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "mirror.db")
	if err := os.WriteFile(db, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, db, store.WithTimeZone(melbourne))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var attID, txID string
	if err := st.Reader().QueryRowContext(ctx, `SELECT min(id), transaction_id FROM attachments GROUP BY transaction_id ORDER BY 1 LIMIT 1`).
		Scan(&attID, &txID); err != nil {
		t.Fatalf("the test mirror has no attachment: %v", err)
	}
	set := func(path, ctype string) {
		t.Helper()
		if err := st.InTx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE attachments SET local_path = ?, file_content_type = ? WHERE id = ?`, path, ctype, attID)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}

	attDir, outside := filepath.Join(dir, "attachments"), filepath.Join(dir, "outside")
	for _, d := range []string{attDir, outside} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, b []byte) string {
		t.Helper()
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR receipt")
	pdf := []byte("%PDF-1.4 receipt")
	good := write(filepath.Join(attDir, keptName(png, "png")), png)
	pdfPath := write(filepath.Join(attDir, keptName(pdf, "pdf")), pdf)
	secret := write(filepath.Join(outside, "secret.txt"), []byte("SECRET-1"))
	outsideNamed := write(filepath.Join(outside, keptName([]byte("SECRET-2"), "png")), []byte("SECRET-2"))
	link := filepath.Join(attDir, keptName([]byte("link"), "png"))
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}

	// serve is the dashboard of st reading receipts from attachments, and
	// a browser signed in to it.
	serve := func(attachments string) (*http.Client, string) {
		t.Helper()
		h, err := ui.New(st, ui.Options{Token: testToken, Location: melbourne, Now: func() time.Time { return simNow }, AttachmentsDir: attachments})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(h.Close)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		d := &dashboard{url: srv.URL, h: h}
		c := d.browser(t)
		return c, d.base
	}
	c, base := serve(attDir)
	receiptPath := "/transactions/" + txID + "/receipt"

	set(good, "image/png")
	code, hd, body := get(t, c, base+receiptPath)
	if code != http.StatusOK || body != string(png) || hd.Get("Content-Type") != "image/png" ||
		!strings.HasPrefix(hd.Get("Content-Disposition"), "inline") || !strings.HasPrefix(hd.Get("Content-Security-Policy"), "sandbox") ||
		hd.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("a kept image: %d %s, disposition %q, CSP %q, nosniff %q; want 200, inline, sandboxed, nosniff",
			code, hd.Get("Content-Type"), hd.Get("Content-Disposition"), hd.Get("Content-Security-Policy"), hd.Get("X-Content-Type-Options"))
	}
	set(pdfPath, "application/pdf")
	if code, hd, body := get(t, c, base+receiptPath); code != http.StatusOK || body != string(pdf) || !strings.HasPrefix(hd.Get("Content-Disposition"), "attachment") {
		t.Errorf("a kept PDF: %d, disposition %q; want 200, downloaded", code, hd.Get("Content-Disposition"))
	}
	// The directory stored is not trusted: the file is looked up in the
	// attachments directory by its name.
	set(filepath.Join("/var/lib/elsewhere", filepath.Base(good)), "image/png")
	if code, _, body := get(t, c, base+receiptPath); code != http.StatusOK || body != string(png) {
		t.Errorf("a kept name under another directory: %d, want 200 with the file of the attachments directory", code)
	}
	for _, stored := range []string{"/etc/passwd", secret, outsideNamed, link, attDir + "/../outside/" + filepath.Base(outsideNamed), attDir} {
		set(stored, "image/png")
		code, _, body := get(t, c, base+receiptPath)
		if code != http.StatusNotFound || strings.Contains(body, "SECRET") || strings.Contains(body, "root:") {
			t.Errorf("local_path %s: %d, want 404 and nothing of the file", stored, code)
		}
	}
	set(good, "image/png")
	c, base = serve("")
	if code, _, _ := get(t, c, base+receiptPath); code != http.StatusNotFound {
		t.Errorf("without an attachments directory: %d, want 404", code)
	}
}
