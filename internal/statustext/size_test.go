package statustext

import (
	"testing"

	"github.com/bankmirror/bankmirror/internal/store"
)

// status says the mirror's size and what a transaction costs, the WAL
// included.
func TestDescribeSize(t *testing.T) {
	sz := store.Size{Bytes: 3 << 30, FreeBytes: 3 << 20, WALBytes: 4 << 20}
	if got, want := describeSize(sz, 1_000_000), "3.0 GiB (3,225 bytes a transaction; 3.0 MiB free; WAL 4.0 MiB)"; got != want {
		t.Errorf("describeSize = %q, want %q", got, want)
	}
	if got, want := describeSize(store.Size{Bytes: 4096}, 0), "4.0 KiB (0 bytes free; WAL 0 bytes)"; got != want {
		t.Errorf("an empty mirror: %q, want %q", got, want)
	}
}
