//go:build linux && cgo

package malloc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/bankmirror/bankmirror/internal/store"
)

func TestSQLiteAllocatesFromOneMallocArena(t *testing.T) {
	if os.Getenv("MALLOC_ARENA_MAX") != "" {
		t.Skip("MALLOC_ARENA_MAX is set: glibc follows it")
	}
	if arenas() < 0 {
		t.Skip("not glibc")
	}
	// Connections used from several OS threads at once: by default each
	// thread would get an arena of its own.
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			s, err := store.Open(context.Background(), filepath.Join(dir, fmt.Sprintf("m%d.db", i)))
			if err != nil {
				errs <- err
				return
			}
			errs <- s.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := arenas(); n != 1 {
		t.Errorf("malloc arenas = %d, want 1", n)
	}
}
