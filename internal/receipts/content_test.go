package receipts_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/bankmirror/bankmirror/internal/mirrortest"
	"github.com/bankmirror/bankmirror/internal/receipts"
	"github.com/bankmirror/bankmirror/internal/replica"
)

// hostileBodies are what the test file host (/test/file) serves.
var hostileBodies = map[string][]byte{
	"html": []byte("<!DOCTYPE html><html><script>alert(document.cookie)</script></html>"),
	"png":  []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00receipt"),
	"gif":  []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00receipt"),
	"webp": []byte("RIFF\x24\x00\x00\x00WEBPVP8 receipt"),
	"heic": []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heicreceipt"),
	"bmp":  []byte("BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00receipt"),
}

// A hostile bank chooses what it declares (content type and extension)
// and what it serves. Only a file whose content is a kept type (JPEG, PNG,
// GIF, WebP, HEIC/HEIF, PDF), the one declared, is kept, named by its
// type's extension whatever extension the bank gave: HTML declared and
// served as image/bmp with extension "html" is refused, and so is HTML
// declared and served as a PNG, or a real BMP; a real PNG the bank calls
// "html" is kept as .png. Nothing else is left in the directory.
func TestOnlyContentOfAKeptTypeIsKeptUnderItsOwnExtension(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := replica.New(e.client, e.store, zerolog.Nop(), replica.Options{}).Full(ctx)
	must(t, err)
	cases := []struct {
		declared, ext, body string
		keptExt, refusal    string
	}{
		{"image/bmp", "html", "html", "", `"image/bmp", not a receipt's`},
		{"image/png", "html", "html", "", "the file is text/html, not a receipt's"},
		{"image/png", "png", "html", "", "the file is text/html, not a receipt's"},
		{"application/pdf", "pdf", "html", "", "the file is text/html, not a receipt's"},
		{"image/jpeg", "jpg", "png", "", "the file is image/png, the bank declared image/jpeg"},
		{"image/bmp", "bmp", "bmp", "", `"image/bmp", not a receipt's`},
		{"image/png", "html", "png", "png", ""},
		{"image/gif", "exe", "gif", "gif", ""},
		{"image/webp", "webp", "webp", "webp", ""},
		{"image/heic", "HEIC", "heic", "heic", ""},
	}
	ids := mirrortest.Strings(t, e.store.Reader(), "SELECT id FROM attachments ORDER BY id")
	if len(ids) < len(cases) {
		t.Fatalf("%d attachments; the test needs %d", len(ids), len(cases))
	}
	for i, c := range cases {
		link := e.origin + "/test/file?type=" + url.QueryEscape(c.declared) + "&body=" + c.body
		must(t, storeExec(e, "UPDATE attachments SET file_url = ?, file_content_type = ?, file_extension = ? WHERE id = ?",
			link, c.declared, c.ext, ids[i]))
	}
	if _, err := e.fetcher(receipts.Options{}).Fetch(ctx); err != nil {
		t.Fatalf("the pass failed: %v", err)
	}
	kept := map[string]bool{}
	for i, c := range cases {
		var path, derr string
		must(t, e.store.Reader().QueryRow(`SELECT coalesce(local_path, ''), coalesce(download_error, '')
			FROM attachments WHERE id = ?`, ids[i]).Scan(&path, &derr))
		switch {
		case c.keptExt == "" && (path != "" || !strings.Contains(derr, c.refusal)):
			t.Errorf("%s declared .%s serving %s: kept as %q, error %q; want refused with %q", c.declared, c.ext, c.body, path, derr, c.refusal)
		case c.keptExt != "" && (derr != "" || filepath.Ext(path) != "."+c.keptExt):
			t.Errorf("%s declared .%s serving %s: kept as %q, error %q; want a .%s file", c.declared, c.ext, c.body, path, derr, c.keptExt)
		case c.keptExt != "":
			kept[filepath.Base(path)] = true
			f, err := receipts.Open(e.dir, path)
			if err != nil {
				t.Errorf("the kept %s does not open: %v", path, err)
				continue
			}
			_ = f.Close()
		}
	}
	// Every file in the directory is one the mirror kept, of a kept type.
	names, err := os.ReadDir(e.dir)
	must(t, err)
	for _, n := range names {
		switch filepath.Ext(n.Name()) {
		case ".jpg", ".png", ".pdf", ".gif", ".webp", ".heic":
		default:
			t.Errorf("%s in the receipts directory", n.Name())
		}
	}
	if n := mirrortest.Int(t, e.store.Reader(), "SELECT count(DISTINCT local_path) FROM attachments"); len(names) != n {
		t.Errorf("%d files in the receipts directory, %d kept", len(names), n)
	}
	if len(kept) != 4 {
		t.Errorf("%d of the cases kept, want 4", len(kept))
	}
}
