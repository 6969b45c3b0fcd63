// Package ptr reads optional values held as pointers (the bank's
// nullable fields, the mirror's nullable columns): the one place the nil
// check is written.
package ptr

// Value is *p, or T's zero value when p is nil.
func Value[T any](p *T) T {
	var zero T
	return Or(p, zero)
}

// Or is *p, or def when p is nil.
func Or[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
