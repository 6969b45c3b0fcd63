package simulator

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// apiPrefix is the path prefix of the API; base URL = server URL + apiPrefix.
const apiPrefix = "/api/v1"

// request is one routed API request.
type request struct {
	w      http.ResponseWriter
	r      *http.Request
	q      url.Values
	base   string   // absolute API base URL, e.g. http://127.0.0.1:1234/api/v1
	params []string // path parameters in pattern order
	who    *person  // the customer whose token authenticated the request
}

// route maps a method and a path pattern ("{}" segments are parameters)
// below apiPrefix to a handler.
type route struct {
	method  string
	pattern []string
	handle  func(*Bank, *request)
}

// name is the route's pattern as the request record shows it, e.g.
// /transactions/{id}.
func (rt *route) name() string {
	if rt == nil {
		return ""
	}
	return "/" + strings.ReplaceAll(strings.Join(rt.pattern, "/"), "{}", "{id}")
}

var routes = []route{
	{http.MethodGet, []string{"util", "ping"}, (*Bank).handlePing},
	{http.MethodGet, []string{"accounts"}, (*Bank).handleListAccounts},
	{http.MethodGet, []string{"accounts", "{}"}, (*Bank).handleGetAccount},
	{http.MethodGet, []string{"accounts", "{}", "transactions"}, (*Bank).handleListTransactions},
	{http.MethodGet, []string{"attachments"}, (*Bank).handleListAttachments},
	{http.MethodGet, []string{"attachments", "{}"}, (*Bank).handleGetAttachment},
	{http.MethodGet, []string{"categories"}, (*Bank).handleListCategories},
	{http.MethodGet, []string{"categories", "{}"}, (*Bank).handleGetCategory},
	{http.MethodGet, []string{"tags"}, (*Bank).handleListTags},
	{http.MethodGet, []string{"transactions"}, (*Bank).handleListTransactions},
	{http.MethodGet, []string{"transactions", "{}"}, (*Bank).handleGetTransaction},
	{http.MethodPatch, []string{"transactions", "{}", "relationships", "category"}, (*Bank).handlePatchCategory},
	{http.MethodPost, []string{"transactions", "{}", "relationships", "tags"}, (*Bank).handleAddTags},
	{http.MethodDelete, []string{"transactions", "{}", "relationships", "tags"}, (*Bank).handleRemoveTags},
	{http.MethodGet, []string{"webhooks"}, (*Bank).handleListWebhooks},
	{http.MethodPost, []string{"webhooks"}, (*Bank).handleCreateWebhook},
	{http.MethodGet, []string{"webhooks", "{}"}, (*Bank).handleGetWebhook},
	{http.MethodDelete, []string{"webhooks", "{}"}, (*Bank).handleDeleteWebhook},
	{http.MethodPost, []string{"webhooks", "{}", "ping"}, (*Bank).handlePingWebhook},
	{http.MethodGet, []string{"webhooks", "{}", "logs"}, (*Bank).handleListWebhookLogs},
}

// Handler serves the API under the path prefix /api/v1, attachment files
// under /files/attachments/ and the control API under /_sim/.
func (b *Bank) Handler() http.Handler { return http.HandlerFunc(b.serveHTTP) }

// serveHTTP routes the control API (/_sim/), attachment downloads
// (/files/attachments/) and the API.
func (b *Bank) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, controlPrefix+"/") {
		b.serveControl(w, r)
		return
	}
	b.requests.Add(1)
	sw := &statusWriter{ResponseWriter: w}
	if strings.HasPrefix(r.URL.Path, filesPrefix) {
		defer func() { b.record.add(r.Method, filesPrefix+"{file}", sw.status) }()
		b.serveFile(sw, r)
		return
	}
	rt, params, allowed := match(r.Method, r.URL.Path)
	var who *person
	defer func() {
		b.record.add(r.Method, rt.name(), sw.status)
		if who != nil {
			who.requests.Add(1)
			who.record.add(r.Method, rt.name(), sw.status)
		}
	}()
	b.serveAPI(sw, r, rt, params, allowed, &who)
}

