//go:build linux && cgo

package malloc

/*
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>

// bankmirror_one_malloc_arena makes glibc's malloc, which SQLite's page
// caches use, keep one arena for every thread, unless MALLOC_ARENA_MAX is
// set. By default glibc gives each thread that allocates an arena of its
// own, and cgo calls run on whichever thread Go picks, so one connection's
// 8 MB cache would be spread over half a dozen arenas, each holding freed
// memory the others cannot reuse, which raises the daemon's peak RSS.
// Other C libraries (musl) have no arenas, and no M_ARENA_MAX. It runs as
// a constructor, before the Go runtime starts threads: a thread that has
// allocated keeps its arena.
__attribute__((constructor)) static void bankmirror_one_malloc_arena(void) {
#ifdef M_ARENA_MAX
	if (getenv("MALLOC_ARENA_MAX") == NULL) {
		mallopt(M_ARENA_MAX, 1);
	}
#endif
}

// bankmirror_malloc_arenas counts malloc's arenas (malloc_info's heaps);
// -1 when unknown.
static int bankmirror_malloc_arenas(void) {
#ifdef M_ARENA_MAX
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL) {
		return -1;
	}
	int ok = malloc_info(0, f) == 0;
	fclose(f);
	int n = 0;
	for (char *p = buf; ok && (p = strstr(p, "<heap nr=")) != NULL; p++) {
		n++;
	}
	free(buf);
	return ok ? n : -1;
#else
	return -1;
#endif
}
*/
import "C"

// arenas is the number of glibc malloc arenas in use, or -1 when unknown
// (another C library).
func arenas() int { return int(C.bankmirror_malloc_arenas()) }
