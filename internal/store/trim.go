//go:build cgo

package store

/*
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
static void bankmirror_trim(void) { malloc_trim(0); }
#else
static void bankmirror_trim(void) {}
#endif
*/
import "C"

// trimHeap returns the C heap's free pages to the OS (glibc's malloc_trim;
// a no-op elsewhere). SQLite allocates from several malloc arenas (one per
// thread that called it), and glibc keeps what they free.
func trimHeap() { C.bankmirror_trim() }
