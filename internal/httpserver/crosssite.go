package httpserver

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// CrossSite reports whether a browser sent r on behalf of another site:
// its Sec-Fetch-Site is "cross-site" or "same-site" or, from a browser too
// old to send Sec-Fetch-Site, it carries an Origin that is not r's own
// host. Such a request cannot be the user's own: a page elsewhere made the
// browser send it (a form, an <img>, a script), and a handler that checks
// tokens refuses it before counting a failure, so that other sites cannot
// spend the user's allowance of wrong tokens.
//
// A link opened from the address bar, a bookmark or another program
// (Sec-Fetch-Site: none), the server's own pages (same-origin, whatever
// Host a proxy in front passes on) and clients that are not browsers (no
// Sec-Fetch-Site, no Origin: curl, spreadsheets) are not cross-site. This
// is the rule of http.CrossOriginProtection, which applies it to unsafe
// methods only; a token in a GET's query needs it too.
func CrossSite(r *http.Request) bool {
	switch strings.ToLower(r.Header.Get("Sec-Fetch-Site")) {
	case "cross-site", "same-site":
		return true
	case "same-origin", "none":
		return false
	}
	origin := r.Header.Values("Origin")
	if len(origin) == 0 {
		return false
	}
	if len(origin) > 1 {
		return true
	}
	u, err := url.Parse(origin[0])
	return err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host)
}

// PeerAddr is the address of r's TCP peer, whatever the request's headers
// say (an invalid Addr if RemoteAddr is not an address).
func PeerAddr(r *http.Request) netip.Addr {
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return ap.Addr().Unmap()
	}
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	a, _ := netip.ParseAddr(host)
	return a.Unmap()
}
