//go:build !cgo

package malloc

// Trim does nothing without cgo: there is no C heap.
func Trim() {}
