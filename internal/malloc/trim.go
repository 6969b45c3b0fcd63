//go:build cgo

package malloc

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

// Trim returns the C heap's free pages to the OS (glibc's malloc_trim;
// a no-op elsewhere): glibc keeps what SQLite frees until asked.
func Trim() { C.bankmirror_trim() }
