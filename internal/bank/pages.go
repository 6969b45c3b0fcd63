package bank

import (
	"context"
	"iter"
)

// PageFunc fetches one page of a listing by absolute URL.
type PageFunc[T any] func(ctx context.Context, pageURL string) (Page[T], error)

// Pages iterates over the pages of a listing from first on, following
// links.next until it is null. An error is yielded once and ends the
// iteration; so does a next link that repeats the page it is on
// (ErrPageLoop), which would otherwise loop for ever.
func Pages[T any](ctx context.Context, first string, fetch PageFunc[T]) iter.Seq2[Page[T], error] {
	return func(yield func(Page[T], error) bool) {
		for next := first; next != ""; {
			p, err := fetch(ctx, next)
			if err != nil {
				yield(Page[T]{}, err)
				return
			}
			if !yield(p, nil) {
				return
			}
			if p.Next == next {
				yield(Page[T]{}, ErrPageLoop)
				return
			}
			next = p.Next
		}
	}
}
