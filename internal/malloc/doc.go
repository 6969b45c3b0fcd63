// Package malloc tunes and trims the C heap that SQLite (through cgo)
// allocates from. With glibc it makes malloc keep one arena for every
// thread, from a constructor that runs before the Go runtime starts
// threads, and Trim returns freed pages to the OS. Elsewhere (musl, no
// cgo) it does nothing. Burst raises Go's garbage collector target while a
// burst of webhook deliveries lasts.
//
// The constructor runs only in a binary that links this package: the
// daemon does, through its call to Trim after every sync.
package malloc
