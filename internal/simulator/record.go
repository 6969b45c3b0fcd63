package simulator

import (
	"net/http"
	"slices"
	"strings"
	"sync"
)

// RequestCount is how many API requests a route answered with one status.
type RequestCount struct {
	Method string `json:"method"`
	Route  string `json:"route"` // pattern below /api/v1, e.g. /transactions/{id}; "" when no route matched
	Status int    `json:"status"`
	Count  int64  `json:"count"`
}

// requestKey identifies one counter of the request record.
type requestKey struct {
	method, route string
	status        int
}

// requestRecord counts the API requests by route and status.
type requestRecord struct {
	mu     sync.Mutex
	counts map[requestKey]int64
}

func (rr *requestRecord) add(method, route string, status int) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.counts == nil {
		rr.counts = map[requestKey]int64{}
	}
	rr.counts[requestKey{method, route, status}]++
}

func (rr *requestRecord) reset() {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rr.counts = nil
}

// RequestCounts lists the API requests served, faulted ones included, by
// route, method and status (sorted in that order).
func (b *Bank) RequestCounts() []RequestCount { return b.record.list() }

// list is the record, sorted by route, method and status.
func (rr *requestRecord) list() []RequestCount {
	rr.mu.Lock()
	out := make([]RequestCount, 0, len(rr.counts))
	for k, n := range rr.counts {
		out = append(out, RequestCount{Method: k.method, Route: k.route, Status: k.status, Count: n})
	}
	rr.mu.Unlock()
	slices.SortFunc(out, func(a, b RequestCount) int {
		if c := strings.Compare(a.Route, b.Route); c != 0 {
			return c
		}
		if c := strings.Compare(a.Method, b.Method); c != 0 {
			return c
		}
		return a.Status - b.Status
	})
	return out
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}
