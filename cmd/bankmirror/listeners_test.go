package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/bankmirror/bankmirror/internal/httpserver"
)

// TestServeDashboardUnderAnIdleFlood: a local process holds more idle
// keep-alive connections to serve's dashboard than its cap (one request
// of the login page each, as a browser's or a flood's): the connections idle the
// longest are closed to make room, the flood's last ones stay open, and
// the owner's page is served.
func TestServeDashboardUnderAnIdleFlood(t *testing.T) {
	const token = "5d2b8e0a7c3f4196b8d0e2a4c6f81357"
	cfg := testConfig(t, newBank(t, 50))
	cfg.UIListen, cfg.UIToken = "127.0.0.1:0", token
	m, _ := startMain(t, cfg)
	addr := strings.TrimPrefix(m.DashboardURL(), "http://")

	flood := make([]net.Conn, httpserver.DefaultMaxConns+50)
	for i := range flood {
		c, err := (&net.Dialer{Timeout: 30 * time.Second}).DialContext(t.Context(), "tcp", addr)
		must(t, err)
		t.Cleanup(func() { _ = c.Close() })
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		_, err = io.WriteString(c, "GET /login HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
		must(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("request %d of the flood: %v", i+1, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d of the flood: %s", i+1, resp.Status)
		}
		flood[i] = c
	}

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := client.Get(m.DashboardLoginLink())
	if err != nil {
		t.Fatalf("the owner's page under the flood: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Spent in") {
		t.Errorf("the owner's page under the flood: %s, want the overview", resp.Status)
	}
	if !closedByPeer(flood[0]) {
		t.Error("the flood's first (idlest) connection is still open")
	}
	if closedByPeer(flood[len(flood)-1]) {
		t.Error("the flood's last connection was closed, not one idle longer")
	}
}

// closedByPeer reports whether the other end closed c: a read finds the
// end of the stream (or a reset) at once, where an open connection with
// nothing to read times out.
func closedByPeer(c net.Conn) bool {
	_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && (!errors.As(err, &ne) || !ne.Timeout())
}
