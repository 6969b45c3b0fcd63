package simulator

import (
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Read handlers. Each renders under b.mu's read lock and writes the
// response after releasing it.

func (b *Bank) handlePing(rq *request) {
	body := append([]byte(`{"meta":{"id":`), appendString(nil, rq.who.customerID)...)
	body = append(body, `,"statusEmoji":"⚡️"}}`...)
	writeJSON(rq.w, http.StatusOK, body)
}

// single wraps one rendered resource as {"data":...}.
func single(resource []byte) []byte {
	body := make([]byte, 0, len(resource)+10)
	body = append(body, `{"data":`...)
	body = append(body, resource...)
	return append(body, '}')
}

// list wraps rendered resources and pagination links.
func list(items [][]byte, prev, next string, paginated bool) []byte {
	n := 64
	for _, it := range items {
		n += len(it) + 1
	}
	body := make([]byte, 0, n+len(prev)+len(next))
	body = append(body, `{"data":[`...)
	for i, it := range items {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, it...)
	}
	body = append(body, ']')
	if paginated {
		body = append(body, ',')
		body = appendLinks(body, prev, next)
	}
	return append(body, '}')
}

// enumParam reads an optional enum filter into carry.
func enumParam(q, carry url.Values, name string, allowed ...string) (string, *apiError) {
	if !q.Has(name) {
		return "", nil
	}
	v := q.Get(name)
	if !slices.Contains(allowed, v) {
		return "", badParam(name, name+" must be one of "+strings.Join(allowed, ", ")+", got "+strconv.Quote(v))
	}
	carry.Set(name, v)
	return v, nil
}

func carryPageSize(carry url.Values, p pageRequest) {
	if p.sizeGiven {
		carry.Set("page[size]", strconv.Itoa(p.size))
	}
}

func (b *Bank) handleListAccounts(rq *request) {
	q := rq.q
	page, carry, ok := pageParams(rq, kindAccounts)
	if !ok {
		return
	}
	typ, aerr := enumParam(q, carry, "filter[accountType]", "SAVER", "TRANSACTIONAL", "HOME_LOAN")
	var owner string
	if aerr == nil {
		owner, aerr = enumParam(q, carry, "filter[ownershipType]", "INDIVIDUAL", "JOINT")
	}
	if aerr != nil {
		writeError(rq.w, aerr)
		return
	}
	b.mu.RLock()
	accs := b.accounts
	l := listing{hi: len(accs), key: func(i int) cursorKey { return cursorKey{accs[i].CreatedAt.UnixNano(), accs[i].ID} }}
	if typ != "" || owner != "" || rq.who.sees != nil {
		l.match = func(i int) bool {
			return (typ == "" || accs[i].AccountType == typ) && (owner == "" || accs[i].OwnershipType == owner) && rq.who.canSee(accs[i].ID)
		}
	}
	idx, hasPrev, hasNext := l.page(page)
	items := make([][]byte, len(idx))
	for i, j := range idx {
		items[i] = appendAccount(nil, rq.base, accs[j])
	}
	prev, next := b.links(rq.base, "/accounts", kindAccounts, carry, l, idx, hasPrev, hasNext)
	b.mu.RUnlock()
	writeJSON(rq.w, http.StatusOK, list(items, prev, next, true))
}

// links builds prev/next for a page of a listing.
func (b *Bank) links(base, path, kind string, carry url.Values, l listing, idx []int, hasPrev, hasNext bool) (string, string) {
	if len(idx) == 0 {
		return "", ""
	}
	return pageLinks(base, path, kind, carry, l.key(idx[0]), l.key(idx[len(idx)-1]), hasPrev, hasNext)
}

