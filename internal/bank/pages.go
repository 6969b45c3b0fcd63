package bank

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"net/url"
	"strings"
)

// Limits of one listing. A listing that needs more pages than this is not
// the bank's data: it is a broken or hostile upstream, and it is stopped
// rather than followed for ever.
const (
	// MaxListingResources is far past any one customer's history: a
	// hundred transactions a day for 270 years.
	MaxListingResources = 10_000_000
	// MaxListingPages is MaxListingResources at the spec's largest page
	// size (100). A listing at the default page size that reaches it
	// holds MaxListingResources; one whose pages the bank keeps short
	// stops there all the same.
	MaxListingPages = MaxListingResources / 100
)

var (
	// ErrPageLoop is returned when a next link leads back to a page the
	// listing has already fetched.
	ErrPageLoop = errors.New("pagination loop: a next link leads back to a page already fetched")
	// ErrListingTooLong is returned when a listing runs past
	// MaxListingPages pages or MaxListingResources resources.
	ErrListingTooLong = fmt.Errorf("listing runs past %d pages or %d resources, more than the bank can hold",
		MaxListingPages, MaxListingResources)
)

// PageFunc fetches one page of a listing by absolute URL.
type PageFunc[T any] func(ctx context.Context, pageURL string) (Page[T], error)

// Pages iterates over the pages of a listing from first on, following
// links.next until it is null. An error is yielded once and ends the
// iteration. So does a next link that leads to a page already fetched
// (ErrPageLoop: the page naming it is not yielded), and a listing longer
// than the limits above (ErrListingTooLong). A listing that ends with an
// error is incomplete: callers must not draw conclusions (deletions) from it.
func Pages[T any](ctx context.Context, first string, fetch PageFunc[T]) iter.Seq2[Page[T], error] {
	return pages(ctx, first, fetch, MaxListingPages, MaxListingResources)
}

// pages is Pages with its limits as parameters.
func pages[T any](ctx context.Context, first string, fetch PageFunc[T], maxPages, maxResources int) iter.Seq2[Page[T], error] {
	return func(yield func(Page[T], error) bool) {
		// The links fetched, as hashes of their canonical form: a few
		// bytes a page however long the cursors are.
		seed := maphash.MakeSeed()
		seen := map[uint64]struct{}{}
		resources := 0
		for next, n := first, 1; next != ""; n++ {
			if n > maxPages {
				yield(Page[T]{}, fmt.Errorf("%w (page %d)", ErrListingTooLong, n))
				return
			}
			seen[maphash.String(seed, canonicalLink(next))] = struct{}{}
			p, err := fetch(ctx, next)
			if err != nil {
				yield(Page[T]{}, err)
				return
			}
			if resources += len(p.Data); resources > maxResources {
				yield(Page[T]{}, fmt.Errorf("%w (page %d)", ErrListingTooLong, n))
				return
			}
			if p.Next != "" {
				if _, ok := seen[maphash.String(seed, canonicalLink(p.Next))]; ok {
					yield(Page[T]{}, fmt.Errorf("%w (page %d)", ErrPageLoop, n))
					return
				}
			}
			if !yield(p, nil) {
				return
			}
			next = p.Next
		}
	}
}

// canonicalLink is a link in a form that is equal for links to the same
// page: scheme and host lower-cased, query parameters sorted and escaped
// alike. A link that does not parse is kept as it is (fetching it fails).
func canonicalLink(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	u.RawQuery = u.Query().Encode()
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
