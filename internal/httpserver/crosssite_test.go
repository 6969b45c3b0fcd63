package httpserver_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/bankmirror/bankmirror/internal/httpserver"
)

func TestCrossSite(t *testing.T) {
	for _, c := range []struct {
		hdr  []string
		want bool
	}{
		{nil, false},
		{[]string{"Sec-Fetch-Site", "none"}, false},
		{[]string{"Sec-Fetch-Site", "same-origin"}, false},
		{[]string{"Sec-Fetch-Site", "same-origin", "Origin", "http://127.0.0.1:8083"}, false},
		{[]string{"Origin", "http://127.0.0.1:8083"}, false},
		{[]string{"Sec-Fetch-Site", "cross-site"}, true},
		{[]string{"Sec-Fetch-Site", "Same-Site"}, true},
		{[]string{"Origin", "https://evil.example"}, true},
		{[]string{"Origin", "http://127.0.0.1:9999"}, true},
		{[]string{"Origin", "null"}, true},
		// A proxy in front passes another Host: the browser's own word wins.
		{[]string{"Sec-Fetch-Site", "same-origin", "Origin", "https://dash.example.com"}, false},
		{[]string{"Sec-Fetch-Site", "cross-site", "Origin", "http://127.0.0.1:8083"}, true},
		{[]string{"Origin", "http://localhost:8083"}, true},
	} {
		r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8083/?token=x", nil)
		for i := 0; i+1 < len(c.hdr); i += 2 {
			r.Header.Set(c.hdr[i], c.hdr[i+1])
		}
		if got := httpserver.CrossSite(r); got != c.want {
			t.Errorf("%v: CrossSite %v, want %v", c.hdr, got, c.want)
		}
	}
}