func (b *Bank) handleGetAccount(rq *request) {
	b.mu.RLock()
	a, ok := b.accountByID[rq.params[0]]
	ok = ok && rq.who.canSee(a.ID)
	var body []byte
	if ok {
		body = single(appendAccount(nil, rq.base, a))
	}
	b.mu.RUnlock()
	if !ok {
		writeError(rq.w, notFound("No account with id "+strconv.Quote(rq.params[0])+"."))
		return
	}
	writeJSON(rq.w, http.StatusOK, body)
}

// txFilter is the parsed filter set of a transactions listing.
type txFilter struct {
	status, category, tag, account string
	since, until                   *time.Time
	who                            *person // lists only the accounts they see
}

// parseTxFilter reads the transaction filters; carry receives them for links.
func parseTxFilter(q, carry url.Values) (txFilter, *apiError) {
	var f txFilter
	var aerr *apiError
	if f.status, aerr = enumParam(q, carry, "filter[status]", "HELD", "SETTLED"); aerr != nil {
		return f, aerr
	}
	for _, p := range []struct {
		name string
		dst  **time.Time
	}{{"filter[since]", &f.since}, {"filter[until]", &f.until}} {
		if !q.Has(p.name) {
			continue
		}
		v := q.Get(p.name)
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return f, badParam(p.name, p.name+" must be an RFC 3339 date-time (send '+' as %2B), got "+strconv.Quote(v))
		}
		*p.dst = &t
		carry.Set(p.name, v)
	}
	if q.Has("filter[category]") {
		f.category = q.Get("filter[category]")
		carry.Set("filter[category]", f.category)
	}
	if q.Has("filter[tag]") {
		f.tag = q.Get("filter[tag]")
		if f.tag == "" {
			f.tag = "\x00" // no tag has an empty label: zero results
		}
		carry.Set("filter[tag]", q.Get("filter[tag]"))
	}
	return f, nil
}

func (b *Bank) handleListTransactions(rq *request) {
	key := rq.base + "\x00" + rq.r.URL.Path + "?" + rq.r.URL.RawQuery
	if b.household {
		key = rq.who.name + "\x00" + key
	}
	if body, ok := b.pages.get(b.gen.Load(), key); ok {
		writeJSON(rq.w, http.StatusOK, body)
		return
	}
	q := rq.q
	page, carry, ok := pageParams(rq, kindTransactions)
	if !ok {
		return
	}
	f, aerr := parseTxFilter(q, carry)
	if aerr != nil {
		writeError(rq.w, aerr)
		return
	}
	f.who = rq.who
	path := "/transactions"
	if len(rq.params) == 1 {
		f.account = rq.params[0]
		path = "/accounts/" + pathEscape(f.account) + "/transactions"
	}
	body, gen, aerr := b.transactionsPage(rq.base, path, f, page, carry)
	if aerr != nil {
		writeError(rq.w, aerr)
		return
	}
	b.pages.put(gen, key, body)
	writeJSON(rq.w, http.StatusOK, body)
}

// transactionsPage renders one page of a transactions listing and returns
// the data generation it belongs to.
func (b *Bank) transactionsPage(base, path string, f txFilter, page pageRequest, carry url.Values) ([]byte, uint64, *apiError) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	gen := b.gen.Load()
	if _, ok := b.accountByID[f.account]; f.account != "" && (!ok || !f.who.canSee(f.account)) {
		return nil, gen, notFound("No account with id " + strconv.Quote(f.account) + ".")
	}
	if _, ok := b.categoryMap[f.category]; f.category != "" && !ok {
		e := notFound("No category with id " + strconv.Quote(f.category) + ".")
		e.parameter, e.hasSource = "filter[category]", true
		return nil, gen, e
	}
	l := b.txListing(f)
	idx, hasPrev, hasNext := l.page(page)
	items := make([][]byte, len(idx))
	for i, j := range idx {
		items[i] = renderedTransaction(b.txs[j], base)
	}
	prev, next := b.links(base, path, kindTransactions, carry, l, idx, hasPrev, hasNext)
	return list(items, prev, next, true), gen, nil
}

