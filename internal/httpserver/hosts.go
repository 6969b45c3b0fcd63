package httpserver

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Loopback reports whether addr (host:port, or a host) names a loopback
// address: a loopback IP literal or "localhost". An empty host (all
// addresses) and other names are not.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// LoopbackHost reports whether a request's Host (its port ignored) names
// this machine by loopback: a loopback IP literal, "localhost" or a name
// under ".localhost" (which browsers resolve to loopback themselves).
func LoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// LoopbackHosts guards h, served on a listener bound at boundAddr, against
// DNS rebinding: when boundAddr is a loopback address, a request whose
// Host is not a loopback one (LoopbackHost) is answered 421 Misdirected
// Request, since a browser sends it for a page of another site whose name
// now points at 127.0.0.1. Bound beyond loopback, the listener was exposed
// on purpose under whatever name, and h is returned as is.
func LoopbackHosts(h http.Handler, boundAddr string) http.Handler {
	if !Loopback(boundAddr) {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !LoopbackHost(r.Host) {
			w.Header().Set("Cache-Control", "no-store")
			http.Error(w, "misdirected request: this listener answers only to localhost or a loopback address", http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}
