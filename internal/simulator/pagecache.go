package simulator

import (
	"strings"
	"sync"
)

// defaultPageCacheBytes bounds the page cache: enough for every page of a
// 100,000-transaction listing at one page size.
const defaultPageCacheBytes = 256 << 20

// pageCache keeps rendered list bodies keyed by request (base URL, path
// and raw query), so that a client walking the same listing again gets
// each page without it being assembled. Every entry belongs to one data
// generation (Bank.gen, bumped by every mutation); an entry of an older
// generation is a miss and the first store of a newer one empties the
// cache. When full it keeps what it has and stores nothing more, so that a
// cyclic walk larger than the cache still hits on the pages it holds
// rather than evicting each page just before it is needed again.
type pageCache struct {
	mu    sync.Mutex
	max   int64 // <= 0: caching is off
	size  int64
	gen   uint64
	pages map[string][]byte
}

// get returns the body stored for key in generation gen.
func (c *pageCache) get(gen uint64, key string) ([]byte, bool) {
	if c.max <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil, false
	}
	body, ok := c.pages[key]
	return body, ok
}

// put stores body (which must not be modified afterwards) for key in
// generation gen.
func (c *pageCache) put(gen uint64, key string, body []byte) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case gen < c.gen:
		return // rendered before a mutation that emptied the cache
	case gen > c.gen || c.pages == nil:
		c.gen, c.pages, c.size = gen, map[string][]byte{}, 0
	}
	if _, ok := c.pages[key]; ok || c.size+int64(len(body)) > c.max {
		return
	}
	c.pages[key] = body
	c.size += int64(len(body))
}

// Prerender renders every transaction's JSON for the API base URL baseURL
// (as clients will see it, e.g. http://127.0.0.1:8081/api/v1, or
// Options.PublicURL when set) ahead of the first listing, so that a client
// timing its first full listing measures itself rather than the bank's
// rendering.
func (b *Bank) Prerender(baseURL string) {
	if b.publicURL != "" {
		baseURL = b.publicURL
	}
	baseURL = strings.TrimSuffix(baseURL, "/")
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, t := range b.txs {
		renderedTransaction(t, baseURL)
	}
}