// serveAPI answers one API request: latency, authentication, rate limit,
// injected faults, then the route.
func (b *Bank) serveAPI(w http.ResponseWriter, r *http.Request, rt *route, params []string, allowed string, who **person) {
	sleep(r.Context(), b.faults.latency())
	token, p := b.authorized(r)
	if p == nil {
		writeError(w, &apiError{status: http.StatusUnauthorized, title: "Not Authorized",
			detail: "The request was not authenticated because no valid credential was found in the Authorization header, or the Authorization header was not present."})
		return
	}
	*who = p
	rd := b.limiter.take(token, b.now())
	if rd.limited {
		writeRateLimited(w, rd.retryAfter)
		return
	}
	if rd.remaining >= 0 {
		w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(rd.remaining))
	}
	if status, retryAfter := b.faults.decide(); status != 0 {
		writeFault(w, status, retryAfter)
		return
	}
	switch {
	case rt != nil:
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			writeError(w, &apiError{status: http.StatusBadRequest, title: "Invalid Request Parameter", detail: "The query string is malformed: " + err.Error()})
			return
		}
		rt.handle(b, &request{w: w, r: r, q: q, base: b.baseURL(r), params: params, who: p})
	case allowed != "":
		w.Header().Set("Allow", allowed)
		writeError(w, &apiError{status: http.StatusMethodNotAllowed, title: "Method Not Allowed",
			detail: "The " + r.Method + " method is not allowed on this endpoint."})
	default:
		writeError(w, notFound("The requested endpoint does not exist."))
	}
}

// authorized checks the bearer token in constant time and returns it and
// its person; nil when no person's token matches.
func (b *Bank) authorized(r *http.Request) (string, *person) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", nil
	}
	p := b.tokenPerson(token)
	if p == nil {
		return "", nil
	}
	return token, p
}

// constantTimeEqual compares two secrets in constant time.
func constantTimeEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// match finds the route for method and path. When the path exists for other
// methods only, allowed lists them.
func match(method, path string) (rt *route, params []string, allowed string) {
	rest, ok := strings.CutPrefix(path, apiPrefix+"/")
	if !ok {
		return nil, nil, ""
	}
	segs := strings.Split(rest, "/")
	var methods []string
	for i := range routes {
		p, ok := matchPattern(routes[i].pattern, segs)
		if !ok {
			continue
		}
		if routes[i].method == method {
			return &routes[i], p, ""
		}
		methods = append(methods, routes[i].method)
	}
	return nil, nil, strings.Join(methods, ", ")
}

func matchPattern(pattern, segs []string) ([]string, bool) {
	if len(pattern) != len(segs) {
		return nil, false
	}
	var params []string
	for i, p := range pattern {
		switch {
		case p == "{}" && segs[i] != "":
			params = append(params, segs[i])
		case p != segs[i]:
			return nil, false
		}
	}
	return params, true
}

// baseURL is the absolute API base URL written into links: Options.PublicURL
// when set, else the address the client used.
func (b *Bank) baseURL(r *http.Request) string {
	if b.publicURL != "" {
		return b.publicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + apiPrefix
}

// writeJSON sends a 200 (or other) JSON body.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeNoContent(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }

// apiError is a JSON:API error object.
type apiError struct {
	status    int
	title     string
	detail    string
	parameter string // source.parameter
	pointer   string // source.pointer
	hasSource bool
}

func badParam(param, detail string) *apiError {
	return &apiError{status: http.StatusBadRequest, title: "Invalid Request Parameter", detail: detail, parameter: param, hasSource: true}
}

func notFound(detail string) *apiError {
	return &apiError{status: http.StatusNotFound, title: "Not Found", detail: detail}
}

func invalidBody(pointer, detail string) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, title: "Invalid Request Body", detail: detail, pointer: pointer, hasSource: true}
}

// writeError sends the JSON:API error body {"errors":[...]}.
func writeError(w http.ResponseWriter, e *apiError) {
	b := make([]byte, 0, 256)
	b = append(b, `{"errors":[{"status":"`...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	b = append(b, `","title":`...)
	b = appendString(b, e.title)
	b = append(b, `,"detail":`...)
	b = appendString(b, e.detail)
	if e.hasSource {
		b = append(b, `,"source":{`...)
		if e.parameter != "" {
			b = append(b, `"parameter":`...)
			b = appendString(b, e.parameter)
		} else {
			b = append(b, `"pointer":`...)
			b = appendString(b, e.pointer)
		}
		b = append(b, '}')
	}
	b = append(b, "}]}"...)
	writeJSON(w, e.status, b)
}
