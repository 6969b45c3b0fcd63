//go:build !linux

package malloc

// WithoutHugePages does nothing: only Linux maps a file's pages in huge
// pages unasked.
func WithoutHugePages() error { return nil }