// txListing narrows the date range by binary search and filters the rest.
// since is inclusive, until exclusive; b.mu is held.
func (b *Bank) txListing(f txFilter) listing {
	txs := b.txs
	l := listing{hi: len(txs), desc: true, key: func(i int) cursorKey { return cursorKey{txs[i].CreatedAt.UnixNano(), txs[i].ID} }}
	if f.until != nil {
		l.lo = sort.Search(len(txs), func(i int) bool { return txs[i].CreatedAt.Before(*f.until) })
	}
	if f.since != nil {
		l.hi = sort.Search(len(txs), func(i int) bool { return txs[i].CreatedAt.Before(*f.since) })
	}
	l.hi = max(l.hi, l.lo)
	hidden := f.who != nil && f.who.sees != nil && f.account == ""
	if f.status == "" && f.category == "" && f.tag == "" && f.account == "" && !hidden {
		return l
	}
	parent := f.category != "" && b.categoryMap[f.category].ParentID == ""
	l.match = func(i int) bool {
		t := txs[i]
		switch {
		case f.status != "" && t.Status != f.status,
			f.account != "" && t.AccountID != f.account,
			f.category != "" && parent && t.ParentCategoryID != f.category,
			f.category != "" && !parent && t.CategoryID != f.category,
			f.tag != "" && !slices.Contains(t.Tags, f.tag),
			hidden && !f.who.sees[t.AccountID]:
			return false
		}
		return true
	}
	return l
}

// visibleTx finds a transaction the person sees; b.mu is held.
func (b *Bank) visibleTx(p *person, id string) (*txn, bool) {
	t, ok := b.txByID[id]
	if !ok || !p.canSee(t.AccountID) {
		return nil, false
	}
	return t, true
}

// visibleAttachment reports whether the person sees the attachment's
// transaction; b.mu is held.
func (b *Bank) visibleAttachment(p *person, a *Attachment) bool {
	if p.sees == nil {
		return true
	}
	t, ok := b.txByID[a.TransactionID]
	return ok && p.sees[t.AccountID]
}

func (b *Bank) handleGetTransaction(rq *request) {
	b.mu.RLock()
	t, ok := b.visibleTx(rq.who, rq.params[0])
	var body []byte
	if ok {
		body = single(renderedTransaction(t, rq.base))
	}
	b.mu.RUnlock()
	if !ok {
		writeError(rq.w, notFound("No transaction with id "+strconv.Quote(rq.params[0])+"."))
		return
	}
	writeJSON(rq.w, http.StatusOK, body)
}

// RenderTransaction returns the JSON of the TransactionResource that
// GET {baseURL}/transactions/{id} puts in "data".
func (b *Bank) RenderTransaction(baseURL, id string) ([]byte, error) {
	baseURL = strings.TrimSuffix(baseURL, "/")
	b.mu.RLock()
	defer b.mu.RUnlock()
	t, ok := b.txByID[id]
	if !ok {
		return nil, ErrNotFound
	}
	return slices.Clone(renderedTransaction(t, baseURL)), nil
}

// attachmentURL is a signed temporary download link for a (see files.go).
func (b *Bank) attachmentURL(base string, a *Attachment, expires time.Time) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	return strings.TrimSuffix(base, apiPrefix) + filesPrefix + pathEscape(a.ID) + "." + a.FileExtension +
		"?expires=" + exp + "&signature=" + b.fileSignature(a.ID, exp)
}

func (b *Bank) renderAttachment(base string, a *Attachment) []byte {
	expires := b.now().Add(15 * time.Minute).Truncate(time.Second)
	return appendAttachment(nil, base, a, b.attachmentURL(base, a, expires), expires)
}

