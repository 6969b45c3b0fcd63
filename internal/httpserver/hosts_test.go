package httpserver_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/httpserver"
)

func TestLoopbackHostRule(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.1:8082": true, "127.9.9.9:1": true, "[::1]:8083": true, "::1": true,
		"localhost": true, "LOCALHOST:8083": true, "localhost.": true, "dash.localhost:8083": true, "a.b.localhost": true,
		"": false, "evil.example": false, "evil.example:8082": false, "localhost.evil.example": false, "evillocalhost": false,
		"10.0.0.1:8082": false, "0.0.0.0:8082": false, "[::]:8082": false, "192.168.1.2": false,
	} {
		if got := httpserver.LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
	for addr, want := range map[string]bool{
		"127.0.0.1:8082": true, "[::1]:0": true, "localhost:8083": true,
		":8082": false, "0.0.0.0:8083": false, "[::]:8083": false, "192.168.1.2:8083": false, "myhost:8083": false,
	} {
		if got := httpserver.Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// A server bound to loopback answers 421 to a request naming another
// host (DNS rebinding) and serves one naming a loopback host; bound beyond
// loopback (the user exposed it), it serves any Host.
func TestLoopbackHostsThroughAServer(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "served") })
	ask := func(base, host string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct {
		bind       string
		evilStatus int
	}{{"127.0.0.1:0", http.StatusMisdirectedRequest}, {":0", http.StatusOK}} {
		srv, err := httpserver.Start(context.Background(), "test", c.bind, httpserver.New(httpserver.LoopbackHosts(ok, c.bind)))
		if err != nil {
			t.Fatal(err)
		}
		port := srv.URL()[strings.LastIndexByte(srv.URL(), ':'):]
		base := "http://127.0.0.1" + port
		if srv.LocalURL() != base {
			t.Errorf("bound at %s (%s): LocalURL %q, want %q", c.bind, srv.URL(), srv.LocalURL(), base)
		}
		if code, body := ask(base, "evil.example"+port); code != c.evilStatus || len(body) > 200 {
			t.Errorf("bound at %s, Host evil.example: %d (%d bytes), want %d with a small body", c.bind, code, len(body), c.evilStatus)
		}
		for _, host := range []string{"127.0.0.1" + port, "localhost" + port, "dash.localhost" + port} {
			if code, body := ask(base, host); code != http.StatusOK || body != "served" {
				t.Errorf("bound at %s, Host %s: %d %q, want 200", c.bind, host, code, body)
			}
		}
		if err := srv.Shutdown(time.Second); err != nil {
			t.Error(err)
		}
	}
}
