package simulator

import (
	"bytes"
	"image"
	_ "image/jpeg" // decode the served JPEG
	_ "image/png"  // decode the served PNG
	"net/http"
	"strings"
	"testing"
	"time"
)

// fetch GETs url without any Authorization header.
func fetch(t *testing.T, url string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := roundTrip(t, req)
	return r.status, r.header.Get("Content-Type"), r.body
}

func TestAttachmentFiles(t *testing.T) {
	clock := newTestClock(fixedNow)
	e := newEnv(t, Options{Seed: 41, Transactions: 60, Now: clock.Now})
	for _, ct := range []string{"image/jpeg", "image/png", "application/pdf"} {
		e.bank.AddTransaction(NewTransaction{Attachment: ct})
	}
	links := map[string]string{} // content type -> fileURL
	for _, a := range e.walk("/attachments") {
		links[attr(a, "attributes", "fileContentType").(string)] = attr(a, "attributes", "fileURL").(string)
	}
	for ct, link := range links {
		status, got, body := fetch(t, link)
		if status != http.StatusOK || got != ct {
			t.Fatalf("%s: status %d, Content-Type %q", link, status, got)
		}
		switch ct {
		case "application/pdf":
			if !bytes.HasPrefix(body, []byte("%PDF-1.")) || !bytes.HasSuffix(body, []byte("%%EOF\n")) {
				t.Errorf("PDF: %q", body)
			}
		default:
			if _, format, err := image.Decode(bytes.NewReader(body)); err != nil || "image/"+format != ct {
				t.Errorf("%s: decoded as %q: %v", ct, format, err)
			}
		}
	}
	link := links["image/png"]
	if status, ct, body := fetch(t, strings.Replace(link, "signature=", "signature=00", 1)); status != http.StatusForbidden ||
		ct != "application/xml" || !bytes.Contains(body, []byte("<Code>SignatureDoesNotMatch</Code>")) {
		t.Errorf("tampered link: %d %q %s", status, ct, body)
	}
	clock.Set(fixedNow.Add(15 * time.Minute)) // fileURLExpiresAt
	if status, _, body := fetch(t, link); status != http.StatusForbidden || !bytes.Contains(body, []byte("<Code>AccessDenied</Code>")) {
		t.Errorf("expired link: %d %s", status, body)
	}
	clock.Set(fixedNow)
	held := e.bank.AddTransaction(NewTransaction{Held: true, Attachment: "image/png"})
	var heldLink string
	for _, a := range e.walk("/attachments") {
		if attr(a, "relationships", "transaction", "data", "id") == held {
			heldLink = attr(a, "attributes", "fileURL").(string)
		}
	}
	if err := e.bank.Delete(held); err != nil {
		t.Fatal(err)
	}
	if status, _, body := fetch(t, heldLink); status != http.StatusNotFound || !bytes.Contains(body, []byte("NoSuchKey")) {
		t.Errorf("deleted attachment: %d %s", status, body)
	}
}
