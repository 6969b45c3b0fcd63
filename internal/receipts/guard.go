package receipts

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// A receipt's link comes from the bank, and a compromised upstream (or a
// man in the middle, or a bank bug) could point it anywhere: at a service on
// the user's own machine or network. So a link is followed only over https,
// or to the API's own origin (where the simulated bank serves its files), a
// connection is refused to loopback, private and link-local addresses (the
// check is made on the address dialled, so redirects and names that resolve
// there are covered), and only receipt content types are kept.

var (
	// errRefusedLink is a link (or a redirect) whose scheme and origin are
	// not allowed.
	errRefusedLink = errors.New("download link refused: only https, or the bank API's own origin")
	// errRefusedAddress is a connection refused before it was made.
	errRefusedAddress = errors.New("refusing to connect to a loopback, private or link-local address")
)

// maxRedirects bounds the redirects of one download.
const maxRedirects = 5

// guard decides which links may be fetched and which addresses dialled.
type guard struct {
	api     origin          // the API's origin; zero when unknown
	allowed map[string]bool // dial addresses exempt from the address check
}

// origin is a URL's scheme and host:port, lower-cased, port made explicit.
type origin struct{ scheme, hostport string }

func originOf(u *url.URL) origin {
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		}
	}
	if host == "" {
		return origin{scheme: scheme}
	}
	return origin{scheme, net.JoinHostPort(host, port)}
}

// newGuard returns the guard for the API at apiURL ("" or unparsable:
// https only). The API's host and the proxies named in the environment
// (which http.ProxyFromEnvironment sends requests through) may be dialled
// whatever their address: the user configured them.
func newGuard(apiURL string) *guard {
	g := &guard{allowed: map[string]bool{}}
	if u, err := url.Parse(apiURL); err == nil && u.Host != "" {
		g.api = originOf(u)
		g.allowed[g.api.hostport] = true
	}
	env := httpproxy.FromEnvironment()
	for _, p := range []string{env.HTTPProxy, env.HTTPSProxy} {
		if p == "" {
			continue
		}
		if !strings.Contains(p, "://") {
			p = "http://" + p
		}
		if u, err := url.Parse(p); err == nil && u.Host != "" {
			g.allowed[originOf(u).hostport] = true
		}
	}
	return g
}

// checkLink refuses a link that is neither https nor on the API's origin,
// and one that names a refused address literally (a proxy, which resolves
// names itself, would otherwise connect to it).
func (g *guard) checkLink(u *url.URL) error {
	o := originOf(u)
	if o.hostport == "" || (o.scheme != "https" && o != g.api) {
		return fmt.Errorf("%w (%s://%s)", errRefusedLink, o.scheme, u.Host)
	}
	if o.hostport == g.api.hostport {
		return nil
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil && refusedIP(ip) {
		return fmt.Errorf("%w (%s)", errRefusedAddress, ip)
	}
	return nil
}

// sharedSpace is the carrier-grade NAT range (RFC 6598), as private as the
// RFC 1918 ones in practice.
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// refusedIP reports whether ip is loopback, private, link-local,
// unspecified, multicast or broadcast: never a receipt host.
func refusedIP(ip netip.Addr) bool {
	ip = ip.Unmap()
	return !ip.IsGlobalUnicast() || ip.IsPrivate() || sharedSpace.Contains(ip)
}

// control is the dialer's check of the address about to be connected to,
// after any name was resolved.
func control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w (%s)", errRefusedAddress, address)
	}
	if refusedIP(ap.Addr()) {
		return fmt.Errorf("%w (%s)", errRefusedAddress, ap.Addr())
	}
	return nil
}

// client is the HTTP client of downloads: the default transport's settings
// (proxies from the environment, HTTP/2, timeouts), every connection
// checked by control unless it goes to an allowed address, every redirect
// checked by checkLink, a minute for a whole download.
func (g *guard) client() *http.Client {
	checked := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: control}
	plain := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if g.allowed[strings.ToLower(addr)] {
			return plain.DialContext(ctx, network, addr)
		}
		return checked.DialContext(ctx, network, addr)
	}
	return &http.Client{
		Timeout:   time.Minute,
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fileErr("stopped after %d redirects", maxRedirects)
			}
			if err := g.checkLink(req.URL); err != nil {
				return &badFile{fmt.Errorf("redirect: %w", err)}
			}
			return nil
		},
	}
}

// linkFailure reports whether err, from a download request, is the link's
// own failure rather than the network's: a refused link or address, a
// host that does not exist, a certificate not valid for it. Retrying soon
// would fail alike; the attempt counts against the file.
func linkFailure(err error) bool {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	switch {
	case errors.Is(err, errRefusedLink), errors.Is(err, errRefusedAddress):
		return true
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return true
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr):
		return true
	}
	return false
}

// receiptType reports whether a declared media type is one a receipt is
// kept as.
func receiptType(mediaType string) bool {
	_, ok := keptTypes[mediaType]
	return ok
}
