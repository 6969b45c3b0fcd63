package simulator

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"time"
)

// Page size limits of paginated lists.
const (
	defaultPageSize = 20
	maxPageSize     = 100
)

// Cursor kinds, so that a cursor of one list is rejected by another.
const (
	kindTransactions = "tx"
	kindAccounts     = "acc"
	kindAttachments  = "att"
	kindTags         = "tag"
)

var errBadCursor = errors.New("malformed cursor")

// cursorKey is the keyset position of one item: its sort time and id.
type cursorKey struct {
	Nanos int64
	ID    string
}

// cursorTime is the layout of a cursor's time: UTC with nanoseconds, as
// the real bank's cursors show it.
const cursorTime = "2006-01-02T15:04:05.000000000Z"

// encodeCursor builds the opaque page[after]/page[before] value in the real
// bank's format: padded standard base64 of a JSON array, ["<time>","<id>"]
// for lists keyed by time (webhook lists use their creation sequence as the
// time), ["<label>"] for tags. Links percent-encode its '+', '/' and '='.
func encodeCursor(kind string, k cursorKey) string {
	key := []string{k.ID}
	if kind != kindTags {
		key = []string{time.Unix(0, k.Nanos).UTC().Format(cursorTime), k.ID}
	}
	raw, err := json.Marshal(key)
	if err != nil {
		panic("simulator: marshal cursor: " + err.Error())
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// decodeCursor parses a cursor made by encodeCursor for the same kind.
func decodeCursor(kind, s string) (cursorKey, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return cursorKey{}, fmt.Errorf("%w: %w", errBadCursor, err)
	}
	var key []string
	if err := json.Unmarshal(raw, &key); err != nil {
		return cursorKey{}, fmt.Errorf("%w: %w", errBadCursor, err)
	}
	if kind == kindTags {
		if len(key) != 1 {
			return cursorKey{}, errBadCursor
		}
		return cursorKey{ID: key[0]}, nil
	}
	if len(key) != 2 || key[1] == "" {
		return cursorKey{}, errBadCursor
	}
	at, err := time.Parse(time.RFC3339Nano, key[0])
	if err != nil {
		return cursorKey{}, fmt.Errorf("%w: %w", errBadCursor, err)
	}
	return cursorKey{Nanos: at.UnixNano(), ID: key[1]}, nil
}

// pageRequest is the parsed pagination part of a query string.
type pageRequest struct {
	size      int
	sizeGiven bool
	after     *cursorKey
	before    *cursorKey
}

// parsePageRequest reads page[size], page[after] and page[before].
func parsePageRequest(q url.Values, kind string) (pageRequest, *apiError) {
	req := pageRequest{size: defaultPageSize}
	if q.Has("page[size]") {
		n, err := strconv.Atoi(q.Get("page[size]"))
		if err != nil || n <= 0 || n > maxPageSize {
			return req, badParam("page[size]", fmt.Sprintf("page[size] must be an integer between 1 and %d, got %q", maxPageSize, q.Get("page[size]")))
		}
		req.size, req.sizeGiven = n, true
	}
	for _, p := range []struct {
		name string
		dst  **cursorKey
	}{{"page[after]", &req.after}, {"page[before]", &req.before}} {
		if !q.Has(p.name) {
			continue
		}
		k, err := decodeCursor(kind, q.Get(p.name))
		if err != nil {
			return req, badParam(p.name, fmt.Sprintf("%s is not a valid cursor", p.name))
		}
		*p.dst = &k
	}
	if req.after != nil && req.before != nil {
		return req, badParam("page[before]", "page[after] and page[before] cannot be combined")
	}
	return req, nil
}

// listing describes a sorted sequence to paginate: items [lo, hi) of a
// slice sorted in listing order, keyed by key, optionally filtered by match.
type listing struct {
	lo, hi int
	key    func(i int) cursorKey
	desc   bool             // listing order is key descending (else ascending)
	match  func(i int) bool // nil = every item
}

// precedes reports whether key a is listed before key b.
func (l listing) precedes(a, b cursorKey) bool {
	if a.Nanos != b.Nanos {
		return (a.Nanos > b.Nanos) == l.desc
	}
	if a.ID == b.ID {
		return false
	}
	return (a.ID > b.ID) == l.desc
}

func (l listing) ok(i int) bool { return l.match == nil || l.match(i) }

// matchBefore reports whether an item in [lo, to) matches, scanning
// backwards from to so that the usual case stops at once.
func (l listing) matchBefore(to int) bool {
	if l.match == nil {
		return to > l.lo
	}
	for i := to - 1; i >= l.lo; i-- {
		if l.match(i) {
			return true
		}
	}
	return false
}

// matchFrom reports whether an item in [from, hi) matches.
func (l listing) matchFrom(from int) bool {
	if l.match == nil {
		return from < l.hi
	}
	for i := from; i < l.hi; i++ {
		if l.match(i) {
			return true
		}
	}
	return false
}

// page selects the indices of one page. The cursor positions are found by
// binary search; only filtered listings scan.
func (l listing) page(req pageRequest) (idx []int, hasPrev, hasNext bool) {
	idx = make([]int, 0, req.size)
	if req.before != nil {
		k := *req.before
		end := l.lo + sort.Search(l.hi-l.lo, func(j int) bool { return !l.precedes(l.key(l.lo+j), k) })
		i := end - 1
		for ; i >= l.lo && len(idx) < req.size; i-- {
			if l.ok(i) {
				idx = append(idx, i)
			}
		}
		for a, z := 0, len(idx)-1; a < z; a, z = a+1, z-1 {
			idx[a], idx[z] = idx[z], idx[a]
		}
		return idx, l.matchBefore(i + 1), l.matchFrom(end)
	}
	start := l.lo
	if req.after != nil {
		k := *req.after
		start = l.lo + sort.Search(l.hi-l.lo, func(j int) bool { return l.precedes(k, l.key(l.lo+j)) })
	}
	i := start
	for ; i < l.hi && len(idx) < req.size; i++ {
		if l.ok(i) {
			idx = append(idx, i)
		}
	}
	return idx, req.after != nil && l.matchBefore(start), l.matchFrom(i)
}

// pageLinks builds the absolute prev/next URLs of a page. base is the API
// base URL, path the list path, q the filters (and page[size]) to carry.
func pageLinks(base, path, kind string, q url.Values, first, last cursorKey, hasPrev, hasNext bool) (prev, next string) {
	link := func(param string, k cursorKey) string {
		v := url.Values{}
		for name, vals := range q {
			v[name] = vals
		}
		v.Set(param, encodeCursor(kind, k))
		return base + path + "?" + v.Encode()
	}
	if hasPrev {
		prev = link("page[before]", first)
	}
	if hasNext {
		next = link("page[after]", last)
	}
	return prev, next
}

// pageParams parses a list request's paging parameters and starts the query
// its links carry; on a bad parameter it answers the error itself and
// reports false.
func pageParams(rq *request, kind string) (pageRequest, url.Values, bool) {
	page, aerr := parsePageRequest(rq.q, kind)
	if aerr != nil {
		writeError(rq.w, aerr)
		return page, nil, false
	}
	carry := url.Values{}
	carryPageSize(carry, page)
	return page, carry, true
}
