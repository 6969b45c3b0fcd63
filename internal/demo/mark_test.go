package demo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bankmirror/bankmirror/internal/store"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// writeMirror creates a closed mirror at path, marked as the demo's or not.
func writeMirror(t *testing.T, path string, mark bool) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutState(ctx, "other", 1); err != nil {
		t.Fatal(err)
	}
	if mark {
		if err := Mark(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCheckReplaceable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	writeMirror(t, path("demo.db"), true)
	writeMirror(t, path("real.db"), false)
	for name, data := range map[string]string{"empty.db": "", "notes.txt": "not SQLite at all",
		"walled.db": "", "walled.db-wal": "frames not yet checkpointed"} {
		if err := os.WriteFile(path(name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(path("dir.db"), 0o700); err != nil {
		t.Fatal(err)
	}
	before := names(t, dir)

	for _, name := range []string{"missing.db", "empty.db", "demo.db"} {
		if err := CheckReplaceable(ctx, path(name)); err != nil {
			t.Errorf("%s: %v, want replaceable", name, err)
		}
	}
	for _, name := range []string{"real.db", "notes.txt", "walled.db", "dir.db"} {
		if err := CheckReplaceable(ctx, path(name)); !errors.Is(err, ErrNotDemo) {
			t.Errorf("%s: %v, want ErrNotDemo", name, err)
		}
	}
	if after := names(t, dir); !slices.Equal(after, before) {
		t.Errorf("files after the checks = %q, want %q", after, before)
	}
}