func (b *Bank) handleListAttachments(rq *request) {
	page, carry, ok := pageParams(rq, kindAttachments)
	if !ok {
		return
	}
	b.mu.RLock()
	atts := b.attachments
	l := listing{hi: len(atts), desc: true, key: func(i int) cursorKey { return cursorKey{atts[i].CreatedAt.UnixNano(), atts[i].ID} }}
	if rq.who.sees != nil {
		l.match = func(i int) bool { return b.visibleAttachment(rq.who, atts[i]) }
	}
	idx, hasPrev, hasNext := l.page(page)
	items := make([][]byte, len(idx))
	for i, j := range idx {
		items[i] = b.renderAttachment(rq.base, atts[j])
	}
	prev, next := b.links(rq.base, "/attachments", kindAttachments, carry, l, idx, hasPrev, hasNext)
	b.mu.RUnlock()
	writeJSON(rq.w, http.StatusOK, list(items, prev, next, true))
}

func (b *Bank) handleGetAttachment(rq *request) {
	b.mu.RLock()
	a, ok := b.attByID[rq.params[0]]
	ok = ok && b.visibleAttachment(rq.who, a)
	var body []byte
	if ok {
		body = single(b.renderAttachment(rq.base, a))
	}
	b.mu.RUnlock()
	if !ok {
		writeError(rq.w, notFound("No attachment with id "+strconv.Quote(rq.params[0])+"."))
		return
	}
	writeJSON(rq.w, http.StatusOK, body)
}

// childrenOf lists the ids of a category's children (categories are immutable).
func (b *Bank) childrenOf(id string) []string {
	var ids []string
	for _, c := range b.categories {
		if c.ParentID == id {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

func (b *Bank) handleListCategories(rq *request) {
	q := rq.q
	parent := q.Get("filter[parent]")
	if _, ok := b.categoryMap[parent]; q.Has("filter[parent]") && !ok {
		e := notFound("No category with id " + strconv.Quote(parent) + ".")
		e.parameter, e.hasSource = "filter[parent]", true
		writeError(rq.w, e)
		return
	}
	var items [][]byte
	for i := range b.categories {
		c := &b.categories[i]
		if q.Has("filter[parent]") && c.ParentID != parent {
			continue
		}
		items = append(items, appendCategory(nil, rq.base, c, b.childrenOf(c.ID)))
	}
	writeJSON(rq.w, http.StatusOK, list(items, "", "", false))
}

func (b *Bank) handleGetCategory(rq *request) {
	c, ok := b.categoryMap[rq.params[0]]
	if !ok {
		writeError(rq.w, notFound("No category with id "+strconv.Quote(rq.params[0])+"."))
		return
	}
	writeJSON(rq.w, http.StatusOK, single(appendCategory(nil, rq.base, c, b.childrenOf(c.ID))))
}

func (b *Bank) handleListTags(rq *request) {
	page, carry, ok := pageParams(rq, kindTags)
	if !ok {
		return
	}
	b.mu.RLock()
	labels := make([]string, 0, len(b.tagCount))
	for tag := range b.tagCount {
		if b.tagInUse(rq.who, tag) {
			labels = append(labels, tag)
		}
	}
	b.mu.RUnlock()
	sort.Strings(labels)
	l := listing{hi: len(labels), key: func(i int) cursorKey { return cursorKey{ID: labels[i]} }}
	idx, hasPrev, hasNext := l.page(page)
	items := make([][]byte, len(idx))
	for i, j := range idx {
		items[i] = appendTag(nil, rq.base, labels[j])
	}
	prev, next := b.links(rq.base, "/tags", kindTags, carry, l, idx, hasPrev, hasNext)
	writeJSON(rq.w, http.StatusOK, list(items, prev, next, true))
}

// tagInUse reports whether a tag is on a transaction the person sees;
// b.mu is held.
func (b *Bank) tagInUse(p *person, tag string) bool {
	if p.sees == nil {
		return true
	}
	for account := range p.sees {
		if b.accountTags[account][tag] > 0 {
			return true
		}
	}
	return false
}
