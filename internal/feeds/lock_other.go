//go:build !unix

package feeds

import "errors"

// ErrBusy is a push refused because another process is pushing to the
// same feed.
var ErrBusy = errors.New("another bankmirror process is pushing to this feed")

// lockFeed does nothing where flock is not available.
func lockFeed(string) (func(), error) { return func() {}, nil }
