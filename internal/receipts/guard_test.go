package receipts

import (
	"errors"
	"net/netip"
	"net/url"
	"testing"
)

func TestRefusedAddresses(t *testing.T) {
	for _, a := range []string{"127.0.0.1", "127.8.9.10", "::1", "10.1.2.3", "172.16.0.1", "172.31.255.254", "192.168.1.1",
		"169.254.169.254", "fe80::1", "fc00::1", "fd12:3456::1", "100.64.0.1", "0.0.0.0", "::", "224.0.0.1", "ff02::1",
		"255.255.255.255", "::ffff:127.0.0.1", "::ffff:10.0.0.1"} {
		if !refusedIP(netip.MustParseAddr(a)) {
			t.Errorf("%s is allowed", a)
		}
	}
	for _, a := range []string{"1.1.1.1", "52.95.110.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"} {
		if refusedIP(netip.MustParseAddr(a)) {
			t.Errorf("%s is refused", a)
		}
	}
}

func TestCheckLink(t *testing.T) {
	g := newGuard("http://127.0.0.1:8123/api/v1")
	for _, tc := range []struct {
		link string
		want error
	}{
		{"https://receipts.example.com/f/1?sig=x", nil},
		{"http://127.0.0.1:8123/files/attachments/1", nil},     // the API's origin
		{"HTTP://127.0.0.1:8123/files/attachments/1", nil},     // scheme case
		{"https://127.0.0.1:8123/files/attachments/1", nil},    // the API's host
		{"http://receipts.example.com/f/1", errRefusedLink},    // not https
		{"http://127.0.0.1:8124/metrics", errRefusedLink},      // another port
		{"http://localhost:8123/metrics", errRefusedLink},      // another host name
		{"file:///etc/passwd", errRefusedLink},                 // no host
		{"ftp://receipts.example.com/f", errRefusedLink},       // scheme
		{"https://10.0.0.7/f", errRefusedAddress},              // a private address, literally
		{"https://[::1]:9443/f", errRefusedAddress},            // loopback, literally
		{"https://169.254.169.254/latest/", errRefusedAddress}, // link-local
	} {
		u, err := url.Parse(tc.link)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.checkLink(u); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tc.link, err, tc.want)
		}
	}
	// Without the API's URL only https is followed.
	if err := newGuard("").checkLink(&url.URL{Scheme: "http", Host: "127.0.0.1:8123"}); !errors.Is(err, errRefusedLink) {
		t.Errorf("http without an API origin: %v", err)
	}
}

func TestReceiptTypes(t *testing.T) {
	for _, mt := range []string{"image/jpeg", "image/png", "image/heic", "application/pdf"} {
		if !receiptType(mt) {
			t.Errorf("%s refused", mt)
		}
	}
	for _, mt := range []string{"text/html", "image/svg+xml", "application/octet-stream", "text/plain", "", "application/pdfx"} {
		if receiptType(mt) {
			t.Errorf("%s accepted", mt)
		}
	}
}
