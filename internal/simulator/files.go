package simulator

import (
	"bytes"
	"crypto/hmac"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Attachment downloads. fileURL points at {server}/files/attachments/
// {id}.{ext}?expires=UNIX&signature=HEX, a link signed with the bank's
// secret that needs no API token, as an object store's presigned URL. It
// answers like one: 403 with an XML error once expired or when the
// signature does not match, 404 when the attachment is gone, else the file:
// a small real JPEG, PNG or PDF of the attachment's content type.

const filesPrefix = "/files/attachments/"

// serveFile answers a download of an attachment's file.
func (b *Bank) serveFile(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeStoreError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "The specified method is not allowed against this resource.")
		return
	}
	name := strings.TrimPrefix(r.URL.Path, filesPrefix)
	id, ext, _ := strings.Cut(name, ".")
	q := r.URL.Query()
	exp, err := strconv.ParseInt(q.Get("expires"), 10, 64)
	if err != nil || !hmac.Equal([]byte(q.Get("signature")), []byte(b.fileSignature(id, q.Get("expires")))) {
		writeStoreError(w, http.StatusForbidden, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
		return
	}
	if !b.now().Before(time.Unix(exp, 0)) {
		writeStoreError(w, http.StatusForbidden, "AccessDenied", "Request has expired")
		return
	}
	b.mu.RLock()
	a, ok := b.attByID[id]
	var contentType string
	if ok && a.FileExtension == ext {
		contentType = a.FileContentType
	}
	b.mu.RUnlock()
	if contentType == "" {
		writeStoreError(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
		return
	}
	body := sampleFile(contentType)
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
}

// fileSignature is the hex HMAC-SHA256 of an attachment id and expiry.
func (b *Bank) fileSignature(id, expires string) string {
	return hex.EncodeToString(hmacSHA256(b.secret, id+"|"+expires))
}

// writeStoreError answers like an object store: an XML error document.
func writeStoreError(w http.ResponseWriter, status int, code, message string) {
	body := `<?xml version="1.0" encoding="UTF-8"?>` + "\n<Error><Code>" + code + "</Code><Message>" + message + "</Message></Error>"
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// sampleFiles are the files served for each content type, made once.
var sampleFiles = sync.OnceValue(func() map[string][]byte {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for x := range 16 {
		for y := range 16 {
			img.Set(x, y, color.RGBA{R: uint8(x * 16), G: 0x99, B: uint8(y * 16), A: 0xff})
		}
	}
	var p, j bytes.Buffer
	if err := png.Encode(&p, img); err != nil {
		panic("simulator: encode png: " + err.Error())
	}
	if err := jpeg.Encode(&j, img, nil); err != nil {
		panic("simulator: encode jpeg: " + err.Error())
	}
	return map[string][]byte{"image/png": p.Bytes(), "image/jpeg": j.Bytes(), "application/pdf": receiptPDF()}
})

func sampleFile(contentType string) []byte { return sampleFiles()[contentType] }

// receiptPDF builds a one-page PDF that says "Receipt", with a correct
// cross-reference table.
func receiptPDF() []byte {
	stream := "BT /F1 18 Tf 40 100 Td (Receipt) Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var buf bytes.Buffer
	buf.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = buf.Len()
		fmt.Fprintf(&buf, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return buf.Bytes()
}
